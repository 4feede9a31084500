package process

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Tail sizes: an error quotes the last tailLines lines of stderr, at most
// tailBytes bytes.
const (
	tailLines = 20
	tailBytes = 4 << 10
)

// closeGrace is how long Close waits for a process to exit after the
// close request before it kills the process group.
const closeGrace = time.Second

// proc is one running process and its pipes. It is used by one goroutine,
// except kill, which a context may call from another.
type proc struct {
	role string   // RoleEnvironment or RoleAgent
	argv []string // the command line
	cfg  *Config
	cmd  *exec.Cmd
	in   *os.File // our end of the process's stdin
	out  *os.File // our end of the process's stdout
	w    *bufio.Writer
	r    *bufio.Reader
	req  []byte // the request being written (reused)
	line []byte // a response longer than r's buffer (reused)
	id   int64  // the next request's id

	stderr *tail

	// logMu guards log, its counts and killedFor: the stderr copier, a
	// cancelled context and the player write to the log.
	logMu      sync.Mutex
	log        *os.File // the stderr log, nil if none
	logSize    int64    // bytes in the log file
	logCap     int64    // the cap on the stderr the log takes (Config.MaxStderrLogMB)
	logDropped int64    // bytes of this process's stderr not logged past the cap
	logPID     int      // the process's id once started, for the log's lines
	killedFor  string   // why evolve killed the process, "" if it did not

	done    chan struct{} // closed when the process has been waited for
	waitErr error         // cmd.Wait's error, set before done is closed

	// box holds the process and its descendants (killAll, memory).
	box *containment
	// wakeW is our copy of the write end of the process's stdout: a
	// descendant that keeps stdout open cannot keep a read blocked, for
	// wake writes a blank line to it once the process has exited or
	// the watchdog fired (woken set first), and readLine returns io.EOF
	// at a blank line once woken is set.
	wakeW *os.File
	woken atomic.Bool

	played int // episodes begun on this process (Player.Play)

	// exitHook, when set, runs (in the exit watcher's goroutine) once
	// the process has exited, after kill and wake: over the direct
	// channel, the agent's exit kills the environment process, which
	// would otherwise wait for the agent's action until episode_timeout.
	exitHook atomic.Pointer[func()]

	// watchdog kills the process group when a request's deadline
	// passes (see arm). Blocking pipes (no poller, no deadlines) and a
	// timer are faster than read deadlines.
	watchdog watchdog
}

// watchdog kills a process whose request outlives its deadline. Its
// timer is re-armed only when a deadline comes earlier than the one it
// is set for; when it fires early (the request it was set for has been
// answered, and a later one is outstanding), it sets itself for the
// current deadline. A request thus costs a lock and no timer operation:
// the timer fires about once per message_timeout.
type watchdog struct {
	mu       sync.Mutex
	t        *time.Timer
	at       time.Time // when t fires; zero when it is stopped or has fired
	deadline time.Time // the outstanding request's deadline; zero for none
	fired    bool      // the deadline passed and the process was killed
}

// start creates the timer; expire runs (in the timer's goroutine) when a
// request's deadline passes.
func (w *watchdog) start(expire func()) {
	w.t = time.AfterFunc(time.Hour, func() {
		w.mu.Lock()
		w.at = time.Time{}
		if w.deadline.IsZero() || w.fired {
			w.mu.Unlock()
			return
		}
		if left := time.Until(w.deadline); left > 0 {
			w.at = w.deadline
			w.t.Reset(left)
			w.mu.Unlock()
			return
		}
		w.fired = true
		w.mu.Unlock()
		expire()
	})
	w.t.Stop()
}

// arm sets the outstanding request's deadline.
func (w *watchdog) arm(deadline time.Time) {
	w.mu.Lock()
	w.deadline, w.fired = deadline, false
	if w.at.IsZero() || deadline.Before(w.at) {
		w.at = deadline
		w.t.Reset(max(time.Until(deadline), 0))
	}
	w.mu.Unlock()
}

// disarm ends the outstanding request and reports whether its deadline
// passed (the process was killed).
func (w *watchdog) disarm() (fired bool) {
	w.mu.Lock()
	w.deadline = time.Time{}
	fired = w.fired
	w.mu.Unlock()
	return fired
}

// stop stops the timer for good (the process has ended).
func (w *watchdog) stop() {
	w.mu.Lock()
	w.deadline, w.at = time.Time{}, time.Time{}
	w.t.Stop()
	w.mu.Unlock()
}

