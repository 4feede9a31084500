package nethack

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"evolve/agent"
	"evolve/envs"
)

// Name is the environment's registry name.
const Name = "nethack"

// Config holds the environment's parameters, as written under
// environment.params in an experiment config.
type Config struct {
	// Binary is the NetHack 3.6 game binary (the program itself, with its
	// nhdat beside it), by default Debian's DefaultBinary.
	Binary string `yaml:"binary" json:"binary"`
	// MaxTurns ends an episode (end reason turn_cap) once the game's turn
	// counter T reaches it, in [10, 1000000].
	MaxTurns int `yaml:"max_turns" json:"max_turns"`
	// NoProgressTurns ends an episode (end reason stuck, cause entrapment)
	// after this many game turns without a new square stood on or a
	// descent, in [10, max_turns].
	NoProgressTurns int `yaml:"no_progress_turns" json:"no_progress_turns"`
	// StallSeconds makes a game that neither writes nor asks for a key for
	// this long an episode error carrying its last screen, in [1, 600].
	StallSeconds float64 `yaml:"stall_seconds" json:"stall_seconds"`
}

// DefaultConfig returns the defaults: 5000 turns, 500 turns without
// progress, 10 s stall timeout, Debian's binary.
func DefaultConfig() Config {
	return Config{Binary: DefaultBinary, MaxTurns: 5000, NoProgressTurns: 500, StallSeconds: 10}
}

// Validate returns an error naming the first field out of range.
func (c Config) Validate() error {
	switch {
	case c.Binary == "":
		return fmt.Errorf("binary: empty, want the path of a NetHack 3.6 binary (default %s)", DefaultBinary)
	case c.MaxTurns < 10 || c.MaxTurns > 1000000:
		return fmt.Errorf("max_turns: %d is out of range, allowed [10, 1000000]", c.MaxTurns)
	case c.NoProgressTurns < 10 || c.NoProgressTurns > c.MaxTurns:
		return fmt.Errorf("no_progress_turns: %d is out of range, allowed [10, max_turns=%d]", c.NoProgressTurns, c.MaxTurns)
	case !(c.StallSeconds >= 1 && c.StallSeconds <= 600):
		return fmt.Errorf("stall_seconds: %v is out of range, allowed [1, 600]", c.StallSeconds)
	}
	return nil
}

// End reasons of an episode.
const (
	EndDied    = "died"     // the hero died of anything but hunger
	EndStarved = "starved"  // the hero died of starvation
	EndStuck   = "stuck"    // no new square or descent within no_progress_turns, or the step budget
	EndTurnCap = "turn_cap" // the game's turn counter reached max_turns
)

// Causes are the failure causes, in canonical order.
var Causes = []envs.Cause{
	{Name: "injury", Description: "killed by a monster outside a fight the agent chose (caught exploring, fleeing, eating or resting)"},
	{Name: "combat_loss", Description: "killed by a monster within 3 actions of an attack the agent chose"},
	{Name: "starvation", Description: "died of starvation (the game's \"died of starvation\", or fainted and killed)"},
	{Name: "entrapment", Description: "no new square or descent within no_progress_turns, or the step budget ran out"},
	{Name: "hazard", Description: "killed by the dungeon rather than a monster: a trap, drowning, choking, a poisonous or acidic corpse, a falling rock or boulder"},
}

// Metrics are the metric columns, in order.
var Metrics = []envs.Metric{
	{Name: "max_depth", Type: envs.Int, Unit: "level", Description: "deepest dungeon level reached (xlogfile maxlvl)"},
	{Name: "xl", Type: envs.Int, Unit: "level", Description: "experience level at the end"},
	{Name: "turns", Type: envs.Int, Unit: "turns", Description: "game turns played (xlogfile turns)"},
	{Name: "gold", Type: envs.Int, Unit: "gold pieces", Description: "gold carried at the end (status line $)"},
	{Name: "hunger", Type: envs.String, Description: "hunger state at the end: Satiated, Not hungry, Hungry, Weak, Fainting or Fainted"},
	{Name: "killed_by", Type: envs.String, Description: "the game's own death text (xlogfile death), e.g. \"killed by a jackal\"; empty if the hero lived"},
	{Name: "actions", Type: envs.Int, Unit: "actions", Description: "agent actions (commands, not counting --More-- and prompts)"},
	{Name: "keys", Type: envs.Int, Unit: "keys", Description: "keys sent to the game"},
}

