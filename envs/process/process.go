package process

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"evolve/envs"
)

func init() {
	envs.Register("process", envs.Factory{
		Config: func() any { c := DefaultConfig(); return &c },
		New: func(cfg any) (envs.Environment, error) {
			c, ok := cfg.(*Config)
			if !ok {
				return nil, fmt.Errorf("process: want a *process.Config, got %T", cfg)
			}
			return New(*c)
		},
	})
}

// Error is why an episode (or a handshake) could not be played because
// of a process. errors.Is(err, ErrExited), ErrTimeout, ErrProtocol or
// ErrReported tells what happened.
type Error struct {
	// Seed is the episode's seed; 0 (and not shown) for a handshake.
	Seed uint64
	// Role is the process's role: RoleEnvironment or RoleAgent.
	Role string
	// Argv is the process's command line.
	Argv []string
	// Request is the request that failed: "hello", "reset", "step",
	// "begin", "act", "play" or "run" (over the direct channel, also
	// for an agent process that exited during the episode).
	Request string
	// Err says what happened; it wraps one of the sentinel errors.
	Err error
	// Stderr is the tail of the process's stderr: its last 20 lines, at
	// most 4 KiB; "" if it wrote nothing.
	Stderr string
}

// Error returns "seed S: environment process [ARGV]: REQUEST: WHAT",
// then, if the process wrote to stderr, "; stderr tail:" and the tail on
// the following lines.
func (e *Error) Error() string {
	var b strings.Builder
	if e.Request != "hello" {
		fmt.Fprintf(&b, "seed %d: ", e.Seed)
	}
	fmt.Fprintf(&b, "%s process [%s]: %s: %v", e.Role, strings.Join(e.Argv, " "), e.Request, e.Err)
	if e.Stderr != "" {
		b.WriteString("; stderr tail:\n")
		b.WriteString(e.Stderr)
	}
	return b.String()
}

// Unwrap returns Err.
func (e *Error) Unwrap() error { return e.Err }

// Env is the "process" environment: the declarations of the process's
// hello and the configuration to start more. It implements
// envs.Environment and is safe for concurrent use.
type Env struct {
	cfg   Config
	info  envs.Info
	hello *hello // the environment process's hello
	agent *hello // the agent process's hello (step mode), else nil

	textAgent TextAgent // set by UseLLM: a language model is the agent of step mode

	cpus []int // with PinCPU, the CPUs evolve may run on (allowedCPUs); else nil
}

