package nethack

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/creack/pty"
	"github.com/hinshun/vt10x"
)

// Screen size of the game's terminal.
const (
	Cols = 80
	Rows = 24
)

// waitMarker is what the shim writes to the terminal before each read of
// a key (an OSC sequence no terminal acts on); the game removes it from
// the stream before parsing and recording.
var waitMarker = []byte("\x1b]7717;w\a")

// options are the game options of every episode (NETHACKOPTIONS) after
// the name and the character (GameOptions): no bones, legacy, news or
// mail, autopickup of gold only, plain ASCII without colour but with the
// pet in inverse video (hilite_pet, read by Screen.Pet), no output
// delays, the turn counter and experience points on the status line, and
// no pauses at the end of a game.
const options = "autopickup,pickup_types:$,!legacy,!news,!bones,!mail,!timed_delay,!color,hilite_pet,!sparkle," +
	"time,showexp,showscore,!verbose,symset:plain,disclose:-i -a -v -g -c -o,runmode:teleport," +
	"pickup_burden:unencumbered,suppress_alert:3.4.3,!checkpoint,!rest_on_space,number_pad:0"

// GameOptions returns NETHACKOPTIONS for character c (valid): the name
// agent, the character, then options. The default character gives
// "name:agent,role:Valkyrie,race:human,gender:female,align:neutral,...".
func GameOptions(c Character) string { return "name:agent," + c.options() + "," + options }

// FixedTime is the clock every game reads, in seconds since the Unix
// epoch: 2024-01-17 12:00:00 UTC, a Wednesday at noon in the moon's first
// quarter (no full or new moon, not Friday the 13th, not night).
const FixedTime = 1705492800

// StallError is the error of a game that wrote nothing and asked for no
// key for the stall timeout; Screen is its last screen.
type StallError struct {
	After  time.Duration
	Screen string
}

func (e *StallError) Error() string {
	return fmt.Sprintf("nethack: the game did not ask for a key for %v; last screen:\n%s", e.After, e.Screen)
}

// Game is one running NetHack process under a pseudo-terminal, with the
// terminal emulator that parses its output.
type Game struct {
	cmd    *exec.Cmd
	pty    *os.File
	fd     int // pty's descriptor, in blocking mode
	term   vt10x.Terminal
	buf    []byte // output read but not yet parsed
	chunk  []byte // the buffer each read fills
	stall  time.Duration
	exited bool
	rec    *Recorder
	waited chan struct{}
	keys   int // keys sent
}

// StartGame starts the game of in with seed and NETHACKOPTIONS opts
// (GameOptions) in playground dir and waits until it asks for its first
// key. rec, if not nil, records the output.
func StartGame(ctx context.Context, in *Install, dir string, seed uint64, opts string, stall time.Duration, rec *Recorder) (*Game, error) {
	cmd := exec.Command(in.binary, "-d", dir)
	cmd.Dir = dir
	cmd.Env = []string{
		"TERM=xterm", "LINES=24", "COLUMNS=80", "TZ=UTC", "LANG=C", "HOME=" + dir, "USER=agent", "LOGNAME=agent",
		"PATH=/usr/bin:/bin", "HACKDIR=" + dir, "NETHACKOPTIONS=" + opts,
	}
	cmd.Env = append(cmd.Env, preloadEnv(in.shim)...)
	cmd.Env = append(cmd.Env,
		"EVOLVE_NH_SEED="+strconv.FormatUint(seed, 10),
		"EVOLVE_NH_TIME="+strconv.FormatInt(FixedTime, 10),
		"EVOLVE_NH_SHIM_LOG="+filepath.Join(dir, shimLog),
	)
	f, err := pty.StartWithAttrs(cmd, &pty.Winsize{Rows: Rows, Cols: Cols}, gameAttr())
	if err != nil {
		return nil, fmt.Errorf("nethack: starting %s: %w", in.binary, err)
	}
	// Fd puts the terminal in blocking mode: the goroutine that sent a
	// key waits for the answer in poll(2) and reads it itself, on its own
	// thread, which the kernel wakes directly: no reader goroutine, no
	// hand-off between threads, no network poller in each key's round
	// trip.
	g := &Game{cmd: cmd, pty: f, fd: int(f.Fd()), term: vt10x.New(vt10x.WithSize(Cols, Rows)),
		chunk: make([]byte, 16384), stall: stall, rec: rec, waited: make(chan struct{})}
	go func() { cmd.Wait(); close(g.waited) }()
	err = g.waitInput(ctx)
	var se *StallError
	if err == nil || errors.As(err, &se) {
		// The first key asked for (or none: a stall, an early exit)
		// shows whether the shim loaded and seeded the game.
		if serr := checkShim(in, dir, err == nil && !g.exited); serr != nil {
			err = serr
		}
	}
	if err != nil {
		g.Kill()
		return nil, err
	}
	return g, nil
}