// Rules is the rule library of text mutations for the LLM agent, by cause.
var Rules = map[string][]string{
	"starvation":  {"Eat (e) as soon as the status line shows Hungry.", "Never let the status line reach Weak while you carry food."},
	"injury":      {"When HP falls below half of its maximum, step away from monsters and rest (s) before exploring further.", "Pray (#pray) when HP is below a seventh of its maximum, at most once every 1000 turns."},
	"combat_loss": {"Do not keep fighting while your HP is below a third; retreat instead.", "Fight capital-letter monsters only with full HP."},
	"entrapment":  {"If the map has not changed for several turns, search (s) or head for the down staircase (>).", "After about 150 turns on a level, travel to > and descend."},
	"hazard":      {"Do not eat corpses you find on the floor.", "Step around ^ traps you have seen."},
}

// Info returns the environment's declarations.
func Info() envs.Info {
	return envs.Info{
		Name: Name, Causes: Causes, Metrics: Metrics, Params: Schema, Remedies: remediesOf(Causes), Fill: Fill,
	}
}

// Env is the environment "nethack": real NetHack played by Scripted (or a
// language model, see UseLLM). It implements envs.Environment and
// envs.StepBudgeter.
type Env struct {
	cfg    Config
	in     *install
	budget int
	llm    *llmSetup
}

// New returns the environment with configuration c. Errors: c.Validate's,
// ErrNotInstalled (wrapped, naming the Debian package) if the binary is
// missing, or a failure to build the preload shim.
func New(c Config) (*Env, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	in, err := prepare(c.Binary)
	if err != nil {
		return nil, err
	}
	return &Env{cfg: c, in: in}, nil
}

// SetStepBudget ends episodes after n agent actions (end reason stuck,
// cause entrapment); n <= 0 for none. It implements envs.StepBudgeter.
func (e *Env) SetStepBudget(n int) { e.budget = n }

// Info implements envs.Environment.
func (e *Env) Info() envs.Info {
	in := Info()
	if e.llm != nil {
		in.Metrics = append(in.Metrics, agent.LLMMetrics...)
		in.ReadsText, in.Rules = true, Rules
	}
	return in
}

// NewPlayer implements envs.Environment: a player with its own private
// playground directory (removed by Close).
func (e *Env) NewPlayer(int) (envs.Player, error) {
	dir, err := e.in.newPlayground()
	if err != nil {
		return nil, fmt.Errorf("nethack: playground: %w", err)
	}
	return &Player{env: e, dir: dir}, nil
}

// Player plays episodes of real NetHack, one game process per episode.
type Player struct {
	env *Env
	dir string
	g   *game
	// last is the terminal's screen when the last episode's game exited.
	last string
	rc   agent.RendererCache // the LLM agent's renderer of the last prompt
}

// Close implements envs.Player: it kills a running game and removes the
// playground.
func (p *Player) Close() error {
	if p.g != nil {
		p.g.kill()
		p.g = nil
	}
	return os.RemoveAll(p.dir)
}

// Play implements envs.Player: one game from ep.Seed to its end. The game
// process is always killed (its process group) and its playground reset,
// whatever the result.
func (p *Player) Play(ctx context.Context, ep envs.Episode) (envs.Outcome, error) {
	if err := Schema.Validate(ep.Params); err != nil && p.env.llm == nil {
		return envs.Outcome{}, err
	}
	if err := resetPlayground(p.dir); err != nil {
		return envs.Outcome{}, fmt.Errorf("nethack: playground: %w", err)
	}
	var rec *recorder
	if ep.Record {
		rec = newRecorder()
	}
	stall := time.Duration(p.env.cfg.StallSeconds * float64(time.Second))
	g, err := startGame(ctx, p.env.in, p.dir, ep.Seed, stall, rec)
	if err != nil {
		resetPlayground(p.dir) // startGame killed the game: remove its lock
		return envs.Outcome{}, seedErr(ep.Seed, err)
	}
	p.g = g
	defer func() {
		g.kill()
		p.g = nil
		resetPlayground(p.dir)
	}()
	var pl policy
	if p.env.llm != nil {
		lp, err := p.env.llm.newPolicy(ep, &p.rc)
		if err != nil {
			return envs.Outcome{}, err
		}
		pl = lp
	} else {
		pl = scriptedPolicy{NewScripted(ep.Params)}
	}
	r := &run{g: g, cfg: p.env.cfg, budget: p.env.budget, pol: pl}
	out, err := r.play(ctx)
	if err != nil {
		return envs.Outcome{}, seedErr(ep.Seed, err)
	}
	out.Seed = ep.Seed
	p.last = g.screenText()
	if rec != nil {
		out.Trajectory, out.TrajectoryFormat = rec.bytes(), envs.TrajectoryAsciicast
	}
	if x, err := readXlog(filepath.Join(p.dir, "xlogfile")); err == nil {
		r.finish(&out, x)
	} else {
		return envs.Outcome{}, fmt.Errorf("nethack: seed %d: the game wrote no score: %w; last screen:\n%s", ep.Seed, err, g.screenText())
	}
	out.Metrics = append(out.Metrics, pl.metrics()...)
	return out, nil
}

