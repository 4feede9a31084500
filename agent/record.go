package agent

import (
	"encoding/json"
	"errors"
	"fmt"

	"evolve/envs/dungeon"
)

// DungeonRecordKind is the "kind" of a dungeon trajectory (DungeonRecord).
const DungeonRecordKind = "dungeon-actions/v1"

// DungeonRecord is the trajectory the dungeon's scripted player records
// (envs.Episode.Record), as JSON in envs.Outcome.Trajectory. It keeps the
// episode's inputs and one character per step, the action taken; the
// dungeon is a pure function of its configuration, the seed and the
// actions, so ExpandDungeon replays it into per-turn records (action,
// reward, the hero's state, the map as text). Recording costs one byte
// per step while playing (the dungeon plays millions of steps a second),
// and a stored step costs about a byte before compression.
type DungeonRecord struct {
	// Kind is DungeonRecordKind.
	Kind string `json:"kind"`
	// Config is the dungeon's configuration.
	Config dungeon.Config `json:"config"`
	// Seed is the episode's seed.
	Seed uint64 `json:"seed"`
	// StepBudget is the runner's step budget (0: none).
	StepBudget int `json:"step_budget,omitempty"`
	// Actions holds one character per step, the digit of its
	// dungeon.Action ('0' wait, '1' explore, '2' descend, '3' attack, '4'
	// flee, '5' eat, '6' quaff).
	Actions string `json:"actions"`
	// Score, End and Turns are the episode's outcome, against which a
	// replay is checked.
	Score int64  `json:"score"`
	End   string `json:"end"`
	Turns int    `json:"turns"`
}

// recorder wraps an Agent and keeps the actions it takes.
type recorder struct {
	Agent
	acts []byte
}

// Act implements Agent: the wrapped agent's action, remembered.
func (r *recorder) Act(o *dungeon.Observation) dungeon.Action {
	a := r.Agent.Act(o)
	r.acts = append(r.acts, '0'+byte(a))
	return a
}

// recordDungeon encodes the trajectory of an episode played with rec.
func recordDungeon(cfg dungeon.Config, seed uint64, budget int, acts []byte, o *dungeon.Outcome) json.RawMessage {
	data, _ := json.Marshal(DungeonRecord{Kind: DungeonRecordKind, Config: cfg, Seed: seed, StepBudget: budget,
		Actions: string(acts), Score: o.Score, End: o.End.String(), Turns: o.Turns})
	return data
}

// DungeonStep is one step of an expanded dungeon trajectory: the state
// the agent saw, what it did, and what that earned.
type DungeonStep struct {
	// Step counts the agent's actions from 1; the final record (Action
	// "") shows the state after the last action.
	Step int `json:"step"`
	// Turn is the game turn at the start of the step, from 0.
	Turn int `json:"turn"`
	// Action is the action taken, dungeon.Action's name ("explore").
	Action string `json:"action"`
	// Reward is the change of the score over the step, in points (may be
	// negative: a death keeps 90% of the gold).
	Reward int64 `json:"reward"`
	// Score is the score after the step, in points.
	Score int64 `json:"score"`
	// State is the observation the agent acted on.
	State dungeon.Observation `json:"state"`
	// Map is the whole level as the hero knows it (dungeon.Texter with a
	// radius covering the map: 21 rows of up to 80 glyphs), then the two
	// status lines.
	Map string `json:"map"`
}

// DungeonReplay is an expanded dungeon trajectory.
type DungeonReplay struct {
	Record DungeonRecord `json:"record"`
	Steps  []DungeonStep `json:"steps"`
	// Diverged, if not "", says how the replay's outcome differs from the
	// recorded one (the dungeon changed since the episode was played);
	// the steps are then not the episode's.
	Diverged string `json:"diverged,omitempty"`
}

// ErrNotDungeonRecord is returned (wrapped) by ExpandDungeon for JSON
// that is not a DungeonRecord.
var ErrNotDungeonRecord = errors.New("not a dungeon trajectory")

// ExpandDungeon replays a DungeonRecord (JSON) into its steps. Errors: not
// JSON or another kind (ErrNotDungeonRecord), an invalid configuration,
// or an action character out of range (naming its step).
func ExpandDungeon(data []byte) (*DungeonReplay, error) {
	var rec DungeonRecord
	if err := json.Unmarshal(data, &rec); err != nil || rec.Kind != DungeonRecordKind {
		return nil, fmt.Errorf("agent: %w (kind %q)", ErrNotDungeonRecord, rec.Kind)
	}
	env, err := dungeon.New(rec.Config)
	if err != nil {
		return nil, fmt.Errorf("agent: dungeon trajectory: %w", err)
	}
	ep := env.NewEpisode()
	tx, _ := ep.(dungeon.Texter)
	ep.Reset(rec.Seed)
	rp := &DungeonReplay{Record: rec, Steps: make([]DungeonStep, 0, len(rec.Actions)+1)}
	text := func() string {
		if tx == nil {
			return ""
		}
		return tx.Text(dungeon.W)
	}
	var obs dungeon.Observation
	score := ep.Outcome().Score
	done := false
	for i := 0; i < len(rec.Actions) && !done; i++ {
		c := rec.Actions[i]
		if c < '0' || c >= '0'+byte(dungeon.NumActions) {
			return nil, fmt.Errorf("agent: dungeon trajectory: step %d: action %q is not a digit 0-%d", i+1, c, dungeon.NumActions-1)
		}
		a := dungeon.Action(c - '0')
		ep.Observe(&obs)
		st := DungeonStep{Step: i + 1, Turn: ep.Outcome().Turns, Action: a.String(), State: obs, Map: text()}
		done = ep.Step(a)
		if !done && rec.StepBudget > 0 && i+1 >= rec.StepBudget {
			ep.Stop(dungeon.EndStepBudget)
		}
		now := ep.Outcome().Score
		st.Reward, st.Score, score = now-score, now, now
		rp.Steps = append(rp.Steps, st)
	}
	if rec.End == dungeon.EndStepBudget.String() {
		ep.Stop(dungeon.EndStepBudget)
	}
	o := ep.Outcome()
	ep.Observe(&obs)
	rp.Steps = append(rp.Steps, DungeonStep{Step: len(rp.Steps) + 1, Turn: o.Turns, Score: o.Score, State: obs, Map: text()})
	if o.Score != rec.Score || o.End.String() != rec.End || o.Turns != rec.Turns {
		rp.Diverged = fmt.Sprintf("the replay ends %s after %d turns with score %d; the episode ended %s after %d turns with score %d",
			o.End, o.Turns, o.Score, rec.End, rec.Turns, rec.Score)
	}
	return rp, nil
}
