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

// outcomeJSON is the "outcome" field without its trajectory, which is
// spliced in raw (encoding/json would compact it).
type outcomeJSON struct {
	Seed      uint64  `json:"seed,string"`
	Score     float64 `json:"score"`
	EndReason string  `json:"end_reason"`
	Cause     string  `json:"cause"`
	Metrics   []any   `json:"metrics,omitempty"`
	Error     string  `json:"error,omitempty"`
}

// outcomeIn is the "outcome" field as decoded.
type outcomeIn struct {
	Seed       uint64          `json:"seed,string"`
	Score      float64         `json:"score"`
	EndReason  string          `json:"end_reason"`
	Cause      string          `json:"cause"`
	Metrics    []any           `json:"metrics"`
	Trajectory json.RawMessage `json:"trajectory"`
	Error      string          `json:"error"`
}

// encodeOutcome returns the outcome value's bytes (see the package doc).
func encodeOutcome(o envs.Outcome) ([]byte, error) {
	if math.IsNaN(o.Score) || math.IsInf(o.Score, 0) {
		return nil, fmt.Errorf("caching the outcome of seed %d: score %v is not finite", o.Seed, o.Score)
	}
	oj := outcomeJSON{Seed: o.Seed, Score: o.Score, EndReason: o.EndReason, Cause: o.Cause, Error: o.Error}
	if len(o.Metrics) > 0 {
		oj.Metrics = make([]any, len(o.Metrics))
		for i, m := range o.Metrics {
			switch {
			case m.Null:
				oj.Metrics[i] = nil
			case m.Str != "" && m.Num != 0:
				return nil, fmt.Errorf("caching the outcome of seed %d: metric %d has both a number (%v) and a string (%q)", o.Seed, i, m.Num, m.Str)
			case m.Str != "":
				oj.Metrics[i] = m.Str
			case math.IsNaN(m.Num) || math.IsInf(m.Num, 0):
				return nil, fmt.Errorf("caching the outcome of seed %d: metric %d is %v, not finite", o.Seed, i, m.Num)
			default:
				oj.Metrics[i] = m.Num
			}
		}
	}
	b, err := json.Marshal(oj)
	if err != nil {
		return nil, fmt.Errorf("caching the outcome of seed %d: %w", o.Seed, err)
	}
	traj := bytes.TrimSpace(o.Trajectory)
	if len(traj) == 0 || string(traj) == "null" {
		return b, nil
	}
	if !json.Valid(traj) {
		return nil, fmt.Errorf("caching the outcome of seed %d: trajectory is not valid JSON", o.Seed)
	}
	// b ends in "}": the trajectory is the last field.
	out := make([]byte, 0, len(b)+len(traj)+16)
	out = append(out, b[:len(b)-1]...)
	out = append(out, `,"trajectory":`...)
	out = append(out, traj...)
	return append(out, '}'), nil
}

// encodeEntry returns the bytes of k's entry holding o, with an
// outcome_hmac_sha256 under hmacKey if it is not nil.
func encodeEntry(k Key, o envs.Outcome, hmacKey []byte) ([]byte, error) {
	if o.Seed != k.Seed {
		return nil, fmt.Errorf("caching the outcome of seed %d under a key of seed %d", o.Seed, k.Seed)
	}
	ob, err := encodeOutcome(o)
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
		return nil, fmt.Errorf("caching the outcome of seed %d: %w", o.Seed, err)
	}
	out := make([]byte, 0, len(head)+len(ob)+16)
	out = append(out, head[:len(head)-1]...)
	out = append(out, `,"outcome":`...)
	out = append(out, ob...)
	return append(out, "}\n"...), nil
}

// errCorrupt wraps every reason decodeEntry rejects an entry.
var errCorrupt = errors.New("corrupt episode cache entry")

func corrupt(format string, args ...any) error {
	return fmt.Errorf("%w: %s", errCorrupt, fmt.Sprintf(format, args...))
}

// decodeEntry decodes an entry's bytes and checks them against want (see
// the package doc's Reading), and its outcome_hmac_sha256 under hmacKey
// if that is not nil. Every error wraps errCorrupt.
func decodeEntry(data []byte, want Key, hmacKey []byte) (envs.Outcome, error) {
	var e entryJSON
	if err := castore.DecodeStrict(data, &e); err != nil {
		return envs.Outcome{}, corrupt("%v", err)
	}
	if e.Format != Format {
		return envs.Outcome{}, corrupt("format %d, want %d", e.Format, Format)
	}
	got := Key{Env: e.Key.Env, Seed: e.Key.Seed, Prompt: e.Key.Prompt, Agent: e.Key.Agent, Semantics: e.Key.Semantics}
	if got != want {
		return envs.Outcome{}, corrupt("stored key %+v, want %+v", got, want)
	}
	if len(e.Outcome) == 0 {
		return envs.Outcome{}, corrupt("no outcome")
	}
	sum := sha256.Sum256(e.Outcome)
	if hex.EncodeToString(sum[:]) != e.OutcomeSHA256 {
		return envs.Outcome{}, corrupt("outcome checksum mismatch")
	}
	if hmacKey != nil {
		if e.OutcomeHMAC == "" {
			return envs.Outcome{}, corrupt("no outcome_hmac_sha256 in a keyed cache")
		}
		if !hmac.Equal([]byte(outcomeMAC(hmacKey, want, e.Outcome)), []byte(e.OutcomeHMAC)) {
			return envs.Outcome{}, corrupt("outcome HMAC mismatch (another key, or a forged entry)")
		}
	}
	return decodeOutcome(e.Outcome, want.Seed)
}

// decodeOutcome decodes an entry's outcome value, which must be of seed.
// Every error wraps errCorrupt.
func decodeOutcome(data []byte, seed uint64) (envs.Outcome, error) {
	var oi outcomeIn
	if err := castore.DecodeStrict(data, &oi); err != nil {
		return envs.Outcome{}, corrupt("outcome: %v", err)
	}
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
	if len(oi.Trajectory) > 0 && string(oi.Trajectory) != "null" {
		o.Trajectory = oi.Trajectory
	}
	return o, nil
}
