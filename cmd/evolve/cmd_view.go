package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	"evolve/internal/httpguard"
	"evolve/view"
)

// cmdView is evolve view.
var cmdView = &Command{
	UsageLine: "evolve view [--addr HOST:PORT] [--token TOKEN | --token-file FILE] [--allowed-host NAME] [DIR...]",
	Short:     "browse runs, evals, episodes and their trajectories in a local web app",
	Long: `
Serve a read-only web app over the runs and evals under each DIR (default:
runs and evals, those that exist) and print its URL. Open it in a browser:

	/                        every run and eval: status, elapsed time since
	                         the start and progress (live while a run is
	                         going: its phase, episodes done of the phase's
	                         total, episodes a second, time left), test means,
	                         an eval's verdict, stop reason; replicates (same
	                         config, other seed sets) grouped with the mean and
	                         95% CI across them
	/runs/ID                 settings, stop reason, the lineage graph, every
	                         generation (counted from 0, as evolve run counts
	                         them) with each candidate's mutation, p, adjusted
	                         p, its generation's alpha, A12, val mean and why
	                         it was accepted or rejected;
	                         the plots and every file (updated live while the
	                         run is going); an eval's verdict first: outcome,
	                         hypothesis, margin, family, correction, each
	                         check's p, adjusted p and alpha, failure shares,
	                         the baseline linked
	/files/ID/NAME           any file of a run or eval (Parquet, plots,
	                         reports, trajectories), read-only
	/runs/ID/episodes        the episodes, filtered by split, version, cause,
	                         score range, seed and generation, sorted, paged
	/runs/ID/episodes/SPLIT/VERSION/SEED
	                         one episode with its trajectory replayed (step
	                         slider, play/pause, arrow keys): the dungeon's map
	                         per turn, a terminal for asciicast recordings, an
	                         LLM agent's transcript
	/runs/ID/versions/VERSION
	                         the rendered prompt, its sections and its diff
	                         against its parent
	/compare?a=ID&b=ID[&av=VERSION&bv=VERSION&split=S]
	                         two runs, evals or versions side by side: summaries,
	                         "is B worse / better than A" in words under the
	                         eval's own gate (its stored verdict when B's eval
	                         compared B with A), the power, score distributions,
	                         per-seed paired differences and the seeds where
	                         they differ most, linked to both episodes

Every page's data is also JSON: /api/v1 followed by the page's path
(/api/v1/, /api/v1/runs/ID, /api/v1/runs/ID/episodes?split=test, ...)
answers the same data the page draws, with snake_case keys, NaN as null
and a committed schema; for scripts and dashboards, e.g.

	curl -s localhost:8090/api/v1/ | jq '.entries[] | {id, status, phase}'

docs/view.md describes every page, every endpoint and its keys, and how a
running run's progress is read.

Trajectories are stored by the trajectories: policy of the config (failed
by default; see evolve run --help). Everything is served from this binary:
no CDN, no network. Nothing is written to the directories.

The server listens on loopback (127.0.0.1:8090) unless --addr says
otherwise; another address needs --token or --token-file, and then every
request needs the token (open the printed URL, which carries it once, or
send "Authorization: Bearer TOKEN"). A token has at least 16 characters
and no white space (e.g. openssl rand -hex 32), as evolve serve's. Port 0
picks a free port.

With or without a token, the server answers only requests whose Host
header is an IP address, localhost, this machine's name, the host of
--addr or a name given with --allowed-host (403 otherwise), so that a web
page cannot rebind its own DNS name to the server and read it.

Exit status: 0 after Ctrl-C, 1 the address cannot be listened on, 2 usage.

Examples:

	evolve view
	evolve view runs/ evals/ --addr 127.0.0.1:0
	evolve view --addr 0.0.0.0:8090 --token-file /run/secrets/view /scratch/runs`,
	SetFlags: viewFlags,
	Run:      runView,
}

// viewFlagValues are the flags of evolve view.
type viewFlagValues struct {
	allowedHosts listFlag
	addr         string
	token        string
	tokenFile    string
}

// viewFlags defines the flags of evolve view on fs.
func viewFlags(fs *flag.FlagSet) any {
	f := new(viewFlagValues)
	fs.StringVar(&f.addr, "addr", "127.0.0.1:8090", "listen on `HOST:PORT` (port 0: any free port)")
	fs.StringVar(&f.token, "token", "", "`TOKEN` every request must carry (required for a non-loopback address)")
	fs.StringVar(&f.tokenFile, "token-file", "", "read the token from `FILE` (first line)")
	fs.Var(&f.allowedHosts, "allowed-host", "also answer requests whose Host header is `NAME` (repeatable; a DNS name or a proxy's, without port)")
	return f
}

// runView is evolve view.
func runView(ctx context.Context, cmd *Command, args []string) error {
	f := cmd.Flags.(*viewFlagValues)
	roots, err := viewRoots(args)
	if err != nil {
		return err
	}
	tok, source := f.token, "--token"
	if f.tokenFile != "" {
		source = "--token-file " + f.tokenFile
		if tok != "" {
			return usagef("give --token or --token-file, not both")
		}
		data, err := os.ReadFile(f.tokenFile)
		if err != nil {
			return fmt.Errorf("--token-file: %w", err)
		}
		tok, _, _ = strings.Cut(strings.TrimSpace(string(data)), "\n")
		if tok = strings.TrimSpace(tok); tok == "" {
			return fmt.Errorf("--token-file %s: empty", f.tokenFile)
		}
	}
	if tok != "" {
		if err := httpguard.CheckToken(tok); err != nil {
			return usagef("%s: %v", source, err)
		}
	}
	loop, err := loopbackAddr(f.addr)
	if err != nil {
		return usagef("--addr: %v", err)
	}
	if !loop && tok == "" {
		return usagef("--addr %s is not a loopback address: give --token or --token-file", f.addr)
	}
	if err := checkHosts(f.allowedHosts); err != nil {
		return err
	}
	srv, err := view.New(view.Config{Roots: roots, Token: tok, Addr: f.addr, AllowedHosts: f.allowedHosts})
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", f.addr)
	if err != nil {
		return err
	}
	url := "http://" + ln.Addr().String() + "/"
	if tok != "" {
		url += "?token=" + tok
	}
	fmt.Fprintf(cmd.Stdout, "evolve view: %s (runs and evals under %s; Ctrl-C stops)\n", url, strings.Join(roots, ", "))
	hs := &http.Server{Handler: srv, ReadHeaderTimeout: 10 * time.Second}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	hs.Shutdown(sctx)
	if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
