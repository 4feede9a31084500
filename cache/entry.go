package cache

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"

	"evolve/envs"
	"evolve/internal/castore"
	"evolve/trajectory"
)

// keyJSON is the "key" field of an entry.
type keyJSON struct {
	Env       string `json:"env"`
	Seed      uint64 `json:"seed,string"`
	Prompt    string `json:"prompt"`
	Agent     string `json:"agent"`
	Semantics int    `json:"semantics"`
}

// entryHead is an entry without its outcome, in field order.
type entryHead struct {
	Format        int     `json:"format"`
	Key           keyJSON `json:"key"`
	OutcomeSHA256 string  `json:"outcome_sha256"`
	OutcomeHMAC   string  `json:"outcome_hmac_sha256,omitempty"`
}

// entryJSON is a whole entry as decoded.
type entryJSON struct {
	Format        int             `json:"format"`
	Key           keyJSON         `json:"key"`
	OutcomeSHA256 string          `json:"outcome_sha256"`
	OutcomeHMAC   string          `json:"outcome_hmac_sha256"`
	Outcome       json.RawMessage `json:"outcome"`
}

// outcomeMAC returns the hex HMAC-SHA256 under key of k's canonical
// encoding followed by the outcome value's bytes ob (see
// Cache.SetHMACKey). Covering the key stops a keyed entry from being
// moved to, or relabelled as, another key.
func outcomeMAC(key []byte, k Key, ob []byte) string {
	m := hmac.New(sha256.New, key)
	m.Write(k.encode())
	m.Write(ob)
	return hex.EncodeToString(m.Sum(nil))
}

// outcomeJSON is the "outcome" field of a format-2 entry.
type outcomeJSON struct {
	Seed       uint64   `json:"seed,string"`
	Score      float64  `json:"score"`
	EndReason  string   `json:"end_reason"`
	Cause      string   `json:"cause"`
	Metrics    []any    `json:"metrics,omitempty"`
	Error      string   `json:"error,omitempty"`
	Recorded   bool     `json:"recorded"`
	Trajectory *trajRef `json:"trajectory,omitempty"`
	// Transcript describes the LLM agent's transcript (envs.Outcome's
	// Transcript, JSON) that follows the trajectory's bytes; nil for none.
	Transcript *trajRef `json:"transcript,omitempty"`
}

// trajRef describes the trajectory that follows a format-2 entry's line.
type trajRef struct {
	Format string `json:"format"` // envs.TrajectoryJSON or envs.TrajectoryAsciicast
	Bytes  int64  `json:"bytes"`  // its length, >= 1
	SHA256 string `json:"sha256"` // hex SHA-256 of its bytes
}

// outcomeIn is what the "outcome" fields of both formats share, as
// decoded.
type outcomeIn struct {
	Seed      uint64  `json:"seed,string"`
	Score     float64 `json:"score"`
	EndReason string  `json:"end_reason"`
	Cause     string  `json:"cause"`
	Metrics   []any   `json:"metrics"`
	Error     string  `json:"error"`
}

// outcomeIn1 is a format-1 entry's outcome.
type outcomeIn1 struct {
	outcomeIn
	Trajectory json.RawMessage `json:"trajectory"`
}

// outcomeIn2 is a format-2 entry's outcome.
type outcomeIn2 struct {
	outcomeIn
	Recorded   bool     `json:"recorded"`
	Trajectory *trajRef `json:"trajectory"`
	Transcript *trajRef `json:"transcript"`
}

// encodeMetrics returns o's metrics as the entry writes them (see the
// package doc), nil for none.
func encodeMetrics(o envs.Outcome) ([]any, error) {
	if len(o.Metrics) == 0 {
		return nil, nil
	}
	out := make([]any, len(o.Metrics))
	for i, m := range o.Metrics {
		switch {
		case m.Null:
			out[i] = nil
		case m.Str != "" && m.Num != 0:
			return nil, fmt.Errorf("caching the outcome of seed %d: metric %d has both a number (%v) and a string (%q)", o.Seed, i, m.Num, m.Str)
		case m.Str != "":
			out[i] = m.Str
		case math.IsNaN(m.Num) || math.IsInf(m.Num, 0):
			return nil, fmt.Errorf("caching the outcome of seed %d: metric %d is %v, not finite", o.Seed, i, m.Num)
		default:
			out[i] = m.Num
		}
	}
	return out, nil
}

