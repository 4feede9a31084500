package serve

import (
	"crypto/subtle"
	"net/http"
	"strings"

	"evolve/internal/httpguard"
)

// MinTokenLen is the fewest characters of a bearer token
// (httpguard.MinTokenLen, the rule evolve view follows too).
const MinTokenLen = httpguard.MinTokenLen

// ErrWeakToken is the error of CheckToken (httpguard.ErrWeakToken).
var ErrWeakToken = httpguard.ErrWeakToken

// CheckToken returns an error wrapping ErrWeakToken if tok has fewer than
// MinTokenLen characters, is not valid UTF-8, or holds white space or a
// control character; nil otherwise (httpguard.CheckToken). The message
// never quotes the token.
func CheckToken(tok string) error { return httpguard.CheckToken(tok) }

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
