package view

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/hinshun/vt10x"

	"evolve/agent"
	"evolve/envs"
	"evolve/trajectory"
)

// FramePage is how many frames of a replay one answer carries: the
// episode page embeds the page holding its step, and the replay asks
// /api/v1/.../frames for the others as the slider reaches them. Each
// page starts with a full frame, so that any page draws on its own.
const FramePage = 250

// MaxRawJSON bounds the indented JSON of a trajectory the page shows
// (bytes); a longer one is cut, with a note.
const MaxRawJSON = 1 << 20

// Replay is a stored trajectory expanded for the replay page. Kind says
// which fields are set: "dungeon" and "asciicast" (Frames: a screen per
// step, Events, Log), "transcript" (Transcript), "events" (Table: a
// process environment's per-step objects, docs/protocol.md) or "json"
// (JSON: any other JSON, indented).
type Replay struct {
	Kind   string `json:"kind"`
	Format string `json:"format"`
	// Bytes is the stored size, uncompressed.
	Bytes int `json:"bytes"`
	// Steps is the number of frames; Width and Height the screen's size
	// in characters.
	Steps  int `json:"steps"`
	Width  int `json:"width,omitempty"`
	Height int `json:"height,omitempty"`
	// PageSize is FramePage; From the index of Frames[0] (a multiple of
	// PageSize): Frames is the page [From, From+PageSize) of the steps.
	PageSize int         `json:"page_size"`
	From     int         `json:"from"`
	Frames   []FrameJSON `json:"frames"`
	// StateKeys orders the keys of FrameJSON.State (the dungeon's
	// observation).
	StateKeys []string `json:"state_keys,omitempty"`
	// Events are the marks of the slider's track: "fight", "descent",
	// "hp_drop", "prayer" and "death", by step; the first of a kind per
	// pixel of the track (TrackWidth) when there are more.
	Events []EventJSON `json:"events"`
	// Log is the message log of the page's steps: the game's messages
	// (NetHack's top line) or, for the dungeon, what happened, by step.
	Log []EventJSON `json:"log"`
	// Diverged, if not "", says how a dungeon replay's outcome differs
	// from the recorded one (the dungeon changed since).
	Diverged string `json:"diverged,omitempty"`
	// End is a dungeon episode's end reason, as recorded.
	End        string          `json:"end,omitempty"`
	Transcript *TranscriptJSON `json:"transcript,omitempty"`
	Table      *EventTableJSON `json:"table,omitempty"`
	JSON       string          `json:"json,omitempty"`
	// Problem says what of the trajectory could not be read (a
	// recording cut short); the frames before it are shown.
	Problem string `json:"problem,omitempty"`
	// EventsComplete is false while a long recording is still being read
	// on the server: Events and Steps are then those found so far
	// (Steps counted ahead), and a later answer of the frames API has
	// them all.
	EventsComplete bool `json:"events_complete"`

	keys   [][]string          // full screens at each page start (not sent)
	states []map[string]string // full states at each page start
	full   []FrameJSON         // every frame, as deltas
	scores []int64             // the dungeon's score at each frame
}

// FrameJSON is one step of a replay. Rows hold the screen rows that
// changed since the previous step, all of them when Full.
type FrameJSON struct {
	// Label names the step: "turn 12" (the game turn: the dungeon's, or
	// NetHack's T: when its status line shows it) or "t = 1.2 s".
	Label string `json:"label"`
	// Action is the action taken (the dungeon's "explore"); Keys the
	// keys sent (an asciicast's input events), "" when not recorded.
	Action string `json:"action,omitempty"`
	Keys   string `json:"keys,omitempty"`
	// Reward is the step's change of the score (absent when 0); Score
	// the score after it (absent when unchanged from the previous
	// frame; a page's first frame has it).
	Reward *int64 `json:"reward,omitempty"`
	Score  *int64 `json:"score,omitempty"`
	Full   bool   `json:"full,omitempty"`
	// Rows are the changed rows.
	Rows []RowJSON `json:"rows"`
	// State is the observation's values that changed (all when Full).
	State map[string]string `json:"state,omitempty"`
}

// RowJSON is a change to one screen row: Text replaces the characters
// from column X (plain text), or HTML the whole row (a terminal's
// coloured row: spans with classes, escaped).
type RowJSON struct {
	Y    int    `json:"y"`
	X    int    `json:"x,omitempty"`
	Text string `json:"text,omitempty"`
	HTML string `json:"html,omitempty"`
}

