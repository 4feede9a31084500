// Command loadtest is the load test of evolve serve (make load-serve):
// it starts the real server on loopback over a fresh prompt store, lets
// --clients concurrent clients issue --pairs select+observe pairs in all,
// stops the server with SIGTERM, and checks that no update was lost: the
// store's weights.json equals a replay of its observation log, and the
// log holds every answered observation exactly once. It prints the
// latency quantiles (p50, p99) of selects, observes and pairs, and the
// throughput in requests/s. Exit status 1 if a check fails.
//
// Each client draws its signals and observations from its own PCG stream
// (seeded by --seed and the client number), so the requests are the same
// run to run; the order the server sees them in, and so the weights, is
// not.
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"evolve/store"
	"flag"
	"fmt"
	"io"
	"maps"
	"math/rand/v2"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"evolve/prompt"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "loadtest:", err)
		os.Exit(1)
	}
}

// loadConfig is the command line of loadtest.
type loadConfig struct {
	bin            string
	clients, pairs int
	seed           uint64
	keep           bool
}

// latency is the time of one pair's select, observe and both.
type latency struct{ sel, obs, pair time.Duration }

func run() error {
	var cfg loadConfig
	flag.StringVar(&cfg.bin, "evolve", "bin/evolve", "the evolve `BINARY` to serve with")
	flag.IntVar(&cfg.clients, "clients", 1000, "concurrent `N` clients")
	flag.IntVar(&cfg.pairs, "pairs", 100000, "select+observe `N` pairs in all")
	flag.Uint64Var(&cfg.seed, "seed", 1, "`SEED` of the clients' streams and the server's selection")
	flag.BoolVar(&cfg.keep, "keep", false, "keep the store directory")
	flag.Parse()
	if cfg.clients <= 0 || cfg.pairs < cfg.clients {
		return fmt.Errorf("--clients must be > 0 and --pairs >= --clients: %d, %d", cfg.clients, cfg.pairs)
	}
	tmp, err := os.MkdirTemp("", "evolve-load-")
	if err != nil {
		return err
	}
	if !cfg.keep {
		defer os.RemoveAll(tmp)
	}
	dir := filepath.Join(tmp, "prompts")
	if err := makeStore(dir); err != nil {
		return err
	}

	cmd := exec.Command(cfg.bin, "serve", "--store", dir, "--addr", "127.0.0.1:0", "--seed", fmt.Sprint(cfg.seed))
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	defer cmd.Process.Kill()
	url, logs, err := waitListening(stderr)
	if err != nil {
		return err
	}
	fmt.Printf("evolve serve on %s, store %s; %d clients, %d select+observe pairs\n", url, dir, cfg.clients, cfg.pairs)

	start := time.Now()
	results, err := drive(url, cfg)
	if err != nil {
		return err
	}
	wall := time.Since(start)

	// Stop the server as an operator does, and wait for its clean exit.
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		return err
	}
	rest, _ := io.ReadAll(stderr)
	if err := cmd.Wait(); err != nil {
		return fmt.Errorf("evolve serve: %w\n%s%s", err, logs, rest)
	}
	stored, total, err := checkNoLostUpdate(dir, cfg.pairs)
	if err != nil {
		return err
	}
	fmt.Printf("no lost update: weights.json = replay of %d log events; %d observations, each request id once\n", stored.Events, total)
	printLatencies(results, wall, cfg.pairs)
	printWeights(stored)
	return nil
}

// drive runs cfg.clients clients against the server at url, issuing
// cfg.pairs select+observe pairs in all, and returns each client's
// latencies; the error is the first client's that failed.
func drive(url string, cfg loadConfig) ([][]latency, error) {
	tr := &http.Transport{MaxIdleConns: cfg.clients, MaxIdleConnsPerHost: cfg.clients, MaxConnsPerHost: cfg.clients, IdleConnTimeout: time.Minute}
	hc := &http.Client{Transport: tr, Timeout: 2 * time.Minute}
	results := make([][]latency, cfg.clients)
	errs := make(chan error, cfg.clients)
	var wg sync.WaitGroup
	for c := range cfg.clients {
		n := cfg.pairs / cfg.clients
		if c < cfg.pairs%cfg.clients {
			n++
		}
		wg.Go(func() {
			out, err := client(hc, url, cfg.seed, c, n)
			if err != nil {
				errs <- err
				return
			}
			results[c] = out
		})
	}
	wg.Wait()
	close(errs)
	var failed []error
	for err := range errs {
		failed = append(failed, err)
	}
	if len(failed) > 0 {
		return nil, fmt.Errorf("%d clients failed, the first: %w", len(failed), failed[0])
	}
	return results, nil
}

