package online

import (
	"fmt"
	"math"
	"slices"
	"strings"
)

// SignalSpec declares one context signal: its name, its range [Min, Max]
// and whether it is binary (exactly 0 or 1).
type SignalSpec struct {
	Name        string  // e.g. "user_frustrated"
	Min, Max    float64 // inclusive range; for a binary signal 0 and 1
	Binary      bool    // the value must be exactly Min or Max
	Description string  // what the signal measures
}

// DefaultSignals returns the context signals of the graph prompt design's
// table ("Context Signals"): five continuous signals in [0, 1]
// (user_pleased and its alias sentiment_high, user_frustrated,
// correction_rate_high, topic_shift_high, energy_high) and five binary
// task signals (task_coding, task_planning, task_casual, task_crisis,
// task_reflection). A fresh slice each call.
func DefaultSignals() []SignalSpec {
	cont := func(name, desc string) SignalSpec { return SignalSpec{Name: name, Min: 0, Max: 1, Description: desc} }
	bin := func(task string) SignalSpec {
		return SignalSpec{Name: "task_" + task, Min: 0, Max: 1, Binary: true, Description: "1 when task_type = " + task}
	}
	return []SignalSpec{
		cont("user_pleased", "user sentiment"),
		cont("sentiment_high", "user sentiment (alias of user_pleased)"),
		cont("user_frustrated", "inverse of sentiment"),
		cont("correction_rate_high", "rolling correction rate"),
		cont("topic_shift_high", "semantic drift from the conversation's start"),
		cont("energy_high", "user energy proxy"),
		bin("coding"), bin("planning"), bin("casual"), bin("crisis"), bin("reflection"),
	}
}

// Signals are a request's context: signal name to value. A signal not
// present counts 0 in ContextFit.
type Signals map[string]float64

// SignalError is a signal CheckSignals rejects: unknown, not finite, out
// of its range, or a binary signal that is neither 0 nor 1.
type SignalError struct {
	Name   string  // the signal
	Value  float64 // its value
	Reason string  // e.g. "unknown signal (known: ...)" or "out of range [0, 1]"
}

func (e *SignalError) Error() string {
	return fmt.Sprintf("signal %q = %v: %s", e.Name, e.Value, e.Reason)
}

// CheckSignals checks s against the declared specs. It returns a
// *SignalError for the first offending signal in name order: a name not
// declared, NaN or an infinity, a value outside [Min, Max], or a binary
// signal not exactly Min or Max. nil or empty s is valid.
func CheckSignals(specs []SignalSpec, s Signals) error {
	names := make([]string, 0, len(s))
	for n := range s {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		v := s[n]
		i := slices.IndexFunc(specs, func(sp SignalSpec) bool { return sp.Name == n })
		if i < 0 {
			known := make([]string, len(specs))
			for j, sp := range specs {
				known[j] = sp.Name
			}
			return &SignalError{Name: n, Value: v, Reason: "unknown signal (known: " + strings.Join(known, ", ") + ")"}
		}
		sp := specs[i]
		switch {
		case math.IsNaN(v) || math.IsInf(v, 0):
			return &SignalError{Name: n, Value: v, Reason: "not a finite number"}
		case v < sp.Min || v > sp.Max:
			return &SignalError{Name: n, Value: v, Reason: fmt.Sprintf("out of range [%v, %v]", sp.Min, sp.Max)}
		case sp.Binary && v != sp.Min && v != sp.Max:
			return &SignalError{Name: n, Value: v, Reason: fmt.Sprintf("binary signal must be %v or %v", sp.Min, sp.Max)}
		}
	}
	return nil
}