// EventJSON is one mark of a replay: its step (index into the frames),
// kind and text.
type EventJSON struct {
	Step int    `json:"step"`
	Kind string `json:"kind"`
	Text string `json:"text"`
}

// TranscriptJSON is an LLM agent's transcript (agent.Transcript).
type TranscriptJSON struct {
	System string     `json:"system"`
	Turns  []TurnJSON `json:"turns"`
}

// TurnJSON is one turn of a transcript.
type TurnJSON struct {
	Turn     int       `json:"turn"`
	Action   string    `json:"action"`
	Fallback bool      `json:"fallback"`
	Tries    []TryJSON `json:"tries"`
}

// TryJSON is one model call of a turn.
type TryJSON struct {
	Messages []MessageJSON `json:"messages"`
	Reply    string        `json:"reply"`
	Rejected string        `json:"rejected,omitempty"`
}

// MessageJSON is one chat message.
type MessageJSON struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// EventTableJSON is a process environment's trajectory that follows
// docs/protocol.md's shape (a list of per-step objects): one row per
// object, one column per key (first appearance order), values as text.
type EventTableJSON struct {
	Columns []string   `json:"columns"`
	Rows    [][]string `json:"rows"`
}

// Decode expands a stored trajectory into a Replay: a dungeon record is
// replayed, an asciicast recording played through a terminal emulator
// (hinshun/vt10x, as envs/nethack plays NetHack) with its colours, an
// LLM transcript and a list of per-step objects read, any other JSON
// indented. Errors: not JSON, a dungeon record that does not replay, a
// recording without a version 2 header.
func Decode(e trajectory.Entry) (*Replay, error) {
	rp := &Replay{Format: e.Format, Bytes: len(e.Data), PageSize: FramePage, Events: []EventJSON{}, Log: []EventJSON{}, EventsComplete: true}
	if e.Format == envs.TrajectoryAsciicast {
		rp.Kind = "asciicast"
		if err := rp.cast(e.Data); err != nil {
			return nil, err
		}
		return rp, nil
	}
	var head struct {
		Kind string `json:"kind"`
	}
	_ = json.Unmarshal(e.Data, &head)
	switch head.Kind {
	case agent.DungeonRecordKind:
		d, err := agent.ExpandDungeon(e.Data)
		if err != nil {
			return nil, err
		}
		rp.Kind = "dungeon"
		rp.dungeon(d)
	case agent.TranscriptKind:
		var tr agent.Transcript
		if err := json.Unmarshal(e.Data, &tr); err != nil {
			return nil, fmt.Errorf("LLM transcript: %w", err)
		}
		rp.Kind, rp.Transcript = "transcript", &TranscriptJSON{System: tr.System, Turns: []TurnJSON{}}
		for _, t := range tr.Turns {
			tj := TurnJSON{Turn: t.Turn, Action: t.Action, Fallback: t.Fallback, Tries: []TryJSON{}}
			for _, x := range t.Tries {
				y := TryJSON{Reply: x.Reply, Rejected: x.Rejected, Messages: []MessageJSON{}}
				for _, m := range x.Messages {
					y.Messages = append(y.Messages, MessageJSON{Role: m.Role, Content: m.Content})
				}
				tj.Tries = append(tj.Tries, y)
			}
			rp.Transcript.Turns = append(rp.Transcript.Turns, tj)
		}
		rp.Steps = len(rp.Transcript.Turns)
	default:
		if !json.Valid(e.Data) {
			return nil, fmt.Errorf("the stored trajectory is not JSON")
		}
		if t := eventTable(e.Data); t != nil {
			rp.Kind, rp.Table, rp.Steps = "events", t, len(t.Rows)
			return rp, nil
		}
		var b bytes.Buffer
		if json.Indent(&b, e.Data, "", "  ") == nil {
			rp.JSON = b.String()
		} else {
			rp.JSON = string(e.Data)
		}
		if len(rp.JSON) > MaxRawJSON {
			rp.JSON = strings.ToValidUTF8(rp.JSON[:MaxRawJSON], "") + "\n…"
			rp.Problem = fmt.Sprintf("the JSON is cut at %d bytes of %d", MaxRawJSON, len(e.Data))
		}
		rp.Kind = "json"
	}
	return rp, nil
}

