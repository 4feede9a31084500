package gate

import (
	"encoding/json"
	"math"
	"reflect"
	"testing"
)

// A check survives MarshalJSON and UnmarshalJSON: every field, NaN and
// ±Inf coming back as NaN.
func TestCheckJSONRoundTrip(t *testing.T) {
	for i, c := range fixture(t) {
		data, err := json.Marshal(c)
		if err != nil {
			t.Fatal(err)
		}
		var got Check
		if err := json.Unmarshal(data, &got); err != nil {
			t.Fatalf("check %d: %v\n%s", i, err, data)
		}
		want := c
		for _, f := range []*float64{&want.Mean, &want.BaselineMean, &want.MeanDiff, &want.Statistic, &want.P, &want.PAdj,
			&want.A12, &want.HLShift, &want.HLLow, &want.HLHigh} {
			if math.IsInf(*f, 0) {
				*f = math.NaN()
			}
		}
		if !reflect.DeepEqual(fmtNaN(got), fmtNaN(want)) {
			t.Errorf("check %d: got %+v, want %+v", i, got, want)
		}
	}
	var c Check
	if err := json.Unmarshal([]byte(`{"p":"x"}`), &c); err == nil {
		t.Error("a string p decoded")
	}
}

// fmtNaN replaces NaN by a sentinel so that reflect.DeepEqual compares.
func fmtNaN(c Check) Check {
	for _, f := range []*float64{&c.Mean, &c.BaselineMean, &c.MeanDiff, &c.Statistic, &c.P, &c.PAdj,
		&c.A12, &c.HLShift, &c.HLLow, &c.HLHigh} {
		if math.IsNaN(*f) {
			*f = -12345
		}
	}
	return c
}
