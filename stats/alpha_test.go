package stats

import (
	"errors"
	"math"
	"testing"
)

func TestCheckAlpha(t *testing.T) {
	for _, tc := range []struct {
		alpha float64
		want  string // "" for nil
	}{
		{0.05, ""},
		{1e-300, ""},
		{0.999, ""},
		{0, "alpha must be in (0, 1), got 0"},
		{1, "alpha must be in (0, 1), got 1"},
		{1.5, "alpha must be in (0, 1), got 1.5"},
		{-0.05, "alpha must be in (0, 1), got -0.05"},
		{math.NaN(), "alpha must be in (0, 1), got NaN"},
		{math.Inf(1), "alpha must be in (0, 1), got +Inf"},
	} {
		err := CheckAlpha(tc.alpha)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("CheckAlpha(%v) = %v, want nil", tc.alpha, err)
		case tc.want != "" && (err == nil || err.Error() != tc.want):
			t.Errorf("CheckAlpha(%v) = %v, want %q", tc.alpha, err, tc.want)
		case tc.want != "" && !errors.Is(err, ErrOption):
			t.Errorf("CheckAlpha(%v) = %v, does not match ErrOption", tc.alpha, err)
		}
	}
}