// eventTable reads a list of objects whose values are scalars (numbers,
// strings, booleans, null) as a table; nil for anything else.
func eventTable(data []byte) *EventTableJSON {
	var list []map[string]json.RawMessage
	if err := json.Unmarshal(data, &list); err != nil || len(list) == 0 {
		return nil
	}
	// Columns in order of first appearance: decode each object's keys in
	// document order.
	t := &EventTableJSON{Columns: []string{}, Rows: [][]string{}}
	col := map[string]int{}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.Token() // [
	for i := 0; dec.More(); i++ {
		dec.Token() // {
		row := make([]string, len(t.Columns))
		for dec.More() {
			k, _ := dec.Token()
			key, _ := k.(string)
			var v json.RawMessage
			if dec.Decode(&v) != nil {
				return nil
			}
			if len(v) > 0 && (v[0] == '{' || v[0] == '[') {
				return nil // not a flat event
			}
			c, ok := col[key]
			if !ok {
				c = len(t.Columns)
				col[key] = c
				t.Columns = append(t.Columns, key)
			}
			for len(row) <= c {
				row = append(row, "")
			}
			var s string
			if json.Unmarshal(v, &s) == nil {
				row[c] = s
			} else if string(v) != "null" {
				row[c] = string(v)
			}
		}
		dec.Token() // }
		t.Rows = append(t.Rows, row)
	}
	for i := range t.Rows {
		for len(t.Rows[i]) < len(t.Columns) {
			t.Rows[i] = append(t.Rows[i], "")
		}
	}
	return t
}

// Page returns a copy of rp holding the page of frames that contains
// step (clamped to the steps), its first frame full.
func (rp *Replay) Page(step int) *Replay {
	out := *rp
	out.Frames = []FrameJSON{}
	if len(rp.full) == 0 {
		return &out
	}
	step = min(max(step, 0), len(rp.full)-1)
	k := step / FramePage
	out.From = k * FramePage
	end := min(out.From+FramePage, len(rp.full))
	out.Frames = append(out.Frames, rp.full[out.From:end]...)
	out.Log = []EventJSON{}
	for _, e := range rp.Log {
		if e.Step >= out.From && e.Step < end {
			out.Log = append(out.Log, e)
		}
	}
	out.Events = trackMarks(rp.Events, rp.Steps)
	first := out.Frames[0]
	first.Full, first.Rows = true, nil
	for y, row := range rp.keys[k] {
		if rp.Kind == "asciicast" {
			first.Rows = append(first.Rows, RowJSON{Y: y, HTML: row})
		} else {
			first.Rows = append(first.Rows, RowJSON{Y: y, Text: row})
		}
	}
	if rp.states != nil {
		first.State = rp.states[k]
	}
	if rp.scores != nil {
		sc := rp.scores[out.From]
		first.Score = &sc
	}
	out.Frames[0] = first
	return &out
}

// TrackWidth is the width of the replay's event track in pixels: it
// shows at most one mark of a kind per pixel.
const TrackWidth = 600

// trackMarks keeps the first event of each kind per pixel of the track
// (a long game's thousands of fights would draw over each other).
func trackMarks(events []EventJSON, steps int) []EventJSON {
	out := []EventJSON{}
	seen := map[string]bool{}
	for _, e := range events {
		k := e.Kind + "@" + strconv.Itoa(e.Step*TrackWidth/max(1, steps))
		if !seen[k] {
			seen[k] = true
			out = append(out, e)
		}
	}
	return out
}

// diffRow returns the change from old to new (rows of equal rune
// length): the span of runes between the first and the last that
// differ; ok false when they are equal.
func diffRow(y int, old, new []rune) (RowJSON, bool) {
	i := 0
	for i < len(new) && i < len(old) && old[i] == new[i] {
		i++
	}
	if i == len(new) && len(old) == len(new) {
		return RowJSON{}, false
	}
	j := len(new) - 1
	for j > i && j < len(old) && old[j] == new[j] {
		j--
	}
	return RowJSON{Y: y, X: i, Text: string(new[i : j+1])}, true
}