// New validates cfg, starts the environment process (and in step mode the
// agent process) for the handshake, checks their declarations
// (envs.Info.Check, mode and roles, step mode needing an agent command,
// episode mode refusing one) and ends them. The returned Env's Info has
// the environment process's name, causes, metrics, remedies and fill,
// and as parameters the environment's followed by the agent's. Errors:
// on a platform without process environments (Windows) one that wraps
// errors.ErrUnsupported and names the platform, cfg's Validate error,
// both prefixed by "process: ", or the handshake's *Error.
func New(cfg Config) (*Env, error) {
	if err := platformErr(); err != nil {
		return nil, fmt.Errorf("process: %w", err)
	}
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("process: %w", err)
	}
	cfg.Command = slices.Clone(cfg.Command)
	cfg.Agent = slices.Clone(cfg.Agent)
	e := &Env{cfg: cfg}
	if cfg.PinCPU {
		e.cpus = allowedCPUs()
	}
	logPath := ""
	if cfg.StderrDir != "" {
		logPath = filepath.Join(cfg.StderrDir, "process-hello.log")
	}
	p, h, err := e.startHello(cfg.Command, RoleEnvironment, logPath)
	if err != nil {
		return nil, err
	}
	p.terminate(true, "")
	e.hello = h
	if !slices.Contains(h.Provides, RoleEnvironment) {
		return nil, e.declErr(RoleEnvironment, cfg.Command, protocolf("provides %q: the command must provide environment", h.Provides))
	}
	switch {
	case h.Mode == ModeStep && len(cfg.Agent) == 0 && len(h.Actions) == 0:
		return nil, e.declErr(RoleEnvironment, cfg.Command, &wrapped{msg: "mode step needs an agent process: set agent: [COMMAND, ARGS...] in the environment config (or declare actions in the hello and use agent kind llm)", err: errNoAgent})
	case h.Mode == ModeEpisode && len(cfg.Agent) > 0:
		return nil, e.declErr(RoleEnvironment, cfg.Command, &wrapped{msg: "mode episode: the process plays its own agent; remove agent from the environment config", err: errExtraAgent})
	}
	if cfg.Direct && (h.Mode != ModeStep || !h.Direct) {
		return nil, e.declErr(RoleEnvironment, cfg.Command, protocolf(`the config sets direct: true, but the environment's hello does not declare "direct": true (mode %s), so it cannot play over the direct channel: remove direct, or implement the run request (docs/protocol.md, section 2.7)`, h.Mode))
	}
	e.info = envs.Info{Name: h.Name, Causes: h.Causes, Metrics: h.Metrics, Params: h.Parameters, Remedies: h.Remedies, Fill: h.Fill}
	if h.Mode == ModeStep && len(cfg.Agent) > 0 {
		a, ah, err := e.startHello(cfg.Agent, RoleAgent, logPath)
		if err != nil {
			return nil, err
		}
		a.terminate(true, "")
		if !slices.Contains(ah.Provides, RoleAgent) || ah.Mode != ModeStep {
			return nil, e.declErr(RoleAgent, cfg.Agent, protocolf("provides %q, mode %q: the agent command must provide agent in mode step", ah.Provides, ah.Mode))
		}
		if len(ah.Causes) > 0 || len(ah.Metrics) > 0 || len(ah.Remedies) > 0 || len(ah.Fill) > 0 {
			return nil, e.declErr(RoleAgent, cfg.Agent, protocolf("an agent process declares only parameters; causes, metrics, remedies and fill belong to the environment"))
		}
		e.agent = ah
		e.info.Params = append(slices.Clone(h.Parameters), ah.Parameters...)
	}
	if err := e.info.Check(); err != nil {
		return nil, e.declErr(RoleEnvironment, cfg.Command, fmt.Errorf("%w: hello: %v", ErrProtocol, err))
	}
	return e, nil
}

// errNoAgent and errExtraAgent are wrapped by New's error for an agent
// command missing in step mode or given in episode mode, so that Check
// can say how to fix it on evolve env check's command line.
var (
	errNoAgent    = errors.New("step mode without an agent command")
	errExtraAgent = errors.New("episode mode with an agent command")
)

func (e *Env) declErr(role string, argv []string, err error) *Error {
	return &Error{Role: role, Argv: argv, Request: "hello", Err: err}
}

// startHello starts argv and runs the handshake within startup_timeout.
// On an error the process is ended and the error is an *Error.
func (e *Env) startHello(argv []string, role, logPath string, extra ...*os.File) (*proc, *hello, error) {
	p, err := startProc(&e.cfg, argv, role, logPath, extra...)
	if err != nil {
		return nil, nil, &Error{Role: role, Argv: argv, Request: "hello", Err: fmt.Errorf("%w: %v", ErrExited, err)}
	}
	deadline := time.Now().Add(time.Duration(e.cfg.StartupTimeout))
	p.req = append(appendHead(p.req[:0], 0, "hello"), `,"protocol":1}`+"\n"...)
	p.id = 1
	var h *hello
	line, err := p.roundTrip(deadline)
	if err == nil {
		h, err = checkHello(line)
	}
	if err != nil {
		e := p.fail(0, "hello", err, deadline, time.Time{}, "startup_timeout")
		if errors.Is(err, ErrReported) {
			// fail keeps a process that reports an error, but one that
			// cannot say hello is of no use.
			p.terminate(false, fmt.Sprintf("hello: it answered with an error (%v)", err))
			e.Stderr = p.stderr.String()
		}
		return nil, nil, e
	}
	return p, h, nil
}

