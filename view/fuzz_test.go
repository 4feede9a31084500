package view

import (
	"net/url"
	"testing"

	"evolve/envs"
	"evolve/trajectory"
)

// FuzzParseQuery: any query string parses or fails with an error; a
// parsed page size is in range.
func FuzzParseQuery(f *testing.F) {
	f.Add("split=val&sort=score&desc=1&page=3&size=20&min=1.5&seed=42")
	f.Add("size=0&page=-1&seed=x")
	f.Add("generation=3&metric=killed_by&metric_value=a+jackal&cause=injury")
	f.Add("generation=-1&generation=99999999999")
	f.Fuzz(func(t *testing.T, raw string) {
		v, err := url.ParseQuery(raw)
		if err != nil {
			return
		}
		q, err := ParseQuery(v.Get)
		if err == nil && (q.Size < 0 || q.Size > MaxPageSize || q.Page < 0) {
			t.Fatalf("%q: size %d page %d out of range", raw, q.Size, q.Page)
		}
		if err == nil && q.Generation != nil && *q.Generation < 0 {
			t.Fatalf("%q: generation %d < 0", raw, *q.Generation)
		}
	})
}

// FuzzDecode: any stored bytes decode to a trajectory or an error, never
// a panic.
func FuzzDecode(f *testing.F) {
	f.Add([]byte(testTranscript), false)
	f.Add([]byte(testCast), true)
	f.Add([]byte(testRaw), false)
	f.Add([]byte(`[{"a":1},{"b":[1]}]`), false)
	f.Add([]byte("{\"version\":2}\n[0.1, \"i\", \"k\"]\n[0.2,\"o\",\"\\u001b[31mx\"]\n[x]\n"), true)
	f.Add([]byte(`{"kind":"dungeon-actions/v1","config":{"max_turns":100,"max_depth":2,"no_progress_turns":10},"actions":"111"}`), false)
	f.Fuzz(func(t *testing.T, data []byte, cast bool) {
		format := envs.TrajectoryJSON
		if cast {
			format = envs.TrajectoryAsciicast
		}
		tr, err := Decode(trajectory.Entry{Format: format, Data: data})
		if err == nil && tr.Kind == "" {
			t.Fatal("a decoded trajectory without a kind")
		}
		if err == nil && tr.Steps > 0 && (tr.Kind == "dungeon" || tr.Kind == "asciicast") {
			if p := tr.Page(tr.Steps - 1); len(p.Frames) == 0 || !p.Frames[0].Full {
				t.Fatalf("the last page of %d steps has %d frames", tr.Steps, len(p.Frames))
			}
		}
	})
}