// seedErr names the seed in err, except for a context's error, which is
// returned as it is.
func seedErr(seed uint64, err error) error {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return fmt.Errorf("seed %d: %w", seed, err)
}

// policy chooses actions: the scripted agent or a language model.
type policy interface {
	act(ctx context.Context, s *Screen, st Status) (decision, error)
	metrics() []envs.MetricValue
}

type scriptedPolicy struct{ a *Scripted }

func (p scriptedPolicy) act(_ context.Context, s *Screen, st Status) (decision, error) {
	return p.a.act(s, st), nil
}
func (p scriptedPolicy) metrics() []envs.MetricValue { return nil }

// run is the state of one episode's play loop.
type run struct {
	g         *game
	cfg       Config
	budget    int
	pol       policy
	actions   int
	last      Status // the last parsed status
	end       string // end reason once decided
	progressT int    // game turn of the last progress
	progressA int    // action index of the last progress
	maxDlvl   int
	lastFight int // action index of the last chosen attack
	seen      map[[3]int]bool
	known     map[int]int // the most map squares seen on each level
	screen    *Screen     // the last screen the policy saw
}

// maxInterrupts bounds the --More--, menu and prompt screens answered
// between two actions before the loop escapes them harder.
const maxInterrupts = 50

// play runs the loop: answer --More--, menus and prompts, otherwise ask
// the policy for an action, until the game ends or a limit is reached;
// then quit the game if it still runs. It returns the end reason in
// Outcome.EndReason (died and starved are decided by finish).
func (r *run) play(ctx context.Context) (envs.Outcome, error) {
	r.seen, r.known = map[[3]int]bool{}, map[int]int{}
	r.lastFight = -100
	interrupts := 0
	sp, scripted := r.pol.(scriptedPolicy)
	for !r.g.exited {
		s := r.g.screen()
		if scripted {
			sp.a.observe(s.Row(0))
		}
		if k, ok := interruptKey(s); ok {
			if scripted && strings.Contains(s.Row(0), "Really attack") {
				sp.a.notePeaceful()
			}
			interrupts++
			if interrupts > maxInterrupts {
				k = "\x1b\x1b"
			}
			if interrupts > 3*maxInterrupts {
				return envs.Outcome{}, fmt.Errorf("nethack: the game keeps asking; last screen:\n%s", s)
			}
			if err := r.g.send(ctx, k); err != nil {
				return envs.Outcome{}, err
			}
			continue
		}
		interrupts = 0
		st := s.Status()
		if st.OK {
			r.last = st
			r.progress(s, st)
			if st.T >= r.cfg.MaxTurns {
				r.end = EndTurnCap
			} else if st.T-r.progressT > r.cfg.NoProgressTurns {
				r.end = EndStuck
			}
		}
		if r.budget > 0 && r.actions >= r.budget || r.actions-r.progressA > 2*r.cfg.NoProgressTurns {
			r.end = EndStuck
		}
		if r.end != "" {
			break
		}
		r.screen = s
		d, err := r.pol.act(ctx, s, st)
		if err != nil {
			return envs.Outcome{}, err
		}
		r.actions++
		if d.fight {
			r.lastFight = r.actions
		}
		if err := r.do(ctx, d); err != nil {
			return envs.Outcome{}, err
		}
	}
	if !r.g.exited {
		if err := r.quit(ctx); err != nil {
			return envs.Outcome{}, err
		}
	}
	return envs.Outcome{EndReason: r.end}, nil
}

// progress records progress: a deeper level, a new square stood on, or
// more squares seen on the level than ever before.
func (r *run) progress(s *Screen, st Status) {
	if st.Dlvl > r.maxDlvl {
		r.maxDlvl = st.Dlvl
		r.progressT, r.progressA = st.T, r.actions
	}
	known := 0
	for y := 0; y < MapRows; y++ {
		for x := 0; x < Cols; x++ {
			if s.MapCell(x, y) != ' ' {
				known++
			}
		}
	}
	if known > r.known[st.Dlvl] {
		r.known[st.Dlvl] = known
		r.progressT, r.progressA = st.T, r.actions
	}
	if x, y, ok := s.Hero(); ok {
		k := [3]int{st.Dlvl, x, y}
		if !r.seen[k] {
			r.seen[k] = true
			r.progressT, r.progressA = st.T, r.actions
		}
	}
}

