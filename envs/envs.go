// Package envs defines what evolve needs of an environment and keeps the
// registry of environments by name.
//
// An environment, played by the agent that goes with it, produces
// episodes. An episode is a pure function of the environment's
// configuration, its seed, and the policy parameters (and prompt) the
// agent plays under: the same inputs give the same Outcome on any machine,
// worker and process. evolve sees an episode only through its Outcome: a
// score, why it ended, its failure cause (one of the causes the
// environment declares, or none), and the metrics the environment
// declares as columns of episodes.parquet.
//
// Each worker of the runner has its own Player, reused across episodes:
//
//	info := env.Info()              // causes, metrics, parameter schema
//	pl, _ := env.NewPlayer(worker)  // e.g. one subprocess per worker
//	out, err := pl.Play(ctx, Episode{Seed: seed, Params: p})
//	pl.Close()
//
// The built-in environment "dungeon" (envs/dungeon, played by the scripted
// agent of package agent) and "process" (envs/process: any program that
// speaks the process protocol of docs/protocol.md) register themselves
// with Register and are chosen by name in the experiment config.
package envs

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"sync"

	"evolve/params"
)

// Reserved failure causes, besides those an environment declares.
const (
	// CauseNone: the episode did not fail.
	CauseNone = "none"
	// CauseError: the episode could not be played (the environment or
	// agent crashed, hung, broke the protocol or panicked). It is recorded
	// by the runner, never proposed on, and never declared.
	CauseError = "error"
)

// EndError is the end reason of an episode that could not be played (see
// CauseError).
const EndError = "error"

// Cause is a failure cause an environment declares.
type Cause struct {
	// Name is the cause as written in episodes.parquet, reports and the
	// mutation config: lower-case letters, digits and '_', starting with a
	// letter; not "none" or "error".
	Name string `json:"name" yaml:"name"`
	// Description says when an episode fails this way.
	Description string `json:"description,omitempty" yaml:"description,omitempty"`
}

// MetricType is the type of a metric column.
type MetricType string

// The metric types. Int, Float and Bool are numbers in an Outcome
// (MetricValue.Num; Bool is 0 or 1); String is MetricValue.Str.
const (
	Int    MetricType = "int"    // a whole number, an INT64 column
	Float  MetricType = "float"  // a real number, a DOUBLE column
	Bool   MetricType = "bool"   // 0 or 1, a BOOLEAN column
	String MetricType = "string" // text, a STRING column
)

// Metric declares one metric column of episodes.parquet.
type Metric struct {
	// Name is the column's name: lower-case letters, digits and '_',
	// starting with a letter, and none of the table's own columns (run,
	// generation, version, split, seed, repeat, score, cause, end_reason).
	Name string `json:"name" yaml:"name"`
	// Type is the column's type.
	Type MetricType `json:"type" yaml:"type"`
	// Unit names the unit ("turns", "points"); may be empty.
	Unit string `json:"unit,omitempty" yaml:"unit,omitempty"`
	// Description says what is measured; may be empty.
	Description string `json:"description,omitempty" yaml:"description,omitempty"`
}

// ReservedColumns are the columns of episodes.parquet that a metric may
// not be named.
var ReservedColumns = []string{"run", "generation", "version", "split", "seed", "repeat", "score", "cause", "end_reason", "error"}

// Info is what an environment declares about its episodes.
type Info struct {
	// Name is the environment's registry name, e.g. "dungeon".
	Name string `json:"name" yaml:"name"`
	// Causes are its failure causes, in canonical order (the order of
	// tables, plots and columns).
	Causes []Cause `json:"causes" yaml:"causes"`
	// Metrics are the metric columns of its outcomes, in order.
	Metrics []Metric `json:"metrics" yaml:"metrics"`
	// Params is the schema of the policy parameters its agent reads.
	Params params.Schema `json:"parameters" yaml:"parameters"`
	// Remedies is the default mutation table: for each cause, the
	// remedies to propose, most direct first, in the syntax of
	// mutate.ParseRemedy ("health_threshold+", "prioritize skill_priority
	// flee"). A config's mutation.remedies replaces it.
	Remedies map[string][]string `json:"remedies,omitempty" yaml:"remedies,omitempty"`
	// Fill is the default list of remedies that fill a generation up to
	// its candidates when the causes' remedies are too few.
	Fill []string `json:"fill,omitempty" yaml:"fill,omitempty"`
	// Rules, if not empty, is the library of rules a text mutation may add
	// to a prompt's rules_constraints, by failure cause (see
	// mutate.ProposeRules); it is used only when ReadsText.
	Rules map[string][]string `json:"rules,omitempty" yaml:"rules,omitempty"`
	// ReadsText is true when the agent reads the prompt's text (an LLM
	// agent): text mutations are then proposed beside parameter ones.
	ReadsText bool `json:"reads_text,omitempty" yaml:"reads_text,omitempty"`
}

