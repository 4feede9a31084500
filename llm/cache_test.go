package llm_test

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"evolve/internal/atomicfile"
	"evolve/llm"
	"evolve/llm/llmtest"
)

// TestCacheHit: a second call of the same request is answered from the
// cache with the same content and tokens, no request, latency 0.
func TestCacheHit(t *testing.T) {
	st := newSetup(t, withCache(t, llm.ModeReadWrite))
	first, err := st.cl.Complete(context.Background(), msgs)
	if err != nil {
		t.Fatal(err)
	}
	second, err := st.cl.Complete(context.Background(), msgs)
	if err != nil {
		t.Fatal(err)
	}
	want := first
	want.Cached, want.Latency, want.Requests = true, 0, 0
	if second != want {
		t.Fatalf("hit = %+v, want %+v", second, want)
	}
	if n := st.srv.Requests(); n != 1 {
		t.Fatalf("%d requests, want 1", n)
	}
	// Another seed is another request.
	other := config(st.srv)
	s2 := int64(8)
	other.Seed = &s2
	cl2, err := llm.New(other, llm.Options{Cache: st.cache, Mode: llm.ModeReadWrite, LookupEnv: lookup})
	if err != nil {
		t.Fatal(err)
	}
	if r, err := cl2.Complete(context.Background(), msgs); err != nil || r.Cached {
		t.Fatalf("another seed: %+v, %v; want a fetch", r, err)
	}
	if s := st.cl.Stats(); s.CacheHits != 1 || s.CacheMisses != 1 || s.Requests != 1 || s.PromptTokens != int64(first.PromptTokens) {
		t.Errorf("Stats = %+v", s)
	}
	if s := st.cache.Stats(); s.Hits != 1 || s.Misses != 2 || s.Puts != 2 {
		t.Errorf("cache Stats = %+v", s)
	}
}

// TestCacheCorrupt: a damaged entry is detected, refetched and rewritten.
func TestCacheCorrupt(t *testing.T) {
	for _, tc := range []struct {
		name   string
		damage func([]byte) []byte
	}{
		{"truncated", func(b []byte) []byte { return b[:len(b)/2] }},
		{"empty", func([]byte) []byte { return nil }},
		{"content-changed", func(b []byte) []byte { return bytes.Replace(b, []byte("ACTION: eat"), []byte("ACTION: die"), 1) }},
		{"checksum-changed", func(b []byte) []byte {
			i := bytes.Index(b, []byte(`"reply_sha256":"`)) + len(`"reply_sha256":"`)
			b[i] ^= 1
			return b
		}},
		{"other-request", func(b []byte) []byte { return bytes.Replace(b, []byte(`"seed":7`), []byte(`"seed":9`), 1) }},
		{"format-2", func(b []byte) []byte { return bytes.Replace(b, []byte(`"format":1`), []byte(`"format":2`), 1) }},
		{"trailing-data", func(b []byte) []byte { return append(b, "{}\n"...) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := newSetup(t, withCache(t, llm.ModeReadWrite))
			if _, err := st.cl.Complete(context.Background(), msgs); err != nil {
				t.Fatal(err)
			}
			p := st.cache.Path(st.cl.Request(msgs))
			good, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, tc.damage(gunzip(t, good)), 0o644); err != nil {
				t.Fatal(err)
			}
			r, err := st.cl.Complete(context.Background(), msgs)
			if err != nil || r.Cached || r.Content != "ACTION: eat" {
				t.Fatalf("after damage: %+v, %v; want a refetch", r, err)
			}
			if n := st.srv.Requests(); n != 2 {
				t.Fatalf("%d requests, want 2", n)
			}
			if s := st.cache.Stats(); s.Corrupt != 1 {
				t.Fatalf("cache Stats = %+v, want 1 corrupt", s)
			}
			again, _ := os.ReadFile(p)
			if !bytes.Equal(again, good) {
				t.Fatalf("rewritten entry differs:\n%s\n%s", again, good)
			}
		})
	}
}