// do sends decision d's keys, or plays an object command and answers its
// prompts (doItem).
func (r *run) do(ctx context.Context, d decision) error {
	if d.item == 0 {
		return r.g.send(ctx, d.keys)
	}
	if err := r.g.send(ctx, string(d.item)); err != nil {
		return err
	}
	return r.doItem(ctx, d)
}

// doItem answers the prompts of object command d.item, at most 10:
//   - eat ('e'): "There is a jackal corpse here; eat it?" is answered y
//     for the fresh safe corpse the agent chose (d.corpse,
//     Scripted.freshCorpse) or floor food that never rots (foodItem), n
//     otherwise; "What do you want to eat? [d or ?*]" with the first
//     letter offered, or Escape when the agent came for a corpse only;
//   - quaff ('q'): the first letter offered;
//   - pick up (','): y to "pick it up?", Escape to a menu;
//   - throw ('t'): 'b' (the starting dagger) if offered, then d.keys as
//     the direction;
//   - engrave ('E'): '-' (a fingertip) to "What do you want to write
//     with?", n to "Do you want to add to the current engraving?",
//     "Elbereth" to "What do you want to write in the dust here?".
//
// "You don't have anything to eat" (or drink) tells the scripted agent it
// carries none; any other prompt is escaped, --More-- answered.
func (r *run) doItem(ctx context.Context, d decision) error {
	sp, scripted := r.pol.(scriptedPolicy)
	for i := 0; i < 10 && !r.g.exited; i++ {
		s := r.g.screen()
		m := s.Row(0)
		if scripted {
			sp.a.observe(m)
		}
		var k string
		switch {
		case s.More():
			k = "\r"
		case strings.Contains(m, "don't have anything"):
			if scripted {
				if d.item == 'e' {
					sp.a.noFood = true
				} else if d.item == 'q' {
					sp.a.noPotion = true
				}
			}
			return nil
		case s.Prompt() == "":
			return nil
		case d.item == 'e' && strings.Contains(m, "here; eat it?"):
			k = "n"
			if scripted {
				if d.corpse && sp.a.freshCorpse(m, sp.a.lastX, sp.a.lastY) || !strings.Contains(m, "corpse") && foodItem(m) {
					k = "y"
				}
			}
		case d.item == 'e' && d.corpse && strings.Contains(m, "want to eat"):
			k = "\x1b"
		case d.item == 'E' && strings.Contains(m, "write with"):
			k = "-"
		case d.item == 'E' && strings.Contains(m, "add to the current engraving"):
			k = "n"
		case d.item == 'E' && strings.Contains(m, "want to write"):
			k = "Elbereth\r"
		case d.item == ',' && strings.Contains(m, "pick") && strings.Contains(m, "[yn"):
			k = "y"
		case d.item == 't' && strings.Contains(m, "want to throw"):
			k = "\x1b"
			if offers(m, 'b') {
				k = "b" // the Valkyrie's dagger
			} else if scripted {
				sp.a.noDagger = true
			}
		case d.item == 't' && strings.Contains(m, "direction"):
			k = d.keys
		default:
			if l := firstOffered(m); l != 0 && d.item != ',' {
				k = string(l)
			} else {
				k = "\x1b"
			}
		}
		if err := r.g.send(ctx, k); err != nil {
			return err
		}
	}
	return nil
}

// offers reports whether the object prompt m ("What do you want to
// throw? [$ab or ?*]", "[a-c or ?*]") offers inventory letter l.
func offers(m string, l byte) bool {
	i := strings.LastIndexByte(m, '[')
	if i < 0 {
		return false
	}
	list, _, _ := strings.Cut(m[i+1:], " ")
	list = strings.TrimSuffix(list, "]")
	for j := 0; j < len(list); j++ {
		if list[j] == l || j+2 < len(list) && list[j+1] == '-' && list[j] <= l && l <= list[j+2] {
			return true
		}
	}
	return false
}

// firstOffered returns the first inventory letter of an object prompt
// such as "What do you want to eat? [d or ?*]" or "[a-c or ?*]", 0 if none.
func firstOffered(m string) byte {
	i := strings.LastIndexByte(m, '[')
	if i < 0 || !strings.Contains(m, "want to") {
		return 0
	}
	for _, c := range []byte(m[i+1:]) {
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' {
			return c
		}
		if c == ' ' || c == ']' {
			break
		}
	}
	return 0
}