// CauseNames returns the declared causes' names in order.
func (in Info) CauseNames() []string {
	out := make([]string, len(in.Causes))
	for i, c := range in.Causes {
		out[i] = c.Name
	}
	return out
}

// Check returns an error naming the first invalid declaration of in: a bad
// or repeated cause or metric name, a reserved name, an unknown metric
// type, an invalid parameter schema, or a remedy naming an undeclared
// cause.
func (in *Info) Check() error {
	seen := map[string]bool{}
	for i, c := range in.Causes {
		switch {
		case !params.ValidName(c.Name):
			return fmt.Errorf("causes[%d]: name %q: want lower-case letters, digits and _, starting with a letter", i, c.Name)
		case c.Name == CauseNone || c.Name == CauseError:
			return fmt.Errorf("causes[%d]: %q is reserved (evolve records it itself)", i, c.Name)
		case seen[c.Name]:
			return fmt.Errorf("causes[%d]: %q is declared twice", i, c.Name)
		}
		seen[c.Name] = true
	}
	cols := map[string]bool{}
	for i, m := range in.Metrics {
		switch {
		case !params.ValidName(m.Name):
			return fmt.Errorf("metrics[%d]: name %q: want lower-case letters, digits and _, starting with a letter", i, m.Name)
		case slices.Contains(ReservedColumns, m.Name):
			return fmt.Errorf("metrics[%d]: %q is a column of episodes.parquet already (reserved: %v)", i, m.Name, ReservedColumns)
		case cols[m.Name]:
			return fmt.Errorf("metrics[%d]: %q is declared twice", i, m.Name)
		}
		switch m.Type {
		case Int, Float, Bool, String:
		default:
			return fmt.Errorf("metrics[%d] (%s): type %q: want int, float, bool or string", i, m.Name, m.Type)
		}
		cols[m.Name] = true
	}
	if err := in.Params.Check(); err != nil {
		return err
	}
	for c := range in.Remedies {
		if !seen[c] {
			return fmt.Errorf("remedies: %q is not a declared cause (declared: %v)", c, in.CauseNames())
		}
	}
	return nil
}

// MetricValue is one metric of an Outcome: Num for an Int, Float or Bool
// metric, Str for a String metric. Null marks a value the episode did not
// report (a null in episodes.parquet).
type MetricValue struct {
	Num  float64
	Str  string
	Null bool
}

// Outcome is the record of one finished episode.
type Outcome struct {
	// Seed is the episode's seed.
	Seed uint64
	// Score is the environment's score, larger is better; finite.
	Score float64
	// EndReason says why the episode ended, in the environment's words
	// ("killed", "turn_limit"), or EndError.
	EndReason string
	// Cause is one of the environment's declared causes, CauseNone, or
	// CauseError.
	Cause string
	// Metrics holds the declared metrics, indexed like Info.Metrics (nil
	// or shorter for an error episode: the missing ones are null).
	Metrics []MetricValue
	// Trajectory is the episode's trajectory, or nil: in the format named
	// by TrajectoryFormat. A process environment's is stored as it
	// reported it; evolve never interprets it while playing. Players fill
	// it only when Episode.Record is set.
	Trajectory json.RawMessage
	// TrajectoryFormat names the format of Trajectory: TrajectoryJSON
	// (also meant by "") or TrajectoryAsciicast.
	TrajectoryFormat string
	// Transcript is an LLM agent's transcript (agent.Transcript, kind
	// llm-transcript/v1, one JSON value) when the episode's Trajectory is
	// the environment's own recording (NetHack's asciicast, a process
	// environment's trajectory), or nil. The trajectory archive stores it
	// beside the Trajectory (SEED.json beside SEED.cast). Players fill it
	// only when Episode.Record is set.
	Transcript json.RawMessage
	// Error says why an episode with Cause CauseError could not be
	// played (the message and the tail of the process's stderr); "" for
	// other episodes.
	Error string
}