// fail turns err, returned by a request to p, into an *Error, ending p
// (and so completing its stderr tail) unless the process reported the
// error itself.
func (p *proc) fail(seed uint64, request string, err error, msgDeadline, epDeadline time.Time, timeoutName string) *Error {
	e := &Error{Seed: seed, Role: p.role, Argv: p.argv, Request: request}
	if errors.Is(err, ErrReported) {
		e.Err = err
		e.Stderr = p.stderr.String()
		return e
	}
	// why evolve kills the process, for its stderr log
	what := request
	if request != "hello" {
		what = fmt.Sprintf("%s (seed %d)", request, seed)
	}
	reason := func() string {
		return fmt.Sprintf("%s: %v; the request was %s", what, e.Err, quoteLine(bytes.TrimSpace(p.req)))
	}
	switch {
	case errors.Is(err, os.ErrDeadlineExceeded):
		if !epDeadline.IsZero() && !time.Now().Before(epDeadline) {
			e.Err = fmt.Errorf("%w: the episode ran past episode_timeout %s", ErrTimeout, p.cfg.EpisodeTimeout)
		} else if timeoutName == "startup_timeout" {
			e.Err = fmt.Errorf("%w: no answer within startup_timeout %s; did it flush stdout after each line? (Python: print(..., flush=True) or sys.stdout.flush())", ErrTimeout, p.cfg.StartupTimeout)
		} else {
			e.Err = fmt.Errorf("%w: no answer within %s %s", ErrTimeout, timeoutName, p.cfg.MessageTimeout)
		}
		p.terminate(false, reason())
	case errors.Is(err, ErrProtocol):
		e.Err = err
		p.terminate(false, reason())
	default: // EOF on stdout or a broken stdin: the process is gone
		exited := true
		select {
		case <-p.done:
		case <-time.After(closeGrace):
			exited = false
		}
		kill := ""
		if !exited {
			kill = what + ": it closed its stdout but did not exit"
		}
		p.terminate(false, kill)
		status := p.exitStatus()
		if !exited {
			status = "closed its stdout (evolve killed it)"
		}
		msg := fmt.Sprintf("%s: %s before answering", ErrExited, status)
		if errors.Is(err, io.EOF) == false && !errors.Is(err, os.ErrClosed) {
			msg += fmt.Sprintf(" (%v)", err)
		}
		if p.cfg.MaxMemoryMB > 0 {
			msg += memoryHint(status, p.stderr.String(), p.cfg.MaxMemoryMB, p.box.oomKilled())
		}
		e.Err = &wrapped{msg: msg, err: ErrExited}
	}
	e.Stderr = p.stderr.String()
	return e
}

// wrapped is an error with its own message that wraps a sentinel.
type wrapped struct {
	msg string
	err error
}

func (w *wrapped) Error() string { return w.msg }
func (w *wrapped) Unwrap() error { return w.err }

// memoryHint returns what an exit with status and stderr (its tail)
// says about max_memory_mb mb: "" if it does not look like a failed
// allocation; else a hint at the limit, naming the kernel's OOM killer
// when the cgroup recorded one (oom), and, for a Node.js heap exhausted
// (V8 prints "heap out of memory" or "Fatal process OOM"), V8's
// --max-old-space-size, which must sit below the limit for V8 to collect
// garbage before it hits it.
func memoryHint(status, stderr string, mb int, oom bool) string {
	if oom {
		return fmt.Sprintf("; the kernel's OOM killer ended it at max_memory_mb %d (cgroup memory.max)", mb)
	}
	if strings.Contains(stderr, "heap out of memory") || strings.Contains(stderr, "Fatal process OOM") || strings.Contains(stderr, "FatalProcessOutOfMemory") {
		return fmt.Sprintf("; Node.js ran out of memory under max_memory_mb %d: raise it, or run node --max-old-space-size=%d (MiB, about three quarters of the limit) so that V8 collects before the limit", mb, mb*3/4)
	}
	for _, s := range []string{"MemoryError", "Cannot allocate memory", "out of memory", "std::bad_alloc", "OutOfMemoryError", "signal: killed", "signal: segmentation fault", "signal: aborted"} {
		if strings.Contains(status, s) || strings.Contains(stderr, s) {
			return fmt.Sprintf("; it may have exceeded max_memory_mb %d", mb)
		}
	}
	return ""
}

