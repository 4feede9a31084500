package cache

import (
	"encoding/json"
	"errors"
	"math"
	"testing"

	"evolve/envs"
)

// fuzzOutcomes are the seed corpus's outcomes.
func fuzzOutcomes() []envs.Outcome {
	return []envs.Outcome{
		dungeonOutcome(5),
		{Seed: 5, Score: math.Copysign(0, -1), EndReason: "x", Cause: envs.CauseNone,
			Metrics:    []envs.MetricValue{{Null: true}, {Num: 0.1}, {Str: "é\"\\"}},
			Trajectory: json.RawMessage(`{"a": [1, 2.50, "\u00e9"], "b": null}`), Error: "note"},
		{Seed: 5, Score: 1e300, EndReason: "", Cause: ""},
	}
}

// checkRoundTrip fails t unless o, which decoded from an entry of k,
// encodes to an entry that decodes to o again, and encoding is a fixed
// point from there on.
func checkRoundTrip(t *testing.T, k Key, o envs.Outcome) {
	e1, err := encodeEntry(k, o, nil)
	if err != nil {
		t.Fatalf("decoded outcome %+v does not encode: %v", o, err)
	}
	o2, err := decodeEntry(e1, k, nil)
	if err != nil {
		t.Fatalf("re-encoded entry does not decode: %v\n%s", err, e1)
	}
	if !sameOutcome(o, o2) {
		t.Fatalf("round trip changed the outcome:\n got %#v\nwant %#v", o2, o)
	}
	e2, err := encodeEntry(k, o2, nil)
	if err != nil || string(e1) != string(e2) {
		t.Fatalf("encoding is not a fixed point: %v\n%s\n%s", err, e1, e2)
	}
}

// FuzzDecodeEntry feeds arbitrary bytes to the entry decoder: it must not
// panic, must reject with a corrupt-entry error, or accept an entry whose
// outcome round-trips.
func FuzzDecodeEntry(f *testing.F) {
	k := testKey(5)
	for _, o := range fuzzOutcomes() {
		e, err := encodeEntry(k, o, nil)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(e)
		f.Add(e[:len(e)/2])
	}
	f.Add([]byte(`{"format":1}`))
	f.Add([]byte(`null`))
	f.Fuzz(func(t *testing.T, data []byte) {
		o, err := decodeEntry(data, k, nil)
		if err != nil {
			if !errors.Is(err, errCorrupt) {
				t.Fatalf("error %v does not wrap errCorrupt", err)
			}
			return
		}
		checkRoundTrip(t, k, o)
	})
}

// FuzzDecodeOutcome fuzzes the outcome value behind a valid checksum,
// which FuzzDecodeEntry rarely gets past.
func FuzzDecodeOutcome(f *testing.F) {
	for _, o := range fuzzOutcomes() {
		b, err := encodeOutcome(o)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b, o.Seed)
	}
	f.Add([]byte(`{"seed":"5","score":1,"metrics":[true]}`), uint64(5))
	f.Add([]byte(`{"seed":"18446744073709551615","score":-0,"trajectory":null}`), uint64(math.MaxUint64))
	f.Fuzz(func(t *testing.T, data []byte, seed uint64) {
		o, err := decodeOutcome(data, seed)
		if err != nil {
			if !errors.Is(err, errCorrupt) {
				t.Fatalf("error %v does not wrap errCorrupt", err)
			}
			return
		}
		checkRoundTrip(t, testKey(seed), o)
	})
}