// startProc starts argv with cfg's Env and Dir in its own process group,
// appending its stderr to logPath ("" for no log). The process gets extra
// as its file descriptors 3, 4, ... (exec.Cmd.ExtraFiles): the direct
// channel's pipes. On a platform without process environments
// (Windows) it starts nothing and returns platformErr's error.
func startProc(cfg *Config, argv []string, role, logPath string, extra ...*os.File) (*proc, error) {
	if err := platformErr(); err != nil {
		return nil, err
	}
	p := &proc{role: role, argv: argv, cfg: cfg, stderr: &tail{}, done: make(chan struct{})}
	var memLimit uint64
	if cfg.MaxMemoryMB > 0 {
		memLimit = uint64(cfg.MaxMemoryMB) << 20
	}
	p.box = newContainment(memLimit)
	env := os.Environ()
	if len(cfg.Env) > 0 {
		keys := make([]string, 0, len(cfg.Env))
		for k := range cfg.Env {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			env = append(env, k+"="+cfg.Env[k])
		}
	}
	env = append(env, p.box.env())
	newCmd := func() *exec.Cmd {
		cmd := exec.Command(argv[0], argv[1:]...)
		cmd.Dir = cfg.Dir
		cmd.Env = env
		cmd.SysProcAttr = p.box.attr()
		cmd.WaitDelay = time.Second
		cmd.ExtraFiles = extra
		return cmd
	}
	cmd := newCmd()
	var w io.Writer = p.stderr
	if logPath != "" {
		if err := os.MkdirAll(filepath.Dir(logPath), 0o755); err != nil {
			return nil, fmt.Errorf("stderr log: %w", err)
		}
		f, err := os.OpenFile(logPath, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
		if err != nil {
			return nil, fmt.Errorf("stderr log: %w", err)
		}
		st, err := f.Stat()
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("stderr log: %w", err)
		}
		p.log, p.logSize, p.logCap = f, st.Size(), cfg.stderrLogCap()
		w = stderrSink{p}
	}
	cmd.Stderr = w
	inR, inW, err := pipe()
	if err != nil {
		p.closeLog()
		return nil, err
	}
	outR, outW, err := pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		p.closeLog()
		return nil, err
	}
	cmd.Stdin, cmd.Stdout = inR, outW
	err = cmd.Start()
	if err != nil && p.box.cgFDSet() {
		// A kernel or a container that refuses clone3 into the cgroup:
		// start the process without it.
		p.box.dropCgroup()
		stderr := cmd.Stderr
		cmd = newCmd()
		cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, stderr
		err = cmd.Start()
	}
	inR.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		outW.Close()
		p.box.release()
		p.closeLog()
		return nil, fmt.Errorf("starting %s: %w", strings.Join(argv, " "), err)
	}
	p.cmd, p.in, p.out, p.wakeW = cmd, inW, outR, outW
	p.logMu.Lock()
	p.logPID = cmd.Process.Pid
	p.logMu.Unlock()
	p.w = bufio.NewWriterSize(inW, 64<<10)
	p.r = bufio.NewReaderSize(outR, 64<<10)
	p.logf("%s process started (pid %d, held by %s): %s", role, cmd.Process.Pid, p.box.mechanism(), strings.Join(argv, " "))
	p.watchdog.start(func() { p.kill(); p.wake() })
	go func() {
		p.waitErr = cmd.Wait()
		close(p.done)
	}()
	// The process's exit, seen before it is reaped: its descendants are
	// killed (so none outlives it, and none keeps stdout or stderr
	// open), and a read blocked on stdout is woken.
	go func() {
		waitExited(cmd.Process.Pid, p.done)
		p.kill()
		p.wake()
		if f := p.exitHook.Load(); f != nil {
			(*f)()
		}
	}()
	if cfg.MaxMemoryMB > 0 {
		if err := p.box.limitMemory(cmd.Process.Pid, memLimit); err != nil {
			p.terminate(false, fmt.Sprintf("max_memory_mb: the memory limit could not be set (%v)", err))
			return nil, fmt.Errorf("max_memory_mb: limiting process %d: %w", cmd.Process.Pid, err)
		}
	}
	return p, nil
}

func (p *proc) closeLog() {
	p.logMu.Lock()
	defer p.logMu.Unlock()
	if p.log != nil {
		p.log.Close()
		p.log = nil
	}
}

