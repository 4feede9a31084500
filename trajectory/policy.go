package trajectory

import (
	"fmt"

	"evolve/envs"
)

// Policy says which episodes keep their trajectory: the value of the
// config key trajectories (and evolve eval's --trajectories).
type Policy string

// The policies.
const (
	// Failed keeps the trajectories of failed episodes: those whose cause
	// is not envs.CauseNone (error episodes included, when the player
	// reported a trajectory before failing). The default.
	Failed Policy = "failed"
	// All keeps every episode's trajectory.
	All Policy = "all"
	// None records nothing: players are never asked to record.
	None Policy = "none"
)

// Default is the policy of a config that does not set trajectories.
const Default = Failed

// ParsePolicy returns the policy named s; "" is Default. The error names
// the value and the allowed ones.
func ParsePolicy(s string) (Policy, error) {
	switch p := Policy(s); p {
	case "":
		return Default, nil
	case Failed, All, None:
		return p, nil
	}
	return "", fmt.Errorf("trajectories: %q is not failed, all or none", s)
}

// UnmarshalText implements encoding.TextUnmarshaler (YAML and flags)
// with ParsePolicy.
func (p *Policy) UnmarshalText(b []byte) error {
	q, err := ParsePolicy(string(b))
	if err != nil {
		return err
	}
	*p = q
	return nil
}

// OrDefault returns p, or Default if p is "".
func (p Policy) OrDefault() Policy {
	if p == "" {
		return Default
	}
	return p
}

// Record reports whether players are asked to record under p: true for
// Failed and All (and "", which means Failed).
func (p Policy) Record() bool { return p.OrDefault() != None }

// Keep reports whether an episode that ended with cause keeps its
// trajectory under p.
func (p Policy) Keep(cause string) bool {
	switch p.OrDefault() {
	case All:
		return true
	case Failed:
		return cause != envs.CauseNone
	}
	return false
}
