package trajectory

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"evolve/envs"
)

// LLMTranscriptKind is the "kind" of an LLM agent's transcript (the JSON
// trajectory of package agent's Transcript), which Check checks by its own
// rule.
const LLMTranscriptKind = "llm-transcript/v1"

// ErrFormat is wrapped by Check's error for a trajectory that is not what
// its format says, or of a format Check does not know.
var ErrFormat = errors.New("trajectory is not of its declared format")

// Check reports whether data is a trajectory of the given format (an
// envs.Outcome's TrajectoryFormat), by the format's own rule:
//
//   - envs.TrajectoryJSON (or ""): one JSON value (RFC 8259, as
//     encoding/json's Valid accepts it: white space around it allowed).
//     A JSON object whose "kind" is LLMTranscriptKind is an LLM agent's
//     transcript and must also have "system", a string, and "turns", an
//     array of objects, each with "turn" an integer from 1, increasing
//     from turn to turn, "tries" an array of objects each with
//     "messages" an array and "reply" a string, and "action" a string.
//     Other fields are allowed, so that a transcript may grow a field
//     without a new kind.
//   - envs.TrajectoryAsciicast: an asciicast v2 recording
//     (https://docs.asciinema.org/manual/asciicast/v2/): valid UTF-8;
//     lines ended by "\n" (the last one's may be missing); the first line
//     a JSON object, the header, with "version" 2 and "width" and
//     "height" integers from 1; every other line, none of them empty, an
//     event: a JSON array of three elements, the time in seconds (a
//     number >= 0, never less than the event before's), the event code (a
//     non-empty string, e.g. "o") and the data (a string).
//
// An empty data is no trajectory and passes for every known format. The
// error wraps ErrFormat and names the format and, for asciicast, the line
// (from 1) at fault; an unknown format is an error naming it.
func Check(format string, data []byte) error {
	if len(data) == 0 {
		if format != "" && format != envs.TrajectoryJSON && format != envs.TrajectoryAsciicast {
			return fmt.Errorf("%w: unknown format %q (want %s or %s)", ErrFormat, format, envs.TrajectoryJSON, envs.TrajectoryAsciicast)
		}
		return nil
	}
	switch format {
	case "", envs.TrajectoryJSON:
		return checkJSON(data)
	case envs.TrajectoryAsciicast:
		return checkAsciicast(data)
	}
	return fmt.Errorf("%w: unknown format %q (want %s or %s)", ErrFormat, format, envs.TrajectoryJSON, envs.TrajectoryAsciicast)
}

func formatErr(format, msg string, args ...any) error {
	return fmt.Errorf("%w: %s: %s", ErrFormat, format, fmt.Sprintf(msg, args...))
}

// checkJSON is Check's rule for envs.TrajectoryJSON.
func checkJSON(data []byte) error {
	if !json.Valid(data) {
		return formatErr(envs.TrajectoryJSON, "not one valid JSON value")
	}
	if b := bytes.TrimLeft(data, " \t\r\n"); len(b) == 0 || b[0] != '{' {
		return nil
	}
	var head struct {
		Kind string `json:"kind"`
	}
	if err := json.Unmarshal(data, &head); err != nil || head.Kind != LLMTranscriptKind {
		return nil // a "kind" that is not a string is no transcript's
	}
	return checkTranscript(data)
}

// checkTranscript is Check's rule for an LLM transcript (see Check).
// Its arrays may be null (package agent writes an empty one so), but
// every field the rule names must be there.
func checkTranscript(data []byte) error {
	const what = "LLM transcript (" + LLMTranscriptKind + ")"
	var tr struct {
		System *string         `json:"system"`
		Turns  json.RawMessage `json:"turns"` // nil if missing, "null" if null
	}
	if err := json.Unmarshal(data, &tr); err != nil {
		return formatErr(what, "%v", err)
	}
	type try struct {
		Messages json.RawMessage `json:"messages"`
		Reply    *string         `json:"reply"`
	}
	type turn struct {
		Turn   *int            `json:"turn"`
		Tries  json.RawMessage `json:"tries"`
		Action *string         `json:"action"`
	}
	var turns []turn
	switch {
	case tr.System == nil:
		return formatErr(what, `no "system" string`)
	case tr.Turns == nil:
		return formatErr(what, `no "turns"`)
	case json.Unmarshal(tr.Turns, &turns) != nil:
		return formatErr(what, `"turns" is not an array of objects`)
	}
	prev := 0
	for i, t := range turns {
		var tries []try
		switch {
		case t.Turn == nil:
			return formatErr(what, `turns[%d]: no "turn" integer`, i)
		case *t.Turn <= prev:
			return formatErr(what, `turns[%d]: turn %d after turn %d, want increasing from 1`, i, *t.Turn, prev)
		case t.Action == nil:
			return formatErr(what, `turns[%d]: no "action" string`, i)
		case t.Tries == nil:
			return formatErr(what, `turns[%d]: no "tries"`, i)
		case json.Unmarshal(t.Tries, &tries) != nil:
			return formatErr(what, `turns[%d]: "tries" is not an array of objects`, i)
		}
		prev = *t.Turn
		for j, y := range tries {
			var msgs []json.RawMessage
			switch {
			case y.Reply == nil:
				return formatErr(what, `turns[%d].tries[%d]: no "reply" string`, i, j)
			case y.Messages == nil:
				return formatErr(what, `turns[%d].tries[%d]: no "messages"`, i, j)
			case json.Unmarshal(y.Messages, &msgs) != nil:
				return formatErr(what, `turns[%d].tries[%d]: "messages" is not an array`, i, j)
			}
		}
	}
	return nil
}

