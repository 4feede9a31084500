package agent

import (
	"context"
	"fmt"

	"evolve/envs"
	"evolve/envs/dungeon"
	"evolve/params"
)

// The dungeon's failure causes, as its outcomes report them.
var dungeonCauses = []envs.Cause{
	{Name: "injury", Description: "killed by a monster outside a fight the agent chose (caught exploring, fleeing, eating or resting)"},
	{Name: "combat_loss", Description: "killed during a fight the agent chose to take or continue"},
	{Name: "starvation", Description: "died of hunger"},
	{Name: "entrapment", Description: "ended by the no-progress rule (stuck, dead end, oscillation) or the step budget"},
}

// The dungeon's metric columns, in the order of episodes.parquet.
var dungeonMetrics = []envs.Metric{
	{Name: "depth", Type: envs.Int, Unit: "level", Description: "deepest dungeon level reached, from 1"},
	{Name: "turns", Type: envs.Int, Unit: "turns", Description: "game turns played"},
	{Name: "kills", Type: envs.Int, Unit: "monsters", Description: "monsters killed"},
	{Name: "gold", Type: envs.Int, Unit: "gold pieces", Description: "gold carried at the end"},
	{Name: "xl", Type: envs.Int, Unit: "level", Description: "experience level at the end"},
	{Name: "killed_by", Type: envs.String, Description: "the monster that dealt the final blow, empty otherwise"},
	{Name: "turns_explore", Type: envs.Int, Unit: "turns", Description: "turns spent exploring"},
	{Name: "turns_descend", Type: envs.Int, Unit: "turns", Description: "turns spent heading for and taking the stairs"},
	{Name: "turns_attack", Type: envs.Int, Unit: "turns", Description: "turns spent attacking"},
	{Name: "turns_flee", Type: envs.Int, Unit: "turns", Description: "turns spent fleeing"},
	{Name: "turns_eat", Type: envs.Int, Unit: "turns", Description: "turns spent eating"},
	{Name: "turns_quaff", Type: envs.Int, Unit: "turns", Description: "turns spent quaffing potions"},
	{Name: "turns_wait", Type: envs.Int, Unit: "turns", Description: "turns spent waiting or resting"},
}

// DungeonRules is the dungeon's rule library: for each failure cause,
// rules a model that reads the prompt may be given, most direct first.
var DungeonRules = map[string][]string{
	"starvation":  {"Eat as soon as the status line shows Hungry.", "Never let the status line reach Weak while you carry food."},
	"injury":      {"When HP falls below half of its maximum, quaff a potion of healing or step away before exploring further.", "Rest until HP is full before taking the stairs."},
	"combat_loss": {"Do not keep fighting a monster while your HP is below a third; flee instead.", "Attack only monsters whose letter is lower case."},
	"entrapment":  {"After about 150 turns on a level, stop exploring and head for the down staircase.", "If the map around you has not changed for several turns, take the stairs."},
}

// DungeonInfo is what the dungeon played by the scripted agent declares:
// its four failure causes, its metric columns, Schema, and the mutation
// table of the reference design:
//
//	injury      health_threshold+; prioritize use_item; max_combat_attempts+ (stop turning your back)
//	combat_loss prioritize flee; risk_tolerance-; health_threshold+
//	starvation  hunger_threshold- (eat earlier); prioritize eat
//	entrapment  max_exploration_steps+; deprioritize flee (stop oscillating)
//
// with fill-ups rotate skill_priority, risk_tolerance+,
// max_exploration_steps+, max_combat_attempts+.
func DungeonInfo() envs.Info {
	return envs.Info{
		Name:    dungeon.Name,
		Causes:  dungeonCauses,
		Metrics: dungeonMetrics,
		Params:  Schema,
		Remedies: map[string][]string{
			"injury":      {"health_threshold+", "prioritize skill_priority use_item", "max_combat_attempts+"},
			"combat_loss": {"prioritize skill_priority flee", "risk_tolerance-", "health_threshold+"},
			"starvation":  {"hunger_threshold-", "prioritize skill_priority eat"},
			"entrapment":  {"max_exploration_steps+", "deprioritize skill_priority flee"},
		},
		Fill: []string{"rotate skill_priority", "risk_tolerance+", "max_exploration_steps+", "max_combat_attempts+"},
	}
}

// Classify returns the failure cause of a dungeon episode: killed in a
// chosen fight is combat_loss, killed otherwise injury, starved
// starvation, no progress or an exhausted step budget entrapment, a
// panic error, and the turn limit or the deepest level none.
func Classify(o *dungeon.Outcome) string {
	switch o.End {
	case dungeon.EndKilled:
		if o.InChosenFight {
			return "combat_loss"
		}
		return "injury"
	case dungeon.EndStarved:
		return "starvation"
	case dungeon.EndNoProgress, dungeon.EndStepBudget:
		return "entrapment"
	case dungeon.EndPanic:
		return envs.CauseError
	}
	return envs.CauseNone
}

// DungeonOutcome converts a dungeon outcome into the generic record, with
// the metrics of DungeonInfo in order.
func DungeonOutcome(o *dungeon.Outcome) envs.Outcome {
	num := func(x int) envs.MetricValue { return envs.MetricValue{Num: float64(x)} }
	a := &o.Actions
	return envs.Outcome{
		Seed: o.Seed, Score: float64(o.Score), EndReason: o.End.String(), Cause: Classify(o),
		Metrics: []envs.MetricValue{
			num(o.Depth), num(o.Turns), num(o.Kills), num(o.Gold), num(o.XL), {Str: o.KilledBy},
			num(a[dungeon.ActExplore]), num(a[dungeon.ActDescend]), num(a[dungeon.ActAttack]), num(a[dungeon.ActFlee]),
			num(a[dungeon.ActEat]), num(a[dungeon.ActQuaff]), num(a[dungeon.ActWait]),
		},
	}
}

