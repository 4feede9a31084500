package cache

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"evolve/envs"
	"evolve/internal/atomicfile"
	"evolve/trajectory"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// testKey returns a key of seed s, like those of an eval of the dungeon.
func testKey(s uint64) Key {
	return Key{
		Env:       "dungeon@5b1e0c9d2f7a4e31",
		Seed:      s,
		Prompt:    "3f6c1f0e9a2b4c7d8e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5",
		Semantics: 1,
	}
}

// dungeonOutcome returns an outcome of seed s shaped like the dungeon's
// (agent.DungeonOutcome): 13 metrics, killed_by a string.
func dungeonOutcome(s uint64) envs.Outcome {
	num := func(x int) envs.MetricValue { return envs.MetricValue{Num: float64(x)} }
	return envs.Outcome{
		Seed: s, Score: float64(300 + s%700), EndReason: "killed", Cause: "injury",
		Metrics: []envs.MetricValue{
			num(3), num(1200 + int(s%100)), num(14), num(212), num(5), {Str: "jackal"},
			num(600), num(120), num(200), num(30), num(10), num(2), num(238),
		},
	}
}

// sameOutcome compares outcomes exactly, telling -0 from 0 (== does not).
func sameOutcome(a, b envs.Outcome) bool {
	if math.Float64bits(a.Score) != math.Float64bits(b.Score) || len(a.Metrics) != len(b.Metrics) {
		return false
	}
	for i := range a.Metrics {
		if math.Float64bits(a.Metrics[i].Num) != math.Float64bits(b.Metrics[i].Num) {
			return false
		}
	}
	return reflect.DeepEqual(a, b)
}