// dungeon expands a dungeon replay into frames of map deltas: the map's
// rows padded to one width, each frame the spans that changed.
func (rp *Replay) dungeon(d *agent.DungeonReplay) {
	rp.Diverged, rp.End = d.Diverged, d.Record.End
	rp.StateKeys = []string{"hp", "max_hp", "hunger", "food", "potions", "depth", "level_turns", "eating", "adjacent", "threat_dist", "danger"}
	w, h := 0, 0
	split := make([][]string, len(d.Steps))
	for i, st := range d.Steps {
		split[i] = strings.Split(strings.TrimRight(st.Map, "\n"), "\n")
		h = max(h, len(split[i]))
		for _, r := range split[i] {
			w = max(w, len([]rune(r)))
		}
	}
	rp.Width, rp.Height, rp.Steps = w, h, len(d.Steps)
	var prev [][]rune
	var prevState map[string]string
	for i, st := range d.Steps {
		rows := make([][]rune, h)
		for y := range rows {
			r := []rune{}
			if y < len(split[i]) {
				r = []rune(split[i][y])
			}
			for len(r) < w {
				r = append(r, ' ')
			}
			rows[y] = r
		}
		o := st.State
		state := map[string]string{"hp": strconv.Itoa(o.HP), "max_hp": strconv.Itoa(o.MaxHP), "hunger": strconv.FormatFloat(o.Hunger, 'f', 2, 64),
			"food": strconv.Itoa(o.Food), "potions": strconv.Itoa(o.Potions), "depth": strconv.Itoa(o.Depth), "level_turns": strconv.Itoa(o.LevelTurns),
			"eating": strconv.FormatBool(o.Eating), "adjacent": strconv.Itoa(o.Adjacent), "threat_dist": strconv.Itoa(o.ThreatDist),
			"danger": strconv.FormatFloat(o.Danger, 'f', 2, 64)}
		reward, score := st.Reward, st.Score
		f := FrameJSON{Label: "turn " + strconv.Itoa(st.Turn), Action: st.Action, Rows: []RowJSON{}}
		if reward != 0 && st.Action != "" {
			f.Reward = &reward
		}
		if i == 0 || score != d.Steps[i-1].Score || st.Action == "" {
			f.Score = &score
		}
		rp.scores = append(rp.scores, score)
		if st.Action == "" {
			f.Label = "end, turn " + strconv.Itoa(st.Turn)
		}
		if i%FramePage == 0 {
			key := make([]string, h)
			for y, r := range rows {
				key[y] = string(r)
			}
			rp.keys = append(rp.keys, key)
			rp.states = append(rp.states, state)
		}
		if prev == nil {
			f.Full = true
			for y, r := range rows {
				f.Rows = append(f.Rows, RowJSON{Y: y, Text: string(r)})
			}
			f.State = state
		} else {
			for y, r := range rows {
				if c, ok := diffRow(y, prev[y], r); ok {
					f.Rows = append(f.Rows, c)
				}
			}
			for k, v := range state {
				if prevState[k] != v {
					if f.State == nil {
						f.State = map[string]string{}
					}
					f.State[k] = v
				}
			}
		}
		// What happened during the step shows on the next frame.
		if i > 0 {
			p := d.Steps[i-1]
			q := st.State
			act := p.Action
			switch {
			case q.Depth > p.State.Depth:
				rp.mark(i, "descent", fmt.Sprintf("descended to level %d", q.Depth), true)
			case act == "attack":
				rp.mark(i, "fight", fmt.Sprintf("attacked (HP %d → %d)", p.State.HP, q.HP), true)
			}
			if q.HP < p.State.HP && act != "attack" {
				rp.mark(i, "hp_drop", fmt.Sprintf("HP %d → %d", p.State.HP, q.HP), true)
			}
			switch act {
			case "eat":
				if q.Food < p.State.Food {
					rp.mark(i, "eat", "ate a food ration", false)
				}
			case "quaff":
				if q.Potions < p.State.Potions {
					rp.mark(i, "quaff", fmt.Sprintf("quaffed a potion of healing (HP %d → %d)", p.State.HP, q.HP), false)
				}
			case "flee":
				if p.State.Adjacent > 0 || p.State.ThreatDist > 0 {
					rp.mark(i, "flee", "fled", false)
				}
			}
		}
		if st.Action == "" {
			kind := "end"
			if q := st.State; q.HP <= 0 {
				kind = "death"
			}
			rp.mark(i, kind, "the episode ended: "+d.Record.End, kind == "death")
		}
		rp.full = append(rp.full, f)
		prev, prevState = rows, state
	}
}

// mark adds an entry to the log and, when track, to the slider's events.
func (rp *Replay) mark(step int, kind, text string, track bool) {
	e := EventJSON{Step: step, Kind: kind, Text: text}
	rp.Log = append(rp.Log, e)
	if track {
		rp.Events = append(rp.Events, e)
	}
}