// TestCacheReadMode: read mode answers hits, and a miss is ErrNotCached
// with no request sent, even without the key's variable.
func TestCacheReadMode(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "llm")
	rw := newSetup(t, func(c *llm.Config, o *llm.Options) {
		withCache(t, llm.ModeReadWrite)(c, o)
		cache, _ := llm.OpenCache(dir)
		o.Cache = cache
	})
	want, err := rw.cl.Complete(context.Background(), msgs)
	if err != nil {
		t.Fatal(err)
	}
	ro := newSetup(t, func(c *llm.Config, o *llm.Options) {
		cache, _ := llm.OpenCache(dir)
		o.Cache, o.Mode = cache, llm.ModeRead
		o.LookupEnv = func(string) (string, bool) { return "", false } // offline: no key
	})
	r, err := ro.cl.Complete(context.Background(), msgs)
	if err != nil || !r.Cached || r.Content != want.Content {
		t.Fatalf("read mode hit: %+v, %v", r, err)
	}
	miss := []llm.Message{{Role: llm.RoleUser, Content: "never asked"}}
	_, err = ro.cl.Complete(context.Background(), miss)
	if !errors.Is(err, llm.ErrNotCached) || !strings.Contains(err.Error(), "not in the cache") {
		t.Fatalf("read mode miss: %v, want ErrNotCached", err)
	}
	if n := ro.srv.Requests(); n != 0 {
		t.Fatalf("read mode sent %d requests", n)
	}
	if s := ro.cl.Stats(); s.CacheHits != 1 || s.CacheMisses != 1 || s.Requests != 0 || s.Errors != 1 {
		t.Errorf("Stats = %+v", s)
	}
}

// TestCacheOffMode: mode off never touches the cache.
func TestCacheOffMode(t *testing.T) {
	var cache *llm.Cache
	st := newSetup(t, func(c *llm.Config, o *llm.Options) {
		withCache(t, llm.ModeOff)(c, o)
		cache = o.Cache
	})
	for range 2 {
		if r, err := st.cl.Complete(context.Background(), msgs); err != nil || r.Cached {
			t.Fatal(r, err)
		}
	}
	if st.srv.Requests() != 2 || cache.Stats() != (llm.CacheStats{}) {
		t.Fatalf("requests %d, cache %+v", st.srv.Requests(), cache.Stats())
	}
}

// TestKeyNeverStored: after successes, a 401 whose body quotes the key,
// and exhausted retries, no file of the cache directory and no error
// holds the key, though the server received it.
func TestKeyNeverStored(t *testing.T) {
	st := newSetup(t, withCache(t, llm.ModeReadWrite))
	var errs []string
	for i := range 5 {
		m := []llm.Message{{Role: llm.RoleUser, Content: fmt.Sprintf("turn %d Hungry", i)}}
		if _, err := st.cl.Complete(context.Background(), m); err != nil {
			t.Fatal(err)
		}
	}
	st.srv.FailNth(6, llmtest.Unauthorized)
	for n := int64(7); n <= 20; n++ {
		st.srv.FailNth(n, llmtest.ServerError)
	}
	for i := range 2 {
		m := []llm.Message{{Role: llm.RoleUser, Content: fmt.Sprintf("failing %d", i)}}
		_, err := st.cl.Complete(context.Background(), m)
		if err == nil {
			t.Fatal("want an error")
		}
		errs = append(errs, err.Error())
	}
	if st.srv.LastAuthorization() != "Bearer "+testKey {
		t.Fatal("the server did not get the key")
	}
	for _, e := range errs {
		noKey(t, "error", e)
	}
	files := 0
	err := filepath.WalkDir(st.cache.Dir(), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		files++
		b, err := os.ReadFile(p)
		noKey(t, p, string(gunzip(t, b)))
		noKey(t, "file name", p)
		return err
	})
	if err != nil || files != 5 {
		t.Fatalf("walked %d files (%v), want 5 entries", files, err)
	}
}

