package nethack

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	nh "evolve/envs/nethack"
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
	// NoProgressTurns ends an episode (end reason stuck; Classify tells
	// why) after this many game turns without a new square seen or stood
	// on or a descent, in [10, max_turns].
	NoProgressTurns int `yaml:"no_progress_turns" json:"no_progress_turns"`
	// StallSeconds makes a game that neither writes nor asks for a key for
	// this long an episode error carrying its last screen, in [1, 600].
	StallSeconds float64 `yaml:"stall_seconds" json:"stall_seconds"`
	// UntilDeath plays every game until the game ends itself (a death, or
	// the hero escapes), as NLE's NetHackChallenge does: max_turns and the
	// stall detector's no_progress_turns then end nothing, and max_steps
	// bounds the episode. The one stall that still ends a game (end reason
	// stuck, quit true) is a stopped clock: clock_stop_steps agent actions
	// in a row that took no game time, after which nothing in the game
	// can change (the hero can neither die nor starve).
	UntilDeath bool `yaml:"until_death" json:"until_death"`
	// ClockStopSteps is, with until_death, how many agent actions in a row
	// without the game's turn counter moving end the episode (end reason
	// stuck), in [10, 10000000] (max_steps ends the episode first if it is
	// smaller). The default, 10000, is NLE's
	// NetHackChallenge no_progress_timeout (its _check_abort).
	ClockStopSteps int `yaml:"clock_stop_steps" json:"clock_stop_steps"`
	// MaxSteps ends an episode (end reason action_cap, quit true) after
	// this many agent actions (commands; the --More--, menu and prompt
	// answers of the play loop are not counted), in [10, 10000000]. The
	// default, 1000000, is NLE's NetHackChallenge max_episode_steps.
	MaxSteps int `yaml:"max_steps" json:"max_steps"`
	// Role, Race, Gender and Alignment choose the character: a value of
	// RoleNames (or its three-letter code, e.g. "val"), human, elf, dwarf,
	// gnome or orc, male or female, lawful, neutral or chaotic; or Random
	// ("random", or "@" as NLE writes it) for the game's own seeded
	// choice among the values the other fields allow. NLE's
	// NetHackChallenge is all four random.
	Role      string `yaml:"role" json:"role"`
	Race      string `yaml:"race" json:"race"`
	Gender    string `yaml:"gender" json:"gender"`
	Alignment string `yaml:"alignment" json:"alignment"`
}

// DefaultConfig returns the defaults: 5000 turns, 500 turns without
// progress, 10 s stall timeout, Debian's binary, not until death,
// 1000000 steps (10000 with a stopped clock), and a neutral human female
// Valkyrie.
func DefaultConfig() Config {
	return Config{Binary: nh.DefaultBinary, MaxTurns: 5000, NoProgressTurns: 500, StallSeconds: 10,
		MaxSteps: 1000000, ClockStopSteps: 10000, Role: "valkyrie", Race: "human", Gender: "female", Alignment: "neutral"}
}

// Character returns the character the config chooses.
func (c Config) Character() nh.Character {
	return nh.Character{Role: c.Role, Race: c.Race, Gender: c.Gender, Alignment: c.Alignment}
}

// Validate returns an error naming the first field out of range, or the
// character's (Character.Validate: an unknown role, race, gender or
// alignment, or values no character combines).
func (c Config) Validate() error {
	switch {
	case c.Binary == "":
		return fmt.Errorf("binary: empty, want the path of a NetHack 3.6 binary (default %s)", nh.DefaultBinary)
	case c.MaxTurns < 10 || c.MaxTurns > 1000000:
		return fmt.Errorf("max_turns: %d is out of range, allowed [10, 1000000]", c.MaxTurns)
	case c.NoProgressTurns < 10 || c.NoProgressTurns > c.MaxTurns:
		return fmt.Errorf("no_progress_turns: %d is out of range, allowed [10, max_turns=%d]", c.NoProgressTurns, c.MaxTurns)
	case !(c.StallSeconds >= 1 && c.StallSeconds <= 600):
		return fmt.Errorf("stall_seconds: %v is out of range, allowed [1, 600]", c.StallSeconds)
	case c.MaxSteps < 10 || c.MaxSteps > 10000000:
		return fmt.Errorf("max_steps: %d is out of range, allowed [10, 10000000]", c.MaxSteps)
	case c.ClockStopSteps < 10 || c.ClockStopSteps > 10000000:
		return fmt.Errorf("clock_stop_steps: %d is out of range, allowed [10, 10000000]", c.ClockStopSteps)
	}
	return c.Character().Validate()
}