func open(t testing.TB) *Cache {
	t.Helper()
	c, err := Open(filepath.Join(t.TempDir(), "episodes"))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestKeyHash pins the key encoding: a change of it (or of these hashes)
// invalidates every cache, and must come with a new keyTag.
func TestKeyHash(t *testing.T) {
	k := Key{Env: "dungeon@ab", Seed: 18446744073709551615, Prompt: "p", Agent: "scripted", Semantics: -2}
	wantEnc := "evolve episode cache key v1\nenv 10:dungeon@ab\nseed 18446744073709551615\nprompt 1:p\nagent 8:scripted\nsemantics -2\n"
	if got := string(k.encode()); got != wantEnc {
		t.Fatalf("encode = %q, want %q", got, wantEnc)
	}
	// Reference: printf "$wantEnc" | sha256sum (coreutils 9).
	const want = "38d76df102739f4e1c0d2bb1bbed45a2185974ad58365bca2428bcf5faadec33"
	if got := k.Hash(); got != want && !*update {
		t.Errorf("Hash = %s, want %s", got, want)
	}

	// Keys that a naive concatenation would confuse hash differently.
	keys := []Key{
		{Env: "a", Prompt: "b"},
		{Env: "a\nprompt 1:b", Prompt: ""},
		{Env: "ab", Prompt: ""},
		{Env: "a", Prompt: "", Agent: "b"},
		{Env: "a", Prompt: "b", Seed: 1},
		{Env: "a", Prompt: "b", Semantics: 1},
		{Env: "a", Prompt: "b", Agent: " "},
	}
	seen := map[string]int{}
	for i, k := range keys {
		h := k.Hash()
		if len(h) != 64 || strings.ToLower(h) != h {
			t.Errorf("key %d: hash %q is not 64 lower-case hex digits", i, h)
		}
		if j, dup := seen[h]; dup {
			t.Errorf("keys %d and %d share hash %s", j, i, h)
		}
		seen[h] = i
	}
}

func TestKeyHashReference(t *testing.T) {
	// The constant above, recomputed by an independent tool when there is
	// one.
	sha, err := exec.LookPath("sha256sum")
	if err != nil {
		t.Skip("no sha256sum")
	}
	k := Key{Env: "dungeon@ab", Seed: 18446744073709551615, Prompt: "p", Agent: "scripted", Semantics: -2}
	cmd := exec.Command(sha)
	cmd.Stdin = bytes.NewReader(k.encode())
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Fields(string(out))[0]; got != k.Hash() {
		t.Fatalf("sha256sum = %s, Hash = %s", got, k.Hash())
	}
}

// Trajectories of each format, as their players write them.
const (
	// testCast is an asciicast v2 recording shaped like NetHack's: a
	// header, then events with escape sequences, quotes and non-ASCII.
	testCast = `{"version": 2, "width": 80, "height": 24, "env": {"TERM": "xterm"}, "title": "evolve nethack"}` + "\n" +
		`[0.0, "o", "\u001b[H\u001b[2JIt is written in the Book of Tyr: \"ü\""]` + "\n" +
		`[0.1, "o", "\u001b[24;1H\r\n@ <>&"]` + "\n"
	// testTranscript is an LLM agent's transcript (agent.Transcript).
	testTranscript = `{"kind":"llm-transcript/v1","system":"You play a dungeon.","turns":[` +
		`{"turn":1,"tries":[{"messages":[{"Role":"user","Content":"state"}],"reply":"dance","rejected":"no action named"},` +
		`{"messages":[{"Role":"user","Content":"again"}],"reply":"explore"}],"action":"explore"},` +
		`{"turn":2,"tries":null,"action":"wait","fallback":true}]}`
)

func TestRoundTrip(t *testing.T) {
	c := open(t)
	cases := []struct {
		name string
		e    Entry
	}{
		{"dungeon, not recorded", Entry{Outcome: dungeonOutcome(7)}},
		{"recorded without a trajectory", Entry{Outcome: dungeonOutcome(12), Recorded: true}},
		{"every metric type with nulls", Entry{Outcome: envs.Outcome{
			Seed: 8, Score: -12.375, EndReason: "turn_limit", Cause: envs.CauseNone,
			Metrics: []envs.MetricValue{
				{Num: 42},                          // int
				{Num: -9007199254740993},           // int beyond 2^53 (as a float64: rounds)
				{Num: 0.1},                         // float, not a binary fraction
				{Num: math.Copysign(0, -1)},        // -0
				{Num: math.MaxFloat64},             // largest
				{Num: math.SmallestNonzeroFloat64}, // a subnormal
				{Num: 1e21},                        // where encoding/json switches to exponent form
				{Num: 1},                           // bool true
				{Num: 0},                           // bool false
				{Str: "a \"quoted\" <b>ü</b>\n\t\u2028"},
				{Str: ""}, // an empty string metric
				{Null: true},
				{Null: true},
			},
		}}},
		{"JSON trajectory kept byte for byte", Entry{Outcome: envs.Outcome{
			Seed: 9, Score: 1, EndReason: "won", Cause: envs.CauseNone,
			Metrics:          []envs.MetricValue{{Null: true}},
			Trajectory:       json.RawMessage(" {\"steps\": [ {\"a\":\"n\"},\n {\"a\": \"e\", \"x\": 1.50} ], \"note\":\"\\u00e9\"}\n"),
			TrajectoryFormat: envs.TrajectoryJSON,
		}, Recorded: true}},
		{"trajectory and error", Entry{Outcome: envs.Outcome{
			Seed: 10, Score: 0, EndReason: "stuck", Cause: "entrapment",
			Trajectory: json.RawMessage(`[1,2,3]`), TrajectoryFormat: envs.TrajectoryJSON, Error: "a note from the environment",
		}, Recorded: true}},
		{"asciicast", Entry{Outcome: envs.Outcome{
			Seed: 13, Score: 100, EndReason: "killed", Cause: "injury",
			Trajectory: json.RawMessage(testCast), TrajectoryFormat: envs.TrajectoryAsciicast,
		}, Recorded: true}},
		{"LLM transcript", Entry{Outcome: envs.Outcome{
			Seed: 14, Score: 3, EndReason: "killed", Cause: "injury",
			Trajectory: json.RawMessage(testTranscript), TrajectoryFormat: envs.TrajectoryJSON,
		}, Recorded: true}},
		{"asciicast with the LLM agent's transcript beside it", Entry{Outcome: envs.Outcome{
			Seed: 15, Score: 4, EndReason: "died", Cause: "injury",
			Trajectory: json.RawMessage(testCast), TrajectoryFormat: envs.TrajectoryAsciicast,
			Transcript: json.RawMessage(testTranscript),
		}, Recorded: true}},
		{"no metrics", Entry{Outcome: envs.Outcome{Seed: 11, Score: 5e-324, EndReason: "x", Cause: "y"}}},
		{"seed 2^64-1", Entry{Outcome: envs.Outcome{Seed: math.MaxUint64, Score: 1, EndReason: "x", Cause: envs.CauseNone}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			k := testKey(tc.e.Seed)
			if err := c.Put(k, tc.e); err != nil {
				t.Fatal(err)
			}
			got, ok, err := c.Get(k)
			if err != nil || !ok {
				t.Fatalf("Get = %v, %v", ok, err)
			}
			if !sameOutcome(got.Outcome, tc.e.Outcome) || got.Recorded != tc.e.Recorded {
				t.Fatalf("round trip:\n got %#v\nwant %#v", got, tc.e)
			}
		})
	}
	if st := c.Stats(); st != (Stats{Hits: int64(len(cases)), Puts: int64(len(cases))}) {
		t.Fatalf("Stats = %+v", st)
	}
}

// TestTrajectoryFormats: a trajectory with no format is stored as JSON;
// one with a trajectory is recorded whatever Recorded said; an empty one
// is none.
func TestTrajectoryFormats(t *testing.T) {
	c := open(t)
	o := dungeonOutcome(3)
	o.Trajectory = json.RawMessage(`{"kind":"dungeon-actions/v1","actions":"1121"}`)
	if err := c.Put(testKey(3), Entry{Outcome: o}); err != nil {
		t.Fatal(err)
	}
	got, ok, err := c.Get(testKey(3))
	if err != nil || !ok || got.TrajectoryFormat != envs.TrajectoryJSON || !got.Recorded || string(got.Trajectory) != string(o.Trajectory) {
		t.Fatalf("Get = %+v, %v, %v; want the trajectory, format json, recorded", got, ok, err)
	}
	o.Trajectory, o.TrajectoryFormat = json.RawMessage{}, envs.TrajectoryAsciicast
	if err := c.Put(testKey(3), Entry{Outcome: o, Recorded: true}); err != nil {
		t.Fatal(err)
	}
	got, ok, err = c.Get(testKey(3))
	if err != nil || !ok || got.Trajectory != nil || got.TrajectoryFormat != "" || !got.Recorded {
		t.Fatalf("Get = %+v, %v, %v; want no trajectory, recorded", got, ok, err)
	}
}

// TestEntryGolden pins the entry format (doc.go's "Entry format"): run go
// test -update after a deliberate change, which must bump Format (and
// keep reading the formats before it, or say why not).
func TestEntryGolden(t *testing.T) {
	for _, tc := range []struct {
		name, file string
		format     string // the trajectory's format
		traj       string
	}{
		{"asciicast", "entry2-asciicast.golden", envs.TrajectoryAsciicast, testCast},
		{"JSON", "entry2-json.golden", envs.TrajectoryJSON, `{"steps": ["n", "e"]}`},
		{"none", "entry2-none.golden", "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := dungeonOutcome(42)
			o.Metrics[2] = envs.MetricValue{Null: true}
			o.Metrics[3] = envs.MetricValue{Num: 0.1}
			o.Trajectory, o.TrajectoryFormat = json.RawMessage(tc.traj), tc.format
			k := testKey(42)
			k.Agent = "scripted"
			got, err := encodeEntry(k, Entry{Outcome: o, Recorded: tc.traj != ""}, nil)
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join("testdata", tc.file)
			if *update {
				if err := os.WriteFile(path, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("entry differs from %s (go test -update if intended):\n got %s\nwant %s", path, got, want)
			}
			// A line of JSON, then the trajectory's bytes as given.
			line, traj, _ := bytes.Cut(got, []byte("\n"))
			if !json.Valid(line) || string(traj) != tc.traj {
				t.Fatalf("entry is not a line of JSON and the trajectory: %q", got)
			}
		})
	}
}

// TestFormat1Entries: entries that evolve wrote before format 2 (the
// golden files were written by that code) are still read: the outcome,
// its JSON trajectory as the JSON value held, recorded when it has
// one. Put then writes format 2.
func TestFormat1Entries(t *testing.T) {
	k := testKey(42)
	k.Agent = "scripted"
	want := dungeonOutcome(42)
	want.Metrics[2] = envs.MetricValue{Null: true}
	want.Metrics[3] = envs.MetricValue{Num: 0.1}
	for _, tc := range []struct {
		file     string
		traj     string
		recorded bool
	}{
		{"entry1-json.golden", `{"steps": ["n", "e"]}`, true},
		{"entry1-none.golden", "", false},
	} {
		t.Run(tc.file, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("testdata", tc.file))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.HasPrefix(data, []byte(`{"format":1,`)) {
				t.Fatalf("%s is not a format-1 entry", tc.file)
			}
			c := open(t)
			os.MkdirAll(filepath.Dir(c.Path(k)), 0o755)
			os.WriteFile(c.Path(k), data, 0o644)
			got, ok, err := c.Get(k)
			if err != nil || !ok {
				t.Fatalf("Get = %v, %v; want a hit", ok, err)
			}
			w := want
			if tc.traj != "" {
				w.Trajectory, w.TrajectoryFormat = json.RawMessage(tc.traj), envs.TrajectoryJSON
			}
			if !sameOutcome(got.Outcome, w) || got.Recorded != tc.recorded {
				t.Fatalf("Get = %#v\nwant %#v, recorded %v", got, w, tc.recorded)
			}
			if st := c.Stats(); st != (Stats{Hits: 1, OldFormat: 1}) {
				t.Fatalf("Stats = %+v", st)
			}
			if err := c.Put(k, got); err != nil {
				t.Fatal(err)
			}
			if data, _ := os.ReadFile(c.Path(k)); !bytes.HasPrefix(data, format2Prefix) {
				t.Fatalf("Put wrote %.20q, want format 2", data)
			}
		})
	}
}