// shimLog is the file in the playground the shim notes its loading and
// its answers to /dev/urandom in (EVOLVE_NH_SHIM_LOG).
const shimLog = ".evolve-shim.log"

// ErrShimNotLoaded is returned (wrapped) when a game started without the
// preload shim, which the dynamic loader ignored: the game would not be
// seeded, and evolve never plays an unseeded game. The message says why
// the loader may have ignored it on this platform and what to do.
var ErrShimNotLoaded = errors.New("the seeding shim did not load")

// ErrUnseeded is returned (wrapped) when the shim loaded but the game
// asked for its first key without reading /dev/urandom: a NetHack built
// without DEV_RANDOM seeds itself from the clock and its pid, which the
// shim does not fix.
var ErrUnseeded = errors.New("the game did not take its seed from the shim")

// checkShim reads the shim's log in the playground dir: an error wrapping
// ErrShimNotLoaded if the shim did not load, or, when asked is true (the
// game asked for its first key), ErrUnseeded if it never answered an open
// of /dev/urandom.
func checkShim(in *Install, dir string, asked bool) error {
	data, _ := os.ReadFile(filepath.Join(dir, shimLog))
	lines := strings.Split(string(data), "\n")
	switch {
	case !slices.Contains(lines, "loaded"):
		return fmt.Errorf("nethack: %w: the game %s started without %s: %s; evolve never plays an unseeded game",
			ErrShimNotLoaded, in.binary, in.shim, shimHint(in))
	case asked && !slices.Contains(lines, "urandom"):
		return fmt.Errorf("nethack: %w: %s asked for its first key without reading /dev/urandom, so the shim could not seed it "+
			"(a NetHack built without DEV_RANDOM seeds itself from the clock and its process id); "+
			"use a NetHack 3.6 that reads /dev/urandom, as Debian's nethack-console %s does; evolve never plays an unseeded game",
			ErrUnseeded, in.binary, "3.6.6")
	}
	return nil
}

// pollSlice is the longest a wait for output sleeps in poll(2) before it
// looks at its context again: how late an interrupt may be seen.
const pollSlice = 100 * time.Millisecond

// readOutput reads the terminal's next output into g.buf, waiting at most
// until deadline. It reports false when the game has closed the terminal
// (exited); the error is ctx's, or a *StallError at the deadline.
func (g *Game) readOutput(ctx context.Context, deadline time.Time) (bool, error) {
	for {
		if err := ctx.Err(); err != nil {
			return true, err
		}
		wait := time.Until(deadline)
		if wait <= 0 {
			return true, &StallError{After: g.stall, Screen: g.ScreenText()}
		}
		ready, err := waitReadable(g.fd, min(wait, pollSlice))
		if err != nil {
			return false, nil // the terminal is gone
		}
		if !ready {
			continue
		}
		n, err := readFD(g.fd, g.chunk)
		if n > 0 {
			g.buf = append(g.buf, g.chunk[:n]...)
			return true, nil
		}
		if err != nil || n == 0 {
			return false, nil // EIO or end of file: the game closed its side
		}
	}
}

// feed parses b into the terminal and the recording.
func (g *Game) feed(b []byte) {
	if len(b) == 0 {
		return
	}
	g.term.Write(b)
	if g.rec != nil {
		g.rec.out = append(g.rec.out, b...)
	}
}

// waitInput parses output until the game asks for a key (the shim's
// marker) or exits. Errors: ctx's, or a *StallError.
func (g *Game) waitInput(ctx context.Context) error {
	deadline := time.Now().Add(g.stall)
	for {
		if i := bytes.Index(g.buf, waitMarker); i >= 0 {
			g.feed(g.buf[:i])
			g.buf = append(g.buf[:0], g.buf[i+len(waitMarker):]...)
			if g.rec != nil {
				g.rec.event()
			}
			return nil
		}
		// Keep a tail that may begin a marker.
		keep := 0
		for k := min(len(waitMarker)-1, len(g.buf)); k > 0; k-- {
			if bytes.HasPrefix(waitMarker, g.buf[len(g.buf)-k:]) {
				keep = k
				break
			}
		}
		g.feed(g.buf[:len(g.buf)-keep])
		g.buf = append(g.buf[:0], g.buf[len(g.buf)-keep:]...)
		open, err := g.readOutput(ctx, deadline)
		if err != nil {
			return err
		}
		if !open {
			g.feed(g.buf)
			g.buf = g.buf[:0]
			g.exited = true
			if g.rec != nil {
				g.rec.event()
			}
			return nil
		}
		deadline = time.Now().Add(g.stall)
	}
}