// cacheReq is the i-th request of the concurrency tests.
func cacheReq(i int) llm.Request {
	return llm.Request{Model: "m", Messages: []llm.Message{{Role: llm.RoleUser, Content: "q" + strconv.Itoa(i)}}, MaxTokens: 8}
}

func cacheReply(i int) llm.Reply {
	return llm.Reply{Content: "a" + strconv.Itoa(i), FinishReason: "stop", PromptTokens: i, CompletionTokens: 1}
}

// hammer puts requests 0..n-1 starting at offset, wrapping, and gets each
// after putting it.
func hammer(c *llm.Cache, n, offset int) error {
	for j := range n {
		i := (j + offset) % n
		if err := c.Put(cacheReq(i), cacheReply(i)); err != nil {
			return err
		}
		r, ok, err := c.Get(cacheReq(i))
		want := cacheReply(i)
		want.Cached, want.Request = true, cacheReq(i).Hash()
		if err != nil || !ok || r != want {
			return fmt.Errorf("Get(%d) after Put = %+v, %v, %v", i, r, ok, err)
		}
	}
	return nil
}

const concurrentKeys = 200

// verifyAll checks every file of the cache: an entry of the request its
// path names, no temporary file. It returns the number of entries.
func verifyAll(t *testing.T, c *llm.Cache, n int) {
	t.Helper()
	for i := range n {
		if _, ok, err := c.Get(cacheReq(i)); !ok || err != nil {
			t.Errorf("entry %d: %v, %v", i, ok, err)
		}
	}
	files := 0
	filepath.WalkDir(c.Dir(), func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			files++
			if strings.HasPrefix(d.Name(), ".") {
				t.Errorf("temporary file left: %s", p)
			}
		}
		return err
	})
	if files != n {
		t.Errorf("%d files, want %d", files, n)
	}
	if s := c.Stats(); s.Corrupt != 0 {
		t.Errorf("corrupt entries seen: %+v", s)
	}
}

func TestCacheConcurrentGoroutines(t *testing.T) {
	c, err := llm.OpenCache(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make([]error, 8)
	for g := range errs {
		wg.Go(func() { errs[g] = hammer(c, concurrentKeys, g*concurrentKeys/len(errs)) })
	}
	wg.Wait()
	for g, err := range errs {
		if err != nil {
			t.Errorf("goroutine %d: %v", g, err)
		}
	}
	verifyAll(t, c, concurrentKeys)
}

// TestClientConcurrentSameRequests: 32 goroutines ask 8 requests through
// one client and cache: every answer is right, every entry whole.
func TestClientConcurrentSameRequests(t *testing.T) {
	st := newSetup(t, withCache(t, llm.ModeReadWrite))
	var wg sync.WaitGroup
	errs := make([]error, 32)
	for g := range errs {
		wg.Go(func() {
			for i := range 8 {
				m := []llm.Message{{Role: llm.RoleUser, Content: fmt.Sprintf("q%d %s", i, map[bool]string{true: "Hungry"}[i%2 == 0])}}
				r, err := st.cl.Complete(context.Background(), m)
				want := map[bool]string{true: "ACTION: eat", false: "ACTION: explore"}[i%2 == 0]
				if err == nil && r.Content != want {
					err = fmt.Errorf("request %d: %q, want %q", i, r.Content, want)
				}
				if err != nil {
					errs[g] = err
					return
				}
			}
		})
	}
	wg.Wait()
	for g, err := range errs {
		if err != nil {
			t.Errorf("goroutine %d: %v", g, err)
		}
	}
	s := st.cl.Stats()
	if s.CacheHits+s.CacheMisses != 256 || s.Requests != s.CacheMisses || s.Requests < 8 || st.cache.Stats().Corrupt != 0 {
		t.Errorf("Stats = %+v, cache %+v", s, st.cache.Stats())
	}
}

// Roles of this test binary re-executed as a subprocess: roleEnv holds
// "writer DIR OFFSET" (hammer DIR), "puts DIR N" (put requests 0..N-1)
// or "serve DELAY" (an llmtest server answering after DELAY; it prints
// its URL and serves until its standard input closes).
const roleEnv = "LLMTEST_ROLE"

// role runs the subprocess role v, if any, and exits; it returns false
// for v == "".
func role(v string) bool {
	if v == "" {
		return false
	}
	f := strings.Fields(v)
	var err error
	switch f[0] {
	case "writer":
		off, _ := strconv.Atoi(f[2])
		var c *llm.Cache
		if c, err = llm.OpenCache(f[1]); err == nil {
			err = hammer(c, concurrentKeys, off)
		}
	case "puts":
		n, _ := strconv.Atoi(f[2])
		var c *llm.Cache
		c, err = llm.OpenCache(f[1])
		for i := 0; err == nil && i < n; i++ {
			err = c.Put(cacheReq(i), cacheReply(i))
		}
	case "serve":
		d, _ := time.ParseDuration(f[1])
		srv := llmtest.New(policy)
		srv.SetDelay(d)
		fmt.Println(srv.URL)
		io.Copy(io.Discard, os.Stdin)
		srv.Close()
	case "jitter":
		var waits []time.Duration
		waits, err = jitterWaits()
		fmt.Println(waits)
	default:
		err = fmt.Errorf("unknown role %q", v)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Exit(0)
	return true
}

// subprocess returns this test binary as a command in role v.
func subprocess(t testing.TB, v string, env ...string) *exec.Cmd {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), append(env, roleEnv+"="+v)...)
	return cmd
}

