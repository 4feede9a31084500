package main

import (
	"context"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"evolve/internal/testwait"
)

// runBounded runs the CLI in-process, as a server command would run, and
// returns its exit status and stderr; a command still running after
// limit is stopped (its context cancelled) and reported as -1.
func runBounded(t *testing.T, limit time.Duration, args ...string) (int, string) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stdout, stderr := &syncBuffer{}, &syncBuffer{}
	done := make(chan int, 1)
	go func() { done <- run(ctx, stdout, stderr, args) }()
	select {
	case code := <-done:
		return code, stderr.String()
	case <-time.After(limit):
		cancel()
		<-done
		return -1, stderr.String()
	}
}

// TestViewTokenRule: evolve view applies evolve serve's rule to its
// token (at least 16 characters, no white space), on any address.
func TestViewTokenRule(t *testing.T) {
	dir := t.TempDir()
	weak := filepath.Join(dir, "weak")
	os.WriteFile(weak, []byte("sesame\n"), 0o600)
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"a blank on every interface", []string{"--addr", "0.0.0.0:0", "--token", " "}, "--token: weak bearer token: 1 characters, want at least 16"},
		{"short on loopback", []string{"--addr", "127.0.0.1:0", "--token", "abc"}, "--token: weak bearer token: 3 characters, want at least 16"},
		{"inner white space", []string{"--addr", "0.0.0.0:0", "--token", "0123456789 abcdef"}, "--token: weak bearer token: white space or a control character at byte 10"},
		{"short file", []string{"--addr", "0.0.0.0:0", "--token-file", weak}, "--token-file " + weak + ": weak bearer token: 6 characters"},
		{"bad allowed host", []string{"--addr", "127.0.0.1:0", "--allowed-host", "evolve.test:80"}, `--allowed-host: "evolve.test:80" is not a host name`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stderr := runBounded(t, 10*time.Second, append(append([]string{"view"}, tt.args...), dir)...)
			if code != exitUsage || !strings.Contains(stderr, tt.want) {
				t.Fatalf("exit %d (-1: still serving), stderr:\n%s\nwant exit 2 with %q", code, stderr, tt.want)
			}
		})
	}
	code, stderr := runBounded(t, 10*time.Second, "serve", "--addr", "127.0.0.1:0", "--allowed-host", "http://evolve.test", "--store", serveStore(t))
	if code != exitUsage || !strings.Contains(stderr, `--allowed-host: "http://evolve.test" is not a host name`) {
		t.Fatalf("serve with a bad --allowed-host: exit %d:\n%s", code, stderr)
	}
}

var viewListening = regexp.MustCompile(`evolve view: (http://127\.0\.0\.1:\d+)/`)

// TestServeViewHosts: both servers, started as the command starts them,
// refuse a rebound Host and answer their own and --allowed-host's.
func TestServeViewHosts(t *testing.T) {
	serveURL, _, _ := startServe(t, "--store", serveStore(t), "--allowed-host", "evolve.test")

	ctx, cancel := context.WithCancel(context.Background())
	stdout, stderr := &syncBuffer{}, &syncBuffer{}
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, stdout, stderr, []string{"view", "--addr", "127.0.0.1:0", "--allowed-host", "evolve.test", t.TempDir()})
	}()
	t.Cleanup(func() { cancel(); <-done })
	var viewURL string
	deadline := time.Now().Add(10 * time.Second)
	for viewURL == "" {
		if time.Now().After(deadline) {
			t.Fatalf("evolve view printed no URL:\n%s%s", stdout, stderr)
		}
		if m := viewListening.FindStringSubmatch(stdout.String()); m != nil {
			viewURL = m[1]
		}
		select {
		case code := <-done:
			done <- code
			t.Fatalf("evolve view exited %d:\n%s", code, stderr)
		case <-time.After(10 * time.Millisecond):
		}
	}

	for _, srv := range []struct{ name, url, path string }{{"serve", serveURL, "/v1/weights"}, {"view", viewURL, "/api/runs"}} {
		port := srv.url[strings.LastIndex(srv.url, ":")+1:]
		for host, want := range map[string]int{
			"attacker.example:" + port: 403,
			"attacker.example":         403,
			"127.0.0.1:" + port:        200,
			"localhost:" + port:        200,
			"evolve.test:" + port:      200,
		} {
			req, _ := http.NewRequest("GET", srv.url+srv.path, nil)
			req.Host = host
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != want {
				t.Errorf("%s, Host %s: %d %.200s, want %d", srv.name, host, resp.StatusCode, body, want)
			}
		}
	}
}

// TestSignalMessages: the line the first SIGINT or SIGTERM prints says
// what the command does; only run and eval write a checkpoint (and
// ablate, the checkpoints of its runs).
func TestSignalMessages(t *testing.T) {
	for cmd, want := range map[string]string{
		"run":     "stopping after in-flight episodes and writing the checkpoint",
		"eval":    "stopping after in-flight episodes and writing the checkpoint",
		"view":    "closing the server",
		"compare": "stopping",
		"power":   "stopping",
		"serve":   "finishing the requests in flight and writing their observations",
		"ablate":  "stopping its runs after their in-flight episodes and writing their checkpoints",
	} {
		if got := signalDoing(cmd); got != want {
			t.Errorf("%s: %q, want %q", cmd, got, want)
		}
	}
	for _, c := range Commands {
		name := c.Name()
		if name != "run" && name != "eval" && name != "ablate" && strings.Contains(signalDoing(name), "checkpoint") {
			t.Errorf("%s says it writes a checkpoint: %q", name, signalDoing(name))
		}
	}

	// The real command, signalled.
	cmd := exec.Command(os.Args[0], "view", "--addr", "127.0.0.1:0", t.TempDir())
	cmd.Env = append(os.Environ(), "EVOLVE_TEST_MAIN=1")
	stdout, stderr := &syncBuffer{}, &syncBuffer{}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if !testwait.Until(20*time.Second, func() bool { return strings.Contains(stdout.String(), "evolve view: http://") }) {
		cmd.Process.Kill()
		t.Fatalf("evolve view printed no URL within 20 s:\n%s%s", stdout, stderr)
	}
	cmd.Process.Signal(syscall.SIGTERM)
	err := cmd.Wait()
	if want := "evolve: terminated: closing the server (send it again to exit now)\n"; stderr.String() != want {
		t.Errorf("view's stderr after SIGTERM (%v):\n%s\nwant\n%s", err, stderr, want)
	}
}
