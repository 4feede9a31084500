package trajectory

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"evolve/envs"
)

// castHeader is the header line NetHack's recorder writes.
const castHeader = `{"version": 2, "width": 80, "height": 24, "env": {"TERM": "xterm"}, "title": "evolve nethack"}`

func TestCheck(t *testing.T) {
	const (
		cast = castHeader + "\n" +
			`[0.0, "o", "\u001b[H\u001b[2JHello \"ü\""]` + "\n" +
			`[0.1, "o", "\u001b[24;1H\r\n@"]` + "\n"
		transcript = `{"kind":"llm-transcript/v1","system":"You play.","turns":[` +
			`{"turn":1,"tries":[{"messages":[{"Role":"user","Content":"s"}],"reply":"dance","rejected":"no action"},` +
			`{"messages":null,"reply":"explore"}],"action":"explore"},` +
			`{"turn":3,"tries":null,"action":"wait","fallback":true}]}`
	)
	for _, tc := range []struct {
		name, format, data string
		err                string // a substring of the error; "" for none
	}{
		// JSON.
		{"JSON object", envs.TrajectoryJSON, `{"kind":"dungeon-actions/v1","actions":"1121"}`, ""},
		{"JSON with white space", "", " [1, 2]\n", ""},
		{"JSON string", envs.TrajectoryJSON, `"a"`, ""},
		{"JSON null", envs.TrajectoryJSON, `null`, ""},
		{"no trajectory", envs.TrajectoryAsciicast, ``, ""},
		{"not JSON", envs.TrajectoryJSON, `{"a":`, "json: not one valid JSON value"},
		{"two JSON values", envs.TrajectoryJSON, `{} {}`, "json: not one valid JSON value"},
		{"asciicast as JSON", envs.TrajectoryJSON, cast, "json: not one valid JSON value"},
		{"another kind", envs.TrajectoryJSON, `{"kind":"llm-transcript/v2"}`, ""},
		{"a kind that is no string", envs.TrajectoryJSON, `{"kind":3}`, ""},
		// The LLM transcript.
		{"transcript", envs.TrajectoryJSON, transcript, ""},
		{"transcript without turns", envs.TrajectoryJSON, `{"kind":"llm-transcript/v1","system":""}`, `no "turns"`},
		{"transcript with null turns", envs.TrajectoryJSON, `{"kind":"llm-transcript/v1","system":"","turns":null}`, ""},
		{"transcript without system", envs.TrajectoryJSON, `{"kind":"llm-transcript/v1","turns":[]}`, `no "system" string`},
		{"transcript with a number for system", envs.TrajectoryJSON, `{"kind":"llm-transcript/v1","system":1,"turns":[]}`, `cannot unmarshal number`},
		{"transcript turns not an array", envs.TrajectoryJSON, `{"kind":"llm-transcript/v1","system":"","turns":{}}`, `"turns" is not an array of objects`},
		{"turn 0", envs.TrajectoryJSON, `{"kind":"llm-transcript/v1","system":"","turns":[{"turn":0,"tries":[],"action":"x"}]}`, `turns[0]: turn 0 after turn 0, want increasing from 1`},
		{"turns out of order", envs.TrajectoryJSON, strings.Replace(transcript, `"turn":3`, `"turn":1`, 1), `turns[1]: turn 1 after turn 1`},
		{"turn without an action", envs.TrajectoryJSON, strings.Replace(transcript, `,"action":"wait"`, ``, 1), `turns[1]: no "action" string`},
		{"turn without tries", envs.TrajectoryJSON, strings.Replace(transcript, `"tries":null,`, ``, 1), `turns[1]: no "tries"`},
		{"try without a reply", envs.TrajectoryJSON, strings.Replace(transcript, `,"reply":"explore"`, ``, 1), `turns[0].tries[1]: no "reply" string`},
		{"try without messages", envs.TrajectoryJSON, strings.Replace(transcript, `"messages":null,`, ``, 1), `turns[0].tries[1]: no "messages"`},
		{"messages not an array", envs.TrajectoryJSON, strings.Replace(transcript, `"messages":null`, `"messages":"x"`, 1), `turns[0].tries[1]: "messages" is not an array`},
		// Asciicast v2.
		{"asciicast", envs.TrajectoryAsciicast, cast, ""},
		{"asciicast without the last newline", envs.TrajectoryAsciicast, strings.TrimSuffix(cast, "\n"), ""},
		{"asciicast header alone", envs.TrajectoryAsciicast, castHeader + "\n", ""},
		{"asciicast compact", envs.TrajectoryAsciicast, `{"version":2,"width":1,"height":1}` + "\n" + `[0,"i","a"]` + "\n" + `[1e2,"o",""]`, ""},
		{"asciicast as JSON's", envs.TrajectoryAsciicast, `{"steps":[]}`, "line 1: the header's version is missing, want 2"},
		{"asciicast version 1", envs.TrajectoryAsciicast, strings.Replace(cast, `"version": 2`, `"version": 1`, 1), "line 1: the header's version is 1, want 2"},
		{"asciicast version as a string", envs.TrajectoryAsciicast, strings.Replace(cast, `"version": 2`, `"version": "2"`, 1), `line 1: the header's version is "2", want 2`},
		{"asciicast without a width", envs.TrajectoryAsciicast, strings.Replace(cast, `"width": 80, `, ``, 1), "line 1: the header's width is missing"},
		{"asciicast height 0", envs.TrajectoryAsciicast, strings.Replace(cast, `"height": 24`, `"height": 0`, 1), "line 1: the header's height is 0"},
		{"asciicast header not JSON", envs.TrajectoryAsciicast, "version 2\n", "line 1: the header is not a JSON object"},
		{"asciicast empty line", envs.TrajectoryAsciicast, cast + "\n", "line 4: empty"},
		{"asciicast empty line inside", envs.TrajectoryAsciicast, strings.Replace(cast, "\n", "\n\n", 1), "line 2: empty"},
		{"asciicast event not JSON", envs.TrajectoryAsciicast, cast + `[0.2, "o", "x]` + "\n", "line 4: not valid JSON"},
		{"asciicast event of 2", envs.TrajectoryAsciicast, cast + `[0.2, "o"]` + "\n", `line 4: [0.2, "o"] is not an event`},
		{"asciicast event of 4", envs.TrajectoryAsciicast, cast + `[0.2, "o", "x", 1]` + "\n", "line 4"},
		{"asciicast event an object", envs.TrajectoryAsciicast, cast + `{"t":0.2}` + "\n", "line 4"},
		{"asciicast time a string", envs.TrajectoryAsciicast, cast + `["0.2", "o", "x"]` + "\n", "line 4"},
		{"asciicast data a number", envs.TrajectoryAsciicast, cast + `[0.2, "o", 3]` + "\n", "line 4"},
		{"asciicast negative time", envs.TrajectoryAsciicast, castHeader + "\n" + `[-1, "o", "x"]`, "line 2: time -1, want a number >= 0"},
		{"asciicast time backwards", envs.TrajectoryAsciicast, cast + `[0.05, "o", "x"]` + "\n", "line 4: time 0.05 before the previous event's 0.1"},
		{"asciicast empty code", envs.TrajectoryAsciicast, cast + `[0.2, "", "x"]` + "\n", "line 4: an empty event code"},
		{"asciicast not UTF-8", envs.TrajectoryAsciicast, cast + "[0.2, \"o\", \"\xff\"]\n", "not valid UTF-8"},
		{"asciicast with CRLF", envs.TrajectoryAsciicast, strings.ReplaceAll(cast, "\n", "\r\n"), ""},
		// Formats.
		{"unknown format", "mp4", "x", `unknown format "mp4" (want json or asciicast-v2)`},
		{"unknown format, no data", "mp4", "", `unknown format "mp4"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := Check(tc.format, []byte(tc.data))
			switch {
			case tc.err == "" && err != nil:
				t.Fatalf("Check: %v, want nil", err)
			case tc.err != "" && (err == nil || !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), tc.err)):
				t.Fatalf("Check: %v, want an ErrFormat saying %q", err, tc.err)
			}
		})
	}
}

// referenceEvent is scanEvent by encoding/json, for FuzzCheck to compare
// with: the event's time and code, and whether the line is one.
func referenceEvent(l []byte) (float64, string, bool) {
	var ev []json.RawMessage
	if json.Unmarshal(l, &ev) != nil || len(ev) != 3 {
		return 0, "", false
	}
	var t float64
	var code, data string
	if json.Unmarshal(ev[0], &t) != nil || json.Unmarshal(ev[1], &code) != nil || json.Unmarshal(ev[2], &data) != nil {
		return 0, "", false
	}
	return t, code, true
}

// FuzzCheck: Check never panics, every error wraps ErrFormat, and an
// event line is accepted by the hand-written scanner exactly when
// encoding/json reads it as [number, string, string], with the same time
// and an empty code exactly when encoding/json's is.
func FuzzCheck(f *testing.F) {
	f.Add(envs.TrajectoryAsciicast, []byte(castHeader+"\n"+`[0.1, "o", "\u001b[H"]`+"\n"))
	f.Add(envs.TrajectoryAsciicast, []byte(`{"version":2,"width":1,"height":1}`+"\n"+`[ 1e-3 ,"i" , "\\\""] `))
	f.Add(envs.TrajectoryJSON, []byte(`{"kind":"llm-transcript/v1","system":"","turns":[{"turn":1,"tries":[],"action":"x"}]}`))
	f.Add(envs.TrajectoryJSON, []byte(`[1,2,{"a":null}]`))
	f.Add("", []byte(`"x"`))
	f.Fuzz(func(t *testing.T, format string, data []byte) {
		if err := Check(format, data); err != nil && !errors.Is(err, ErrFormat) {
			t.Fatalf("error %v does not wrap ErrFormat", err)
		}
		if !json.Valid(data) {
			return
		}
		gt, gcode, gok := scanEvent(data)
		rt, rcode, rok := referenceEvent(data)
		if gok != rok || gok && (gt != rt || (len(gcode) == 0) != (rcode == "")) {
			t.Fatalf("scanEvent(%q) = %v, %q, %v; encoding/json: %v, %q, %v", data, gt, gcode, gok, rt, rcode, rok)
		}
	})
}
