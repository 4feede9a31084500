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
	"time"

	"evolve/internal/httpguard"
	"evolve/online"
	"evolve/serve"
)

// cmdServe is evolve serve.
var cmdServe = &Command{
	UsageLine: "evolve serve [--store DIR] [--addr HOST:PORT] [--token-file FILE | --token TOKEN] [--public-read] [--allowed-host NAME] [--epsilon E] [--seed S] [flags]",
	Short:     "serve online selection over a prompt store: select, observe, weights, auto-rollback (HTTP JSON)",
	Long: `
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
	SetFlags: serveFlags,
	Run:      runServe,
}

// serveFlagValues are the flags of evolve serve.
type serveFlagValues struct {
	allowedHosts      listFlag
	storeDir          string
	addr              string
	token             string
	tokenFile         string
	publicRead        bool
	readHeaderTimeout time.Duration
	readTimeout       time.Duration
	writeTimeout      time.Duration
	idleTimeout       time.Duration
	shutdownTimeout   time.Duration
	idemWindow        int
	eps               float64
	seed              uint64
	alpha             float64
	base              int
	window            int
	k                 float64
	signalsFile       string
	maxBody           int64
	maxBatch          int
}

// serveFlags defines the flags of evolve serve on fs.
func serveFlags(fs *flag.FlagSet) any {
	f := new(serveFlagValues)
	fs.StringVar(&f.storeDir, "store", "", "the prompt store `DIR` (default: the most recent run's under ./runs, else ./prompts)")
	fs.StringVar(&f.addr, "addr", "127.0.0.1:8080", "listen on `HOST:PORT` (port 0: any free port, printed on stderr)")
	fs.StringVar(&f.token, "token", "", "bearer `TOKEN` (shows in ps: prefer --token-file or $"+tokenEnv+")")
	fs.StringVar(&f.tokenFile, "token-file", "", "read the bearer token from `FILE` (first line; preferred)")
	fs.BoolVar(&f.publicRead, "public-read", false, "with a token, leave select, weights and metrics open: only observe needs it")
	fs.Var(&f.allowedHosts, "allowed-host", "also answer requests whose Host header is `NAME` (repeatable; a DNS name or a proxy's, without port)")
	timeouts := serve.DefaultTimeouts()
	fs.DurationVar(&f.readHeaderTimeout, "read-header-timeout", timeouts.ReadHeader, "the most `TIME` to read a request's headers")
	fs.DurationVar(&f.readTimeout, "read-timeout", timeouts.Read, "the most `TIME` to read a whole request, body included (408 after)")
	fs.DurationVar(&f.writeTimeout, "write-timeout", timeouts.Write, "the most `TIME` from a request's headers to the end of its answer")
	fs.DurationVar(&f.idleTimeout, "idle-timeout", timeouts.Idle, "the most `TIME` a keep-alive connection waits for its next request")
	fs.DurationVar(&f.shutdownTimeout, "shutdown-timeout", timeouts.Shutdown, "on SIGINT/SIGTERM, the most `TIME` to wait for requests in flight before closing them")
	fs.IntVar(&f.idemWindow, "idempotency-window", serve.DefaultIdempotencyWindow, "remember the request_id of the latest `N` observations (0: off)")
	fs.Float64Var(&f.eps, "epsilon", online.DefaultEpsilon, "exploration probability `E` in [0, 1]")
	fs.Uint64Var(&f.seed, "seed", 1, "seed `S` of the selection stream")
	fs.Float64Var(&f.alpha, "alpha", online.DefaultAlpha, "EMA smoothing `A` in (0, 1]: weight <- (1-A) weight + A score")
	rb := online.DefaultRollbackRule
	fs.IntVar(&f.base, "rollback-baseline", rb.Baseline, "observations `N` of a version's baseline")
	fs.IntVar(&f.window, "rollback-window", rb.Window, "observations `N` per window compared with the baseline")
	fs.Float64Var(&f.k, "rollback-k", rb.K, "roll back when a window's mean is `K` standard errors below the baseline's")
	fs.StringVar(&f.signalsFile, "signals", "", "the declared signal table `FILE` (default: the store's signals.yaml, else the design's table)")
	fs.Int64Var(&f.maxBody, "max-body", serve.DefaultMaxBody, "the most `BYTES` of a request body")
	fs.IntVar(&f.maxBatch, "max-batch", serve.DefaultMaxBatch, "the most observations `N` written at once")
	return f
}

// runServe is evolve serve: it checks the flags, opens the store, its
// signal table and weights, and serves until ctx is cancelled.
func runServe(ctx context.Context, cmd *Command, args []string) error {
	f := cmd.Flags.(*serveFlagValues)
	if len(args) != 0 {
		return usagef("serve takes no arguments, got %q", args)
	}
	cfg, timeouts, err := checkServeFlags(f)
	if err != nil {
		return err
	}
	tok, err := serveAccess(cmd, f)
	if err != nil {
		return err
	}
	dir := f.storeDir
	if dir == "" {
		dir = defaultStoreDir()
		fmt.Fprintf(cmd.Stderr, "evolve serve: using the prompt store %s (--store DIR to choose another)\n", dir)
	}
	s, err := store.OpenExisting(dir)
	if errors.Is(err, store.ErrNoStore) {
		return fmt.Errorf("%w: give --store DIR", err)
	}
	if err != nil {
		return err
	}
	signals, signalsFrom, err := online.StoreSignals(dir)
	if f.signalsFile != "" {
		signals, err = online.LoadSignals(f.signalsFile)
		signalsFrom = f.signalsFile
	}
	if err != nil {
		return err
	}
	if signalsFrom == "" {
		signalsFrom = "the design's table"
	}
	if cfg, err = storeWeightsConfig(s, dir, cfg, cmd.given()); err != nil {
		return err
	}
	srv, err := serve.New(serve.Config{Store: s, Weights: cfg, Epsilon: f.eps, Seed: f.seed, Token: tok, PublicRead: f.publicRead, Signals: signals,
		Addr: f.addr, AllowedHosts: f.allowedHosts,
		MaxBody: f.maxBody, MaxBatch: f.maxBatch, IdempotencyWindow: f.idemWindow, Log: cmd.Stderr})
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", f.addr)
	if err != nil {
		srv.Close()
		return err
	}
	fmt.Fprintf(cmd.Stderr, "evolve serve: listening on http://%s (store %s, epsilon %g, seed %d, alpha %g, rollback baseline %d window %d k %g; %d signals from %s)\n",
		ln.Addr(), dir, f.eps, f.seed, cfg.Alpha, cfg.Rule.Baseline, cfg.Rule.Window, cfg.Rule.K, len(signals), signalsFrom)
	if err := srv.Serve(ctx, ln, timeouts, cmd.Stderr); err != nil {
		return err
	}
	w, err := s.Weights()
	if err != nil {
		return err
	}
	fmt.Fprintf(cmd.Stderr, "evolve serve: stopped; %d events in %s\n", w.Events, filepath.Join(dir, store.ObservationLog))
	return nil
}

// checkServeFlags returns the weights' configuration and the timeouts of
// evolve serve's flags, or a usage error naming the first flag out of
// its range. An --idempotency-window of 0 becomes -1 (off).
func checkServeFlags(f *serveFlagValues) (store.WeightsConfig, serve.Timeouts, error) {
	rule := online.RollbackRule{Baseline: f.base, Window: f.window, K: f.k, MinSigma: online.DefaultRollbackRule.MinSigma}
	cfg := store.WeightsConfig{Alpha: f.alpha, Rule: rule}
	timeouts := serve.Timeouts{ReadHeader: f.readHeaderTimeout, Read: f.readTimeout, Write: f.writeTimeout, Idle: f.idleTimeout, Shutdown: f.shutdownTimeout}
	if err := cfg.Validate(); err != nil {
		return cfg, timeouts, usagef("%v", err)
	}
	if err := (online.EpsilonGreedy{Epsilon: f.eps}).Validate(); err != nil {
		return cfg, timeouts, usagef("--epsilon: %v", err)
	}
	if f.maxBody <= 0 || f.maxBatch <= 0 {
		return cfg, timeouts, usagef("--max-body and --max-batch must be positive, got %d and %d", f.maxBody, f.maxBatch)
	}
	if err := timeouts.Validate(); err != nil {
		return cfg, timeouts, usagef("--%v", err)
	}
	if f.idemWindow < 0 {
		return cfg, timeouts, usagef("--idempotency-window must be >= 0, got %d", f.idemWindow)
	}
	if f.idemWindow == 0 {
		f.idemWindow = -1 // off
	}
	return cfg, timeouts, nil
}

// serveAccess returns the bearer token of evolve serve ("" for none),
// checking it, --public-read, --addr (not loopback only with a token) and
// --allowed-host; it warns on stderr of a token given with --token.
func serveAccess(cmd *Command, f *serveFlagValues) (string, error) {
	tok, source, err := serveToken(f.token, f.tokenFile, os.Getenv)
	if err != nil {
		return "", err
	}
	if tok != "" {
		if err := serve.CheckToken(tok); err != nil {
			return "", usagef("%s: %v", source, err)
		}
	}
	if f.token != "" {
		fmt.Fprintf(cmd.Stderr, "evolve serve: warning: --token shows in ps and the shell history; prefer --token-file FILE or $%s\n", tokenEnv)
	}
	if f.publicRead && tok == "" {
		return "", usagef("--public-read only means something with a token (--token-file, $%s or --token)", tokenEnv)
	}
	loop, err := loopbackAddr(f.addr)
	if err != nil {
		return "", usagef("--addr: %v", err)
	}
	if !loop && tok == "" {
		return "", usagef("--addr %s is not a loopback address: give --token-file FILE (or $%s) so that requests need a bearer token", f.addr, tokenEnv)
	}
	if err := checkHosts(f.allowedHosts); err != nil {
		return "", err
	}
	return tok, nil
}

// storeWeightsConfig returns the weights' configuration to serve s (in
// dir) with:
// a store's observation log keeps the alpha and rollback rule it started
// with, so once it has events they are taken unless a flag says
// otherwise, and a flag that contradicts them (given holds the flags the
// command line set) is a usage error. A store without events takes cfg.
func storeWeightsConfig(s *store.Store, dir string, cfg store.WeightsConfig, given map[string]bool) (store.WeightsConfig, error) {
	w, err := s.Weights()
	if err != nil || w.Events == 0 {
		return cfg, err
	}
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
		return cfg, usagef("%s: the observation log of %s fixes alpha and the rollback rule once it starts; leave these flags out or serve a new store", strings.Join(clash, ", "), dir)
	}
	return have, nil
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
