package process

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"math"
	"slices"
	"sort"
	"strings"
	"time"

	"evolve/envs"
	"evolve/params"
)

// DefaultCheckSeeds is the number of seeds `evolve env check` plays by
// default.
const DefaultCheckSeeds = 20

// CheckReport is the result of Check.
type CheckReport struct {
	// Command is the environment's command line (and Agent the agent's,
	// nil in episode mode).
	Command, Agent []string
	// Info is what the handshake declared; zero if it failed.
	Info envs.Info
	// Mode is ModeStep or ModeEpisode; "" if the handshake failed.
	Mode string
	// Params are the parameters every episode is played under: the
	// schema's defaults (params.Schema.Defaults); nil if the handshake
	// failed.
	Params params.Set
	// Direct says that process B played over the direct channel: the
	// environment declares "direct": true (docs/protocol.md, section
	// 2.7), so the check also compares direct outcomes with relayed ones.
	Direct bool
	// Seeds are the seeds played, in the first process's order.
	Seeds []uint64
	// Episodes is the number of episodes played (2 per seed), Errors the
	// number of them that failed.
	Episodes, Errors int
	// Steps is the number of steps of all episodes (step mode; 0 in
	// episode mode).
	Steps int
	// EpisodeTime is the mean wall time of an episode (errors excluded),
	// StepTime that of a step (step mode; the episode time divided by its
	// steps, so it includes reset and begin). With Direct, StepTime is
	// process A's (relayed by evolve) and DirectStepTime process B's
	// (over the direct channel); else DirectStepTime is 0.
	EpisodeTime, StepTime, DirectStepTime time.Duration
	// Compared is the number of seeds played without error by both
	// processes, whose outcomes were compared.
	Compared int
	// Identical is the number of seeds whose two outcomes (and, in step
	// mode without Direct, observations, rewards and done flags) were
	// byte for byte equal.
	Identical int
	// FirstError is the first episode that could not be played (or the
	// first process that could not be started), nil if there was none.
	FirstError error
	// Violations are the ways the process breaks the protocol or the
	// determinism contract; the check passes when there are none.
	Violations []error
	// Warnings are departures that evolve tolerates (unknown keys in a
	// response).
	Warnings []error
}

// OK reports whether the check found no violation.
func (r *CheckReport) OK() bool { return len(r.Violations) == 0 }

// checkPrompt is the prompt of Check's play requests.
var checkPrompt = func() *envs.Prompt {
	text := "evolve env check: play the episode as you would under any prompt."
	sum := sha256.Sum256([]byte(text))
	return &envs.Prompt{Slug: "env-check", Version: "v1.0.0", Text: text, SHA256: hex.EncodeToString(sum[:])}
}()

