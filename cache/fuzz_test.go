package cache

import (
	"encoding/json"
	"errors"
	"math"
	"testing"

	"evolve/envs"
)

// fuzzEntries are the seed corpus's entries.
func fuzzEntries() []Entry {
	cast := dungeonOutcome(5)
	cast.Trajectory, cast.TrajectoryFormat = json.RawMessage(testCast), envs.TrajectoryAsciicast
	llm := dungeonOutcome(5)
	llm.Trajectory, llm.TrajectoryFormat = json.RawMessage(testTranscript), envs.TrajectoryJSON
	return []Entry{
		{Outcome: dungeonOutcome(5)},
		{Outcome: envs.Outcome{Seed: 5, Score: math.Copysign(0, -1), EndReason: "x", Cause: envs.CauseNone,
			Metrics:    []envs.MetricValue{{Null: true}, {Num: 0.1}, {Str: "é\"\\"}},
			Trajectory: json.RawMessage(`{"a": [1, 2.50, "\u00e9"], "b": null}`), TrajectoryFormat: envs.TrajectoryJSON, Error: "note"},
			Recorded: true},
		{Outcome: envs.Outcome{Seed: 5, Score: 1e300, EndReason: "", Cause: ""}, Recorded: true},
		{Outcome: cast, Recorded: true},
		{Outcome: llm, Recorded: true},
	}
}

// checkRoundTrip fails t unless e, which decoded from an entry of k,
// encodes to an entry that decodes to e again, and encoding is a fixed
// point from there on.
func checkRoundTrip(t *testing.T, k Key, e Entry) {
	e1, err := encodeEntry(k, e, nil)
	if err != nil {
		t.Fatalf("decoded entry %+v does not encode: %v", e, err)
	}
	e2, _, err := decodeEntry(e1, k, nil)
	if err != nil {
		t.Fatalf("re-encoded entry does not decode: %v\n%s", err, e1)
	}
	if !sameOutcome(e.Outcome, e2.Outcome) || e.Recorded != e2.Recorded {
		t.Fatalf("round trip changed the entry:\n got %#v\nwant %#v", e2, e)
	}
	b2, err := encodeEntry(k, e2, nil)
	if err != nil || string(e1) != string(b2) {
		t.Fatalf("encoding is not a fixed point: %v\n%s\n%s", err, e1, b2)
	}
}

// FuzzDecodeEntry feeds arbitrary bytes to the entry decoder: it must not
// panic, must reject with a corrupt-entry error, or accept an entry whose
// outcome round-trips.
func FuzzDecodeEntry(f *testing.F) {
	k := testKey(5)
	for _, e := range fuzzEntries() {
		b, err := encodeEntry(k, e, nil)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
		f.Add(b[:len(b)/2])
	}
	f.Add([]byte(`{"format":1}`))
	f.Add([]byte(`{"format":2}` + "\n"))
	f.Add(rawEntry(k, `{"seed":"5","score":1,"end_reason":"x","cause":"y","trajectory":[1]}`))
	f.Add([]byte(`null`))
	f.Fuzz(func(t *testing.T, data []byte) {
		e, _, err := decodeEntry(data, k, nil)
		if err != nil {
			if !errors.Is(err, errCorrupt) {
				t.Fatalf("error %v does not wrap errCorrupt", err)
			}
			return
		}
		if e.Trajectory == nil && e.TrajectoryFormat != "" {
			t.Fatalf("format %q without a trajectory", e.TrajectoryFormat)
		}
		checkRoundTrip(t, k, e)
	})
}

// FuzzDecodeOutcome fuzzes a format-2 outcome value and the bytes after
// its line behind a valid checksum, which FuzzDecodeEntry rarely gets
// past.
func FuzzDecodeOutcome(f *testing.F) {
	for _, e := range fuzzEntries() {
		ob, traj, err := encodeOutcome(e)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(ob, traj, e.Seed)
	}
	f.Add([]byte(`{"seed":"5","score":1,"metrics":[true]}`), []byte(nil), uint64(5))
	f.Add([]byte(`{"seed":"18446744073709551615","score":-0,"recorded":true,"trajectory":null}`), []byte(nil), uint64(math.MaxUint64))
	f.Add([]byte(`{"seed":"5","score":1,"recorded":true,"trajectory":{"format":"json","bytes":2,"sha256":"4f53cda18c2baa0c0354bb5f9a3ecbe5ed12ab4d8e11ba873c2f11161202b945"}}`),
		[]byte(`[]`), uint64(5))
	f.Fuzz(func(t *testing.T, data, traj []byte, seed uint64) {
		e, err := decodeOutcome(data, traj, seed)
		if err != nil {
			if !errors.Is(err, errCorrupt) {
				t.Fatalf("error %v does not wrap errCorrupt", err)
			}
			return
		}
		checkRoundTrip(t, testKey(seed), e)
	})
}