// DungeonEnv is the built-in environment "dungeon": the dungeon of
// envs/dungeon played by the Scripted agent under a prompt's parameters.
type DungeonEnv struct {
	env        *dungeon.Env
	stepBudget int
	model      ChatModel // set by UseLLM: a language model plays instead of Scripted
	llmOpt     LLMOptions
}

// NewDungeonEnv returns the dungeon with configuration c played by the
// scripted agent; errors as dungeon.New.
func NewDungeonEnv(c dungeon.Config) (*DungeonEnv, error) {
	e, err := dungeon.New(c)
	if err != nil {
		return nil, err
	}
	return &DungeonEnv{env: e}, nil
}

// SetStepBudget makes players end an episode as a recorded timeout
// (dungeon.EndStepBudget, cause entrapment) after n steps; n <= 0 means no
// budget beyond the dungeon's own turn limit. It implements
// envs.StepBudgeter and must be called before NewPlayer.
func (e *DungeonEnv) SetStepBudget(n int) { e.stepBudget = n }

// Info implements envs.Environment.
func (e *DungeonEnv) Info() envs.Info {
	info := DungeonInfo()
	if e.model != nil {
		info.Metrics = append(info.Metrics, LLMMetrics...)
		info.ReadsText, info.Rules = true, DungeonRules
	}
	return info
}

// NewPlayer implements envs.Environment: a player with its own episode
// state (about 60 KB), reused across episodes.
func (e *DungeonEnv) NewPlayer(int) (envs.Player, error) {
	if e.model != nil {
		opt := e.llmOpt
		if opt.MaxTurns == 0 {
			opt.MaxTurns = e.stepBudget
		}
		return &llmPlayer{ep: e.env.NewEpisode(), model: e.model, opt: opt}, nil
	}
	return &dungeonPlayer{ep: e.env.NewEpisode(), cfg: e.env.Config(), budget: e.stepBudget}, nil
}

type dungeonPlayer struct {
	ep     dungeon.Episode
	cfg    dungeon.Config
	budget int
	rec    recorder // reused by recorded episodes
}

// Play implements envs.Player. It checks ctx only before the episode: an
// episode takes about a millisecond. With ep.Record it fills the
// outcome's trajectory with a DungeonRecord.
func (pl *dungeonPlayer) Play(ctx context.Context, ep envs.Episode) (envs.Outcome, error) {
	if err := ctx.Err(); err != nil {
		return envs.Outcome{}, err
	}
	if err := Schema.Validate(ep.Params); err != nil {
		return envs.Outcome{}, err
	}
	if !ep.Record {
		o := Play(pl.ep, NewScripted(ep.Params), ep.Seed, pl.budget)
		return DungeonOutcome(&o), nil
	}
	pl.rec.Agent, pl.rec.acts = NewScripted(ep.Params), pl.rec.acts[:0]
	o := Play(pl.ep, &pl.rec, ep.Seed, pl.budget)
	out := DungeonOutcome(&o)
	out.Trajectory, out.TrajectoryFormat = recordDungeon(pl.cfg, ep.Seed, pl.budget, pl.rec.acts, &o), envs.TrajectoryJSON
	return out, nil
}

// Close implements envs.Player.
func (pl *dungeonPlayer) Close() error { return nil }

// Play runs one episode of ep from seed with agent ag to its end and
// returns its outcome. stepBudget > 0 stops the episode as
// dungeon.EndStepBudget after that many steps.
func Play(ep dungeon.Episode, ag Agent, seed uint64, stepBudget int) dungeon.Outcome {
	var obs dungeon.Observation
	ep.Reset(seed)
	ag.Reset()
	for steps := 1; ; steps++ {
		ep.Observe(&obs)
		if ep.Step(ag.Act(&obs)) {
			break
		}
		if stepBudget > 0 && steps >= stepBudget {
			ep.Stop(dungeon.EndStepBudget)
			break
		}
	}
	return ep.Outcome()
}

func init() {
	envs.Register(dungeon.Name, envs.Factory{
		Config: func() any { c := dungeon.DefaultConfig(); return &c },
		New: func(cfg any) (envs.Environment, error) {
			c, ok := cfg.(*dungeon.Config)
			if !ok {
				return nil, fmt.Errorf("dungeon: config of type %T, want *dungeon.Config", cfg)
			}
			return NewDungeonEnv(*c)
		},
	})
}

// BaseParameters returns the policy parameters of the base prompt v1.0.0,
// those of the reference design: health 0.3, hunger 0.5, exploration 100,
// combat 3, risk 0.5, priority [explore fight eat use_item flee].
func BaseParameters() params.Set {
	return params.Set{
		{Name: "health_threshold", Value: params.NumberValue(0.3)},
		{Name: "hunger_threshold", Value: params.NumberValue(0.5)},
		{Name: "max_exploration_steps", Value: params.IntegerValue(100)},
		{Name: "max_combat_attempts", Value: params.IntegerValue(3)},
		{Name: "risk_tolerance", Value: params.NumberValue(0.5)},
		{Name: "skill_priority", Value: params.OrderingValue(Schema[5].Items)},
	}
}