// field reads the number after name in NetHack's status lines ("T:",
// "Dlvl:", "HP:"), name starting a word.
func field(s, name string) (int, bool) {
	for from := 0; ; {
		i := strings.Index(s[from:], name)
		if i < 0 {
			return 0, false
		}
		i += from
		from = i + len(name)
		if i > 0 && s[i-1] != ' ' && s[i-1] != '\n' {
			continue
		}
		j := from
		for j < len(s) && s[j] >= '0' && s[j] <= '9' {
			j++
		}
		if j == from {
			continue
		}
		v, err := strconv.Atoi(s[from:j])
		return v, err == nil
	}
}

// messageKind classifies one of NetHack's messages for the track:
// "prayer", "death", "fight" or "" (see the phrases below).
func messageKind(msg string) string {
	m := strings.ToLower(msg)
	switch {
	case strings.Contains(m, "you begin praying"):
		return "prayer"
	case strings.Contains(m, "you die") || strings.Contains(m, "do you want your possessions identified"):
		return "death"
	}
	for _, p := range []string{"you hit", "you miss", "you kill", "you destroy", "you bite", "hits!", "misses", "bites!", "you are hit"} {
		if strings.Contains(m, p) {
			return "fight"
		}
	}
	return ""
}

// castEvent reads one asciicast v2 event line, [time, "code", "data"],
// decoding only the data string with encoding/json.
func castEvent(line []byte) (t float64, code, data string, ok bool) {
	if len(line) < 2 || line[0] != '[' || line[len(line)-1] != ']' {
		return 0, "", "", false
	}
	body := line[1 : len(line)-1]
	c := bytes.IndexByte(body, ',')
	if c < 0 {
		return 0, "", "", false
	}
	t, err := strconv.ParseFloat(string(bytes.TrimSpace(body[:c])), 64)
	if err != nil {
		return 0, "", "", false
	}
	rest := bytes.TrimSpace(body[c+1:])
	if len(rest) < 4 || rest[0] != '"' {
		return 0, "", "", false
	}
	e := bytes.IndexByte(rest[1:], '"')
	if e < 0 {
		return 0, "", "", false
	}
	code = string(rest[1 : 1+e])
	rest = bytes.TrimSpace(rest[e+2:])
	if len(rest) == 0 || rest[0] != ',' {
		return 0, "", "", false
	}
	if json.Unmarshal(bytes.TrimSpace(rest[1:]), &data) != nil {
		return 0, "", "", false
	}
	return t, code, data, true
}

// caster plays an asciicast v2 recording through vt10x, a frame at a
// time (next), so that a replay's first page is drawn before the rest of
// a long recording is read.
type caster struct {
	sc            *bufio.Scanner
	n             int // the line last read
	term          vt10x.Terminal
	w, h, status  int
	glyphs, last  [][]vt10x.Glyph
	html, text    []string
	classes       map[[3]uint32]string
	keys, lastMsg string
	turn          string
	dlvl, hp      int
}

// newCaster reads the recording's header. Errors: no header, not a
// version 2 header, a terminal larger than 1000×1000.
func newCaster(data []byte) (*caster, error) {
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 1<<16), 1<<26)
	if !sc.Scan() {
		return nil, errors.New("asciicast: no header line")
	}
	var hdr struct {
		Version int `json:"version"`
		Width   int `json:"width"`
		Height  int `json:"height"`
	}
	if err := json.Unmarshal(sc.Bytes(), &hdr); err != nil || hdr.Version != 2 {
		return nil, fmt.Errorf("asciicast: line 1: want a version 2 header, got %.80q", sc.Text())
	}
	w, h := hdr.Width, hdr.Height
	if w <= 0 || h <= 0 {
		w, h = 80, 24
	}
	if w > 1000 || h > 1000 {
		return nil, fmt.Errorf("asciicast: line 1: terminal %d×%d is larger than 1000×1000", w, h)
	}
	c := &caster{sc: sc, n: 1, term: vt10x.New(vt10x.WithSize(w, h)), w: w, h: h, status: max(0, h-3), // NetHack's status lines are the bottom two
		glyphs: make([][]vt10x.Glyph, h), last: make([][]vt10x.Glyph, h), html: make([]string, h), text: make([]string, h),
		classes: map[[3]uint32]string{}}
	for y := range c.glyphs {
		c.glyphs[y], c.last[y] = make([]vt10x.Glyph, w), make([]vt10x.Glyph, w)
	}
	return c, nil
}