// Check runs the conformance check of cfg's environment on seeds (at
// least one) and prints a report to out:
//
//  1. the handshake (New), and the remedies' syntax against the schema;
//  2. every seed played under the schema's defaults (params.Schema.Defaults)
//     by one process (worker 0) in the order given, then by a second
//     process (worker 1) in reverse order; in episode mode the play
//     requests carry a fixed prompt (slug "env-check"); a step-mode
//     environment that declares direct plays the second pass over the
//     direct channel (CheckReport.Direct);
//  3. every response decoded strictly (an unknown key is a warning, a
//     malformed message a violation), every episode error a violation;
//  4. each seed's two outcomes compared byte for byte (in step mode
//     without the direct channel also the observations, rewards and done
//     flags): a difference is a violation, since the outcome must depend
//     only on seed, parameters and prompt, not on the process's history
//     or on who relays the steps;
//  5. the mean time per episode and per step;
//  6. each process closed: one that does not exit within a second of
//     close (and is killed) is a warning.
//
// A failed handshake is a violation (the report holds only it; a step-mode
// environment without cfg.Agent, or an episode-mode one with it, is told
// to pass or leave out evolve env check's --agent). When no episode could
// be played, the report says so and shows the first error instead of the
// determinism and time lines. The returned error is for a check that
// could not run: an invalid cfg, no seeds, a cancelled ctx (ctx.Err()), or
// a failure to write to out.
func Check(ctx context.Context, cfg Config, seeds []uint64, out io.Writer) (*CheckReport, error) {
	if len(seeds) == 0 {
		return nil, errors.New("process: check: no seeds")
	}
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("process: %w", err)
	}
	rep := &CheckReport{Command: cfg.Command, Agent: cfg.Agent, Seeds: slices.Clone(seeds)}
	env, err := New(cfg)
	if err != nil {
		// Say how to fix the agent on evolve env check's command line
		// rather than in an experiment config.
		var pe *Error
		if errors.As(err, &pe) {
			switch {
			case errors.Is(err, errNoAgent):
				pe.Err = &wrapped{msg: "mode step needs an agent process: pass --agent CMD (e.g. --agent 'python3 agent.py')", err: errNoAgent}
			case errors.Is(err, errExtraAgent):
				pe.Err = &wrapped{msg: "mode episode: the process plays its own agent; leave out --agent", err: errExtraAgent}
			}
		}
		rep.Violations = append(rep.Violations, fmt.Errorf("handshake: %w", err))
		return rep, rep.print(out)
	}
	if env.hello.Mode == ModeStep && env.agent == nil { // it declares actions: a language model could play it, the check cannot
		err := env.declErr(RoleEnvironment, cfg.Command, &wrapped{msg: "mode step needs an agent process: pass --agent CMD (e.g. --agent 'python3 agent.py')", err: errNoAgent})
		rep.Violations = append(rep.Violations, fmt.Errorf("handshake: %w", err))
		return rep, rep.print(out)
	}
	rep.Info, rep.Mode = env.Info(), env.Mode()
	for _, h := range []*hello{env.hello, env.agent} {
		if h != nil {
			rep.Warnings = append(rep.Warnings, unknownKeys("hello", h.raw, &hello{})...)
		}
	}
	rep.Violations = append(rep.Violations, CheckRemedies(&rep.Info)...)

	rep.Direct = env.hello.Direct && env.agent != nil
	defaults := rep.Info.Params.Defaults()
	rep.Params = defaults
	ch := &checkRun{rep: rep, results: [2]map[uint64]checkResult{{}, {}}, warned: map[string]bool{}}
	for pass := range 2 {
		if err := ch.playPass(ctx, env, pass, seeds, defaults); err != nil {
			return rep, err
		}
	}
	ch.times()
	ch.compare(seeds)
	return rep, rep.print(out)
}

// checkResult is one episode of Check's pass: the outcome as written, the
// step stream's digest (step mode), the episode's steps (step mode) or its
// acts (direct), or its error.
type checkResult struct {
	raw    []byte
	digest string
	steps  int
	err    error
}

// checkRun is the state of Check's two passes: each pass's results by
// seed, the episodes played without error, each process's time in them
// and their steps, and the warnings already reported.
type checkRun struct {
	rep       *CheckReport
	results   [2]map[uint64]checkResult
	ok        int
	passTotal [2]time.Duration
	passSteps [2]int
	warned    map[string]bool
}

// warn adds w to the report's warnings once.
func (ch *checkRun) warn(w string) {
	if !ch.warned[w] {
		ch.warned[w] = true
		ch.rep.Warnings = append(ch.rep.Warnings, errors.New(w))
	}
}

// violation records err, of process A or B (pass 0 or 1), as a violation
// and, if it is the first, as the report's first error; it returns the
// error as recorded.
func (ch *checkRun) violation(pass int, err error) error {
	err = fmt.Errorf("process %c: %w", 'A'+pass, err)
	ch.rep.Violations = append(ch.rep.Violations, err)
	if ch.rep.FirstError == nil {
		ch.rep.FirstError = err
	}
	return err
}

