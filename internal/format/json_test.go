package format

import (
	"encoding/json"
	"math"
	"net/http/httptest"
	"testing"
)

func TestFinite(t *testing.T) {
	for _, v := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		if p := Finite(v); p != nil {
			t.Errorf("Finite(%v) = %v, want nil", v, *p)
		}
	}
	if p := Finite(-0.5); p == nil || *p != -0.5 {
		t.Errorf("Finite(-0.5) = %v, want a pointer to -0.5", p)
	}
}

func TestFloat(t *testing.T) {
	for _, tc := range []struct {
		x    Float
		want string
	}{
		{0.5, "0.5"},
		{1e8, "100000000"}, // as encoding/json, not %g's 1e+08
		{1e-7, "1e-7"},
		{1e21, "1e+21"},
		{Float(math.NaN()), "null"},
		{Float(math.Inf(-1)), "null"},
	} {
		got, err := json.Marshal(tc.x)
		if err != nil || string(got) != tc.want {
			t.Errorf("json.Marshal(Float(%v)) = %s, %v, want %s", float64(tc.x), got, err, tc.want)
		}
	}
}

func TestMarshal(t *testing.T) {
	type row struct {
		Name  string   `json:"name"`
		Mean  float64  `json:"mean"`
		CI    *float64 `json:"ci"`
		Skip  int      `json:"-"`
		Plain int
	}
	for _, tc := range []struct {
		name   string
		v      any
		indent string
		want   string
	}{
		{"finite keeps field order, no HTML escaping", row{Name: "p < 0.05 & more", Mean: 1.5, CI: Finite(2)}, "",
			`{"name":"p < 0.05 & more","mean":1.5,"ci":2,"Plain":0}` + "\n"},
		{"NaN becomes null (sorted keys)", row{Name: "x", Mean: math.NaN(), Skip: 3}, "",
			`{"Plain":0,"ci":null,"mean":null,"name":"x"}` + "\n"},
		{"indented", []float64{1, math.Inf(1)}, "  ", "[\n  1,\n  null\n]\n"},
		{"map", map[string]float64{"b": 1, "a": math.NaN()}, "", `{"a":null,"b":1}` + "\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Marshal(tc.v, tc.indent)
			if err != nil || string(got) != tc.want {
				t.Errorf("Marshal = %q, %v, want %q", got, err, tc.want)
			}
		})
	}
	if _, err := Marshal(make(chan int), ""); err == nil {
		t.Error("Marshal(chan) succeeded, want an error")
	}
}

func TestWriteJSON(t *testing.T) {
	w := httptest.NewRecorder()
	WriteJSON(w, 201, map[string]any{"mean": math.NaN(), "n": 3})
	if w.Code != 201 || w.Header().Get("Content-Type") != "application/json" || w.Body.String() != `{"mean":null,"n":3}`+"\n" {
		t.Errorf("WriteJSON: %d %q %q", w.Code, w.Header().Get("Content-Type"), w.Body.String())
	}
	w = httptest.NewRecorder()
	WriteJSON(w, 200, make(chan int))
	if w.Code != 500 || w.Body.String() != encodeFailed {
		t.Errorf("WriteJSON(chan): %d %q, want 500 %q", w.Code, w.Body.String(), encodeFailed)
	}
}
