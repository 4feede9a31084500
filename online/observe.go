package online

import (
	"fmt"
	"math"
)

// Success is an interaction's task outcome as the design scores it.
type Success int

// The task outcomes; Value gives their task_success term.
const (
	SuccessUnknown Success = iota // not known: 0
	SuccessFailure                // failed: 0
	SuccessPartial                // partly done: 0.5
	SuccessFull                   // done: 1
)

var successNames = [...]string{"unknown", "failure", "partial", "success"}

// Value is the design's task_success: 1 for SuccessFull, 0.5 for
// SuccessPartial, 0 otherwise.
func (s Success) Value() float64 {
	switch s {
	case SuccessFull:
		return 1
	case SuccessPartial:
		return 0.5
	}
	return 0
}

// String returns "unknown", "failure", "partial" or "success".
func (s Success) String() string {
	if s >= 0 && int(s) < len(successNames) {
		return successNames[s]
	}
	return fmt.Sprintf("Success(%d)", int(s))
}

// MarshalText writes the name String gives; an undefined value is an
// error.
func (s Success) MarshalText() ([]byte, error) {
	if s < 0 || int(s) >= len(successNames) {
		return nil, fmt.Errorf("undefined task success %d", int(s))
	}
	return []byte(successNames[s]), nil
}

// UnmarshalText reads "unknown", "failure", "partial" or "success" (also
// "full" for success, and "" for unknown); anything else is an error
// naming the value.
func (s *Success) UnmarshalText(b []byte) error {
	switch string(b) {
	case "", "unknown":
		*s = SuccessUnknown
	case "failure":
		*s = SuccessFailure
	case "partial":
		*s = SuccessPartial
	case "success", "full":
		*s = SuccessFull
	default:
		return fmt.Errorf("task success must be one of unknown, failure, partial, success: %q", b)
	}
	return nil
}

// Observation is what one interaction tells about the version that
// served it.
type Observation struct {
	Sentiment   float64 `json:"sentiment"`   // user sentiment in [0, 1]
	Corrections int     `json:"corrections"` // corrections the user made, >= 0
	Success     Success `json:"success"`     // the task outcome
}

// Validate returns an error naming the field: Sentiment not a number in
// [0, 1], Corrections negative, or Success undefined.
func (o Observation) Validate() error {
	switch {
	case !(o.Sentiment >= 0 && o.Sentiment <= 1):
		return fmt.Errorf("sentiment must be in [0, 1]: %v", o.Sentiment)
	case o.Corrections < 0:
		return fmt.Errorf("corrections must be >= 0: %d", o.Corrections)
	case o.Success < SuccessUnknown || o.Success > SuccessFull:
		return fmt.Errorf("success must be one of unknown, failure, partial, success: %d", int(o.Success))
	}
	return nil
}

// Score is the design's observation score in [0, 1]:
//
//	0.5 sentiment + 0.3 (1 - min(0.1 corrections, 1)) + 0.2 task_success
//
// with task_success = o.Success.Value().
func (o Observation) Score() float64 {
	penalty := math.Min(0.1*float64(o.Corrections), 1)
	return 0.5*o.Sentiment + 0.3*(1-penalty) + 0.2*o.Success.Value()
}

// EMA is one step of the exponential moving average of the edge weight:
// (1 - alpha) weight + alpha score. alpha in (0, 1]; DefaultAlpha gives
// the design's 0.9 weight + 0.1 score. From w0 under a constant score s,
// after n steps the weight is s - (s - w0)(1 - alpha)^n.
func EMA(weight, score, alpha float64) float64 {
	return (1-alpha)*weight + alpha*score
}