// playPass plays seeds with default parameters on a new player of env:
// pass 0 in order, pass 1 in reverse order (over the direct channel when
// the report's Direct is set). It returns only ctx's error.
func (ch *checkRun) playPass(ctx context.Context, env *Env, pass int, seeds []uint64, defaults params.Set) error {
	rep := ch.rep
	order := slices.Clone(seeds)
	if pass == 1 {
		slices.Reverse(order)
	}
	player, err := env.newPlayer(pass, pass == 1 && rep.Direct)
	if err != nil {
		ch.violation(pass, err)
		return nil
	}
	tr := &trace{}
	player.trace = tr
	for _, s := range order {
		tr.reset()
		start := time.Now()
		_, err := player.Play(ctx, envs.Episode{Seed: s, Params: defaults, Prompt: checkPrompt})
		d := time.Since(start)
		if cerr := ctx.Err(); cerr != nil {
			player.Close()
			return cerr
		}
		rep.Episodes++
		for _, w := range tr.warnings {
			ch.warn(w)
		}
		if err != nil {
			rep.Errors++
			ch.results[pass][s] = checkResult{err: ch.violation(pass, err)}
			continue
		}
		ch.ok++
		rep.Steps += tr.steps
		ch.passTotal[pass] += d
		ch.passSteps[pass] += tr.steps
		ch.results[pass][s] = checkResult{raw: tr.outcomeRaw, digest: tr.digest(), steps: tr.steps}
	}
	player.Close()
	for _, role := range player.closeIgnored {
		ch.warn(fmt.Sprintf("the %s process did not exit within %s of close (evolve killed it): exit on close, or at end of file on stdin (docs/protocol.md, section 2.6)", role, closeGrace))
	}
	return nil
}

// times sets the report's mean time per episode and per step (per
// process when the second pass was direct).
func (ch *checkRun) times() {
	rep := ch.rep
	total := ch.passTotal[0] + ch.passTotal[1]
	if ch.ok > 0 {
		rep.EpisodeTime = total / time.Duration(ch.ok)
	}
	switch {
	case rep.Direct:
		if ch.passSteps[0] > 0 {
			rep.StepTime = ch.passTotal[0] / time.Duration(ch.passSteps[0])
		}
		if ch.passSteps[1] > 0 {
			rep.DirectStepTime = ch.passTotal[1] / time.Duration(ch.passSteps[1])
		}
	case rep.Steps > 0:
		rep.StepTime = total / time.Duration(rep.Steps)
	}
}

// compare compares the two passes' outcomes seed by seed: a difference is
// a violation, equality counts as identical.
func (ch *checkRun) compare(seeds []uint64) {
	rep := ch.rep
	for _, s := range seeds {
		a, okA := ch.results[0][s]
		b, okB := ch.results[1][s]
		if !okA || !okB || a.err != nil || b.err != nil {
			continue
		}
		rep.Compared++
		switch {
		case !bytes.Equal(a.raw, b.raw):
			b2, how := "reverse order", "so it depends on more than seed, parameters and prompt"
			if rep.Direct {
				b2, how = "reverse order, over the direct channel", how+", or run plays otherwise than reset and step"
			}
			rep.Violations = append(rep.Violations, fmt.Errorf("seed %d: the outcome differs between process A (seeds in order) and process B (%s), %s: %s", s, b2, how, firstDifference(a.raw, b.raw)))
		case rep.Direct && a.steps != b.steps:
			rep.Violations = append(rep.Violations, fmt.Errorf("seed %d: process B's run answered acts %d, but the same episode relayed by evolve (process A) took %d steps: acts must count the act requests sent to the agent, one per step", s, b.steps, a.steps))
		case a.digest != b.digest && !rep.Direct:
			rep.Violations = append(rep.Violations, fmt.Errorf("seed %d: the outcomes are equal but the observations, rewards or done flags differ between process A and process B", s))
		default:
			rep.Identical++
		}
	}
}

// firstDifference describes where a and b first differ.
func firstDifference(a, b []byte) string {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	from := max(0, i-40)
	clip := func(x []byte) string {
		return string(x[min(from, len(x)):min(i+40, len(x))])
	}
	return fmt.Sprintf("first difference at byte %d: A has %q, B has %q", i, clip(a), clip(b))
}