func TestMiss(t *testing.T) {
	c := open(t)
	if err := c.Put(testKey(1), Entry{Outcome: dungeonOutcome(1)}); err != nil {
		t.Fatal(err)
	}
	for _, k := range []Key{
		testKey(2),
		{Env: testKey(1).Env, Seed: 1, Prompt: testKey(1).Prompt, Semantics: 2}, // another semantics version
		{Env: testKey(1).Env, Seed: 1, Prompt: testKey(1).Prompt, Agent: "llm", Semantics: 1},
		{Env: "dungeon@other", Seed: 1, Prompt: testKey(1).Prompt, Semantics: 1},
	} {
		o, ok, err := c.Get(k)
		if err != nil || ok || !reflect.DeepEqual(o, Entry{}) {
			t.Errorf("Get(%+v) = %v, %v, %v; want a miss", k, o, ok, err)
		}
	}
	if st := c.Stats(); st != (Stats{Misses: 4, Puts: 1}) {
		t.Fatalf("Stats = %+v", st)
	}
}

func TestPutRefuses(t *testing.T) {
	c := open(t)
	errEp := envs.Outcome{Seed: 1, EndReason: envs.EndError, Cause: envs.CauseError, Error: "the process crashed"}
	bad := func(f func(o *envs.Outcome)) envs.Outcome {
		o := dungeonOutcome(1)
		f(&o)
		return o
	}
	cases := []struct {
		name string
		k    Key
		o    envs.Outcome
		is   error  // the sentinel, or nil
		msg  string // a substring of the message
	}{
		{"error episode", testKey(1), errEp, ErrErrorEpisode, "error episode"},
		{"empty env", Key{Prompt: "p", Seed: 1}, dungeonOutcome(1), ErrInvalidKey, "empty Env"},
		{"empty prompt", Key{Env: "e", Seed: 1}, dungeonOutcome(1), ErrInvalidKey, "empty Env or Prompt"},
		{"seed mismatch", testKey(2), dungeonOutcome(1), nil, "seed 1 under a key of seed 2"},
		{"NaN score", testKey(1), bad(func(o *envs.Outcome) { o.Score = math.NaN() }), nil, "score NaN is not finite"},
		{"Inf metric", testKey(1), bad(func(o *envs.Outcome) { o.Metrics[4].Num = math.Inf(-1) }), nil, "metric 4 is -Inf"},
		{"number and string", testKey(1), bad(func(o *envs.Outcome) { o.Metrics[5].Num = 1 }), nil, "metric 5 has both"},
		{"bad JSON trajectory", testKey(1), bad(func(o *envs.Outcome) { o.Trajectory = json.RawMessage(`{"a":`) }), trajectory.ErrFormat,
			"caching the outcome of seed 1: trajectory is not of its declared format: json: not one valid JSON value"},
		{"asciicast as JSON", testKey(1), bad(func(o *envs.Outcome) { o.Trajectory = json.RawMessage(testCast) }), trajectory.ErrFormat, "json: not one valid JSON value"},
		{"JSON as asciicast", testKey(1), bad(func(o *envs.Outcome) {
			o.Trajectory, o.TrajectoryFormat = json.RawMessage(`{"steps":[]}`), envs.TrajectoryAsciicast
		}), trajectory.ErrFormat, "asciicast-v2: line 1: the header's version is missing, want 2"},
		{"asciicast with a bad event", testKey(1), bad(func(o *envs.Outcome) {
			o.Trajectory, o.TrajectoryFormat = json.RawMessage(testCast+`[0.2, "o"]`+"\n"), envs.TrajectoryAsciicast
		}), trajectory.ErrFormat, `asciicast-v2: line 4: [0.2, "o"] is not an event [time, code, data]`},
		{"transcript without turns", testKey(1), bad(func(o *envs.Outcome) {
			o.Trajectory = json.RawMessage(`{"kind":"llm-transcript/v1","system":"s"}`)
		}), trajectory.ErrFormat, `LLM transcript (llm-transcript/v1): no "turns"`},
		{"unknown format", testKey(1), bad(func(o *envs.Outcome) { o.Trajectory, o.TrajectoryFormat = json.RawMessage(`1`), "mp4" }),
			trajectory.ErrFormat, `unknown format "mp4"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := c.Put(tc.k, Entry{Outcome: tc.o, Recorded: true})
			if err == nil {
				t.Fatal("Put: want an error")
			}
			if tc.is != nil && !errors.Is(err, tc.is) {
				t.Errorf("err = %v, want %v", err, tc.is)
			}
			if !strings.Contains(err.Error(), tc.msg) {
				t.Errorf("err = %q, want it to say %q", err, tc.msg)
			}
		})
	}
	if n := countFiles(t, c.Dir()); n != 0 {
		t.Fatalf("%d files after refused Puts, want 0", n)
	}
	if _, _, err := c.Get(Key{Env: "e"}); !errors.Is(err, ErrInvalidKey) {
		t.Fatalf("Get with an empty Prompt: err = %v, want ErrInvalidKey", err)
	}
	if st := c.Stats(); st != (Stats{}) {
		t.Fatalf("Stats = %+v, want zero", st)
	}
}

// countFiles counts the regular files under dir.
func countFiles(t *testing.T, dir string) int {
	t.Helper()
	n := 0
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			n++
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// rawEntry builds a format-1 entry's bytes with a valid checksum around
// any outcome value.
func rawEntry(k Key, outcome string) []byte {
	sum := sha256.Sum256([]byte(outcome))
	return fmt.Appendf(nil, `{"format":1,"key":{"env":%q,"seed":"%d","prompt":%q,"agent":%q,"semantics":%d},"outcome_sha256":"%x","outcome":%s}`+"\n",
		k.Env, k.Seed, k.Prompt, k.Agent, k.Semantics, sum, outcome)
}

// rawEntry2 builds a format-2 entry's bytes with a valid checksum around
// any outcome value, followed by traj.
func rawEntry2(k Key, outcome, traj string) []byte {
	sum := sha256.Sum256([]byte(outcome))
	return fmt.Appendf(nil, `{"format":2,"key":{"env":%q,"seed":"%d","prompt":%q,"agent":%q,"semantics":%d},"outcome_sha256":"%x","outcome":%s}`+"\n%s",
		k.Env, k.Seed, k.Prompt, k.Agent, k.Semantics, sum, outcome, traj)
}

// trajField returns the "trajectory" field of a format-2 outcome for
// traj, with its true length and checksum.
func trajField(format, traj string) string {
	return fmt.Sprintf(`"trajectory":{"format":%q,"bytes":%d,"sha256":"%x"}`, format, len(traj), sha256.Sum256([]byte(traj)))
}

// TestCorrupt: every way an entry can be damaged or forged without the
// key is a miss, logged, removed, and replaced by the next Put.
func TestCorrupt(t *testing.T) {
	k := testKey(5)
	good, err := encodeEntry(k, Entry{Outcome: dungeonOutcome(5)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	other, _ := encodeEntry(testKey(6), Entry{Outcome: dungeonOutcome(6)}, nil)
	// A flipped digit of the score (305 becomes 205), under the old
	// checksum.
	i := bytes.Index(good, []byte(`"score":`)) + len(`"score":`)
	flipped := bytes.Clone(good)
	flipped[i] ^= 1
	cast := dungeonOutcome(5)
	cast.Trajectory, cast.TrajectoryFormat = json.RawMessage(testCast), envs.TrajectoryAsciicast
	castGood, err := encodeEntry(k, Entry{Outcome: cast, Recorded: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	withTr := cast
	withTr.Transcript = json.RawMessage(testTranscript)
	trGood, err := encodeEntry(k, Entry{Outcome: withTr, Recorded: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	trFlipped := bytes.Clone(trGood)
	trFlipped[len(trFlipped)-3] ^= 1 // in the transcript
	castFlipped := bytes.Clone(castGood)
	castFlipped[len(castFlipped)-3] ^= 1 // in the last event's data
	// An outcome with a trajectory field, its checksum true, around traj.
	withTraj := func(format, traj string, recorded bool) []byte {
		return rawEntry2(k, fmt.Sprintf(`{"seed":"5","score":1,"end_reason":"x","cause":"y","recorded":%v,%s}`, recorded, trajField(format, traj)), traj)
	}
	badCast := strings.Replace(testCast, `"version": 2`, `"version": 3`, 1)
	cases := []struct {
		name string
		data []byte
		why  string // a substring of decodeEntry's error
	}{
		{"empty", nil, `EOF`},
		{"truncated", good[:len(good)/2], `no end to the entry's line`},
		{"truncated at the last brace", good[:len(good)-2], `no end to the entry's line`},
		{"truncated line", append(bytes.Clone(good[:len(good)/2]), '\n'), `in string literal`},
		{"bad JSON", []byte("{\"format\":2,,}\n"), `invalid character`},
		{"not an object", []byte("[1,2]\n"), `cannot unmarshal array`},
		{"trailing data without a trajectory", append(bytes.Clone(good), "{}\n"...), `3 bytes after an entry without a trajectory`},
		{"trailing data in a format-1 entry", append(rawEntry(k, `{"seed":"5","score":1,"end_reason":"x","cause":"y"}`), "{}\n"...), `data after the entry`},
		{"unknown field", bytes.Replace(good, []byte(`{"format":2,`), []byte(`{"format":2,"extra":0,`), 1), `unknown field "extra"`},
		{"format 3", bytes.Replace(good, []byte(`{"format":2,`), []byte(`{"format":3,`), 1), `format 3, want 1 or 2`},
		{"format 2 relabelled 1", bytes.Replace(good, []byte(`{"format":2,`), []byte(`{"format":1,`), 1), `unknown field "recorded"`},
		{"format 2 not in canonical form", bytes.Replace(good, []byte(`{"format":2,`), []byte(`{ "format":2,`), 1), `not starting with {"format":2,`},
		{"stored key of another seed", other, `stored key`},
		{"stored key of another semantics", bytes.Replace(good, []byte(`"semantics":1`), []byte(`"semantics":2`), 1), `Semantics:2}`},
		{"checksum mismatch", flipped, `outcome checksum mismatch`},
		{"no outcome", bytes.Replace(good, good[bytes.Index(good, []byte(`,"outcome":`)):], []byte("}\n"), 1), `no outcome`},
		{"outcome of another seed", rawEntry(k, `{"seed":"6","score":1,"end_reason":"x","cause":"y"}`), `seed 6 under a key of seed 5`},
		{"outcome of another seed, format 2", rawEntry2(k, `{"seed":"6","score":1,"end_reason":"x","cause":"y","recorded":false}`, ""), `seed 6 under a key of seed 5`},
		{"error episode", rawEntry(k, `{"seed":"5","score":0,"end_reason":"error","cause":"error","error":"boom"}`), `an error episode`},
		{"metric a bool", rawEntry(k, `{"seed":"5","score":1,"end_reason":"x","cause":"y","metrics":[1,true]}`), `metric 1 is a bool`},
		{"metric an object", rawEntry(k, `{"seed":"5","score":1,"end_reason":"x","cause":"y","metrics":[{}]}`), `metric 0 is a map`},
		{"unknown outcome field", rawEntry(k, `{"seed":"5","score":1,"end_reason":"x","cause":"y","turns":3}`), `unknown field "turns"`},
		{"score out of range", rawEntry(k, `{"seed":"5","score":1e400,"end_reason":"x","cause":"y"}`), `1e400`},
		{"format-1 trajectory not JSON", rawEntry(k, `{"seed":"5","score":1,"end_reason":"x","cause":"y","trajectory":{"kind":"llm-transcript/v1"}}`),
			`LLM transcript (llm-transcript/v1): no "system"`},
		{"trajectory truncated", castGood[:len(castGood)-5], fmt.Sprintf(`trajectory of %d bytes, want %d`, len(testCast)-5, len(testCast))},
		{"trajectory without its end", castGood[:len(castGood)-len(testCast)], fmt.Sprintf(`trajectory of 0 bytes, want %d`, len(testCast))},
		{"trajectory longer", append(bytes.Clone(castGood), '\n'), fmt.Sprintf(`trajectory of %d bytes, want %d`, len(testCast)+1, len(testCast))},
		{"trajectory damaged", castFlipped, `trajectory checksum mismatch`},
		{"transcript truncated", trGood[:len(trGood)-4], fmt.Sprintf(`trajectory and transcript of %d bytes, want %d`, len(testCast)+len(testTranscript)-4, len(testCast)+len(testTranscript))},
		{"transcript damaged", trFlipped, `transcript checksum mismatch`},
		{"trajectory not of its format", withTraj(envs.TrajectoryAsciicast, badCast, true), `asciicast-v2: line 1: the header's version is 3, want 2`},
		{"JSON trajectory not JSON", withTraj(envs.TrajectoryJSON, testCast, true), `json: not one valid JSON value`},
		{"trajectory of an unknown format", withTraj("mp4", "xyz", true), `trajectory format "mp4"`},
		{"trajectory of no format", withTraj("", "[]", true), `trajectory format ""`},
		{"trajectory not recorded", withTraj(envs.TrajectoryJSON, "[]", false), `a trajectory in an entry not recorded`},
		{"trajectory of 0 bytes", rawEntry2(k, `{"seed":"5","score":1,"end_reason":"x","cause":"y","recorded":true,"trajectory":{"format":"json","bytes":0,"sha256":""}}`, ""),
			`a trajectory of 0 bytes declared`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := decodeEntry(tc.data, k, nil)
			if !errors.Is(err, errCorrupt) || !strings.Contains(err.Error(), tc.why) {
				t.Fatalf("decodeEntry: err = %v, want a corrupt entry: %s", err, tc.why)
			}
			c := open(t)
			var log bytes.Buffer
			c.SetLogger(slog.New(slog.NewTextHandler(&log, nil)))
			p := c.Path(k)
			os.MkdirAll(filepath.Dir(p), 0o755)
			if err := os.WriteFile(p, tc.data, 0o644); err != nil {
				t.Fatal(err)
			}
			o, ok, err := c.Get(k)
			if err != nil || ok {
				t.Fatalf("Get = %v, %v, %v; want a miss", o, ok, err)
			}
			if _, err := os.Stat(p); !os.IsNotExist(err) {
				t.Fatalf("corrupt entry not removed: %v", err)
			}
			if st := c.Stats(); st != (Stats{Misses: 1, Corrupt: 1}) {
				t.Fatalf("Stats = %+v", st)
			}
			for _, want := range []string{"level=WARN", `msg="episode cache entry refused; the episode is played again and its entry replaced"`, "path=" + p, "seed=5", "reason="} {
				if !strings.Contains(log.String(), want) {
					t.Errorf("the log does not say %q:\n%s", want, log.String())
				}
			}
			// Replayed and put again, it hits.
			if err := c.Put(k, Entry{Outcome: cast, Recorded: true}); err != nil {
				t.Fatal(err)
			}
			if e, ok, err := c.Get(k); !ok || err != nil || string(e.Trajectory) != testCast {
				t.Fatalf("Get after Put = %v, %v", ok, err)
			}
		})
	}
	// The good entries, for contrast, decode.
	for _, data := range [][]byte{good, castGood, trGood, withTraj(envs.TrajectoryJSON, "[]", true), withTraj(envs.TrajectoryAsciicast, testCast, true)} {
		if _, _, err := decodeEntry(data, k, nil); err != nil {
			t.Errorf("%v\n%s", err, data)
		}
	}
}