// encodeOutcome returns the outcome value's bytes of e (see the package
// doc) and the trajectory's bytes that follow the entry's line (nil for
// none).
func encodeOutcome(e Entry) (ob, traj []byte, err error) {
	o := e.Outcome
	if math.IsNaN(o.Score) || math.IsInf(o.Score, 0) {
		return nil, nil, fmt.Errorf("caching the outcome of seed %d: score %v is not finite", o.Seed, o.Score)
	}
	oj := outcomeJSON{Seed: o.Seed, Score: o.Score, EndReason: o.EndReason, Cause: o.Cause, Error: o.Error, Recorded: e.Recorded}
	if oj.Metrics, err = encodeMetrics(o); err != nil {
		return nil, nil, err
	}
	if traj = o.Trajectory; len(traj) > 0 {
		format := o.TrajectoryFormat
		if format == "" {
			format = envs.TrajectoryJSON
		}
		if err := trajectory.Check(format, traj); err != nil {
			return nil, nil, fmt.Errorf("caching the outcome of seed %d: %w", o.Seed, err)
		}
		sum := sha256.Sum256(traj)
		oj.Trajectory = &trajRef{Format: format, Bytes: int64(len(traj)), SHA256: hex.EncodeToString(sum[:])}
		oj.Recorded = true
		if tr := o.Transcript; len(tr) > 0 {
			// The agent's transcript beside the environment's recording
			// follows the trajectory's bytes.
			if err := trajectory.Check(envs.TrajectoryJSON, tr); err != nil {
				return nil, nil, fmt.Errorf("caching the transcript of seed %d: %w", o.Seed, err)
			}
			sum := sha256.Sum256(tr)
			oj.Transcript = &trajRef{Format: envs.TrajectoryJSON, Bytes: int64(len(tr)), SHA256: hex.EncodeToString(sum[:])}
			traj = append(traj[:len(traj):len(traj)], tr...)
		}
	} else {
		traj = nil
	}
	if ob, err = json.Marshal(oj); err != nil {
		return nil, nil, fmt.Errorf("caching the outcome of seed %d: %w", o.Seed, err)
	}
	return ob, traj, nil
}

// encodeEntry returns the bytes of k's entry holding e, with an
// outcome_hmac_sha256 under hmacKey if it is not nil.
func encodeEntry(k Key, e Entry, hmacKey []byte) ([]byte, error) {
	if e.Seed != k.Seed {
		return nil, fmt.Errorf("caching the outcome of seed %d under a key of seed %d", e.Seed, k.Seed)
	}
	ob, traj, err := encodeOutcome(e)
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(ob)
	eh := entryHead{
		Format:        Format,
		Key:           keyJSON{Env: k.Env, Seed: k.Seed, Prompt: k.Prompt, Agent: k.Agent, Semantics: k.Semantics},
		OutcomeSHA256: hex.EncodeToString(sum[:]),
	}
	if hmacKey != nil {
		eh.OutcomeHMAC = outcomeMAC(hmacKey, k, ob)
	}
	head, err := json.Marshal(eh)
	if err != nil {
		return nil, fmt.Errorf("caching the outcome of seed %d: %w", e.Seed, err)
	}
	out := make([]byte, 0, len(head)+len(ob)+16+len(traj))
	out = append(out, head[:len(head)-1]...)
	out = append(out, `,"outcome":`...)
	out = append(out, ob...)
	out = append(out, "}\n"...)
	return append(out, traj...), nil
}