// CheckRemedies returns a violation for each remedy or fill entry of info
// that is not one of "NAME+", "NAME-" (a number, integer or enum
// parameter), "prioritize NAME ITEM", "deprioritize NAME ITEM" (an item
// of an ordering) or "rotate NAME" (an ordering) for a declared
// parameter.
func CheckRemedies(info *envs.Info) []error {
	var errs []error
	check := func(where, r string) {
		if err := checkRemedy(info.Params, r); err != nil {
			errs = append(errs, fmt.Errorf("%s: remedy %q: %v", where, r, err))
		}
	}
	causes := make([]string, 0, len(info.Remedies))
	for c := range info.Remedies {
		causes = append(causes, c)
	}
	sort.Strings(causes)
	for _, c := range causes {
		for _, r := range info.Remedies[c] {
			check("remedies."+c, r)
		}
	}
	for _, r := range info.Fill {
		check("fill", r)
	}
	return errs
}

func checkRemedy(sc params.Schema, r string) error {
	f := strings.Fields(r)
	field := func(name string, kinds ...params.Kind) (*params.Field, error) {
		fd := sc.Field(name)
		if fd == nil {
			return nil, fmt.Errorf("%q is not a declared parameter (declared: %v)", name, sc.Names())
		}
		if !slices.Contains(kinds, fd.Kind) {
			return nil, fmt.Errorf("%s is a %s", name, fd.Kind)
		}
		return fd, nil
	}
	switch {
	case len(f) == 1 && (strings.HasSuffix(f[0], "+") || strings.HasSuffix(f[0], "-")):
		_, err := field(f[0][:len(f[0])-1], params.Number, params.Integer, params.Enum)
		return err
	case len(f) == 3 && (f[0] == "prioritize" || f[0] == "deprioritize"):
		fd, err := field(f[1], params.Ordering)
		if err == nil && !slices.Contains(fd.Items, f[2]) {
			err = fmt.Errorf("%q is not an item of %s (items: %v)", f[2], f[1], fd.Items)
		}
		return err
	case len(f) == 2 && f[0] == "rotate":
		_, err := field(f[1], params.Ordering)
		return err
	}
	return errors.New(`want "NAME+", "NAME-", "prioritize NAME ITEM", "deprioritize NAME ITEM" or "rotate NAME"`)
}