// Send writes keys to the game one at a time, each after the game asked
// for it, and parses the output until the game asks for the next key.
func (g *Game) Send(ctx context.Context, keys string) error {
	for i := 0; i < len(keys); i++ {
		if g.exited {
			return nil
		}
		if _, err := g.pty.Write([]byte{keys[i]}); err != nil {
			if g.drainExit(ctx) {
				return nil
			}
			return fmt.Errorf("nethack: writing a key: %w", err)
		}
		g.keys++
		if g.rec != nil {
			g.rec.input(keys[i])
		}
		if err := g.waitInput(ctx); err != nil {
			return err
		}
	}
	return nil
}

// drainExit waits briefly for a game whose terminal refused a key to
// exit; it reports whether it did.
func (g *Game) drainExit(ctx context.Context) bool {
	select {
	case <-g.waited:
		g.waitInput(ctx)
		return true
	case <-time.After(time.Second):
		return false
	}
}

// Kill ends the game's process group (SIGKILL), waits for it and closes
// the terminal. It is safe to call twice.
func (g *Game) Kill() {
	if g.cmd.Process != nil {
		killGame(g.cmd.Process)
	}
	<-g.waited
	g.pty.Close()
}

// Screen returns the terminal's 24 rows of 80 characters and the cursor.
func (g *Game) Screen() *Screen {
	s := &Screen{}
	g.term.Lock()
	defer g.term.Unlock()
	for y := 0; y < Rows; y++ {
		for x := 0; x < Cols; x++ {
			gl := g.term.Cell(x, y)
			c := gl.Char
			if c == 0 {
				c = ' '
			}
			s.Grid[y][x] = c
			s.Inverse[y][x] = gl.Mode&1 != 0 // vt10x's attrReverse
		}
	}
	c := g.term.Cursor()
	s.CursorX, s.CursorY = c.X, c.Y
	return s
}

// Keys returns the number of keys sent to the game so far.
func (g *Game) Keys() int { return g.keys }

// Exited reports whether the game process has exited (its terminal
// closed); a game that exited takes no more keys.
func (g *Game) Exited() bool { return g.exited }

// ScreenText returns the terminal's screen as text (Screen.String).
func (g *Game) ScreenText() string { return g.Screen().String() }

// Recorder collects an asciicast v2 recording: one "o" event per key the
// game asked for, at a fixed step of Step seconds per event, and before
// it an "i" event with the key that was sent, at the same time (so a
// player, or evolve view, shows each output beside the key that caused
// it).
type Recorder struct {
	b    bytes.Buffer
	out  []byte
	n    int
	Step float64
}

// NewRecorder returns a recorder with the asciicast header written and
// a step of 0.1 s.
func NewRecorder() *Recorder {
	r := &Recorder{Step: 0.1}
	r.b.WriteString(`{"version": 2, "width": 80, "height": 24, "env": {"TERM": "xterm"}, "title": "evolve nethack"}` + "\n")
	return r
}

// event writes the output since the last event as one event.
func (r *Recorder) event() {
	if len(r.out) == 0 {
		return
	}
	data, _ := json.Marshal(strings.ToValidUTF8(string(r.out), "\uFFFD"))
	fmt.Fprintf(&r.b, "[%s, \"o\", %s]\n", strconv.FormatFloat(float64(r.n)*r.Step, 'f', 1, 64), data)
	r.n++
	r.out = r.out[:0]
}

// input writes the key just sent as an "i" event, at the time of the
// output event that follows it.
func (r *Recorder) input(key byte) {
	data, _ := json.Marshal(strings.ToValidUTF8(string([]byte{key}), "\uFFFD"))
	fmt.Fprintf(&r.b, "[%s, \"i\", %s]\n", strconv.FormatFloat(float64(r.n)*r.Step, 'f', 1, 64), data)
}

// Bytes returns the recording.
func (r *Recorder) Bytes() []byte { return bytes.Clone(r.b.Bytes()) }