// client is client number c: n select+observe pairs, its signals and
// observations drawn from the PCG stream (seed, c).
func client(hc *http.Client, url string, seed uint64, c, n int) ([]latency, error) {
	r := rand.New(rand.NewPCG(seed, uint64(c)))
	out := make([]latency, 0, n)
	for i := range n {
		id := fmt.Sprintf("c%d-%d", c, i)
		signals := map[string]float64{"task_coding": float64(r.IntN(2)), "user_frustrated": r.Float64()}
		body, _ := json.Marshal(map[string]any{"prompt": "agent", "signals": signals, "request_id": id})
		t0 := time.Now()
		var sel struct {
			Version string `json:"version"`
			Branch  string `json:"branch"`
		}
		if err := postJSON(hc, url+"/v1/select", body, &sel); err != nil {
			return nil, fmt.Errorf("client %d select %d: %w", c, i, err)
		}
		t1 := time.Now()
		// Observations depend on the branch chosen, so weights differ.
		base := map[string]float64{"main": 0.5, "coding": 0.8, "calm": 0.3}[sel.Branch]
		obs, _ := json.Marshal(map[string]any{"prompt": "agent", "version": sel.Version, "request_id": id,
			"sentiment": min(1, base+0.2*r.Float64()), "corrections": r.IntN(3), "success": []string{"success", "partial", "failure", "unknown"}[r.IntN(4)]})
		var o struct {
			Seq int64 `json:"seq"`
		}
		if err := postJSON(hc, url+"/v1/observe", obs, &o); err != nil {
			return nil, fmt.Errorf("client %d observe %d: %w", c, i, err)
		}
		t2 := time.Now()
		out = append(out, latency{t1.Sub(t0), t2.Sub(t1), t2.Sub(t0)})
	}
	return out, nil
}

// checkNoLostUpdate checks the store in dir after pairs answered
// observations: weights.json is the replay of the log, and the log has
// every observation once. It returns the stored weights and the
// observations they count.
func checkNoLostUpdate(dir string, pairs int) (*store.Weights, int, error) {
	s, err := store.OpenStore(dir)
	if err != nil {
		return nil, 0, err
	}
	stored, err := s.Weights()
	if err != nil {
		return nil, 0, err
	}
	replayed, err := s.ReplayWeights()
	if err != nil {
		return nil, 0, err
	}
	if !reflect.DeepEqual(stored, replayed) {
		return nil, 0, errors.New("LOST UPDATE: weights.json differs from the replay of observations.jsonl")
	}
	ids, err := requestIDs(filepath.Join(dir, store.ObservationLog))
	if err != nil {
		return nil, 0, err
	}
	total := 0
	for _, vw := range stored.Versions {
		total += vw.Observations
	}
	if total != pairs || len(ids) != pairs {
		return nil, 0, fmt.Errorf("LOST UPDATE: %d observations answered, %d in the weights, %d distinct request ids in the log", pairs, total, len(ids))
	}
	for id, n := range ids {
		if n != 1 {
			return nil, 0, fmt.Errorf("request %s logged %d times", id, n)
		}
	}
	return stored, total, nil
}

