package online

import (
	"errors"
	"math"
	"strings"
	"testing"
)

func TestCheckSignals(t *testing.T) {
	specs := DefaultSignals()
	tests := []struct {
		name string
		s    Signals
		want string // "" for valid, else a substring of the error
	}{
		{"nil", nil, ""},
		{"in range", Signals{"user_frustrated": 0.9, "task_coding": 1, "energy_high": 0}, ""},
		{"bounds", Signals{"user_pleased": 1, "sentiment_high": 0}, ""},
		{"unknown", Signals{"task_cooking": 1}, `signal "task_cooking" = 1: unknown signal (known: user_pleased,`},
		{"above", Signals{"energy_high": 1.5}, `signal "energy_high" = 1.5: out of range [0, 1]`},
		{"below", Signals{"user_frustrated": -0.1}, `signal "user_frustrated" = -0.1: out of range [0, 1]`},
		{"binary", Signals{"task_crisis": 0.5}, `signal "task_crisis" = 0.5: binary signal must be 0 or 1`},
		{"nan", Signals{"topic_shift_high": math.NaN()}, `signal "topic_shift_high" = NaN: not a finite number`},
		{"first by name", Signals{"zzz": 1, "aaa": 2}, `signal "aaa"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := CheckSignals(specs, tt.s)
			if tt.want == "" {
				if err != nil {
					t.Fatalf("CheckSignals(%v) = %v, want nil", tt.s, err)
				}
				return
			}
			var se *SignalError
			if err == nil || !errors.As(err, &se) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("CheckSignals(%v) = %v, want a *SignalError containing %q", tt.s, err, tt.want)
			}
		})
	}
}

func TestDefaultSignals(t *testing.T) {
	specs := DefaultSignals()
	if len(specs) != 11 {
		t.Fatalf("%d signals, want 11 (the design's table, sentiment_high as an alias)", len(specs))
	}
	binary := 0
	for _, s := range specs {
		if s.Min != 0 || s.Max != 1 || s.Description == "" {
			t.Errorf("%+v: want range [0, 1] and a description", s)
		}
		if s.Binary != strings.HasPrefix(s.Name, "task_") {
			t.Errorf("%s: binary %v", s.Name, s.Binary)
		}
		if s.Binary {
			binary++
		}
	}
	if binary != 5 {
		t.Errorf("%d binary signals, want 5", binary)
	}
}