// Causes are the failure causes, in canonical order. Each is decided by
// Classify from the game's own evidence; the rule is in the description
// and docs/nethack.md.
var Causes = []envs.Cause{
	{Name: "starvation", Description: "hunger: the death text names it (\"died of starvation\", \"while fainted from lack of food\"), or the hero died or stalled with the status line at Fainting or Fainted"},
	{Name: "prayer", Description: "a god killed the hero (\"the wrath of Odin\") or it was killed while praying"},
	{Name: "helpless", Description: "killed while helpless for another reason (the death text's \", while ...\": frozen by a floating eye's gaze or a potion, paralysed, asleep)"},
	{Name: "hazard", Description: "killed by the dungeon rather than a monster: a trap, drowning, lava, choking, a poisonous or acidic corpse, a falling rock or boulder, kicking"},
	{Name: "combat_loss", Description: "killed by a monster within 3 actions of an attack the agent chose"},
	{Name: "injury", Description: "killed by a monster outside a fight the agent chose (caught exploring, fleeing, eating or resting)"},
	{Name: "unanswered_prompt", Description: "stalled while the game waited on an answer (the cursor on the message line: a text, y/n or object prompt) or a map position"},
	{Name: "hero_lost", Description: "stalled while the hero was not shown as @ (the cursor on the map rests on another glyph: polymorphed, e.g. into a wererat r)"},
	{Name: "trapped", Description: "stalled on a level where a trap held the hero (a bear trap, pit or web message)"},
	{Name: "action_loop", Description: "stalled by actions that took no game time: the agent repeated a command the game refused or cancelled (eating, declining the floor corpse; a refused move), so twice no_progress_turns actions passed before no_progress_turns turns"},
	{Name: "standoff", Description: "stalled beside a monster the agent would neither fight nor get past (a lichen F rated too dangerous, a peaceful monster in the way, a statue attacked again and again): a letter other than the pet's, @, :, ; or & next to the hero, or \"You harmlessly attack a statue\""},
	{Name: "no_path", Description: "stalled free, answered and found: no known way to a new square or to >, e.g. a hidden passage, a boulder or a locked door"},
	{Name: "action_cap", Description: "the agent's own action budget ran out before the game's turn cap"},
}

// Metrics are the metric columns, in order.
var Metrics = []envs.Metric{
	{Name: "max_depth", Type: envs.Int, Unit: "level", Description: "deepest dungeon level reached (xlogfile maxlvl)"},
	{Name: "xl", Type: envs.Int, Unit: "level", Description: "experience level at the end"},
	{Name: "turns", Type: envs.Int, Unit: "turns", Description: "game turns played (xlogfile turns)"},
	{Name: "gold", Type: envs.Int, Unit: "gold pieces", Description: "gold carried at the end (status line $)"},
	{Name: "hunger", Type: envs.String, Description: "hunger state at the end: Satiated, Not hungry, Hungry, Weak, Fainting or Fainted"},
	{Name: "killed_by", Type: envs.String, Description: "the game's own death text as its record shows it (xlogfile death, and \", while \" its while field when the hero was helpless), e.g. \"killed by a jackal, while praying\"; empty if the hero lived"},
	{Name: "actions", Type: envs.Int, Unit: "actions", Description: "agent actions (commands, not counting --More-- and prompts)"},
	{Name: "keys", Type: envs.Int, Unit: "keys", Description: "keys sent to the game"},
	{Name: "quit", Type: envs.Bool, Description: "true when evolve ended the game with #quit (end reasons stuck, turn_cap, action_cap), false when the game ended itself (a death, or escaped)"},
	{Name: "cause_evidence", Type: envs.String, Description: "the evidence the cause was decided on, e.g. \"death: killed by a jackal, while fainted from lack of food\" or \"prompt: Call a white potion:\""},
	{Name: "nle_score", Type: envs.Int, Unit: "points", Description: "NLE's score: the in-game bottom-line score botl_score() when the game ended, the sum of NLE's rewards; the xlogfile points plus the tenth of the net gold gain a death takes off (NLEScore)"},
	{Name: "character", Type: envs.String, Description: "the hero as the game's record gives it, role-race-alignment-gender, e.g. \"Val-Hum-Neu-Fem\" (the xlogfile's role, race, align and gender)"},
}