// TestCacheConcurrentProcesses: two processes and two goroutines of this
// one put and get overlapping requests in one directory at once.
func TestCacheConcurrentProcesses(t *testing.T) {
	c, err := llm.OpenCache(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	var cmds []*exec.Cmd
	var outs []*bytes.Buffer
	for p := range 2 {
		cmd := subprocess(t, fmt.Sprintf("writer %s %d", c.Dir(), p*concurrentKeys/4))
		out := new(bytes.Buffer)
		cmd.Stdout, cmd.Stderr = out, out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds, outs = append(cmds, cmd), append(outs, out)
	}
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for g := range errs {
		wg.Go(func() { errs[g] = hammer(c, concurrentKeys, (2+g)*concurrentKeys/4) })
	}
	wg.Wait()
	for p, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Errorf("process %d: %v\n%s", p, err, outs[p])
		}
	}
	for g, err := range errs {
		if err != nil {
			t.Errorf("goroutine %d: %v", g, err)
		}
	}
	verifyAll(t, c, concurrentKeys)
}

// TestCacheKilledPut kills a writer (SIGKILL, by the fault hook of
// internal/atomicfile) just before the rename of its third Put: two whole
// entries, the third invisible, its temporary file the only debris, which
// Clean removes once old.
func TestCacheKilledPut(t *testing.T) {
	c, err := llm.OpenCache(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	cmd := subprocess(t, "puts "+c.Dir()+" 5", atomicfile.FaultAtEnv+"=3")
	out, err := cmd.CombinedOutput()
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		t.Fatalf("writer: %v, want killed by SIGKILL\n%s", err, out)
	}
	for i := range 5 {
		if _, ok, err := c.Get(cacheReq(i)); err != nil || ok != (i < 2) {
			t.Errorf("Get(%d) = %v, %v; want a hit only for 0 and 1", i, ok, err)
		}
	}
	var temps []string
	filepath.WalkDir(c.Dir(), func(p string, d fs.DirEntry, err error) error {
		if err == nil && strings.HasPrefix(d.Name(), ".") {
			temps = append(temps, p)
		}
		return err
	})
	if len(temps) != 1 || !strings.HasPrefix(filepath.Base(temps[0]), "."+cacheReq(2).Hash()+".json.tmp-") {
		t.Fatalf("temporary files %v, want one of request 2", temps)
	}
	if n, err := c.Clean(time.Hour); n != 0 || err != nil {
		t.Fatalf("Clean(1h) of a new temporary file = %d, %v", n, err)
	}
	old := time.Now().Add(-2 * time.Hour)
	os.Chtimes(temps[0], old, old)
	if n, err := c.Clean(time.Hour); n != 1 || err != nil {
		t.Fatalf("Clean(1h) = %d, %v; want 1", n, err)
	}
	if _, err := c.Clean(-time.Second); err == nil {
		t.Fatal("Clean(-1s): want an error")
	}
	if err := hammer(c, 5, 0); err != nil {
		t.Fatal(err)
	}
	verifyAll(t, c, 5)
}