// interruptKey returns the key that answers a screen the agent does not
// play: --More-- (Enter), a menu or text window (Escape), a y/n question
// (the answer a careful player gives) or another prompt (Escape).
func interruptKey(s *Screen) (string, bool) {
	if s.More() {
		return "\r", true
	}
	if s.Menu() {
		return "\x1b", true
	}
	p := s.Prompt()
	if p == "" {
		return "", false
	}
	switch {
	case strings.Contains(p, "Are you sure you want to pray"):
		return "y", true
	case strings.Contains(p, "Really quit"):
		return "y", true
	case strings.Contains(p, "[yn") || strings.Contains(p, "[ynq"):
		return "n", true // "Really attack?", "eat it?", "Beware, there will be no return!"...
	case strings.Contains(p, "Where do you want to travel"):
		return "", false
	}
	return "\x1b", true
}

// quit ends a running game (#quit, y) and answers its last screens until
// the process exits.
func (r *run) quit(ctx context.Context) error {
	for i := 0; i < 100 && !r.g.exited; i++ {
		s := r.g.screen()
		var k string
		switch {
		case strings.Contains(s.Row(0), "Really quit"):
			k = "y"
		case s.More():
			k = "\r"
		case s.Menu() || s.Prompt() != "" || s.Tombstone() || i%2 == 1:
			k = "\x1b"
		default:
			k = "#quit\r"
		}
		if err := r.g.send(ctx, k); err != nil {
			return err
		}
	}
	if !r.g.exited {
		return fmt.Errorf("nethack: the game did not end after #quit; last screen:\n%s", r.g.screenText())
	}
	return nil
}

// xlog is the game's record of the ended game: one xlogfile line.
type xlog map[string]string

// readXlog returns the last line of the xlogfile at path.
func readXlog(path string) (xlog, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	b = bytes.TrimSpace(b)
	if len(b) == 0 {
		return nil, errors.New("empty xlogfile")
	}
	if i := bytes.LastIndexByte(b, '\n'); i >= 0 {
		b = b[i+1:]
	}
	x := xlog{}
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Split(func(data []byte, atEOF bool) (int, []byte, error) {
		if i := bytes.IndexByte(data, '\t'); i >= 0 {
			return i + 1, data[:i], nil
		}
		if atEOF && len(data) > 0 {
			return len(data), data, nil
		}
		return 0, nil, nil
	})
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), "=")
		if ok {
			x[k] = v
		}
	}
	return x, nil
}

func (x xlog) int(k string) int { n, _ := strconv.Atoi(x[k]); return n }

// hazardWords mark a death by the dungeon rather than a monster.
var hazardWords = []string{"trap", "drown", "chok", "falling", "corpse", "boulder", "lava", "poisonous", "acidic", "fell into", "kicking"}

// finish fills out from the xlogfile record: the score (points), the end
// reason and cause, and the metrics.
func (r *run) finish(out *envs.Outcome, x xlog) {
	death := x["death"]
	out.Score = float64(x.int("points"))
	killedBy := ""
	switch {
	case death == "quit" || death == "escaped":
		if out.EndReason == "" {
			out.EndReason = EndStuck
		}
	case strings.Contains(death, "starv"):
		out.EndReason, killedBy = EndStarved, death
	default:
		out.EndReason, killedBy = EndDied, death
	}
	switch out.EndReason {
	case EndStarved:
		out.Cause = "starvation"
	case EndStuck:
		out.Cause = "entrapment"
	case EndTurnCap:
		out.Cause = envs.CauseNone
	case EndDied:
		out.Cause = "injury"
		for _, w := range hazardWords {
			if strings.Contains(death, w) {
				out.Cause = "hazard"
			}
		}
		if out.Cause == "injury" && r.actions-r.lastFight <= 3 {
			out.Cause = "combat_loss"
		}
	}
	hunger := r.last.Hunger
	if hunger == "" {
		hunger = "Not hungry"
	}
	num := func(n int) envs.MetricValue { return envs.MetricValue{Num: float64(n)} }
	out.Metrics = []envs.MetricValue{
		num(max(x.int("maxlvl"), r.maxDlvl)), num(r.last.XL), num(x.int("turns")), num(r.last.Gold),
		{Str: hunger}, {Str: killedBy}, num(r.actions), num(r.g.keys),
	}
}

func init() {
	envs.Register(Name, envs.Factory{
		Config: func() any { c := DefaultConfig(); return &c },
		New: func(cfg any) (envs.Environment, error) {
			c, ok := cfg.(*Config)
			if !ok {
				return nil, fmt.Errorf("nethack: config of type %T, want *nethack.Config", cfg)
			}
			return New(*c)
		},
	})
}