// print writes the report to w.
func (r *CheckReport) print(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "environment: %s\n", strings.Join(r.Command, " "))
	if len(r.Agent) > 0 {
		fmt.Fprintf(&b, "agent:       %s\n", strings.Join(r.Agent, " "))
	}
	if r.Mode == "" {
		fmt.Fprintf(&b, "handshake:   FAILED\n")
	} else {
		fmt.Fprintf(&b, "handshake:   ok: name %q, mode %s, protocol %d, %d parameters, %d causes, %d metrics\n",
			r.Info.Name, r.Mode, Protocol, len(r.Info.Params), len(r.Info.Causes), len(r.Info.Metrics))
		if len(r.Params) > 0 {
			fmt.Fprintf(&b, "parameters:  %s (the schema's defaults)\n", r.Params)
		}
		b2 := "process B in reverse order"
		if r.Direct {
			b2 += " over the direct channel"
		}
		fmt.Fprintf(&b, "episodes:    %d seeds played twice under these parameters (process A in order, %s): %d episodes, %d errors\n",
			len(r.Seeds), b2, r.Episodes, r.Errors)
		if r.Episodes-r.Errors == 0 {
			b.WriteString("determinism: not checked: no episode could be played\n")
			b.WriteString("time:        not measured: no episode could be played\n")
			if r.FirstError != nil {
				fmt.Fprintf(&b, "first error: %s\n", strings.ReplaceAll(r.FirstError.Error(), "\n", "\n    "))
			}
		} else {
			fmt.Fprintf(&b, "determinism: %d of %d seeds gave byte-identical outcomes", r.Identical, len(r.Seeds))
			if n := len(r.Seeds) - r.Compared; n > 0 {
				fmt.Fprintf(&b, " (%d not compared: an episode failed)", n)
			}
			b.WriteString("\n")
			fmt.Fprintf(&b, "time:        %s per episode", roundDuration(r.EpisodeTime))
			switch {
			case r.Mode == ModeStep && r.Direct && r.Steps > 0:
				fmt.Fprintf(&b, ", per step %s relayed by evolve (process A) and %s over the direct channel (process B) (%d steps, %.1f per episode)",
					roundDuration(r.StepTime), roundDuration(r.DirectStepTime), r.Steps, float64(r.Steps)/float64(max(1, r.Episodes-r.Errors)))
			case r.Mode == ModeStep && r.Steps > 0:
				fmt.Fprintf(&b, ", %s per step (%d steps, %.1f per episode)", roundDuration(r.StepTime), r.Steps,
					float64(r.Steps)/float64(max(1, r.Episodes-r.Errors)))
			}
			b.WriteString("\n")
		}
	}
	for _, w := range r.Warnings {
		fmt.Fprintf(&b, "warning: %v\n", w)
	}
	for _, v := range r.Violations {
		fmt.Fprintf(&b, "violation: %s\n", strings.ReplaceAll(v.Error(), "\n", "\n    "))
	}
	if r.OK() {
		b.WriteString("result: ok\n")
	} else {
		fmt.Fprintf(&b, "result: FAIL (%d violations)\n", len(r.Violations))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// roundDuration rounds d to 3 significant digits for printing.
func roundDuration(d time.Duration) time.Duration {
	if d <= 0 {
		return d
	}
	p := time.Duration(math.Pow(10, math.Floor(math.Log10(float64(d)))-2))
	return d.Round(max(p, 1))
}

// trace records what Check needs of one episode's messages.
type trace struct {
	// lines, when record is set, collects every request and response
	// line (tests validate them against the schemas).
	record     bool
	lines      [][2][]byte
	outcomeRaw []byte
	steps      int
	h          hash.Hash
	warnings   []string
}

func (t *trace) reset() {
	t.outcomeRaw, t.steps, t.warnings = nil, 0, nil
	if t.h == nil {
		t.h = sha256.New()
	}
	t.h.Reset()
}

func (t *trace) digest() string { return hex.EncodeToString(t.h.Sum(nil)) }

// message checks a response line strictly.
func (t *trace) message(role, request string, req, line []byte, err error) {
	if t.record {
		t.lines = append(t.lines, [2][]byte{bytes.Clone(bytes.TrimSpace(req)), bytes.Clone(line)})
	}
	if err != nil {
		return
	}
	for _, w := range unknownKeys(role+" "+request+" response", line, &reply{}) {
		t.warnings = append(t.warnings, w.Error())
	}
}

func (t *trace) step(r *reply) {
	t.steps++
	t.h.Write(r.Observation)
	fmt.Fprintf(t.h, "\x00%v\x00%v\x00", math.Float64bits(*r.Reward), *r.Done)
}

func (t *trace) outcome(raw json.RawMessage, err error) {
	t.outcomeRaw = bytes.Clone(raw)
	if err == nil {
		for _, w := range unknownKeys("outcome", raw, &wireOutcome{}) {
			t.warnings = append(t.warnings, w.Error())
		}
	}
}

// unknownKeys returns a warning if line has keys that v does not know.
func unknownKeys(what string, line []byte, v any) []error {
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil && strings.Contains(err.Error(), "unknown field") {
		return []error{fmt.Errorf("%s: %v (evolve ignores it)", what, err)}
	}
	return nil
}

// CheckSeeds returns the n seeds `evolve env check` plays by default: the
// first n outputs of SplitMix64 (Steele, Lea and Flood, "Fast splittable
// pseudorandom number generators", OOPSLA 2014) from state 0, which span
// the whole uint64 range and so also test that a process reads seeds
// above 2^53 exactly.
func CheckSeeds(n int) []uint64 {
	out := make([]uint64, n)
	var s uint64
	for i := range out {
		s += 0x9E3779B97F4A7C15
		z := s
		z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
		z = (z ^ (z >> 27)) * 0x94D049BB133111EB
		out[i] = z ^ (z >> 31)
	}
	return out
}