// Info returns the declarations of the process's hello (see New); with a
// language-model agent (UseLLM), also the agent's metrics after the
// environment's metrics and ReadsText.
func (e *Env) Info() envs.Info {
	if e.textAgent == nil {
		return e.info
	}
	info := e.info
	info.Metrics = append(slices.Clone(info.Metrics), e.textAgent.Metrics()...)
	info.ReadsText = true
	return info
}

// Config returns the configuration e was made with.
func (e *Env) Config() Config { return e.cfg }

// Mode returns ModeStep or ModeEpisode, as the process declared.
func (e *Env) Mode() string { return e.hello.Mode }

// SetLogDir sets the directory of the players' stderr logs (Config's
// StderrDir) for players made after the call; the experiment sets it to
// the run directory once it exists.
func (e *Env) SetLogDir(dir string) { e.cfg.StderrDir = dir }

// NewPlayer starts worker w's process (two in step mode), whose stderr is
// appended to stderr_dir/process-<w>.log (agent-<w>.log), and checks that
// its hello declares what the first process's did. The error is an
// *Error.
func (e *Env) NewPlayer(w int) (envs.Player, error) {
	return e.newPlayer(w, e.cfg.Direct)
}

// newPlayer is NewPlayer, over the direct channel if direct is set (and
// no language model plays).
func (e *Env) newPlayer(w int, direct bool) (*Player, error) {
	if e.hello.Mode == ModeStep && e.agent == nil && e.textAgent == nil {
		return nil, &Error{Role: RoleAgent, Argv: e.cfg.Command, Request: "hello", Err: &wrapped{
			msg: "mode step without an agent: set agent: [COMMAND, ARGS...] in the environment config, or use a language model (agent: {kind: llm}) to choose among the declared actions", err: errNoAgent}}
	}
	p := &Player{env: e, worker: w, direct: direct && e.textAgent == nil}
	if e.textAgent != nil {
		p.turns = e.textAgent.NewTurns()
	}
	if err := p.pinned(p.start); err != nil {
		return nil, err
	}
	return p, nil
}

// Player plays episodes on one worker's processes; it implements
// envs.Player. It is not safe for concurrent use.
type Player struct {
	env    *Env
	worker int
	// direct plays step mode over the direct channel (Config.Direct):
	// the environment process is started with the agent process's
	// pipes and is sent run requests.
	direct bool
	// seed is the seed of the episode being played over the direct
	// channel, for the agent exit hook's kill reason.
	seed   atomic.Uint64
	ep     *proc // the environment process, nil until started
	ag     *proc // the agent process (step mode), nil until started
	r      reply
	trace  *trace // set by Check
	closed bool
	turns  Turns // the text agent's chooser of this worker (UseLLM), or nil
	// closeIgnored lists the roles whose process Close had to kill: it
	// did not exit within closeGrace of close (Check warns).
	closeIgnored []string
}

func (p *Player) logPath(role string) string {
	if p.env.cfg.StderrDir == "" {
		return ""
	}
	name := "process"
	if role == RoleAgent {
		name = "agent"
	}
	return filepath.Join(p.env.cfg.StderrDir, fmt.Sprintf("%s-%d.log", name, p.worker))
}

// start starts the processes that are not running. Over the direct
// channel both are started anew if either is missing (the environment
// process holds the agent process's pipes), the agent first.
func (p *Player) start() error {
	if p.direct {
		return p.startDirect()
	}
	if p.ep == nil {
		pr, err := p.startOne(p.env.cfg.Command, RoleEnvironment, p.env.hello)
		if err != nil {
			return err
		}
		p.ep = pr
	}
	if p.env.agent != nil && p.env.textAgent == nil && p.ag == nil {
		pr, err := p.startOne(p.env.cfg.Agent, RoleAgent, p.env.agent)
		if err != nil {
			return err
		}
		p.ag = pr
	}
	return nil
}

