package main

import (
	"context"
	"errors"
	"evolve/store"
	"flag"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"

	"evolve/internal/httpguard"
	"evolve/online"
	"evolve/serve"
)

func init() {
	register(&command{
		name:     "serve",
		synopsis: "serve online selection over a prompt store: select, observe, weights, auto-rollback (HTTP JSON)",
		usage:    "[--store DIR] [--addr HOST:PORT] [--token-file FILE | --token TOKEN] [--public-read] [--allowed-host NAME] [--epsilon E] [--seed S] [flags]",
		help: `
Serve a prompt store over HTTP for online selection. Per request, a client
asks which version of a prompt to use under its context signals; after the
interaction it reports an observation (sentiment, corrections, task
success). Each observation moves the version's weight, and a version whose
observations fall below its own baseline is rolled back automatically.

Endpoints (JSON bodies of at most --max-body bytes, sent as
Content-Type: application/json and decoded strictly: see Input):

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
Signals are declared in a table: --signals FILE, else the store's
signals.yaml (beside versions.json) when it has one, else the design's
table: user_pleased, sentiment_high, user_frustrated,
correction_rate_high, topic_shift_high, energy_high in [0, 1];
task_coding, task_planning, task_casual, task_crisis, task_reflection 0
or 1. A signal not declared, or outside its range, is a 400 naming it.
A table is YAML:

	signals:
	  - {name: time_pressure, min: 0, max: 1, description: "shorter turn limit"}
	  - {name: task_coding, binary: true}     # min 0, max 1 by default

'evolve bandit simulate' writes its study's table as signals.yaml in its
output directory: copy it into a store to serve the study's signals.

Observations: score = 0.5 sentiment + 0.3 (1 - min(0.1 corrections, 1)) +
0.2 success (1, 0.5 partial, 0 failure or unknown); weight <- (1 - alpha)
weight + alpha score, from 0.5. Observations are written in batches under
the store's lock: appended to prompts/observations.jsonl (the log every
weight can be recomputed from) and checkpointed in weights.json. A client
gets its answer only once its observation is on disk (see Timeouts for
the shutdown).

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
address unless a bearer token is given: --token-file FILE (its first
line) or $EVOLVE_SERVE_TOKEN, preferred, or --token TOKEN, which shows in
ps and warns. A token has at least 16 characters and no white space
(e.g. openssl rand -hex 32). With a token, every endpoint but /healthz
needs "Authorization: Bearer TOKEN" (the scheme in any case; 401
otherwise): selections carry the prompts' full texts. --public-read
leaves select, weights and metrics open and guards only observe.

Other origins: with or without a token, the server answers only requests
whose Host header is an IP address, localhost, this machine's name, the
host of --addr or a name given with --allowed-host (403 otherwise: a web
page cannot rebind its own DNS name to the server and read it). A POST
from another origin (a browser's Origin or Sec-Fetch-Site header) is
refused with 403, and a POST whose Content-Type is not application/json
with 415, so that no web page can send observations.

Input: bodies over --max-body get 413, bodies not read within
--read-timeout 408. Bodies are decoded strictly: invalid UTF-8, a key
twice, a key in another case ("Prompt"), an unknown key, null for any
value and data after the object are refused with 400 {"error", "field"}
naming the field, as is any invalid value.

Retries: an observation's request_id is its idempotency key. An
observation repeating the request_id of one of the latest
--idempotency-window observations (100,000 by default; counted from the
store's observation log, so a restart keeps them) is not recorded again:
it gets the first one's answer (header Idempotent-Replayed: true), or 409
if it observes something else under that id. An observation without a
request_id is always recorded.

Timeouts: --read-header-timeout (10s), --read-timeout (30s, the body
included), --write-timeout (60s, to the end of the answer), --idle-timeout
(60s between keep-alive requests). On SIGINT or SIGTERM the server stops
accepting, waits at most --shutdown-timeout (10s) for the requests in
flight, closes the connections still open (a client stalled in its body),
writes every queued observation and exits 0.

Exit status: 0 after a clean shutdown, 1 failure, 2 usage error.

Examples:

	evolve serve --store prompts
	evolve serve --store prompts --addr 0.0.0.0:8080 --token-file /run/secrets/evolve
	curl -s localhost:8080/v1/select -H 'Content-Type: application/json' -d '{"prompt": "agent", "signals": {"task_coding": 1}}'
	curl -s localhost:8080/v1/observe -H 'Content-Type: application/json' -d '{"prompt": "agent", "version": "v1.0.1", "sentiment": 0.9, "success": "success"}'`,
		flags: func(fs *flag.FlagSet) func(context.Context, *cmdEnv, []string) error {
			storeDir := fs.String("store", "", "the prompt store `DIR` (default: the most recent run's under ./runs, else ./prompts)")
			addr := fs.String("addr", "127.0.0.1:8080", "listen on `HOST:PORT` (port 0: any free port, printed on stderr)")
			token := fs.String("token", "", "bearer `TOKEN` (shows in ps: prefer --token-file or $"+tokenEnv+")")
			tokenFile := fs.String("token-file", "", "read the bearer token from `FILE` (first line; preferred)")
			publicRead := fs.Bool("public-read", false, "with a token, leave select, weights and metrics open: only observe needs it")
			var allowedHosts listFlag
			fs.Var(&allowedHosts, "allowed-host", "also answer requests whose Host header is `NAME` (repeatable; a DNS name or a proxy's, without port)")
			timeouts := serve.DefaultTimeouts()
			readHeaderTimeout := fs.Duration("read-header-timeout", timeouts.ReadHeader, "the most `TIME` to read a request's headers")
			readTimeout := fs.Duration("read-timeout", timeouts.Read, "the most `TIME` to read a whole request, body included (408 after)")
			writeTimeout := fs.Duration("write-timeout", timeouts.Write, "the most `TIME` from a request's headers to the end of its answer")
			idleTimeout := fs.Duration("idle-timeout", timeouts.Idle, "the most `TIME` a keep-alive connection waits for its next request")
			shutdownTimeout := fs.Duration("shutdown-timeout", timeouts.Shutdown, "on SIGINT/SIGTERM, the most `TIME` to wait for requests in flight before closing them")
			idemWindow := fs.Int("idempotency-window", serve.DefaultIdempotencyWindow, "remember the request_id of the latest `N` observations (0: off)")
			eps := fs.Float64("epsilon", online.DefaultEpsilon, "exploration probability `E` in [0, 1]")
			seed := fs.Uint64("seed", 1, "seed `S` of the selection stream")
			alpha := fs.Float64("alpha", online.DefaultAlpha, "EMA smoothing `A` in (0, 1]: weight <- (1-A) weight + A score")
			rb := online.DefaultRollbackRule
			base := fs.Int("rollback-baseline", rb.Baseline, "observations `N` of a version's baseline")
			window := fs.Int("rollback-window", rb.Window, "observations `N` per window compared with the baseline")
			k := fs.Float64("rollback-k", rb.K, "roll back when a window's mean is `K` standard errors below the baseline's")
			signalsFile := fs.String("signals", "", "the declared signal table `FILE` (default: the store's signals.yaml, else the design's table)")
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
				timeouts := serve.Timeouts{ReadHeader: *readHeaderTimeout, Read: *readTimeout, Write: *writeTimeout, Idle: *idleTimeout, Shutdown: *shutdownTimeout}
				if err := timeouts.Validate(); err != nil {
					return usagef("--%v", err)
				}
				if *idemWindow < 0 {
					return usagef("--idempotency-window must be >= 0, got %d", *idemWindow)
				}
				if *idemWindow == 0 {
					*idemWindow = -1 // off
				}
				tok, source, err := serveToken(*token, *tokenFile, os.Getenv)
				if err != nil {
					return err
				}
				if tok != "" {
					if err := serve.CheckToken(tok); err != nil {
						return usagef("%s: %v", source, err)
					}
				}
				if *token != "" {
					fmt.Fprintf(env.stderr, "evolve serve: warning: --token shows in ps and the shell history; prefer --token-file FILE or $%s\n", tokenEnv)
				}
				if *publicRead && tok == "" {
					return usagef("--public-read only means something with a token (--token-file, $%s or --token)", tokenEnv)
				}
				loop, err := loopbackAddr(*addr)
				if err != nil {
					return usagef("--addr: %v", err)
				}
				if !loop && tok == "" {
					return usagef("--addr %s is not a loopback address: give --token-file FILE (or $%s) so that requests need a bearer token", *addr, tokenEnv)
				}
				if err := checkHosts(allowedHosts); err != nil {
					return err
				}
				dir := *storeDir
				if dir == "" {
					dir = defaultStoreDir()
					fmt.Fprintf(env.stderr, "evolve serve: using the prompt store %s (--store DIR to choose another)\n", dir)
				}
				s, err := store.OpenExisting(dir)
				if errors.Is(err, store.ErrNoStore) {
					return fmt.Errorf("%w: give --store DIR", err)
				}
				if err != nil {
					return err
				}
				signals, signalsFrom, err := online.StoreSignals(dir)
				if *signalsFile != "" {
					signals, err = online.LoadSignals(*signalsFile)
					signalsFrom = *signalsFile
				}
				if err != nil {
					return err
				}
				if signalsFrom == "" {
					signalsFrom = "the design's table"
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
				srv, err := serve.New(serve.Config{Store: s, Weights: cfg, Epsilon: *eps, Seed: *seed, Token: tok, PublicRead: *publicRead, Signals: signals,
					Addr: *addr, AllowedHosts: allowedHosts,
					MaxBody: *maxBody, MaxBatch: *maxBatch, IdempotencyWindow: *idemWindow, Log: env.stderr})
				if err != nil {
					return err
				}
				ln, err := net.Listen("tcp", *addr)
				if err != nil {
					srv.Close()
					return err
				}
				fmt.Fprintf(env.stderr, "evolve serve: listening on http://%s (store %s, epsilon %g, seed %d, alpha %g, rollback baseline %d window %d k %g; %d signals from %s)\n",
					ln.Addr(), dir, *eps, *seed, cfg.Alpha, cfg.Rule.Baseline, cfg.Rule.Window, cfg.Rule.K, len(signals), signalsFrom)
				if err := srv.Serve(ctx, ln, timeouts, env.stderr); err != nil {
					return err
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

// tokenEnv is the environment variable evolve serve reads its bearer
// token from when neither --token nor --token-file is given.
const tokenEnv = "EVOLVE_SERVE_TOKEN"

// serveToken returns the bearer token and where it came from:
// --token-file (its first line, white space around it trimmed), else
// --token, else $EVOLVE_SERVE_TOKEN (a flag wins over the environment);
// "" if none. Both flags at once is a usage
// error; an unreadable or empty file is an error naming it.
func serveToken(flagTok, file string, getenv func(string) string) (string, string, error) {
	switch {
	case flagTok != "" && file != "":
		return "", "", usagef("give --token or --token-file, not both")
	case file != "":
		data, err := os.ReadFile(file)
		if err != nil {
			return "", "", fmt.Errorf("--token-file: %w", err)
		}
		tok, _, _ := strings.Cut(strings.TrimSpace(string(data)), "\n")
		if tok = strings.TrimSpace(tok); tok == "" {
			return "", "", fmt.Errorf("--token-file %s: empty", file)
		}
		return tok, "--token-file " + file, nil
	case flagTok != "":
		return flagTok, "--token", nil
	}
	if tok := getenv(tokenEnv); tok != "" {
		return tok, "$" + tokenEnv, nil
	}
	return "", "", nil
}

// checkHosts returns a usage error naming the first --allowed-host value
// that is not a host name.
func checkHosts(hosts []string) error {
	for _, h := range hosts {
		if err := httpguard.ValidHost(h); err != nil {
			return usagef("--allowed-host: %v", err)
		}
	}
	return nil
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