// errCorrupt wraps every reason decodeEntry rejects an entry.
var errCorrupt = errors.New("corrupt episode cache entry")

func corrupt(format string, args ...any) error {
	return fmt.Errorf("%w: %s", errCorrupt, fmt.Sprintf(format, args...))
}

// format2Prefix starts every format-2 entry: encoding/json writes the
// entry's fields in order and without white space.
var format2Prefix = []byte(`{"format":2,`)

// decodeEntry decodes an entry's bytes and checks them against want (see
// the package doc's Reading), and its outcome_hmac_sha256 under hmacKey
// if that is not nil. It returns the entry's format (Format, or 1 for an
// entry written before the trajectory's format was kept). Every error
// wraps errCorrupt.
func decodeEntry(data []byte, want Key, hmacKey []byte) (Entry, int, error) {
	line, traj := data, []byte(nil)
	if bytes.HasPrefix(data, format2Prefix) {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			return Entry{}, 0, corrupt("no end to the entry's line")
		}
		line, traj = data[:i+1], data[i+1:]
	}
	var e entryJSON
	if err := castore.DecodeStrict(line, &e); err != nil {
		return Entry{}, 0, corrupt("%v", err)
	}
	if e.Format != 1 && e.Format != Format {
		return Entry{}, 0, corrupt("format %d, want 1 or %d", e.Format, Format)
	}
	if e.Format == Format && !bytes.HasPrefix(data, format2Prefix) {
		return Entry{}, 0, corrupt("a format-%d entry not starting with %s", Format, format2Prefix)
	}
	got := Key{Env: e.Key.Env, Seed: e.Key.Seed, Prompt: e.Key.Prompt, Agent: e.Key.Agent, Semantics: e.Key.Semantics}
	if got != want {
		return Entry{}, 0, corrupt("stored key %+v, want %+v", got, want)
	}
	if len(e.Outcome) == 0 {
		return Entry{}, 0, corrupt("no outcome")
	}
	sum := sha256.Sum256(e.Outcome)
	if hex.EncodeToString(sum[:]) != e.OutcomeSHA256 {
		return Entry{}, 0, corrupt("outcome checksum mismatch")
	}
	if hmacKey != nil {
		if e.OutcomeHMAC == "" {
			return Entry{}, 0, corrupt("no outcome_hmac_sha256 in a keyed cache")
		}
		if !hmac.Equal([]byte(outcomeMAC(hmacKey, want, e.Outcome)), []byte(e.OutcomeHMAC)) {
			return Entry{}, 0, corrupt("outcome HMAC mismatch (another key, or a forged entry)")
		}
	}
	if e.Format == 1 {
		o, err := decodeOutcome1(e.Outcome, want.Seed)
		return o, 1, err
	}
	o, err := decodeOutcome(e.Outcome, traj, want.Seed)
	return o, Format, err
}

// decodeCommon decodes what both formats' outcomes share, which must be of
// seed. Every error wraps errCorrupt.
func decodeCommon(oi outcomeIn, seed uint64) (envs.Outcome, error) {
	if oi.Seed != seed {
		return envs.Outcome{}, corrupt("outcome of seed %d under a key of seed %d", oi.Seed, seed)
	}
	if oi.Cause == envs.CauseError {
		return envs.Outcome{}, corrupt("an error episode")
	}
	o := envs.Outcome{Seed: oi.Seed, Score: oi.Score, EndReason: oi.EndReason, Cause: oi.Cause, Error: oi.Error}
	if len(oi.Metrics) > 0 {
		o.Metrics = make([]envs.MetricValue, len(oi.Metrics))
		for i, m := range oi.Metrics {
			switch m := m.(type) {
			case nil:
				o.Metrics[i].Null = true
			case float64:
				o.Metrics[i].Num = m
			case string:
				o.Metrics[i].Str = m
			default:
				return envs.Outcome{}, corrupt("metric %d is a %T, want null, a number or a string", i, m)
			}
		}
	}
	return o, nil
}