// pinned runs f with PinCPU's affinity (see onCPU), or just runs it
// without PinCPU, and returns its error.
func (p *Player) pinned(f func() error) error {
	if len(p.env.cpus) == 0 {
		return f()
	}
	var err error
	onCPU(p.env.cpus[p.worker%len(p.env.cpus)], func() { err = f() })
	return err
}

// startDirect starts the agent process, then the environment process
// with the agent's stdin (write end) as its file descriptor 3 and the
// agent's stdout (read end) as its file descriptor 4, and makes the
// agent's exit kill the environment process.
func (p *Player) startDirect() error {
	if p.ep != nil && p.ag != nil {
		return nil
	}
	p.discard("the other process of the direct channel had to be restarted")
	ag, err := p.startOne(p.env.cfg.Agent, RoleAgent, p.env.agent)
	if err != nil {
		return err
	}
	env, err := p.startOne(p.env.cfg.Command, RoleEnvironment, p.env.hello, ag.in, ag.out)
	if err != nil {
		ag.terminate(false, "the environment process of the direct channel could not be started")
		return err
	}
	hook := func() {
		select {
		case <-env.done:
		default:
			env.killFor(fmt.Sprintf("seed %d: the agent process exited during the episode over the direct channel", p.seed.Load()))
		}
	}
	ag.exitHook.Store(&hook)
	p.ep, p.ag = env, ag
	return nil
}

func (p *Player) startOne(argv []string, role string, want *hello, extra ...*os.File) (*proc, error) {
	pr, h, err := p.env.startHello(argv, role, p.logPath(role), extra...)
	if err != nil {
		return nil, err
	}
	want2 := *want
	h.ID, h.raw, want2.ID, want2.raw = nil, nil, nil, nil
	if !reflect.DeepEqual(*h, want2) {
		pr.terminate(false, "its hello declares other things than the first process's")
		return nil, &Error{Role: role, Argv: argv, Request: "hello", Err: protocolf("worker %d's process declares other things than the first process (its hello must not change between processes)", p.worker)}
	}
	return pr, nil
}

// Play plays ep on the worker's processes (see the package doc). It
// returns the outcome, or an *Error when a process failed (the failed
// process is replaced for the next episode), or ctx.Err() when ctx was
// cancelled (the processes are killed and replaced).
func (p *Player) Play(ctx context.Context, ep envs.Episode) (envs.Outcome, error) {
	if p.closed {
		return envs.Outcome{}, errors.New("process: Play after Close")
	}
	if err := ctx.Err(); err != nil {
		return envs.Outcome{}, err
	}
	if err := p.pinned(p.start); err != nil {
		var pe *Error
		if errors.As(err, &pe) {
			pe.Seed, pe.Request = ep.Seed, "hello (restart)"
		}
		return envs.Outcome{}, err
	}
	ep1, ag := p.ep, p.ag
	// An error quotes the stderr of its own episode: what a process wrote
	// during earlier episodes is dropped (what it wrote while starting
	// stays for its first; a line of the previous episode that the stderr
	// copier delivers late is kept).
	for _, pr := range []*proc{ep1, ag} {
		if pr != nil {
			if pr.played > 0 {
				pr.stderr.reset()
			}
			pr.played++
		}
	}
	stop := context.AfterFunc(ctx, func() {
		why := fmt.Sprintf("seed %d: the run was cancelled (%v)", ep.Seed, context.Cause(ctx))
		ep1.killFor(why)
		if ag != nil {
			ag.killFor(why)
		}
	})
	epDeadline := time.Now().Add(time.Duration(p.env.cfg.EpisodeTimeout))
	var out envs.Outcome
	err := p.pinned(func() (err error) {
		switch {
		case p.env.hello.Mode == ModeEpisode:
			out, err = p.playEpisode(ep, epDeadline)
		case p.env.textAgent != nil:
			out, err = p.playLLM(ctx, ep, epDeadline)
		case p.direct:
			out, err = p.playDirect(ep, epDeadline)
		default:
			out, err = p.playSteps(ep, epDeadline)
		}
		return err
	})
	if !stop() { // ctx was cancelled: the processes are (being) killed
		p.discard("the run was cancelled")
		if err == nil {
			err = ctx.Err()
		}
	}
	if ctx.Err() != nil && err != nil {
		p.discard("the run was cancelled")
		return envs.Outcome{}, ctx.Err()
	}
	if err != nil && p.direct {
		// The agent's request ids, and whatever the two processes
		// still have in the pipes between them, are unknown: both
		// start afresh.
		p.discard(fmt.Sprintf("seed %d: the episode over the direct channel failed", ep.Seed))
		return envs.Outcome{}, err
	}
	if err != nil {
		var pe *Error
		if errors.As(err, &pe) && !errors.Is(err, ErrReported) {
			// fail ended the process; start afresh next time.
			if p.ep != nil && pe.Role == RoleEnvironment {
				p.ep = nil
			}
			if p.ag != nil && pe.Role == RoleAgent {
				p.ag = nil
			}
		}
		return envs.Outcome{}, err
	}
	return out, nil
}