// checkAsciicast is Check's rule for envs.TrajectoryAsciicast.
func checkAsciicast(data []byte) error {
	f := envs.TrajectoryAsciicast
	if !utf8.Valid(data) {
		return formatErr(f, "not valid UTF-8")
	}
	body := data
	if body[len(body)-1] == '\n' {
		body = body[:len(body)-1]
	}
	lines := bytes.Split(body, []byte{'\n'})
	var h struct {
		Version json.RawMessage `json:"version"`
		Width   *int            `json:"width"`
		Height  *int            `json:"height"`
	}
	if err := json.Unmarshal(lines[0], &h); err != nil {
		return formatErr(f, "line 1: the header is not a JSON object with integer version, width and height: %v", err)
	}
	switch {
	case string(h.Version) != "2":
		return formatErr(f, "line 1: the header's version is %s, want 2", orMissing(string(h.Version)))
	case h.Width == nil || *h.Width < 1:
		return formatErr(f, "line 1: the header's width is %s, want an integer from 1", intOrMissing(h.Width))
	case h.Height == nil || *h.Height < 1:
		return formatErr(f, "line 1: the header's height is %s, want an integer from 1", intOrMissing(h.Height))
	}
	last := 0.0
	for i, l := range lines[1:] {
		line := i + 2
		if len(bytes.TrimSpace(l)) == 0 {
			return formatErr(f, "line %d: empty, want an event [time, code, data]", line)
		}
		if !json.Valid(l) {
			return formatErr(f, "line %d: not valid JSON, want an event [time, code, data]", line)
		}
		t, code, ok := scanEvent(l)
		switch {
		case !ok:
			return formatErr(f, "line %d: %.60s is not an event [time, code, data] (a number and two strings)", line, l)
		case t < 0 || math.IsInf(t, 0):
			return formatErr(f, "line %d: time %v, want a number >= 0", line, t)
		case t < last:
			return formatErr(f, "line %d: time %v before the previous event's %v", line, t, last)
		case len(code) == 0:
			return formatErr(f, "line %d: an empty event code", line)
		}
		last = t
	}
	return nil
}

// scanEvent reads an asciicast event line, which must be valid JSON
// (json.Valid), as [time, code, data]: a number and two strings, nothing
// else. It returns the time, the code's bytes as written (quotes
// stripped, escapes kept) and whether the line has that shape. It reads
// the line once without allocating, where encoding/json's Unmarshal would
// cost several allocations per event (a NetHack recording has hundreds).
func scanEvent(l []byte) (t float64, code []byte, ok bool) {
	i := 0
	ws := func() {
		for i < len(l) && (l[i] == ' ' || l[i] == '\t' || l[i] == '\r' || l[i] == '\n') {
			i++
		}
	}
	lit := func(c byte) bool {
		ws()
		if i < len(l) && l[i] == c {
			i++
			return true
		}
		return false
	}
	// str reads a string (valid JSON: a backslash is always followed by
	// its escape, and no raw '"' is inside) and returns its content.
	str := func() ([]byte, bool) {
		if !lit('"') {
			return nil, false
		}
		start := i
		for i < len(l) && l[i] != '"' {
			if l[i] == '\\' {
				i++
			}
			i++
		}
		if i >= len(l) {
			return nil, false
		}
		i++
		return l[start : i-1], true
	}
	if !lit('[') {
		return 0, nil, false
	}
	ws()
	start := i
	for i < len(l) && strings.IndexByte("+-.eE0123456789", l[i]) >= 0 {
		i++
	}
	t, err := strconv.ParseFloat(string(l[start:i]), 64)
	if err != nil || !lit(',') {
		return 0, nil, false
	}
	if code, ok = str(); !ok || !lit(',') {
		return 0, nil, false
	}
	if _, ok = str(); !ok || !lit(']') {
		return 0, nil, false
	}
	ws()
	return t, code, i == len(l)
}

func orMissing(s string) string {
	if s == "" {
		return "missing"
	}
	if len(s) > 40 {
		return s[:40] + "..."
	}
	return s
}

func intOrMissing(n *int) string {
	if n == nil {
		return "missing"
	}
	return fmt.Sprint(*n)
}
