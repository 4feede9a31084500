package httpguard

import (
	"errors"
	"fmt"
	"mime"
	"net"
	"net/http"
	"os"
	"slices"
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

// Config configures a Guard.
type Config struct {
	// Addr is the address the server listens on, HOST:PORT as given to
	// net.Listen; a host name in it (not an IP address) is answered.
	// "" for none.
	Addr string
	// Hosts are further host names the server answers to (a DNS name,
	// a reverse proxy's name), matched without case and without a
	// trailing dot; nil for none. Each must be a host name without a
	// port: ValidHost says which are.
	Hosts []string
	// Flag names the option that adds a host (e.g. "--allowed-host"), for
	// the message of a refused Host; "" leaves the hint out.
	Flag string
	// Error writes a refusal with its status code and message; nil
	// means http.Error (text/plain).
	Error func(w http.ResponseWriter, code int, msg string)
}

// Guard is the wrapper New returns. It is safe for concurrent use.
type Guard struct {
	hosts []string // lower case, without trailing dots
	flag  string
	error func(w http.ResponseWriter, code int, msg string)
	cop   *http.CrossOriginProtection
}

// ValidHost returns an error if h is not a host name a Host header can
// carry: empty, with a port, a scheme, a path or white space.
func ValidHost(h string) error {
	if h == "" {
		return errors.New("an empty host name")
	}
	if strings.ContainsAny(h, ":/ \t@?#[]") || strings.ContainsFunc(h, unicode.IsControl) {
		return fmt.Errorf("%q is not a host name (give a name such as evolve.example.org, without scheme or port)", h)
	}
	return nil
}

// New returns a Guard for cfg. It returns an error naming the first of
// cfg.Hosts that ValidHost refuses.
func New(cfg Config) (*Guard, error) {
	g := &Guard{flag: cfg.Flag, error: cfg.Error, cop: http.NewCrossOriginProtection()}
	if g.error == nil {
		g.error = func(w http.ResponseWriter, code int, msg string) { http.Error(w, msg, code) }
	}
	add := func(h string) {
		h = strings.ToLower(strings.TrimSuffix(h, "."))
		if h != "" && !slices.Contains(g.hosts, h) {
			g.hosts = append(g.hosts, h)
		}
	}
	for _, h := range cfg.Hosts {
		if err := ValidHost(h); err != nil {
			return nil, err
		}
		add(h)
	}
	if cfg.Addr != "" {
		if h, _, err := net.SplitHostPort(cfg.Addr); err == nil && net.ParseIP(h) == nil {
			add(h)
		}
	}
	if name, err := os.Hostname(); err == nil {
		add(name)
	}
	return g, nil
}

// AllowsHost reports whether the server answers a request whose Host
// header is hostport (HOST or HOST:PORT; the port is not checked): an
// IP address, localhost or a name under .localhost, or one of the
// Guard's names. An empty Host (HTTP/1.0 sends none) is allowed: no
// browser sends a request without one.
func (g *Guard) AllowsHost(hostport string) bool {
	if hostport == "" {
		return true
	}
	h := hostport
	if host, _, err := net.SplitHostPort(hostport); err == nil {
		h = host
	}
	h = strings.TrimSuffix(strings.TrimSuffix(strings.TrimPrefix(h, "["), "]"), ".")
	if net.ParseIP(h) != nil {
		return true // an address: no name a page's DNS could rebind
	}
	h = strings.ToLower(h)
	return h == "localhost" || strings.HasSuffix(h, ".localhost") || slices.Contains(g.hosts, h)
}

// Check returns the status code and message of a refusal of r, or 0 and
// "" if the guard lets it through.
func (g *Guard) Check(r *http.Request) (int, string) {
	if !g.AllowsHost(r.Host) {
		msg := fmt.Sprintf("Host %q is not a name this server answers to: it answers to IP addresses, localhost, this machine's name and the names it is given", r.Host)
		if g.flag != "" {
			msg += " (" + g.flag + " NAME)"
		}
		return http.StatusForbidden, msg
	}
	switch r.Method {
	case http.MethodGet, http.MethodHead, http.MethodOptions:
		return 0, ""
	}
	if err := g.cop.Check(r); err != nil {
		return http.StatusForbidden, fmt.Sprintf("%s %s from another origin (Origin %q, Sec-Fetch-Site %q) refused: state changes are taken from the server's own origin and from programs that are not browsers",
			r.Method, r.URL.Path, r.Header.Get("Origin"), r.Header.Get("Sec-Fetch-Site"))
	}
	ct := r.Header.Get("Content-Type")
	if mt, _, err := mime.ParseMediaType(ct); err != nil || mt != "application/json" {
		return http.StatusUnsupportedMediaType, fmt.Sprintf("%s %s: Content-Type %q, want application/json (curl: -H 'Content-Type: application/json')", r.Method, r.URL.Path, ct)
	}
	return 0, ""
}

// Handler returns next behind the guard: a request Check refuses gets
// the guard's error and never reaches next.
func (g *Guard) Handler(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if code, msg := g.Check(r); code != 0 {
			if code == http.StatusUnsupportedMediaType {
				w.Header().Set("Accept-Post", "application/json")
			}
			g.error(w, code, msg)
			return
		}
		next.ServeHTTP(w, r)
	})
}