// call writes the request in pr.req and reads the response into p.r
// within message_timeout and the episode's deadline.
func (p *Player) call(pr *proc, seed uint64, request, want string, epDeadline time.Time) error {
	deadline := time.Now().Add(time.Duration(p.env.cfg.MessageTimeout))
	if epDeadline.Before(deadline) {
		deadline = epDeadline
	}
	return p.callUntil(pr, seed, request, want, deadline, epDeadline)
}

// callUntil is call with the response's deadline given.
func (p *Player) callUntil(pr *proc, seed uint64, request, want string, deadline, epDeadline time.Time) error {
	id := pr.id
	pr.id++
	line, err := pr.roundTrip(deadline)
	if err == nil {
		err = decodeReply(line, id, want, &p.r)
		if p.trace != nil {
			p.trace.message(pr.role, request, pr.req, line, err)
		}
	}
	if err != nil {
		return pr.fail(seed, request, err, deadline, epDeadline, "message_timeout")
	}
	return nil
}

func (p *Player) playEpisode(ep envs.Episode, epDeadline time.Time) (envs.Outcome, error) {
	pr := p.ep
	var err error
	pr.req, err = appendSeeded(pr.req[:0], pr.id, "play", ep.Seed, ep.Params)
	if err != nil {
		return envs.Outcome{}, fmt.Errorf("seed %d: play: %w", ep.Seed, err)
	}
	pr.req = appendPrompt(pr.req, ep.Prompt)
	if err := p.call(pr, ep.Seed, "play", "outcome", epDeadline); err != nil {
		return envs.Outcome{}, err
	}
	return p.outcome(pr, ep.Seed, "play", p.r.Outcome)
}

func (p *Player) outcome(pr *proc, seed uint64, request string, raw json.RawMessage) (envs.Outcome, error) {
	if raw == nil {
		return envs.Outcome{}, pr.fail(seed, request, protocolf("the %s response has no outcome", request), time.Time{}, time.Time{}, "")
	}
	out, err := decodeOutcome(raw, seed, &p.env.info)
	if p.trace != nil {
		p.trace.outcome(raw, err)
	}
	if err != nil {
		return envs.Outcome{}, pr.fail(seed, request, err, time.Time{}, time.Time{}, "")
	}
	return out, nil
}

// reset sends the environment process a reset for ep and checks that its
// response holds the first observation (in p.r.Observation).
func (p *Player) reset(ep envs.Episode, epDeadline time.Time) error {
	env := p.ep
	var err error
	if env.req, err = appendSeeded(env.req[:0], env.id, "reset", ep.Seed, ep.Params); err != nil {
		return fmt.Errorf("seed %d: reset: %w", ep.Seed, err)
	}
	env.req = append(env.req, "}\n"...)
	if err := p.call(env, ep.Seed, "reset", "observation", epDeadline); err != nil {
		return err
	}
	if p.r.Observation == nil {
		return env.fail(ep.Seed, "reset", protocolf("the observation response has no observation"), time.Time{}, time.Time{}, "")
	}
	return nil
}