func TestCachePutRefuses(t *testing.T) {
	c, _ := llm.OpenCache(t.TempDir())
	for _, r := range []llm.Reply{{Content: ""}, {Content: "x", PromptTokens: -1}} {
		if err := c.Put(cacheReq(1), r); err == nil {
			t.Errorf("Put(%+v): want an error", r)
		}
	}
	if _, err := llm.OpenCache(""); err == nil {
		t.Error("OpenCache(\"\"): want an error")
	}
}

func TestMode(t *testing.T) {
	for _, s := range []string{"off", "read", "readwrite"} {
		m, err := llm.ParseMode(s)
		if err != nil || m.String() != s {
			t.Errorf("ParseMode(%q) = %v, %v", s, m, err)
		}
		b, _ := m.MarshalText()
		var m2 llm.Mode
		if err := m2.UnmarshalText(b); err != nil || m2 != m {
			t.Errorf("round trip of %v: %v, %v", m, m2, err)
		}
	}
	if _, err := llm.ParseMode("write"); err == nil || !strings.Contains(err.Error(), `"write"`) {
		t.Errorf("ParseMode(write): %v", err)
	}
}

// readLine reads the first line of r.
func readLine(r io.Reader) (string, error) {
	s := bufio.NewScanner(r)
	if !s.Scan() {
		return "", fmt.Errorf("no line: %v", s.Err())
	}
	return s.Text(), nil
}

// gunzip returns an entry file's JSON line.
func gunzip(t *testing.T, b []byte) []byte {
	t.Helper()
	r, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("entry is not gzip: %v", err)
	}
	out, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestCacheCompressed: entries are gzip of the JSON line, the dungeon
// agent's at about a third of their size; Stats().Bytes counts them; an
// uncompressed entry (written before compression) is still a hit.
func TestCacheCompressed(t *testing.T) {
	st := newSetup(t, withCache(t, llm.ModeReadWrite))
	sys := strings.Repeat("<rules>\n- Eat as soon as the status line shows Hungry.\n- Fight in corridors.\n</rules>\n", 16)
	var plain int
	for i := range 20 {
		m := []llm.Message{{Role: llm.RoleSystem, Content: sys}, {Role: llm.RoleUser, Content: fmt.Sprintf("Turn %d.\n|..@..d|\nDlvl:1 HP:%d(12) Hungry", i, i%12)}}
		if _, err := st.cl.Complete(context.Background(), m); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(st.cache.Path(st.cl.Request(m)))
		if err != nil {
			t.Fatal(err)
		}
		plain += len(gunzip(t, b))
	}
	s := st.cache.Stats()
	t.Logf("%d entries: %d bytes compressed (%d per entry), %d bytes as JSON (%d per entry)", s.Puts, s.Bytes, s.Bytes/s.Puts, plain, int64(plain)/s.Puts)
	if s.Puts != 20 || s.Bytes == 0 || 3*s.Bytes > int64(plain) {
		t.Errorf("cache Stats %+v: %d bytes compressed of %d, want at most a third", s, s.Bytes, plain)
	}
	p := st.cache.Path(st.cl.Request(msgs))
	if _, err := st.cl.Complete(context.Background(), msgs); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(p)
	os.WriteFile(p, gunzip(t, b), 0o644)
	if r, err := st.cl.Complete(context.Background(), msgs); err != nil || !r.Cached {
		t.Errorf("an uncompressed entry: %+v, %v; want a hit", r, err)
	}
}