// NLEScore returns NLE's score of a game that ended with how (the
// xlogfile's death: "quit", "escaped", or a death text) and points (the
// xlogfile's points), carrying gold gold at the end after starting with
// gold0: NetHack's botl_score() at the last step, which is what NLE's
// reward (the change of botl_score, nle/env/base.py) sums to.
//
// NetHack 3.6's really_done (end.c) adds the net gold gain to the score
// (u.urexp) less a tenth of it on a death (how < PANICKED); botl_score
// (botl.c) counts it whole. Both add 50 × (deepest level − 1) and the
// deep-level bonus. So on a death botl_score = points + (gold − gold0)/10
// (integer division, a negative gain counting 0), and on a quit or an
// escape it equals points. Gold in containers the hero carries (which
// both count) is not seen by evolve; an ascension (which doubles points)
// is not handled.
func NLEScore(how string, points, gold, gold0 int) int {
	if how == "quit" || how == "escaped" || how == "ascended" {
		return points
	}
	return points + max(gold-gold0, 0)/10
}

// Rules is the rule library of text mutations for the LLM agent, by cause.
var Rules = map[string][]string{
	"starvation":  {"Eat (e) as soon as the status line shows Hungry.", "Never let the status line reach Weak while you carry food."},
	"injury":      {"When HP falls below half of its maximum, step away from monsters and rest (s) before exploring further.", "Pray (#pray) when HP is below a seventh of its maximum, at most once every 1000 turns."},
	"combat_loss": {"Do not keep fighting while your HP is below a third; retreat instead.", "Fight capital-letter monsters only with full HP."},
	"hazard":      {"Do not eat corpses you find on the floor.", "Step around ^ traps you have seen."},
	"prayer":      {"Pray only when HP is below a seventh of its maximum or you are Weak from hunger, and at most once every 1000 turns."},
	"helpless":    {"Never melee a floating eye (blue e); walk around it."},
	"trapped":     {"When a trap holds you, keep trying to move out of it; once free, every direction may be tried again."},
	"action_loop": {"If the game answers your command with the same message twice, do something else."},
	"standoff":    {"If a monster blocks your way for several turns, fight it (F and its direction) unless it is peaceful; walk around a peaceful one."},
	"no_path":     {"If the map has not changed for several turns, search (s) at dead ends or head for the down staircase (>).", "After about 150 turns on a level, travel to > and descend."},
	"action_cap":  {"After about 150 turns on a level, travel to > and descend."},
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
	in     *nh.Install
	budget int
	llm    *llmSetup
}

// New returns the environment with configuration c. The first New of a
// process removes the playgrounds that processes killed before they could
// (SIGKILL) left in the temporary directory: those whose owner pid no
// longer runs (sweepPlaygrounds). Errors: on a platform without real
// NetHack (Windows) one wrapping errors.ErrUnsupported that names the
// platform, c.Validate's, ErrNotInstalled (wrapped, saying how to install
// the game: the Debian package on Linux) if the binary is missing, or a
// failure to build the preload shim. A game whose shim did not load or
// seed it fails its episode with ErrShimNotLoaded or ErrUnseeded
// (wrapped).
func New(c Config) (*Env, error) {
	if err := nh.PlatformErr(); err != nil {
		return nil, err
	}
	if err := c.Validate(); err != nil {
		return nil, err
	}
	in, err := nh.Prepare(c.Binary)
	if err != nil {
		return nil, err
	}
	nh.SweepStale()
	return &Env{cfg: c, in: in}, nil
}

// SetStepBudget ends episodes after n agent actions (end reason and
// cause action_cap); n <= 0 for none. It implements envs.StepBudgeter.
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
	dir, err := e.in.NewPlayground()
	if err != nil {
		return nil, fmt.Errorf("nethack: playground: %w", err)
	}
	return &Player{env: e, dir: dir}, nil
}

// Player plays episodes of real NetHack, one game process per episode.
type Player struct {
	env *Env
	dir string
	g   *nh.Game
	// last is the terminal's screen when the last episode's game exited.
	last string
	// evidence is the last episode's Evidence (for the labelled set).
	evidence nh.Evidence
	rc       agent.RendererCache // the LLM agent's renderer of the last prompt
}