// begin sends the agent process the begin request of ep and checks its
// ok.
func (p *Player) begin(ep envs.Episode, epDeadline time.Time) error {
	ag := p.ag
	ag.req, _ = appendSeeded(ag.req[:0], ag.id, "begin", ep.Seed, ep.Params)
	ag.req = append(ag.req, "}\n"...)
	return p.call(ag, ep.Seed, "begin", "ok", epDeadline)
}

func (p *Player) playSteps(ep envs.Episode, epDeadline time.Time) (envs.Outcome, error) {
	env, ag := p.ep, p.ag
	if err := p.reset(ep, epDeadline); err != nil {
		return envs.Outcome{}, err
	}
	obs := p.r.Observation
	if err := p.begin(ep, epDeadline); err != nil {
		return envs.Outcome{}, err
	}
	for step := 1; ; step++ {
		ag.req = appendRaw(appendHead(ag.req[:0], ag.id, "act"), "observation", obs)
		if err := p.call(ag, ep.Seed, "act", "action", epDeadline); err != nil {
			return envs.Outcome{}, err
		}
		if p.r.Action == nil {
			return envs.Outcome{}, ag.fail(ep.Seed, "act", protocolf("the action response has no action"), time.Time{}, time.Time{}, "")
		}
		env.req = appendRaw(appendHead(env.req[:0], env.id, "step"), "action", p.r.Action)
		if err := p.call(env, ep.Seed, "step", "step", epDeadline); err != nil {
			return envs.Outcome{}, err
		}
		r := &p.r
		switch {
		case r.Observation == nil:
			return envs.Outcome{}, env.fail(ep.Seed, "step", protocolf("step %d: the step response has no observation", step), time.Time{}, time.Time{}, "")
		case r.Reward == nil:
			return envs.Outcome{}, env.fail(ep.Seed, "step", protocolf("step %d: the step response has no reward", step), time.Time{}, time.Time{}, "")
		case r.Done == nil:
			return envs.Outcome{}, env.fail(ep.Seed, "step", protocolf("step %d: the step response has no done", step), time.Time{}, time.Time{}, "")
		}
		if p.trace != nil {
			p.trace.step(r)
		}
		if *r.Done {
			if r.Outcome == nil {
				return envs.Outcome{}, env.fail(ep.Seed, "step", protocolf("step %d: done is true but the response has no outcome (the last step carries the episode's outcome)", step), time.Time{}, time.Time{}, "")
			}
			return p.outcome(env, ep.Seed, "step", r.Outcome)
		}
		obs = r.Observation
	}
}

