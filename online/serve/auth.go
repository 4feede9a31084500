package serve

import (
	"crypto/subtle"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MinTokenLen is the fewest characters (Unicode code points) of a bearer
// token: 16 random characters from the 62 letters and digits are about
// 95 bits, beyond guessing over HTTP.
const MinTokenLen = 16

// ErrWeakToken is the error of CheckToken: a token too short, or holding
// white space or control characters (which a shell, a header or a token
// file would change).
var ErrWeakToken = errors.New("weak bearer token")

// CheckToken returns an error wrapping ErrWeakToken if tok has fewer than
// MinTokenLen characters, is not valid UTF-8, or holds white space or a
// control character; nil otherwise. The message never quotes the token.
func CheckToken(tok string) error {
	if !utf8.ValidString(tok) {
		return fmt.Errorf("%w: not valid UTF-8", ErrWeakToken)
	}
	if n := utf8.RuneCountInString(tok); n < MinTokenLen {
		return fmt.Errorf("%w: %d characters, want at least %d (e.g. openssl rand -hex 32)", ErrWeakToken, n, MinTokenLen)
	}
	for i, r := range tok {
		if unicode.IsSpace(r) || unicode.IsControl(r) {
			return fmt.Errorf("%w: white space or a control character at byte %d", ErrWeakToken, i)
		}
	}
	return nil
}

// bearer returns the token of an "Authorization: Bearer TOKEN" header
// value; the scheme is matched in any case (RFC 6750 section 2.1 and RFC
// 9110 section 11.1: auth schemes are case-insensitive), one or more
// spaces may follow it.
func bearer(h string) (string, bool) {
	scheme, tok, ok := strings.Cut(h, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	tok = strings.TrimLeft(tok, " ")
	return tok, tok != ""
}

// readOnly reports whether the endpoint of path only reads (select,
// weights, metrics), which Config.PublicRead opens.
func readOnly(path string) bool {
	switch path {
	case "/v1/select", "/v1/weights", "/metrics":
		return true
	}
	return false
}

// requireToken wraps next so that, with a token configured, every
// request but GET /healthz (and, with PublicRead, the read-only
// endpoints) carries it; others get 401 with a WWW-Authenticate header.
func (s *Server) requireToken(next http.Handler) http.Handler {
	if s.cfg.Token == "" {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/healthz" || (s.cfg.PublicRead && readOnly(r.URL.Path)) {
			next.ServeHTTP(w, r)
			return
		}
		got, ok := bearer(r.Header.Get("Authorization"))
		if ok && subtle.ConstantTimeCompare([]byte(got), []byte(s.cfg.Token)) == 1 {
			next.ServeHTTP(w, r)
			return
		}
		w.Header().Set("WWW-Authenticate", `Bearer realm="evolve"`)
		what := "every endpoint but /healthz needs"
		if s.cfg.PublicRead {
			what = "writes need"
		}
		writeError(w, http.StatusUnauthorized, "", what+" the header Authorization: Bearer TOKEN")
	})
}