// TestGetIOError: an I/O error other than not-exist is an error, and the
// entry is left alone.
func TestGetIOError(t *testing.T) {
	c := open(t)
	k := testKey(1)
	p := c.Path(k)
	if err := os.MkdirAll(p, 0o755); err != nil { // a directory where the entry goes
		t.Fatal(err)
	}
	_, ok, err := c.Get(k)
	if err == nil || ok || !strings.Contains(err.Error(), p) {
		t.Fatalf("Get = %v, %v; want an error naming %s", ok, err, p)
	}
	if fi, err := os.Stat(p); err != nil || !fi.IsDir() {
		t.Fatalf("the directory was touched: %v", err)
	}
	if st := c.Stats(); st != (Stats{}) {
		t.Fatalf("Stats = %+v, want zero", st)
	}
	if err := c.Put(k, Entry{Outcome: dungeonOutcome(1)}); err == nil || !strings.Contains(err.Error(), p) {
		t.Fatalf("Put over a directory: err = %v, want one naming %s", err, p)
	}
	if n := countFiles(t, c.Dir()); n != 0 {
		t.Fatalf("%d files left by a failed Put, want 0", n)
	}
}

func TestOpen(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	os.WriteFile(file, nil, 0o644)
	for _, d := range []string{file, filepath.Join(file, "sub")} {
		if _, err := Open(d); err == nil || !strings.Contains(err.Error(), "episode cache "+d) {
			t.Errorf("Open(%q): err = %v, want one naming it", d, err)
		}
	}
	c, err := Open(filepath.Join(dir, "a", "b"))
	if err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(c.Dir()); err != nil || !fi.IsDir() {
		t.Fatalf("Open did not create %s: %v", c.Dir(), err)
	}
}