// printLatencies prints the latency quantiles of selects, observes and
// pairs, and the throughput of pairs pairs in wall.
func printLatencies(results [][]latency, wall time.Duration, pairs int) {
	var sel, obs, pair []time.Duration
	for _, rs := range results {
		for _, l := range rs {
			sel, obs, pair = append(sel, l.sel), append(obs, l.obs), append(pair, l.pair)
		}
	}
	fmt.Printf("%-8s %10s %10s %10s\n", "latency", "p50", "p99", "max")
	for _, x := range []struct {
		name string
		d    []time.Duration
	}{{"select", sel}, {"observe", obs}, {"pair", pair}} {
		slices.Sort(x.d)
		fmt.Printf("%-8s %10s %10s %10s\n", x.name, q(x.d, 0.5), q(x.d, 0.99), x.d[len(x.d)-1].Round(time.Microsecond))
	}
	fmt.Printf("wall %s: %.0f requests/s (%.0f pairs/s)\n", wall.Round(time.Millisecond), float64(2*pairs)/wall.Seconds(), float64(pairs)/wall.Seconds())
}

// printWeights prints each version's weight, observations, mean score
// and rollback alarm.
func printWeights(stored *store.Weights) {
	refs := slices.Collect(maps.Keys(stored.Versions))
	slices.SortFunc(refs, func(a, b prompt.Ref) int { return a.Version.Compare(b.Version) })
	for _, ref := range refs {
		vw := stored.Versions[ref]
		alarm := ""
		if vw.Alarm != nil {
			alarm = fmt.Sprintf("; rollback alarm at observation %d", vw.Alarm.Evidence.Observations)
		}
		fmt.Printf("%s: weight %.4f after %d observations (mean score %.4f)%s\n", ref, vw.Weight, vw.Observations, vw.MeanScore(), alarm)
	}
}

// q is the q-quantile of sorted d (the smallest value with at least q of
// them at or below it).
func q(d []time.Duration, p float64) time.Duration {
	i := int(float64(len(d))*p+0.999999) - 1
	return d[max(i, 0)].Round(time.Microsecond)
}

func postJSON(hc *http.Client, url string, body []byte, out any) error {
	resp, err := hc.Post(url, "application/json", bytes.NewReader(body))
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%d %s", resp.StatusCode, data)
	}
	return json.Unmarshal(data, out)
}

var listening = regexp.MustCompile(`listening on (http://\S+)`)

// waitListening reads the server's stderr up to its "listening on" line.
func waitListening(r io.Reader) (string, string, error) {
	br := bufio.NewReader(r)
	var logs strings.Builder
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for ctx.Err() == nil {
		line, err := br.ReadString('\n')
		logs.WriteString(line)
		if m := listening.FindStringSubmatch(line); m != nil {
			go io.Copy(io.Discard, br) // keep the pipe drained
			return m[1], logs.String(), nil
		}
		if err != nil {
			return "", logs.String(), fmt.Errorf("evolve serve did not start: %v\n%s", err, logs.String())
		}
	}
	return "", logs.String(), errors.New("evolve serve did not start within a minute")
}

// requestIDs counts the observe events of each request id in the log.
func requestIDs(path string) (map[string]int, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	ids := map[string]int{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var ev store.Event
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			return nil, err
		}
		if ev.Kind == store.EventObserve {
			ids[ev.RequestID]++
		}
	}
	return ids, sc.Err()
}

// makeStore writes prompt "agent" with three live variants: main's HEAD
// v1.0.0 (no context weights), branch coding's v1.0.2 (favours
// task_coding) and branch calm's v1.0.4 (favours frustrated users).
func makeStore(dir string) error {
	s, err := store.OpenStore(dir)
	if err != nil {
		return err
	}
	root := prompt.Base()
	root.Slug = "agent"
	if _, err := s.Append(root, "edit", "root"); err != nil {
		return err
	}
	for _, b := range []struct {
		name string
		cw   map[string]any
	}{{"coding", map[string]any{"task_coding": 1.0}}, {"calm", map[string]any{"user_frustrated": 1.0, "task_coding": -0.5}}} {
		if _, err := s.Branch(prompt.Ref{Slug: "agent"}, b.name); err != nil {
			return err
		}
		p, err := s.LoadRef(prompt.Ref{Slug: "agent", Branch: b.name})
		if err != nil {
			return err
		}
		p.Metadata = prompt.Metadata{"context_weights": b.cw}
		if _, err := s.Append(p, "edit", "context weights"); err != nil {
			return err
		}
	}
	return nil
}