// Prompt is what an agent that reads text is given of the prompt version
// it plays under (episode mode of the process protocol; LLM agents).
type Prompt struct {
	Slug    string // the prompt's slug, e.g. "dungeon-agent"
	Version string // its version, e.g. "v1.0.3"
	// Text is the rendered prompt: the text a model reads.
	Text string
	// SHA256 is the version's content hash.
	SHA256 string
}

// Trajectory formats, the values of Outcome.TrajectoryFormat.
const (
	// TrajectoryJSON: Trajectory is one JSON value (the built-in dungeon's
	// per-turn records, a process environment's trajectory as given, an
	// LLM agent's transcript).
	TrajectoryJSON = "json"
	// TrajectoryAsciicast: Trajectory is an asciicast v2 recording of a
	// terminal (https://docs.asciinema.org/manual/asciicast/v2/): a JSON
	// header line, then one [time, "o", data] event per line, with times
	// on a fixed step per action so that the bytes are deterministic.
	TrajectoryAsciicast = "asciicast-v2"
)

// Episode says what to play.
type Episode struct {
	Seed   uint64     // the episode's seed
	Params params.Set // the policy parameters, valid for the environment's schema
	Prompt *Prompt    // the prompt version, nil if the agent reads only Params
	// Record asks the player to fill Outcome.Trajectory (and
	// TrajectoryFormat). It never changes the outcome otherwise: score,
	// cause, end reason and metrics are the same with and without it.
	Record bool
}

// Player plays episodes one at a time; it is not safe for concurrent use.
// A runner keeps one Player per worker and reuses it.
type Player interface {
	// Play plays one episode to its end and returns its outcome. An error
	// means the episode could not be played (the runner records it as an
	// error episode or stops, as configured); the Player must be usable
	// for the next episode after an error (a process player restarts its
	// process). Play returns ctx.Err() promptly when ctx is cancelled.
	Play(ctx context.Context, ep Episode) (Outcome, error)
	// Close releases the player's resources (ends its process).
	Close() error
}

// Environment makes players. It is safe for concurrent use.
type Environment interface {
	// Info returns the environment's declarations; the same value every
	// call.
	Info() Info
	// NewPlayer returns a player for worker w (0-based; a process player
	// names its stderr log after it). Errors say why no player could be
	// made (e.g. the process failed its handshake).
	NewPlayer(w int) (Player, error)
}

// StepBudgeter is implemented by environments whose players can end an
// episode after a number of steps (the experiment's step_budget).
type StepBudgeter interface {
	// SetStepBudget sets the budget, n <= 0 for none; call it before
	// NewPlayer.
	SetStepBudget(n int)
}

// Factory builds an environment from its configuration.
type Factory struct {
	// Config returns a pointer to a new configuration struct holding the
	// defaults; the experiment config decodes the user's parameters into it
	// strictly (unknown keys are errors).
	Config func() any
	// New builds the environment from a configuration returned by Config
	// (after decoding). It returns an error naming the bad field if the
	// configuration is invalid.
	New func(cfg any) (Environment, error)
}

var (
	mu       sync.RWMutex
	registry = map[string]Factory{}
)

// Register makes a factory available under name. It panics if name is
// empty, already registered, or the factory has nil functions: these are
// programming errors in an init function.
func Register(name string, f Factory) {
	mu.Lock()
	defer mu.Unlock()
	if name == "" || f.Config == nil || f.New == nil {
		panic("envs: Register with empty name or nil factory")
	}
	if _, dup := registry[name]; dup {
		panic("envs: Register called twice for " + name)
	}
	registry[name] = f
}

// Lookup returns the factory registered under name. The error names the
// unknown environment and lists the registered ones.
func Lookup(name string) (Factory, error) {
	mu.RLock()
	defer mu.RUnlock()
	f, ok := registry[name]
	if !ok {
		return Factory{}, fmt.Errorf("unknown environment %q (registered: %v)", name, namesLocked())
	}
	return f, nil
}

// Names returns the registered environment names, sorted.
func Names() []string {
	mu.RLock()
	defer mu.RUnlock()
	return namesLocked()
}

func namesLocked() []string {
	names := make([]string, 0, len(registry))
	for n := range registry {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
