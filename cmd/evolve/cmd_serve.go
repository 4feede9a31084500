package main

import (
	"context"
	"errors"
	"evolve/store"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"evolve/online"
	"evolve/online/serve"
)

func init() {
	register(&command{
		name:     "serve",
		synopsis: "serve online selection over a prompt store: select, observe, weights, auto-rollback (HTTP JSON)",
		usage:    "[--store DIR] [--addr HOST:PORT] [--token TOKEN | --token-file FILE] [--epsilon E] [--seed S] [flags]",
		help: `
Serve a prompt store over HTTP for online selection. Per request, a client
asks which version of a prompt to use under its context signals; after the
interaction it reports an observation (sentiment, corrections, task
success). Each observation moves the version's weight, and a version whose
observations fall below its own baseline is rolled back automatically.

Endpoints (JSON bodies of at most --max-body bytes; unknown fields are errors):

	POST /v1/select   {"prompt": "agent", "signals": {"task_coding": 1}, "request_id": "42"}
	                  optional: "branch" or "branches" (only their HEADs), "versions" (["v1.0.2", ...])
	                  -> {"version", "ref", "branch", "explored", "text", "tokens", "candidates": [{"version",
	                      "weight", "context_fit", "score"}...], "excluded", "request", "request_id"}
	POST /v1/observe  {"prompt": "agent", "version": "v1.0.2", "sentiment": 0.8, "corrections": 1,
	                   "success": "success|partial|failure|unknown", "request_id": "42"}
	                  -> {"seq", "score", "weight", "alarm"}, once the observation is on disk
	GET  /v1/weights?prompt=agent   each version: weight, observations, mean score, head, excluded, alarm
	GET  /healthz                   {"status": "ok"}
	GET  /metrics                   Prometheus text: requests by path and code, latency histograms,
	                                observations, batches, alarms, rollbacks, selections

Selection (the graph prompt design): the candidates are the HEADs of the
prompt's branches (or the versions named), less the versions an automatic
rollback excluded. Each scores 0.5 weight + 0.5 context_fit, where
context_fit = dot(context_weights, signals) / sum |context_weights| from
the version's metadata.context_weights, or its weight alone without them.
With probability --epsilon a candidate is drawn uniformly, else the best
score wins; the draw is a function of (--seed, request number), so a
request_id (a string of at most 200 bytes) that is a decimal number, e.g.
"42", replays its choice (other ids are hashed).
Signals are the design's table: user_pleased, sentiment_high,
user_frustrated, correction_rate_high, topic_shift_high, energy_high in
[0, 1]; task_coding, task_planning, task_casual, task_crisis,
task_reflection 0 or 1. Anything else is a 400 naming the signal.

Observations: score = 0.5 sentiment + 0.3 (1 - min(0.1 corrections, 1)) +
0.2 success (1, 0.5 partial, 0 failure or unknown); weight <- (1 - alpha)
weight + alpha score, from 0.5. Observations are written in batches under
the store's lock: appended to prompts/observations.jsonl (the log every
weight can be recomputed from) and checkpointed in weights.json. A client
gets its answer only once its observation is on disk; on SIGINT or
SIGTERM the server stops accepting connections, finishes the requests in
flight, writes every queued observation and exits 0.

Auto-rollback: a version's first --rollback-baseline scores are its
baseline (mean m, sd sigma); the following scores are cut into windows of
--rollback-window, and a window whose mean is below m - k sigma
sqrt(1/window + 1/baseline) makes HEAD of the version's branch roll back
to the version it superseded (a rolled_back edge with the evidence). The
version is then never selected until promoted by hand (evolve prompt
promote SLUG@VERSION). With the defaults, a drop of one sigma is caught
within 100 observations in 98% of simulated trials, and fewer than 0.2%
of unchanged versions are rolled back within 1,000 observations.

Security: the server binds 127.0.0.1 by default. It refuses any other
address unless --token (or --token-file) is given; then POST /v1/observe
needs "Authorization: Bearer TOKEN" (401 otherwise). Bodies over
--max-body get 413; bad input gets 400 {"error", "field"}.

Exit status: 0 after a clean shutdown, 1 failure, 2 usage error.

Examples:

	evolve serve --store prompts
	evolve serve --store prompts --addr 0.0.0.0:8080 --token-file /run/secrets/evolve
	curl -s localhost:8080/v1/select -d '{"prompt": "agent", "signals": {"task_coding": 1}}'
	curl -s localhost:8080/v1/observe -d '{"prompt": "agent", "version": "v1.0.1", "sentiment": 0.9, "success": "success"}'`,
		flags: func(fs *flag.FlagSet) func(context.Context, *cmdEnv, []string) error {
			storeDir := fs.String("store", "", "the prompt store `DIR` (default: the most recent run's under ./runs, else ./prompts)")
			addr := fs.String("addr", "127.0.0.1:8080", "listen on `HOST:PORT` (port 0: any free port, printed on stderr)")
			token := fs.String("token", "", "bearer `TOKEN` required for writes (required to bind a non-loopback address)")
			tokenFile := fs.String("token-file", "", "read the bearer token from `FILE` (first line)")
			eps := fs.Float64("epsilon", online.DefaultEpsilon, "exploration probability `E` in [0, 1]")
			seed := fs.Uint64("seed", 1, "seed `S` of the selection stream")
			alpha := fs.Float64("alpha", online.DefaultAlpha, "EMA smoothing `A` in (0, 1]: weight <- (1-A) weight + A score")
			rb := online.DefaultRollbackRule
			base := fs.Int("rollback-baseline", rb.Baseline, "observations `N` of a version's baseline")
			window := fs.Int("rollback-window", rb.Window, "observations `N` per window compared with the baseline")
			k := fs.Float64("rollback-k", rb.K, "roll back when a window's mean is `K` standard errors below the baseline's")
			maxBody := fs.Int64("max-body", serve.DefaultMaxBody, "the most `BYTES` of a request body")
			maxBatch := fs.Int("max-batch", serve.DefaultMaxBatch, "the most observations `N` written at once")
			return func(ctx context.Context, env *cmdEnv, args []string) error {
				if len(args) != 0 {
					return usagef("serve takes no arguments, got %q", args)
				}
				cfg := store.WeightsConfig{Alpha: *alpha, Rule: online.RollbackRule{Baseline: *base, Window: *window, K: *k, MinSigma: rb.MinSigma}}
				if err := cfg.Validate(); err != nil {
					return usagef("%v", err)
				}
				if err := (online.EpsilonGreedy{Epsilon: *eps}).Validate(); err != nil {
					return usagef("--epsilon: %v", err)
				}
				if *maxBody <= 0 || *maxBatch <= 0 {
					return usagef("--max-body and --max-batch must be positive, got %d and %d", *maxBody, *maxBatch)
				}
				tok := *token
				if *tokenFile != "" {
					if tok != "" {
						return usagef("give --token or --token-file, not both")
					}
					data, err := os.ReadFile(*tokenFile)
					if err != nil {
						return fmt.Errorf("--token-file: %w", err)
					}
					tok, _, _ = strings.Cut(strings.TrimSpace(string(data)), "\n")
					if tok = strings.TrimSpace(tok); tok == "" {
						return fmt.Errorf("--token-file %s: empty", *tokenFile)
					}
				}
				loop, err := loopbackAddr(*addr)
				if err != nil {
					return usagef("--addr: %v", err)
				}
				if !loop && tok == "" {
					return usagef("--addr %s is not a loopback address: give --token or --token-file so that writes need a bearer token", *addr)
				}
				dir := *storeDir
				if dir == "" {
					dir = defaultStoreDir()
					fmt.Fprintf(env.stderr, "evolve serve: using the prompt store %s (--store DIR to choose another)\n", dir)
				}
				if _, err := os.Stat(filepath.Join(dir, "versions.json")); err != nil {
					return fmt.Errorf("no prompt store in %s (no versions.json): give --store DIR", dir)
				}
				s, err := store.OpenStore(dir)
				if err != nil {
					return err
				}
				// A store's observation log keeps the alpha and rollback
				// rule it started with: take them unless a flag says
				// otherwise, and refuse a flag that contradicts them.
				if w, err := s.Weights(); err != nil {
					return err
				} else if w.Events > 0 {
					given := map[string]bool{}
					fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
					have := w.Config
					var clash []string
					check := func(name string, want, got any) {
						if given[name] && want != got {
							clash = append(clash, fmt.Sprintf("--%s %v (the store's is %v)", name, want, got))
						}
					}
					check("alpha", cfg.Alpha, have.Alpha)
					check("rollback-baseline", cfg.Rule.Baseline, have.Rule.Baseline)
					check("rollback-window", cfg.Rule.Window, have.Rule.Window)
					check("rollback-k", cfg.Rule.K, have.Rule.K)
					if len(clash) > 0 {
						return usagef("%s: the observation log of %s fixes alpha and the rollback rule once it starts; leave these flags out or serve a new store", strings.Join(clash, ", "), dir)
					}
					cfg = have
				}
				srv, err := serve.New(serve.Config{Store: s, Weights: cfg, Epsilon: *eps, Seed: *seed, Token: tok,
					MaxBody: *maxBody, MaxBatch: *maxBatch, Log: env.stderr})
				if err != nil {
					return err
				}
				ln, err := net.Listen("tcp", *addr)
				if err != nil {
					srv.Close()
					return err
				}
				hs := &http.Server{Handler: srv.Handler(), ReadHeaderTimeout: 10 * time.Second}
				fmt.Fprintf(env.stderr, "evolve serve: listening on http://%s (store %s, epsilon %g, seed %d, alpha %g, rollback baseline %d window %d k %g)\n",
					ln.Addr(), dir, *eps, *seed, cfg.Alpha, cfg.Rule.Baseline, cfg.Rule.Window, cfg.Rule.K)
				errc := make(chan error, 1)
				go func() { errc <- hs.Serve(ln) }()
				select {
				case err := <-errc:
					srv.Close()
					return err
				case <-ctx.Done():
				}
				fmt.Fprintln(env.stderr, "evolve serve: shutting down: finishing the requests in flight")
				sctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
				defer cancel()
				serr := hs.Shutdown(sctx)
				srv.Close()
				if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
					return err
				}
				if serr != nil {
					return fmt.Errorf("shutting down: %w (every queued observation was written)", serr)
				}
				w, err := s.Weights()
				if err != nil {
					return err
				}
				fmt.Fprintf(env.stderr, "evolve serve: stopped; %d events in %s\n", w.Events, filepath.Join(dir, store.ObservationLog))
				return nil
			}
		},
	})
}

// loopbackAddr reports whether HOST:PORT names only loopback: an IP
// address that is loopback, or "localhost". An empty host (every
// interface) and other names are not.
func loopbackAddr(addr string) (bool, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false, err
	}
	if host == "localhost" {
		return true, nil
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback(), nil
}