// Close implements envs.Player: it kills a running game and removes the
// playground.
func (p *Player) Close() error {
	if p.g != nil {
		p.g.Kill()
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
	if err := nh.ResetPlayground(p.dir); err != nil {
		return envs.Outcome{}, fmt.Errorf("nethack: playground: %w", err)
	}
	var rec *nh.Recorder
	if ep.Record {
		rec = nh.NewRecorder()
	}
	stall := time.Duration(p.env.cfg.StallSeconds * float64(time.Second))
	g, err := nh.StartGame(ctx, p.env.in, p.dir, ep.Seed, nh.GameOptions(p.env.cfg.Character()), stall, rec)
	if err != nil {
		nh.ResetPlayground(p.dir) // startGame killed the game: remove its lock
		return envs.Outcome{}, seedErr(ep.Seed, err)
	}
	p.g = g
	defer func() {
		g.Kill()
		p.g = nil
		nh.ResetPlayground(p.dir)
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
	p.last = g.ScreenText()
	p.evidence = nh.Evidence{}
	if rec != nil {
		out.Trajectory, out.TrajectoryFormat = rec.Bytes(), envs.TrajectoryAsciicast
	}
	if x, err := readXlog(filepath.Join(p.dir, "xlogfile")); err == nil {
		p.evidence = r.finish(&out, x)
	} else {
		return envs.Outcome{}, fmt.Errorf("nethack: seed %d: the game wrote no score: %w; last screen:\n%s", ep.Seed, err, g.ScreenText())
	}
	out.Metrics = append(out.Metrics, pl.metrics()...)
	if lp, ok := pl.(*llmPolicy); ok && ep.Record {
		out.Transcript = lp.s.Transcript() // stored beside the .cast
	}
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

// scriptedOf returns the scripted agent that acts for pol or stands
// behind it (a language model's fallback and explore step), nil for
// none: the play loop passes it the game's messages (observe), the
// peaceful monsters it must not attack and what an item command found.
func scriptedOf(pol policy) *Scripted {
	switch p := pol.(type) {
	case scriptedPolicy:
		return p.a
	case *llmPolicy:
		return p.fb
	}
	return nil
}

// run is the state of one episode's play loop.
type run struct {
	g         *nh.Game
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
	trap      string      // the last trap message on level trapDlvl
	trapT     int         // its game turn
	trapDlvl  int
	byActions bool   // the stall detector fired on actions, not turns
	pet       string // the pet's letter, from the first screen acted on
	promptRun int    // consecutive actions taken while the game waited on an answer
	lostRun   int    // consecutive actions taken while the hero was not shown
	clockA    int    // action index when the game's turn counter last changed
	started   bool   // a status line was parsed
	startGold int    // the gold on the first status line (NetHack's u.umoney0)
	// What a viewer policy reads (see): reads is true for one.
	reads    bool
	pages    []string // the --More-- pages answered since the last action
	inv      []string // the inventory as last read
	invT     int      // the game turn it was read at
	invRead  bool     // the inventory was read once
	invStale bool     // it may have changed since
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
	_, r.reads = r.pol.(viewer)
	r.lastFight = -1
	interrupts := 0
	sa := scriptedOf(r.pol)
	for !r.g.Exited() {
		s := r.g.Screen()
		if m := nh.TrapMessage(s.Row(0)); m != "" {
			r.trap, r.trapT, r.trapDlvl = m, r.last.T, r.last.Dlvl
		}
		if sa != nil {
			sa.observe(s.Row(0))
		}
		if k, ok := interruptKey(s); ok {
			if r.reads {
				r.pages = append(r.pages, moreText(s)...)
			}
			if sa != nil && strings.Contains(s.Row(0), "Really attack") {
				sa.notePeaceful()
			}
			interrupts++
			if interrupts > maxInterrupts {
				k = "\x1b\x1b"
			}
			if interrupts > 3*maxInterrupts {
				return envs.Outcome{}, fmt.Errorf("nethack: the game keeps asking; last screen:\n%s", s)
			}
			if err := r.g.Send(ctx, k); err != nil {
				return envs.Outcome{}, err
			}
			continue
		}
		interrupts = 0
		st := s.Status()
		if st.OK {
			if !r.started {
				r.started, r.startGold = true, st.Gold
			}
			if st.T != r.last.T {
				r.clockA = r.actions
			}
			r.last = st
			r.progress(s, st)
			switch {
			case r.cfg.UntilDeath: // only a stopped clock ends a game played until death
			case st.T >= r.cfg.MaxTurns:
				r.end = nh.EndTurnCap
			case st.T-r.progressT > r.cfg.NoProgressTurns:
				r.end = nh.EndStuck
			}
		}
		stalled := r.actions-r.progressA > 2*r.cfg.NoProgressTurns
		if r.cfg.UntilDeath {
			stalled = r.actions-r.clockA >= r.cfg.ClockStopSteps
		}
		if r.end == "" && stalled {
			r.end, r.byActions = nh.EndStuck, true
		}
		if r.end == "" && (r.budget > 0 && r.actions >= r.budget || r.actions >= r.cfg.MaxSteps) {
			r.end = nh.EndActionCap
		}
		if r.end != "" {
			break
		}
		if r.actions == 0 {
			r.pet = nh.PetBeside(s)
		}
		r.screen = s
		r.promptRun, r.lostRun = run1(r.promptRun, nh.WaitsForAnswer(s)), run1(r.lostRun, nh.HeroHidden(s))
		if v, ok := r.pol.(viewer); ok {
			if err := r.see(ctx, v, s, st); err != nil {
				return envs.Outcome{}, err
			}
		}
		d, err := r.pol.act(ctx, s, st)
		if err != nil {
			return envs.Outcome{}, err
		}
		if r.reads {
			r.invStale = r.invStale || d.item != 0
			r.pages = nil
		}
		r.actions++
		if d.fight {
			r.lastFight = r.actions
		}
		if err := r.do(ctx, d); err != nil {
			return envs.Outcome{}, err
		}
	}
	if !r.g.Exited() {
		if err := r.quit(ctx); err != nil {
			return envs.Outcome{}, err
		}
	}
	return envs.Outcome{EndReason: r.end}, nil
}

// run1 returns n+1 if b, else 0: the length of a run of trues.
func run1(n int, b bool) int {
	if b {
		return n + 1
	}
	return 0
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
		return r.g.Send(ctx, d.keys)
	}
	if err := r.g.Send(ctx, string(d.item)); err != nil {
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
//   - drop ('d'): the last inventory letter offered (the latest
//     pickup; gold is never offered by this rule);
//   - engrave ('E'): '-' (a fingertip) to "What do you want to write
//     with?", n to "Do you want to add to the current engraving?",
//     "Elbereth" to "What do you want to write in the dust here?".
//
// "You don't have anything to eat" (or drink) tells the scripted agent it
// carries none; any other prompt is escaped, --More-- answered.
func (r *run) doItem(ctx context.Context, d decision) error {
	sa := scriptedOf(r.pol)
	for i := 0; i < 10 && !r.g.Exited(); i++ {
		s := r.g.Screen()
		m := s.Row(0)
		if sa != nil {
			sa.observe(m)
		}
		var k string
		switch {
		case s.More():
			k = "\r"
			if r.reads {
				r.pages = append(r.pages, moreText(s)...)
			}
		case strings.Contains(m, "don't have anything"):
			if sa != nil {
				if d.item == 'e' {
					sa.noFood = true
				} else if d.item == 'q' {
					sa.noPotion = true
				}
			}
			return nil
		case s.Prompt() == "":
			return nil
		case d.item == 'e' && strings.Contains(m, "here; eat it?"):
			k = "n"
			if sa != nil {
				if d.corpse && sa.freshCorpse(m, sa.lastX, sa.lastY) || !strings.Contains(m, "corpse") && foodItem(m) {
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
			} else if sa != nil {
				sa.noDagger = true
			}
		case d.item == 't' && strings.Contains(m, "direction"):
			k = d.keys
		case d.item == 'd' && strings.Contains(m, "want to drop"):
			k = "\x1b"
			if l := lastOffered(m); l != 0 {
				k = string(l)
			}
		default:
			if l := firstOffered(m); l != 0 && d.item != ',' {
				k = string(l)
			} else {
				k = "\x1b"
			}
		}
		if err := r.g.Send(ctx, k); err != nil {
			return err
		}
	}
	return nil
}

// offeredList returns the inventory letters an object prompt m offers,
// as the game writes them between its last '[' and the first blank
// ("$ab" for "What do you want to throw? [$ab or ?*]", "a-c" for
// "[a-c or ?*]"), and whether m has such a list.
func offeredList(m string) (string, bool) {
	i := strings.LastIndexByte(m, '[')
	if i < 0 {
		return "", false
	}
	list, _, _ := strings.Cut(m[i+1:], " ")
	return strings.TrimSuffix(list, "]"), true
}

// offers reports whether the object prompt m ("What do you want to
// throw? [$ab or ?*]", "[a-c or ?*]") offers inventory letter l.
func offers(m string, l byte) bool {
	list, _ := offeredList(m)
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
	list, ok := offeredList(m)
	if !ok || !strings.Contains(m, "want to") {
		return 0
	}
	if i := strings.IndexFunc(list, isLetter); i >= 0 {
		return list[i]
	}
	return 0
}

// lastOffered returns the last inventory letter of an object prompt
// such as "What do you want to drop? [$a-d or ?*]" ('d'), 0 if none.
func lastOffered(m string) byte {
	list, ok := offeredList(m)
	if !ok || !strings.Contains(m, "want to") {
		return 0
	}
	if i := strings.LastIndexFunc(list, isLetter); i >= 0 {
		return list[i]
	}
	return 0
}

// isLetter reports whether r is an ASCII letter (an inventory letter).
func isLetter(r rune) bool { return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' }

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
	for i := 0; i < 100 && !r.g.Exited(); i++ {
		s := r.g.Screen()
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
		if err := r.g.Send(ctx, k); err != nil {
			return err
		}
	}
	if !r.g.Exited() {
		return fmt.Errorf("nethack: the game did not end after #quit; last screen:\n%s", r.g.ScreenText())
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

// finish fills out from the xlogfile record: the score (points), the end
// reason, the cause (Classify) and the metrics. It returns the evidence
// the cause was decided on.
func (r *run) finish(out *envs.Outcome, x xlog) nh.Evidence {
	death := x["death"]
	out.Score = float64(x.int("points"))
	ev := nh.Evidence{
		End: r.end, Death: death, While: x["while"], Hunger: r.last.Hunger, Dlvl: r.last.Dlvl, T: r.last.T,
		SinceAttack: -1, StallTurns: r.last.T - r.progressT, StallActions: r.actions - r.progressA,
		PromptRun: r.promptRun, LostRun: r.lostRun, ByActions: r.byActions, Pet: r.pet,
	}
	killedBy := ""
	switch {
	case death == "quit":
		if out.EndReason == "" {
			out.EndReason = nh.EndStuck
		}
	case death == "escaped":
		out.EndReason = nh.EndEscaped
	case strings.Contains(death, "starv"):
		out.EndReason, killedBy = nh.EndStarved, ev.DeathText()
	default:
		out.EndReason, killedBy = nh.EndDied, ev.DeathText()
	}
	if r.lastFight >= 0 {
		ev.SinceAttack = r.actions - r.lastFight
	}
	if r.trap != "" && r.trapDlvl == r.last.Dlvl {
		ev.Trap, ev.TrapT = r.trap, r.trapT
	}
	if r.screen != nil {
		ev.Screen, ev.CursorX, ev.CursorY = r.screen.String(), r.screen.CursorX, r.screen.CursorY
	}
	var evidence string
	out.Cause, evidence = nh.Classify(ev)
	hunger := r.last.Hunger
	if hunger == "" {
		hunger = "Not hungry"
	}
	num := func(n int) envs.MetricValue { return envs.MetricValue{Num: float64(n)} }
	quit := 0
	if death == "quit" {
		quit = 1
	}
	out.Metrics = []envs.MetricValue{
		num(max(x.int("maxlvl"), r.maxDlvl)), num(r.last.XL), num(x.int("turns")), num(r.last.Gold),
		{Str: hunger}, {Str: killedBy}, num(r.actions), num(r.g.Keys()), num(quit), {Str: evidence},
		num(NLEScore(death, x.int("points"), r.last.Gold, r.startGold)),
		{Str: x["role"] + "-" + x["race"] + "-" + x["align"] + "-" + x["gender"]},
	}
	return ev
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