// logf writes an "evolve: " line to the stderr log, if there is one.
// Safe to call from any goroutine.
func (p *proc) logf(format string, args ...any) {
	p.logMu.Lock()
	defer p.logMu.Unlock()
	p.logLine(format, args...)
}

// logLine writes an "evolve: " line to the stderr log, if there is one;
// the caller holds logMu. evolve's lines are written past the cap.
func (p *proc) logLine(format string, args ...any) {
	if p.log != nil {
		n, _ := fmt.Fprintf(p.log, "evolve: "+format+"\n", args...)
		p.logSize += int64(n)
	}
}

// stderrSink is where a process's stderr goes when it has a log: all of
// it to the tail errors quote, and to the log until the log file holds
// logCap bytes. It never fails, so that the tail keeps being fed.
type stderrSink struct{ p *proc }

func (s stderrSink) Write(b []byte) (int, error) {
	s.p.stderr.Write(b)
	s.p.logStderr(b)
	return len(b), nil
}

// logStderr appends b, stderr of the process, to the log while the log
// holds fewer than logCap bytes. The write that reaches the cap is cut
// there and followed by one line saying the log was cut; the rest of the
// process's stderr is counted in logDropped (terminate logs the count).
func (p *proc) logStderr(b []byte) {
	p.logMu.Lock()
	defer p.logMu.Unlock()
	if p.log == nil {
		return
	}
	if p.logDropped == 0 && p.logSize+int64(len(b)) <= p.logCap {
		n, _ := p.log.Write(b)
		p.logSize += int64(n)
		return
	}
	if p.logDropped == 0 {
		room := max(p.logCap-p.logSize, 0)
		if room > 0 {
			n, _ := p.log.Write(b[:room])
			p.logSize += int64(n)
			if b[room-1] != '\n' {
				p.log.Write([]byte{'\n'})
				p.logSize++
			}
		}
		b = b[room:]
		p.logLine("stderr log cut at its cap of %d MiB (max_stderr_log_mb): the rest of %s process %d's stderr is not written here",
			p.logCap>>20, p.role, p.logPID)
	}
	p.logDropped += int64(len(b))
}

// kill sends SIGKILL to the process, its process group and every
// descendant its containment finds (see containment.killAll). Safe to
// call from any goroutine, any number of times.
func (p *proc) kill() {
	if p.cmd != nil && p.cmd.Process != nil {
		p.box.killAll(p.cmd.Process.Pid)
	}
}

// wake unblocks a read of stdout (see proc.wakeW). Safe to call from any
// goroutine, any number of times; the write runs in its own goroutine,
// which a full pipe blocks until the reader drains it or closes it.
func (p *proc) wake() {
	if p.woken.Swap(true) {
		return
	}
	go p.wakeW.Write([]byte{'\n'})
}

// killFor kills the process's group like kill, first writing why to the
// stderr log ("evolve: killing environment process 123 and its process
// group: REASON"). Only the first reason is written: a process killed
// because its context was cancelled, and then found to have exited, was
// killed for the cancellation. Safe to call from any goroutine.
func (p *proc) killFor(reason string) {
	p.logMu.Lock()
	if p.killedFor == "" {
		p.killedFor = reason
		if p.log != nil && p.cmd != nil && p.cmd.Process != nil {
			p.logLine("killing %s process %d and its process group: %s", p.role, p.cmd.Process.Pid, reason)
		}
	}
	p.logMu.Unlock()
	p.kill()
}

// terminate ends the process. With reason "" it closes the process
// gracefully: it sends close, closes stdin and waits up to closeGrace for
// the process to exit, and kills it (logging why) if it does not.
// Otherwise it kills the process at once, logging reason (see killFor).
// Then it kills the process group (grandchildren included), waits for
// the process, logs how it ended and closes the pipes and the log. It
// reports false when a graceful close had to kill the process (it did
// not exit within closeGrace of close), true otherwise.
func (p *proc) terminate(graceful bool, reason string) bool {
	obeyed := true
	if graceful {
		p.logf("%s process %d: sending close", p.role, p.cmd.Process.Pid)
		p.watchdog.arm(time.Now().Add(closeGrace))
		p.req = append(appendHead(p.req[:0], p.id, "close"), "}\n"...)
		p.id++
		if _, err := p.w.Write(p.req); err == nil {
			p.w.Flush()
		}
		p.watchdog.disarm()
		p.in.Close()
		select {
		case <-p.done:
		case <-time.After(closeGrace):
			reason = fmt.Sprintf("it did not exit within %s of close", closeGrace)
			obeyed = false
		}
	}
	p.watchdog.stop()
	if reason != "" {
		p.killFor(reason)
	} else {
		p.kill() // what the process may have left behind
	}
	<-p.done
	// Descendants started after the first kill; not the process group
	// again, whose id the reaped process no longer holds.
	p.box.killAll(0)
	p.in.Close()
	p.out.Close()
	p.wakeW.Close()
	p.logMu.Lock()
	if p.logDropped > 0 {
		p.logLine("%s process %d ended: %s; %d bytes of its stderr past the log's cap were not written here", p.role, p.cmd.Process.Pid, p.exitStatus(), p.logDropped)
	} else {
		p.logLine("%s process %d ended: %s", p.role, p.cmd.Process.Pid, p.exitStatus())
	}
	p.logMu.Unlock()
	if err := p.box.release(); err != nil {
		p.logf("%v", err)
	}
	p.closeLog()
	return obeyed
}

