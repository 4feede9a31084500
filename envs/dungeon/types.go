package dungeon

import "fmt"

// Action is what an agent does in one turn. The environment implements the
// movement behind each action (path finding, target choice), so an agent
// only chooses among skills.
type Action uint8

// The actions, one per turn.
const (
	ActWait    Action = iota // do nothing this turn
	ActExplore               // step toward the nearest unexplored tile
	ActDescend               // step toward the down staircase, descend when on it
	ActAttack                // attack the nearest adjacent monster (a fight the agent chose)
	ActFlee                  // step away from the nearest threat
	ActEat                   // eat a carried food item (takes several turns)
	ActQuaff                 // quaff a carried potion of healing
	NumActions               // number of actions; not an action
)

var actionNames = [...]string{"wait", "explore", "descend", "attack", "flee", "eat", "quaff"}

// String returns the action's lower-case name, e.g. "attack".
func (a Action) String() string {
	if int(a) < len(actionNames) {
		return actionNames[a]
	}
	return fmt.Sprintf("action(%d)", uint8(a))
}

// Observation is what the agent sees at the start of a turn. All distances
// are Chebyshev distances in tiles.
type Observation struct {
	HP, MaxHP  int     // hit points, 0 < HP <= MaxHP while alive
	Hunger     float64 // in [0, 1]: 0 satiated (nutrition >= 1000), 1 starving (nutrition <= 0)
	Food       int     // food items carried
	Potions    int     // potions of healing carried
	Depth      int     // current dungeon level, 1-based
	LevelTurns int     // turns spent on the current level
	Eating     bool    // a multi-turn meal is in progress

	// FrontierLeft reports whether a reachable unexplored tile remains.
	FrontierLeft bool
	// StairsKnown reports whether the down staircase has been seen.
	StairsKnown bool

	// ThreatDist is the distance to the nearest monster in view, 0 if none.
	ThreatDist int
	// Adjacent is the number of monsters adjacent to the hero.
	Adjacent int
	// CanFlee reports whether the hero has a free cell to step to that is
	// farther from the nearest monster in view (or stands on the stairs).
	CanFlee bool
	// Danger in [0, 1] estimates how likely the nearest monster in view is
	// to kill the hero at its current HP if fought to the end: the
	// monster's expected damage before it dies, divided by the hero's HP,
	// capped at 1. 0 when no monster is in view.
	Danger float64
}

// EndReason says why an episode ended.
type EndReason uint8

// The reasons an episode ends.
const (
	EndNone       EndReason = iota // still running
	EndKilled                      // HP fell to 0 from a monster's attack
	EndStarved                     // nutrition fell below the starvation limit
	EndNoProgress                  // no new tile seen and no descent for the no-progress limit
	EndTurnLimit                   // the turn limit was reached alive
	EndMaxDepth                    // the deepest level was reached (a win)
	EndStepBudget                  // the runner's step budget ran out (a timeout, not a game rule)
	EndPanic                       // the environment or agent panicked; recorded by the runner, score 0
)

var endNames = [...]string{"running", "killed", "starved", "no_progress", "turn_limit", "max_depth", "step_budget", "panic"}

// String returns the reason's snake_case name, e.g. "no_progress".
func (r EndReason) String() string {
	if int(r) < len(endNames) {
		return endNames[r]
	}
	return fmt.Sprintf("end(%d)", uint8(r))
}

// Outcome is the record of one finished episode: the facts an environment
// reports, from which failure classification and scoring follow.
type Outcome struct {
	Seed    uint64    // the episode's seed
	Score   int64     // the environment's score, larger is better (dungeon: NetHack 3.6 end.c style)
	End     EndReason // why the episode ended
	Turns   int       // game turns played
	Depth   int       // deepest level reached, 1-based
	Kills   int       // monsters killed
	Gold    int       // gold carried at the end (before any death penalty)
	XL      int       // experience level at the end
	Exp     int       // experience points at the end
	HP      int       // hit points at the end (<= 0 if killed)
	MaxHP   int       // maximum hit points at the end
	Food    int       // food items left
	Potions int       // potions left

	// KilledBy names the monster that dealt the final blow, "" otherwise.
	KilledBy string
	// InChosenFight reports whether a death by a monster came during a
	// fight the agent chose: its last action before the killing blow was
	// ActAttack. A hero killed while exploring, fleeing, eating or resting
	// was not in a chosen fight.
	InChosenFight bool

	// Actions counts the turns spent on each Action, indexed by Action.
	Actions [NumActions]int
}

// Episode is one play of an environment. Implementations are not safe for
// concurrent use; a runner keeps one Episode per worker and reuses it
// through Reset.
type Episode interface {
	// Reset starts a new episode from seed, discarding the previous one.
	Reset(seed uint64)
	// Observe fills o with the current observation.
	Observe(o *Observation)
	// Step applies the agent's action for one turn and advances the world.
	// It reports whether the episode has ended.
	Step(a Action) (done bool)
	// Outcome returns the record of the episode; valid once Step has
	// reported done (before that it describes the episode so far).
	Outcome() Outcome
	// Stop ends a running episode with the given reason (used by runners
	// for step budgets). It is a no-op on an ended episode.
	Stop(r EndReason)
}