// decodeOutcome decodes a format-2 entry's outcome value, which must be of
// seed, with traj the bytes after the entry's line. Every error wraps
// errCorrupt.
func decodeOutcome(data, traj []byte, seed uint64) (Entry, error) {
	var oi outcomeIn2
	if err := castore.DecodeStrict(data, &oi); err != nil {
		return Entry{}, corrupt("outcome: %v", err)
	}
	o, err := decodeCommon(oi.outcomeIn, seed)
	if err != nil {
		return Entry{}, err
	}
	r := oi.Trajectory
	if r == nil {
		if len(traj) > 0 {
			return Entry{}, corrupt("%d bytes after an entry without a trajectory", len(traj))
		}
		return Entry{Outcome: o, Recorded: oi.Recorded}, nil
	}
	switch {
	case !oi.Recorded:
		return Entry{}, corrupt("a trajectory in an entry not recorded")
	case r.Format != envs.TrajectoryJSON && r.Format != envs.TrajectoryAsciicast:
		return Entry{}, corrupt("trajectory format %q, want %s or %s", r.Format, envs.TrajectoryJSON, envs.TrajectoryAsciicast)
	case r.Bytes < 1:
		return Entry{}, corrupt("a trajectory of %d bytes declared, want at least 1", r.Bytes)
	}
	var tr []byte
	if t := oi.Transcript; t != nil {
		switch {
		case t.Format != envs.TrajectoryJSON || t.Bytes < 1:
			return Entry{}, corrupt("a transcript of format %q and %d bytes declared, want %s and at least 1", t.Format, t.Bytes, envs.TrajectoryJSON)
		case int64(len(traj)) != r.Bytes+t.Bytes:
			return Entry{}, corrupt("trajectory and transcript of %d bytes, want %d (a truncated entry?)", len(traj), r.Bytes+t.Bytes)
		}
		traj, tr = traj[:r.Bytes], traj[r.Bytes:]
		if sum := sha256.Sum256(tr); hex.EncodeToString(sum[:]) != t.SHA256 {
			return Entry{}, corrupt("transcript checksum mismatch")
		}
		if err := trajectory.Check(envs.TrajectoryJSON, tr); err != nil {
			return Entry{}, corrupt("transcript: %v", err)
		}
	}
	if int64(len(traj)) != r.Bytes {
		return Entry{}, corrupt("trajectory of %d bytes, want %d (a truncated entry?)", len(traj), r.Bytes)
	}
	if sum := sha256.Sum256(traj); hex.EncodeToString(sum[:]) != r.SHA256 {
		return Entry{}, corrupt("trajectory checksum mismatch")
	}
	if err := trajectory.Check(r.Format, traj); err != nil {
		return Entry{}, corrupt("%v", err)
	}
	o.Trajectory, o.TrajectoryFormat, o.Transcript = traj, r.Format, tr
	return Entry{Outcome: o, Recorded: true}, nil
}

// decodeOutcome1 decodes a format-1 entry's outcome value, which must be
// of seed: its trajectory, if any, is JSON, spliced in the line, and
// Recorded is whether there is one. Every error wraps errCorrupt.
func decodeOutcome1(data []byte, seed uint64) (Entry, error) {
	var oi outcomeIn1
	if err := castore.DecodeStrict(data, &oi); err != nil {
		return Entry{}, corrupt("outcome: %v", err)
	}
	o, err := decodeCommon(oi.outcomeIn, seed)
	if err != nil {
		return Entry{}, err
	}
	if len(oi.Trajectory) == 0 || string(oi.Trajectory) == "null" {
		return Entry{Outcome: o}, nil
	}
	if err := trajectory.Check(envs.TrajectoryJSON, oi.Trajectory); err != nil {
		return Entry{}, corrupt("%v", err)
	}
	o.Trajectory, o.TrajectoryFormat = oi.Trajectory, envs.TrajectoryJSON
	return Entry{Outcome: o, Recorded: true}, nil
}