// exitStatus describes how the process ended ("exit status 3", "signal:
// killed"); call after done is closed.
func (p *proc) exitStatus() string {
	if p.cmd.ProcessState != nil {
		// Not cmd.Wait's error, which is ErrWaitDelay for a process that
		// exited 0 while a descendant held its stderr.
		return p.cmd.ProcessState.String()
	}
	if p.waitErr == nil {
		return "exit status 0"
	}
	var ee *exec.ExitError
	if errors.As(p.waitErr, &ee) {
		return ee.ProcessState.String()
	}
	return p.waitErr.Error()
}

// roundTrip writes the request in p.req (ending with a newline) and
// returns the next non-blank line of stdout without its line ending,
// valid until the next call. If deadline passes first, the process is
// killed and the error is os.ErrDeadlineExceeded.
func (p *proc) roundTrip(deadline time.Time) ([]byte, error) {
	p.watchdog.arm(deadline)
	_, err := p.w.Write(p.req)
	if err == nil {
		err = p.w.Flush()
	}
	var line []byte
	if err == nil {
		line, err = p.readLine()
	}
	if p.watchdog.disarm() {
		return nil, os.ErrDeadlineExceeded
	}
	return line, err
}

// readLine returns the next non-blank line of stdout without its line
// ending; it is valid until the next read.
func (p *proc) readLine() ([]byte, error) {
	for {
		frag, err := p.r.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			p.line = append(p.line[:0], frag...)
			for err == bufio.ErrBufferFull {
				if len(p.line) > MaxLineBytes {
					return nil, protocolf("a line longer than %d bytes", MaxLineBytes)
				}
				frag, err = p.r.ReadSlice('\n')
				p.line = append(p.line, frag...)
			}
			frag = p.line
		}
		if err != nil {
			if len(frag) > 0 && err == io.EOF {
				return nil, protocolf("stdout ended in the middle of a line: %s", quoteLine(frag))
			}
			return nil, err
		}
		frag = bytes.TrimRight(frag, "\r\n")
		if len(frag) > MaxLineBytes {
			return nil, protocolf("a line longer than %d bytes", MaxLineBytes)
		}
		if len(bytes.TrimSpace(frag)) == 0 {
			if p.woken.Load() {
				return nil, io.EOF // the process exited, or the watchdog fired
			}
			continue
		}
		return frag, nil
	}
}

// tail keeps the last tailLines lines of what is written to it, at most
// tailBytes bytes. It is safe for concurrent use.
type tail struct {
	mu  sync.Mutex
	buf []byte
}

// Write implements io.Writer; it never fails.
func (t *tail) Write(b []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, b...)
	if len(t.buf) > 4*tailBytes {
		t.buf = append(t.buf[:0], t.buf[len(t.buf)-tailBytes:]...)
	}
	return len(b), nil
}

// reset forgets what was written so far.
func (t *tail) reset() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = t.buf[:0]
}

// String returns the tail: the last tailLines lines, at most tailBytes
// bytes (cut at a line start when possible), without a final newline.
func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	b := bytes.TrimRight(t.buf, "\n")
	if len(b) > tailBytes {
		b = b[len(b)-tailBytes:]
		if i := bytes.IndexByte(b, '\n'); i >= 0 && i < len(b)-1 {
			b = b[i+1:]
		}
	}
	n := 0
	for i := len(b) - 1; i >= 0; i-- {
		if b[i] == '\n' {
			n++
			if n == tailLines {
				b = b[i+1:]
				break
			}
		}
	}
	return string(b)
}
