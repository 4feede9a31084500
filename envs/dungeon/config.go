package dungeon

import "fmt"

// Config holds the dungeon's parameters, as written under
// environment.params in an experiment config.
type Config struct {
	// MaxTurns is the turn limit of an episode, in [100, 1000000].
	MaxTurns int `yaml:"max_turns" json:"max_turns"`
	// MaxDepth is the deepest level; reaching it wins, in [2, 50].
	MaxDepth int `yaml:"max_depth" json:"max_depth"`
	// NoProgressTurns ends an episode (entrapment) after this many turns
	// without seeing a new tile or descending, in [10, MaxTurns].
	NoProgressTurns int `yaml:"no_progress_turns" json:"no_progress_turns"`
}

// DefaultConfig returns the calibrated defaults: 3000 turns, 20 levels,
// 200 turns without progress.
func DefaultConfig() Config {
	return Config{MaxTurns: 3000, MaxDepth: 20, NoProgressTurns: 300}
}

// Validate returns an error naming the first field out of range.
func (c Config) Validate() error {
	switch {
	case c.MaxTurns < 100 || c.MaxTurns > 1000000:
		return fmt.Errorf("max_turns: %d is out of range, allowed [100, 1000000]", c.MaxTurns)
	case c.MaxDepth < 2 || c.MaxDepth > 50:
		return fmt.Errorf("max_depth: %d is out of range, allowed [2, 50]", c.MaxDepth)
	case c.NoProgressTurns < 10 || c.NoProgressTurns > c.MaxTurns:
		return fmt.Errorf("no_progress_turns: %d is out of range, allowed [10, max_turns=%d]", c.NoProgressTurns, c.MaxTurns)
	}
	return nil
}

// Env is the dungeon environment. It implements Environment.
type Env struct{ cfg Config }

// New returns a dungeon with configuration c, or the error of c.Validate.
func New(c Config) (*Env, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	return &Env{cfg: c}, nil
}

// Name returns "dungeon".
func (e *Env) Name() string { return Name }

// Config returns the environment's configuration.
func (e *Env) Config() Config { return e.cfg }

// NewEpisode returns a fresh episode (about 60 KB of reusable state); call
// Reset before use.
func (e *Env) NewEpisode() Episode { return &game{cfg: e.cfg} }

// Name is the registry name of the dungeon (registered by package agent,
// which plays it with the scripted agent).
const Name = "dungeon"
