package httpguard

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync/atomic"
	"testing"
)

// TestGuard sends the requests of a browser on other origins, of a
// rebound name and of ordinary clients to a real server on loopback.
func TestGuard(t *testing.T) {
	g, err := New(Config{Addr: "evolve.internal:8080", Hosts: []string{"Proxy.Example.org."}, Flag: "--allowed-host"})
	if err != nil {
		t.Fatal(err)
	}
	var reached atomic.Int32
	ts := httptest.NewServer(g.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		reached.Add(1)
		io.WriteString(w, "ok")
	})))
	defer ts.Close()
	self := ts.Listener.Addr().String()
	hostname, _ := os.Hostname()
	tests := []struct {
		name                string
		method, host        string
		origin, site, ctype string
		want                int
		wantIn              string // in the refusal's body
	}{
		{"GET from curl", "GET", self, "", "", "", 200, ""},
		{"GET localhost", "GET", "localhost:8080", "", "", "", 200, ""},
		{"GET LOCALHOST.", "GET", "LOCALHOST.", "", "", "", 200, ""},
		{"GET app.localhost", "GET", "app.localhost:1", "", "", "", 200, ""},
		{"GET IPv6 loopback", "GET", "[::1]:8080", "", "", "", 200, ""},
		{"GET another address", "GET", "10.1.2.3:8080", "", "", "", 200, ""},
		{"GET the listen name", "GET", "evolve.internal:8080", "", "", "", 200, ""},
		{"GET an allowed name", "GET", "proxy.example.org", "", "", "", 200, ""},
		{"GET the machine's name", "GET", hostname, "", "", "", 200, ""},
		{"GET a rebound name", "GET", "attacker.example", "", "", "", 403, `Host "attacker.example" is not a name this server answers to`},
		{"GET a rebound name with port", "GET", "attacker.example:" + strings.Split(self, ":")[1], "", "", "", 403, "--allowed-host NAME"},
		{"GET a name ending in an allowed one", "GET", "xproxy.example.org", "", "", "", 403, ""},
		{"GET localhost.attacker.example", "GET", "localhost.attacker.example", "", "", "", 403, ""},
		{"POST JSON from curl", "POST", self, "", "", "application/json", 200, ""},
		{"POST JSON with charset", "POST", self, "", "", "application/json; charset=utf-8", 200, ""},
		{"POST JSON same origin", "POST", self, "http://" + self, "same-origin", "application/json", 200, ""},
		{"POST no-cors text/plain, other port", "POST", self, "http://127.0.0.1:9", "same-site", "text/plain;charset=UTF-8", 403, "from another origin"},
		{"POST JSON, other origin", "POST", self, "http://attacker.example", "cross-site", "application/json", 403, "from another origin"},
		{"POST Origin only, other origin", "POST", self, "http://127.0.0.1:9", "", "application/json", 403, "from another origin"},
		{"POST text/plain, no browser headers", "POST", self, "", "", "text/plain", 415, `Content-Type "text/plain", want application/json`},
		{"POST form, no browser headers", "POST", self, "", "", "application/x-www-form-urlencoded", 415, "want application/json"},
		{"POST no Content-Type", "POST", self, "", "", "", 415, "want application/json"},
		{"PUT text/plain", "PUT", self, "", "", "text/plain", 415, ""},
		{"POST rebound name", "POST", "attacker.example", "http://attacker.example", "same-origin", "application/json", 403, "Host"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := reached.Load()
			req, _ := http.NewRequest(tt.method, ts.URL+"/v1/observe", strings.NewReader(`{}`))
			req.Host = tt.host
			for k, v := range map[string]string{"Origin": tt.origin, "Sec-Fetch-Site": tt.site, "Content-Type": tt.ctype} {
				if v != "" {
					req.Header.Set(k, v)
				}
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != tt.want || !strings.Contains(string(body), tt.wantIn) {
				t.Fatalf("%d %s, want %d with %q", resp.StatusCode, body, tt.want, tt.wantIn)
			}
			if got := reached.Load() - before; (tt.want == 200) != (got == 1) {
				t.Errorf("the handler ran %d times", got)
			}
		})
	}
}

func TestNewRefusesBadHosts(t *testing.T) {
	for _, h := range []string{"", "a.example:80", "http://a.example", "a b", "a/b", "[::1]"} {
		if _, err := New(Config{Hosts: []string{h}}); err == nil {
			t.Errorf("New with host %q: no error", h)
		}
	}
}

func TestCheckToken(t *testing.T) {
	tests := []struct {
		tok  string
		want string // "" for accepted
	}{
		{"0123456789abcdef", ""},
		{"ééééééééééééééé", "15 characters"},
		{" ", "1 characters, want at least 16"},
		{"", "0 characters"},
		{"0123456789abcdef ", "white space or a control character at byte 16"},
		{"0123456789\tabcdef", "byte 10"},
		{"0123456789abcdef\x00", "control character"},
		{"0123456789abcdef\xff", "not valid UTF-8"},
	}
	for _, tt := range tests {
		err := CheckToken(tt.tok)
		if tt.want == "" {
			if err != nil {
				t.Errorf("CheckToken(%q) = %v", tt.tok, err)
			}
			continue
		}
		if !errors.Is(err, ErrWeakToken) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("CheckToken(%q) = %v, want ErrWeakToken with %q", tt.tok, err, tt.want)
		}
	}
}