func TestDefaultDir(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", "/x/cache")
	t.Setenv("HOME", "/x/home")
	d, err := DefaultDir()
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join("/x/cache", "evolve", "episodes"); d != want {
		t.Fatalf("DefaultDir = %s, want %s", d, want)
	}
	t.Setenv("XDG_CACHE_HOME", "")
	t.Setenv("HOME", "")
	if _, err := DefaultDir(); err == nil || !strings.Contains(err.Error(), "default episode cache directory") {
		t.Fatalf("DefaultDir without HOME: err = %v", err)
	}
}

// verifyAll checks every file under c's directory: each is an entry at the
// path of the key it stores, and decodes with its checksum; no temporary
// file is left. It returns the number of entries.
func verifyAll(t *testing.T, c *Cache) int {
	t.Helper()
	n := 0
	err := filepath.WalkDir(c.Dir(), func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if atomicfile.IsTemp(d.Name()) {
			t.Errorf("temporary file left: %s", p)
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		var e entryJSON
		if err := json.Unmarshal(data, &e); err != nil {
			t.Errorf("%s: %v", p, err)
			return nil
		}
		k := Key{Env: e.Key.Env, Seed: e.Key.Seed, Prompt: e.Key.Prompt, Agent: e.Key.Agent, Semantics: e.Key.Semantics}
		if c.Path(k) != p {
			t.Errorf("%s holds the key of %s", p, c.Path(k))
		}
		o, _, err := decodeEntry(data, k, nil)
		if err != nil {
			t.Errorf("%s: %v", p, err)
		} else if !sameOutcome(o.Outcome, dungeonOutcome(k.Seed)) {
			t.Errorf("%s: outcome %+v", p, o)
		}
		n++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// hammer puts keys 0..n-1 starting at offset, wrapping, and gets each one
// after putting it; the first failure is returned.
func hammer(c *Cache, n, offset int) error {
	for i := range n {
		s := uint64((i + offset) % n)
		if err := c.Put(testKey(s), Entry{Outcome: dungeonOutcome(s)}); err != nil {
			return err
		}
		o, ok, err := c.Get(testKey(s))
		if err != nil || !ok || !sameOutcome(o.Outcome, dungeonOutcome(s)) {
			return fmt.Errorf("Get(%d) after Put = %v, %v, %v", s, o, ok, err)
		}
	}
	return nil
}

const concurrentKeys = 200

func TestConcurrentGoroutines(t *testing.T) {
	c := open(t)
	var wg sync.WaitGroup
	errs := make([]error, 8)
	for g := range errs {
		wg.Go(func() { errs[g] = hammer(c, concurrentKeys, g*concurrentKeys/len(errs)) })
	}
	wg.Wait()
	for g, err := range errs {
		if err != nil {
			t.Errorf("goroutine %d: %v", g, err)
		}
	}
	if n := verifyAll(t, c); n != concurrentKeys {
		t.Fatalf("%d entries, want %d", n, concurrentKeys)
	}
	if st := c.Stats(); st.Corrupt != 0 || st.Puts != 8*concurrentKeys || st.Hits != 8*concurrentKeys {
		t.Fatalf("Stats = %+v", st)
	}
}

// Environment variables of the subprocesses the tests run (this test
// binary, re-executed).
const (
	writerEnv = "EVOLVE_CACHE_TEST_WRITER" // "DIR OFFSET": run hammer on DIR, exit
	putsEnv   = "EVOLVE_CACHE_TEST_PUTS"   // "DIR N": put seeds 1..N into DIR, exit
)

// TestMain runs the subprocess roles.
func TestMain(m *testing.M) {
	if v := os.Getenv(writerEnv); v != "" {
		dir, off, _ := strings.Cut(v, " ")
		offset, _ := strconv.Atoi(off)
		c, err := Open(dir)
		if err == nil {
			err = hammer(c, concurrentKeys, offset)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	if v := os.Getenv(putsEnv); v != "" {
		dir, num, _ := strings.Cut(v, " ")
		n, _ := strconv.Atoi(num)
		c, err := Open(dir)
		for s := 1; err == nil && s <= n; s++ {
			err = c.Put(testKey(uint64(s)), Entry{Outcome: dungeonOutcome(uint64(s))})
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// subprocess returns this test binary as a command with env added.
func subprocess(t *testing.T, env ...string) *exec.Cmd {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), env...)
	return cmd
}

// TestConcurrentProcesses: two processes and two goroutines of this one
// put and get overlapping keys in one directory at once.
func TestConcurrentProcesses(t *testing.T) {
	c := open(t)
	var cmds []*exec.Cmd
	var outs []*bytes.Buffer
	for p := range 2 {
		cmd := subprocess(t, fmt.Sprintf("%s=%s %d", writerEnv, c.Dir(), p*concurrentKeys/4))
		out := new(bytes.Buffer)
		cmd.Stdout, cmd.Stderr = out, out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds, outs = append(cmds, cmd), append(outs, out)
	}
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for g := range errs {
		wg.Go(func() { errs[g] = hammer(c, concurrentKeys, (2+g)*concurrentKeys/4) })
	}
	wg.Wait()
	for p, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Errorf("process %d: %v\n%s", p, err, outs[p])
		}
	}
	for g, err := range errs {
		if err != nil {
			t.Errorf("goroutine %d: %v", g, err)
		}
	}
	if n := verifyAll(t, c); n != concurrentKeys {
		t.Fatalf("%d entries, want %d", n, concurrentKeys)
	}
}

// TestKilledPut kills a writer (SIGKILL, by the fault hook of
// internal/atomicfile) just before the rename of its third Put: the two
// entries before it are whole, the third is invisible, and its temporary
// file is the only debris, which Clean removes once it is old enough.
func TestKilledPut(t *testing.T) {
	c := open(t)
	cmd := subprocess(t, fmt.Sprintf("%s=%s 5", putsEnv, c.Dir()), atomicfile.FaultAtEnv+"=3")
	out, err := cmd.CombinedOutput()
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		t.Fatalf("writer: %v, want killed by SIGKILL\n%s", err, out)
	}
	for s := uint64(1); s <= 5; s++ {
		_, ok, err := c.Get(testKey(s))
		if err != nil || ok != (s <= 2) {
			t.Errorf("Get(%d) = %v, %v; want a hit only for seeds 1 and 2", s, ok, err)
		}
	}
	var temps []string
	filepath.WalkDir(c.Dir(), func(p string, d os.DirEntry, err error) error {
		if err == nil && atomicfile.IsTemp(d.Name()) {
			temps = append(temps, p)
		}
		return err
	})
	if len(temps) != 1 || !strings.HasPrefix(filepath.Base(temps[0]), "."+testKey(3).Hash()+".json.tmp-") {
		t.Fatalf("temporary files %v, want one of seed 3's entry", temps)
	}
	// The leftover holds the complete entry (the kill came after the
	// write), yet nobody reads it.
	if st := c.Stats(); st.Corrupt != 0 {
		t.Fatalf("Stats = %+v", st)
	}

	// Young: kept (it might be a live writer's).
	if n, err := c.Clean(time.Hour); n != 0 || err != nil {
		t.Fatalf("Clean(1h) of a new temporary file = %d, %v; want 0, nil", n, err)
	}
	old := time.Now().Add(-2 * time.Hour)
	if err := os.Chtimes(temps[0], old, old); err != nil {
		t.Fatal(err)
	}
	// A truncated leftover of another writer, and a non-temporary file
	// that Clean must not touch.
	partial := filepath.Join(filepath.Dir(c.Path(testKey(1))), "."+testKey(1).Hash()+".json.tmp-x1")
	os.WriteFile(partial, []byte(`{"format":1,"ke`), 0o644)
	os.Chtimes(partial, old, old)
	if n, err := c.Clean(time.Hour); n != 2 || err != nil {
		t.Fatalf("Clean(1h) = %d, %v; want 2, nil", n, err)
	}
	if n := verifyAll(t, c); n != 2 {
		t.Fatalf("%d entries after Clean, want 2", n)
	}
	if _, err := c.Clean(-time.Second); err == nil {
		t.Fatal("Clean(-1s): want an error")
	}
	// Replayed, seed 3 is stored.
	if err := c.Put(testKey(3), Entry{Outcome: dungeonOutcome(3)}); err != nil {
		t.Fatal(err)
	}
	if n := verifyAll(t, c); n != 3 {
		t.Fatalf("%d entries, want 3", n)
	}
}

func ExampleCache() {
	dir, _ := os.MkdirTemp("", "episodes")
	defer os.RemoveAll(dir)
	c, err := Open(dir)
	if err != nil {
		fmt.Println(err)
		return
	}
	k := Key{Env: "dungeon@5b1e0c9d", Seed: 42, Prompt: "3f6c1f0e", Semantics: 1}
	if _, ok, _ := c.Get(k); !ok {
		// A miss: play the episode, then store its outcome.
		o := envs.Outcome{Seed: 42, Score: 536, EndReason: "killed", Cause: "injury",
			Metrics: []envs.MetricValue{{Num: 3}, {Str: "jackal"}, {Null: true}}}
		if err := c.Put(k, Entry{Outcome: o}); err != nil {
			fmt.Println(err)
			return
		}
	}
	e, ok, err := c.Get(k)
	fmt.Println(ok, err, e.Score, e.Cause, e.Metrics, e.Recorded)
	fmt.Printf("%+v\n", c.Stats())
	// Output:
	// true <nil> 536 injury [{3  false} {0 jackal false} {0  true}] false
	// {Hits:1 OldFormat:0 Misses:1 Corrupt:0 Puts:1}
}