// countSteps counts the output events of a recording up to its first
// line that is not an event, without decoding their data.
func countSteps(data []byte) int {
	n := 0
	for i, line := range bytes.Split(data, []byte("\n")) {
		line = bytes.TrimSpace(line)
		if i == 0 || len(line) == 0 {
			continue
		}
		c := bytes.IndexByte(line, ',')
		if line[0] != '[' || c < 0 {
			break
		}
		rest := bytes.TrimSpace(line[c+1:])
		if bytes.HasPrefix(rest, []byte(`"o"`)) {
			n++
		}
	}
	return n
}

// next plays the recording to its next output event and appends that
// frame to rp; false at the end (or at a line that is not an event: rp.Problem says so).
func (c *caster) next(rp *Replay) bool {
	for c.sc.Scan() {
		c.n++
		line := bytes.TrimSpace(c.sc.Bytes())
		if len(line) == 0 {
			continue
		}
		t, code, s, ok := castEvent(line)
		if !ok {
			rp.Problem = fmt.Sprintf("asciicast: line %d is not an event [time, code, data]: %.80q; the replay stops before it", c.n, line)
			return false
		}
		if code == "i" {
			c.keys += s
			continue
		}
		if code != "o" {
			continue
		}
		c.frame(rp, t, s)
		return true
	}
	if err := c.sc.Err(); err != nil && rp.Problem == "" {
		rp.Problem = "asciicast: " + err.Error()
	}
	return false
}

// frame writes one output event to the terminal and appends the frame.
func (c *caster) frame(rp *Replay, t float64, s string) {
	c.term.Write([]byte(s))
	i := len(rp.full)
	f := FrameJSON{Label: "t = " + strconv.FormatFloat(t, 'f', 1, 64) + " s", Keys: printable(c.keys), Rows: []RowJSON{}, Full: i == 0}
	c.keys = ""
	statusChanged := false
	for y := 0; y < c.h; y++ {
		row := c.glyphs[y]
		for x := range row {
			row[x] = c.term.Cell(x, y)
		}
		if i > 0 && slices.Equal(row, c.last[y]) {
			continue
		}
		c.html[y], c.text[y] = termRow(row, c.classes)
		f.Rows = append(f.Rows, RowJSON{Y: y, HTML: c.html[y]})
		copy(c.last[y], row)
		if y >= c.status {
			statusChanged = true
		}
	}
	if statusChanged {
		st := strings.Join(c.text[c.status:], "\n")
		if v, ok := field(st, "T:"); ok {
			c.turn = strconv.Itoa(v)
		}
		if d, ok := field(st, "Dlvl:"); ok {
			if c.dlvl > 0 && d > c.dlvl {
				rp.Events = append(rp.Events, EventJSON{Step: i, Kind: "descent", Text: "Dlvl " + strconv.Itoa(c.dlvl) + " → " + strconv.Itoa(d)})
			}
			c.dlvl = d
		}
		if v, ok := field(st, "HP:"); ok {
			if c.hp > 0 && v < c.hp {
				rp.Events = append(rp.Events, EventJSON{Step: i, Kind: "hp_drop", Text: "HP " + strconv.Itoa(c.hp) + " → " + strconv.Itoa(v)})
			}
			c.hp = v
		}
	}
	if c.turn != "" {
		f.Label = "turn " + c.turn
	}
	if i%FramePage == 0 {
		rp.keys = append(rp.keys, append([]string(nil), c.html...))
	}
	if msg := strings.TrimSpace(c.text[0]); msg != "" && msg != c.lastMsg {
		rp.Log = append(rp.Log, EventJSON{Step: i, Kind: "message", Text: msg})
		if k := messageKind(msg); k != "" {
			rp.Events = append(rp.Events, EventJSON{Step: i, Kind: k, Text: msg})
		}
		c.lastMsg = msg
	} else if msg == "" {
		c.lastMsg = ""
	}
	rp.full = append(rp.full, f)
}

// finishCast ends a recording's expansion: the steps are the frames
// played (one blank screen when there were none).
func (rp *Replay) finishCast() {
	if len(rp.full) == 0 {
		rp.keys = append(rp.keys, make([]string, rp.Height))
		rp.full = append(rp.full, FrameJSON{Label: "start", Full: true, Rows: []RowJSON{}})
	}
	rp.Steps = len(rp.full)
	rp.EventsComplete = true
}