// playDirect plays ep over the direct channel: begin to the agent, then
// one run request to the environment process, which exchanges the act
// requests and actions with the agent itself and answers with the
// outcome and the number of act requests it sent (acts), by which the
// agent's request ids advance. The run request's deadline is the
// episode's.
func (p *Player) playDirect(ep envs.Episode, epDeadline time.Time) (envs.Outcome, error) {
	env, ag := p.ep, p.ag
	p.seed.Store(ep.Seed)
	if err := p.begin(ep, epDeadline); err != nil {
		var pe *Error
		if ag.played > 1 && errors.As(err, &pe) && errors.Is(err, ErrProtocol) {
			pe.Err = &wrapped{msg: fmt.Sprintf("%v (over the direct channel, often the answer to an act request that the environment sent in the previous episode and did not read: it must read the answer to every act request before it answers run)", pe.Err), err: pe.Err}
		}
		return envs.Outcome{}, err
	}
	if n := ag.r.Buffered(); n > 0 {
		return envs.Outcome{}, ag.fail(ep.Seed, "begin", protocolf("%d bytes after the ok response: an agent writes one line per request", n), time.Time{}, time.Time{}, "")
	}
	var err error
	if env.req, err = appendSeeded(env.req[:0], env.id, "run", ep.Seed, ep.Params); err != nil {
		return envs.Outcome{}, fmt.Errorf("seed %d: run: %w", ep.Seed, err)
	}
	env.req = append(env.req, `,"act_id":`...)
	env.req = strconv.AppendInt(env.req, ag.id, 10)
	env.req = append(env.req, "}\n"...)
	err = p.callUntil(env, ep.Seed, "run", "outcome", epDeadline, epDeadline)
	select {
	case <-ag.done:
		// The agent exited during the episode (and its exit killed
		// the environment process): the agent's error, with its
		// stderr (complete once done is closed).
		return envs.Outcome{}, &Error{Seed: ep.Seed, Role: RoleAgent, Argv: ag.argv, Request: "run",
			Err: &wrapped{msg: fmt.Sprintf("%s: %s during the episode over the direct channel", ErrExited, ag.exitStatus()), err: ErrExited}, Stderr: ag.stderr.String()}
	default:
	}
	var pe *Error
	if errors.As(err, &pe) && errors.Is(err, ErrTimeout) {
		// The environment may be waiting for a hung agent, or the agent
		// for an act request the environment did not flush.
		hint := "over the direct channel the run's time includes the agent's: a hung agent, or an act request not flushed to fd 3, ends here"
		if tail := strings.TrimSpace(ag.stderr.String()); tail != "" {
			hint += fmt.Sprintf("; the agent's last stderr line is %q", tail[strings.LastIndexByte(tail, '\n')+1:])
		}
		pe.Err = &wrapped{msg: fmt.Sprintf("%v (%s)", pe.Err, hint), err: pe.Err}
	}
	if err != nil {
		return envs.Outcome{}, err
	}
	acts, err := parseActs(p.r.Acts, ag.id)
	if err != nil {
		return envs.Outcome{}, env.fail(ep.Seed, "run", err, time.Time{}, time.Time{}, "")
	}
	ag.id += acts
	if p.trace != nil {
		p.trace.steps += int(acts)
	}
	return p.outcome(env, ep.Seed, "run", p.r.Outcome)
}

// MaxRequestID is the largest request id evolve sends: 2^53 - 1, the
// largest integer every JSON reader holds exactly (JavaScript's
// Number.MAX_SAFE_INTEGER).
const MaxRequestID = 1<<53 - 1

// parseActs returns the acts of a run response, the number of act
// requests the environment sent to the agent, whose first had id actID:
// an integer in [1, MaxRequestID-actID+1], so that the agent's ids stay
// exact. The error is an ErrProtocol naming the value.
func parseActs(raw json.RawMessage, actID int64) (int64, error) {
	if raw == nil {
		return 0, protocolf("the run response has no acts (want the number of act requests sent to the agent, at least 1)")
	}
	limit := MaxRequestID - actID + 1
	n, err := strconv.ParseInt(string(raw), 10, 64)
	if err != nil || n < 1 || n > limit {
		return 0, protocolf("acts %s: want the number of act requests sent to the agent, an integer in [1, %d]", raw, limit)
	}
	return n, nil
}

// discard kills the player's processes, logging reason; the next Play
// starts new ones.
func (p *Player) discard(reason string) {
	if p.ag != nil {
		p.ag.exitHook.Store(nil)
	}
	if p.ep != nil {
		p.ep.terminate(false, reason)
		p.ep = nil
	}
	if p.ag != nil {
		p.ag.terminate(false, reason)
		p.ag = nil
	}
}

// Close ends the player's processes: it sends close, waits up to a
// second for each to exit, then kills its process group. It returns nil;
// calling it again does nothing.
func (p *Player) Close() error {
	if p.closed {
		return nil
	}
	p.closed = true
	if p.ag != nil {
		p.ag.exitHook.Store(nil)
	}
	if p.ep != nil {
		if !p.ep.terminate(true, "") {
			p.closeIgnored = append(p.closeIgnored, RoleEnvironment)
		}
		p.ep = nil
	}
	if p.ag != nil {
		if !p.ag.terminate(true, "") {
			p.closeIgnored = append(p.closeIgnored, RoleAgent)
		}
		p.ag = nil
	}
	return nil
}