// cast plays a whole recording (see caster).
func (rp *Replay) cast(data []byte) error {
	c, err := newCaster(data)
	if err != nil {
		return err
	}
	rp.Width, rp.Height = c.w, c.h
	for c.next(rp) {
	}
	rp.finishCast()
	return nil
}

// printable shows control keys as ^X and escape as ESC.
func printable(keys string) string {
	var b strings.Builder
	for _, r := range keys {
		switch {
		case r == 0x1b:
			b.WriteString("ESC ")
		case r == '\r' || r == '\n':
			b.WriteString("⏎")
		case r < 0x20:
			b.WriteString("^" + string(rune(r+'@')))
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// termRow renders a terminal row as HTML (runs of one style in a span
// with classes: fN foreground, bN background (ANSI 0-15), bo bold, ul
// underline; classes caches them by colours and mode) and as text,
// both without trailing blanks.
func termRow(row []vt10x.Glyph, classes map[[3]uint32]string) (string, string) {
	var b, t strings.Builder
	last := len(row) - 1
	for ; last >= 0; last-- {
		g := row[last]
		if (g.Char != ' ' && g.Char != 0) || g.BG != vt10x.DefaultBG || g.Mode&1 != 0 {
			break
		}
	}
	cls := ""
	open := false
	for x := 0; x <= last; x++ {
		g := row[x]
		c := g.Char
		if c == 0 {
			c = ' '
		}
		t.WriteRune(c)
		key := [3]uint32{uint32(g.FG), uint32(g.BG), uint32(g.Mode)}
		k, ok := classes[key]
		if !ok {
			k = glyphClass(g)
			classes[key] = k
		}
		if k != cls || x == 0 {
			if open {
				b.WriteString("</span>")
				open = false
			}
			if k != "" {
				b.WriteString(`<span class="` + k + `">`)
				open = true
			}
			cls = k
		}
		switch c {
		case '<':
			b.WriteString("&lt;")
		case '>':
			b.WriteString("&gt;")
		case '&':
			b.WriteString("&amp;")
		case '"':
			b.WriteString("&#34;")
		case '\'':
			b.WriteString("&#39;")
		default:
			b.WriteRune(c)
		}
	}
	if open {
		b.WriteString("</span>")
	}
	return b.String(), t.String()
}

// glyphClass is a cell's classes: colours by ANSI number (256-colour
// and true colours brought to the nearest of the 16), bold, underline;
// reverse video swaps the colours.
func glyphClass(g vt10x.Glyph) string {
	fg, bg := ansi16(g.FG, 7), ansi16(g.BG, -1)
	if g.Mode&1 != 0 { // reverse
		if fg < 0 {
			fg = 7
		}
		if bg < 0 {
			bg = 0
		}
		fg, bg = bg, fg
	}
	var parts []string
	if fg >= 0 && fg != 7 {
		parts = append(parts, "f"+strconv.Itoa(fg))
	}
	if bg >= 0 {
		parts = append(parts, "b"+strconv.Itoa(bg))
	}
	if g.Mode&(1<<2) != 0 {
		parts = append(parts, "bo")
	}
	if g.Mode&(1<<1) != 0 {
		parts = append(parts, "ul")
	}
	return strings.Join(parts, " ")
}

// ansi16 maps a vt10x colour to an ANSI colour number in [0, 15], def
// for the default colour.
func ansi16(c vt10x.Color, def int) int {
	switch {
	case c == vt10x.DefaultFG || c == vt10x.DefaultBG || c == vt10x.DefaultCursor:
		return def
	case c < 16:
		return int(c)
	case c < 232: // the 6×6×6 cube
		v := int(c) - 16
		r, g, b := v/36, v/6%6, v%6
		return cube(r, g, b, 5)
	case c < 256: // grey ramp
		if c < 244 {
			return 8
		}
		return 7
	}
	r, g, b := int(c>>16&255), int(c>>8&255), int(c&255)
	return cube(r, g, b, 255)
}

func cube(r, g, b, top int) int {
	n := 0
	if 2*r > top {
		n |= 1
	}
	if 2*g > top {
		n |= 2
	}
	if 2*b > top {
		n |= 4
	}
	if 4*max(r, g, b) > 3*top {
		n += 8
	}
	return n
}
