package view

import (
	"bytes"
	"compress/gzip"
	"encoding"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"evolve/agent"
	"evolve/envs"
	"evolve/envs/dungeon"
	"evolve/trajectory"
)

var update = flag.Bool("update", false, "rewrite testdata/api_schema.golden")

// TestPagesHTML: every page is drawn on the server, whole: the
// elements its readers (and TestBrowser) look for are in the HTML as
// served, with no template hole ("<no value>"), NaN or fmt error.
func TestPagesHTML(t *testing.T) {
	ts, f := newTestServer(t, "")
	c := ts.Client()
	id1, id2 := runID(f, f.run1.Dir), runID(f, f.run2.Dir)
	var failed EpisodePage
	get(t, c, ts.URL+"/api/v1/runs/"+id1+"/episodes?split=val&cause=injury&size=1", &failed)
	if len(failed.Episodes) != 1 {
		t.Fatal("no failed val episode")
	}
	ep := failed.Episodes[0]
	special := func(i int) string {
		return "/runs/" + id2 + "/episodes/test/" + f.run2.Final + "/" + strconv.FormatUint(f.special[i], 10)
	}
	for _, tc := range []struct {
		path string
		want []string
	}{
		{"/", []string{`id="runs"`, `class="run-link"`, `data-live="1"`, "finished", `id="replicates"`}},
		{"/runs/" + id1, []string{`id="summary"`, `id="generations"`, `id="lineage"`, `id="cause-table"`, `id="killed-by"`, `id="shifts"`, `id="params"`,
			`class="slice"`, `id="compare-base"`, `id="spending"`, "numbered from 0", `<tr class="gen"><td>0</td>`, `<td class="num alpha">0.03</td>`}},
		{"/runs/" + runID(f, f.gatedDir), []string{`id="verdict"`, `id="gate-settings"`, "25 score points on the shift scale", `id="failure-checks"`, `id="baseline-link"`}},
		{"/runs/" + id1 + "/episodes?split=val&sort=score&desc=1", []string{`id="episodes"`, `class="episode-link"`, `id="pager"`, " ▼"}},
		{"/runs/" + id1 + "/episodes?generation=0&metric=killed_by&metric_value=x", []string{`id="extra-filters"`, "generation 0", "killed_by"}},
		{ep.Link(id1), []string{`id="map"`, `id="replay-data"`, `id="step-slider"`, `id="log"`, `id="episode-facts"`, `id="state"`}},
		{special(0), []string{`id="terminal"`, `id="replay-data"`}},
		{special(1), []string{`id="transcript"`, "ACTION: explore", "Turn 2: action <b>eat</b>"}},
		{special(2), []string{`id="events-table"`, "<th>action</th>", "<td>forage</td>"}},
		{"/runs/" + id1 + "/versions/" + f.final, []string{`id="rendered"`, `id="params"`}},
		{"/compare?a=" + id1 + "&b=" + id2, []string{`id="compare-summary"`, `id="hist"`, `id="gate-worse"`, `id="power"`, `id="curves"`, "<polyline"}},
		{"/compare?a=" + runID(f, f.evalDir), []string{`id="top-pairs"`, `id="paired"`, "60 seeds played by both"}},
	} {
		resp, err := c.Get(ts.URL + tc.path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") {
			t.Errorf("%s: %d %s\n%.300s", tc.path, resp.StatusCode, resp.Header.Get("Content-Type"), body)
			continue
		}
		s := string(body)
		for _, w := range tc.want {
			if !strings.Contains(s, w) {
				t.Errorf("%s: the page lacks %q", tc.path, w)
			}
		}
		for _, bad := range []string{"<no value>", ">NaN<", "%!", "ZgotmplZ"} {
			if strings.Contains(s, bad) {
				i := strings.Index(s, bad)
				t.Errorf("%s: the page holds %q: …%s…", tc.path, bad, s[max(0, i-200):min(len(s), i+100)])
			}
		}
	}
	// An unknown run and a bad query are pages too, with their status.
	for path, code := range map[string]int{"/runs/nope": 404, "/runs/" + id1 + "/episodes?sort=nope": 400, "/compare": 400} {
		resp, err := c.Get(ts.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != code || !strings.Contains(string(body), `id="error"`) {
			t.Errorf("%s: %d, want %d with the error on the page", path, resp.StatusCode, code)
		}
	}
}

// apiTypes are the data of each endpoint of /api/v1, as docs/view.md
// lists them.
func apiTypes() []struct {
	path string
	typ  reflect.Type
} {
	var out []struct {
		path string
		typ  reflect.Type
	}
	for _, p := range Pages {
		out = append(out, struct {
			path string
			typ  reflect.Type
		}{strings.TrimSuffix(p.API, "{$}"), reflect.TypeOf(p.Type)})
	}
	out = append(out, struct {
		path string
		typ  reflect.Type
	}{FramesAPI, reflect.TypeOf(Replay{})})
	return out
}

var snake = regexp.MustCompile(`^[a-z][a-z0-9]*(_[a-z0-9]+)*$`)

// schema writes the JSON keys of t, one "path type" line each, into
// lines; an exported field without a json tag, or a key that is not
// snake_case, is an error.
func schema(t reflect.Type, path string, lines *[]string, errs *[]string, seen map[reflect.Type]bool) {
	marshaler := reflect.TypeOf((*json.Marshaler)(nil)).Elem()
	texter := reflect.TypeOf((*encoding.TextMarshaler)(nil)).Elem()
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Implements(marshaler) || reflect.PointerTo(t).Implements(marshaler) || t.Implements(texter) || reflect.PointerTo(t).Implements(texter) {
		*lines = append(*lines, path+" "+t.String())
		// A struct with its own MarshalJSON (gate.Check): the keys its
		// zero value writes, which its package owns.
		if t.Kind() == reflect.Struct {
			var m map[string]any
			if data, err := json.Marshal(reflect.Zero(t).Interface()); err == nil && json.Unmarshal(data, &m) == nil {
				keys := make([]string, 0, len(m))
				for k := range m {
					keys = append(keys, k)
				}
				sort.Strings(keys)
				for _, k := range keys {
					*lines = append(*lines, path+"."+k+" (by "+t.String()+".MarshalJSON)")
				}
			}
		}
		return
	}
	switch t.Kind() {
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() == reflect.Uint8 {
			*lines = append(*lines, path+" bytes")
			return
		}
		schema(t.Elem(), path+"[]", lines, errs, seen)
	case reflect.Map:
		schema(t.Elem(), path+"{}", lines, errs, seen)
	case reflect.Struct:
		if seen[t] {
			*lines = append(*lines, path+" "+t.String()+" (recursive)")
			return
		}
		seen[t] = true
		defer delete(seen, t)
		*lines = append(*lines, path+" object")
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			if !f.IsExported() {
				continue
			}
			tag, ok := f.Tag.Lookup("json")
			name, _, _ := strings.Cut(tag, ",")
			if tag == "-" {
				continue
			}
			if f.Anonymous && name == "" {
				ft := f.Type
				for ft.Kind() == reflect.Pointer {
					ft = ft.Elem()
				}
				var inner []string
				schema(ft, path, &inner, errs, seen)
				*lines = append(*lines, inner[1:]...) // its fields, flattened
				continue
			}
			if !ok || name == "" {
				*errs = append(*errs, fmt.Sprintf("%s: field %s.%s has no json tag", path, t, f.Name))
				name = f.Name
			} else if !snake.MatchString(name) {
				*errs = append(*errs, fmt.Sprintf("%s: key %q of %s.%s is not snake_case", path, name, t, f.Name))
			}
			p := name
			if path != "" {
				p = path + "." + name
			}
			schema(f.Type, p, lines, errs, seen)
		}
	default:
		*lines = append(*lines, path+" "+t.Kind().String())
	}
}

// TestAPISchema: the JSON of every /api/v1 endpoint comes from tagged
// structs with snake_case keys, and its keys are those of the committed
// schema (testdata/api_schema.golden; go test -run TestAPISchema
// -update rewrites it): renaming a field fails here, not silently in a
// page or a script.
func TestAPISchema(t *testing.T) {
	var b strings.Builder
	var errs []string
	for _, ep := range apiTypes() {
		var lines []string
		schema(ep.typ, "", &lines, &errs, map[reflect.Type]bool{})
		fmt.Fprintf(&b, "GET %s\n", ep.path)
		for _, l := range lines[1:] {
			fmt.Fprintf(&b, "\t%s\n", l)
		}
	}
	for _, e := range errs {
		t.Error(e)
	}
	golden := filepath.Join("testdata", "api_schema.golden")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(golden, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test -run TestAPISchema -update to write it)", err)
	}
	if got := b.String(); got != string(want) {
		gl, wl := strings.Split(got, "\n"), strings.Split(string(want), "\n")
		t.Errorf("the API's schema changed (go test -run TestAPISchema -update if it is meant to, and say so in docs/view.md):\n%s", lineDiff(wl, gl))
	}
}

// lineDiff lists the lines only in a (-) and only in b (+).
func lineDiff(a, b []string) string {
	in := func(xs []string) map[string]bool {
		m := map[string]bool{}
		for _, x := range xs {
			m[x] = true
		}
		return m
	}
	ia, ib := in(a), in(b)
	var out []string
	for _, x := range a {
		if !ib[x] {
			out = append(out, "- "+x)
		}
	}
	for _, x := range b {
		if !ia[x] {
			out = append(out, "+ "+x)
		}
	}
	return strings.Join(out, "\n")
}

// TestAPIKeys: what each endpoint answers has only keys of its schema
// (a value's own MarshalJSON cannot add others unseen).
func TestAPIKeys(t *testing.T) {
	ts, f := newTestServer(t, "")
	c := ts.Client()
	id1 := runID(f, f.run1.Dir)
	var page EpisodePage
	get(t, c, ts.URL+"/api/v1/runs/"+id1+"/episodes?split=val&cause=injury&size=1", &page)
	ep := page.Episodes[0]
	known := map[string]map[string]bool{}
	deep := map[string]map[string]bool{} // paths whose values have keys of their own in the schema
	for _, e := range apiTypes() {
		var lines []string
		var errs []string
		schema(e.typ, "", &lines, &errs, map[reflect.Type]bool{})
		known[e.path], deep[e.path] = map[string]bool{}, map[string]bool{}
		for _, l := range lines {
			p, typ, _ := strings.Cut(l, " ")
			if typ == "object" {
				deep[e.path][p] = true
			}
			if i := strings.LastIndexByte(p, '.'); i >= 0 && strings.Contains(typ, "MarshalJSON") {
				deep[e.path][p[:i]] = true
			}
			for {
				known[e.path][p] = true
				q := strings.TrimSuffix(strings.TrimSuffix(p, "[]"), "{}")
				if q == p {
					break
				}
				p = q
			}
		}
	}
	for path, u := range map[string]string{
		"/api/v1/":                   "/api/v1/",
		"/api/v1/runs/{id}":          "/api/v1/runs/" + id1,
		"/api/v1/runs/{id}/episodes": "/api/v1/runs/" + id1 + "/episodes?size=3",
		"/api/v1/runs/{id}/episodes/{split}/{version}/{seed}":        "/api/v1" + ep.Link(id1),
		"/api/v1/runs/{id}/episodes/{split}/{version}/{seed}/frames": "/api/v1" + ep.Link(id1) + "/frames?step=3",
		"/api/v1/runs/{id}/versions/{version}":                       "/api/v1/runs/" + id1 + "/versions/" + f.final,
		"/api/v1/compare":                                            "/api/v1/compare?a=" + id1,
	} {
		var v any
		if code := get(t, c, ts.URL+u, &v); code != 200 {
			t.Fatalf("%s: %d", u, code)
		}
		var walk func(x any, p string)
		walk = func(x any, p string) {
			switch x := x.(type) {
			case map[string]any:
				// A map of the schema ("{}") or an object.
				if known[path][p+"{}"] {
					for _, y := range x {
						walk(y, p+"{}")
					}
					return
				}
				for k, y := range x {
					q := k
					if p != "" {
						q = p + "." + k
					}
					if !known[path][q] {
						t.Errorf("%s: key %s is not in the schema", u, q)
						continue
					}
					if deep[path][q] || known[path][q+"[]"] || known[path][q+"{}"] {
						walk(y, q)
					}
				}
			case []any:
				for _, y := range x {
					walk(y, p+"[]")
				}
			}
		}
		walk(v, "")
	}
}

// longDungeon returns a stored dungeon trajectory of at least n steps:
// a fixed mix of explore, attack, descend and eat on the first seed that
// survives it (the replay is what counts here, not the outcome the
// record states, so the replay reports it diverged).
func longDungeon(t testing.TB, n int) trajectory.Entry {
	cfg := dungeon.DefaultConfig()
	cfg.MaxTurns = 4 * n
	cfg.NoProgressTurns = 4 * n
	cfg.MaxDepth = 50
	for seed := uint64(1); seed < 500; seed++ {
		acts := strings.Repeat("1113111215", n/10+1)[:n]
		rec := agent.DungeonRecord{Kind: agent.DungeonRecordKind, Config: cfg, Seed: seed, Actions: acts}
		data, _ := json.Marshal(rec)
		d, err := agent.ExpandDungeon(data)
		if err != nil {
			t.Fatal(err)
		}
		if len(d.Steps) > n {
			return trajectory.Entry{Seed: seed, Format: envs.TrajectoryJSON, Data: data}
		}
	}
	t.Fatalf("no seed plays %d steps", n)
	return trajectory.Entry{}
}

// replayBytes is the JSON a replay sends in all: the episode page's
// first page and every further page of frames; and gzipped, as the
// server sends it to a browser.
func replayBytes(t testing.TB, rp *Replay) (int, int) {
	total, gz := 0, 0
	for from := 0; from < rp.Steps; from += FramePage {
		p := rp.Page(from)
		if from > 0 { // a frames answer
			p = &Replay{Kind: p.Kind, Steps: p.Steps, PageSize: p.PageSize, From: p.From, Frames: p.Frames}
		}
		data, err := json.Marshal(p)
		if err != nil {
			t.Fatal(err)
		}
		total += len(data)
		var b bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&b, gzip.BestSpeed)
		zw.Write(data)
		zw.Close()
		gz += b.Len()
	}
	return total, gz
}

// TestReplayDungeon: a dungeon replay's frames rebuild each step's map
// exactly from the changed spans, and a 1,000-step episode sends at
// most 200 KB in all.
func TestReplayDungeon(t *testing.T) {
	e := longDungeon(t, 1000)
	rp, err := Decode(e)
	if err != nil {
		t.Fatal(err)
	}
	d, _ := agent.ExpandDungeon(e.Data)
	if rp.Steps != len(d.Steps) || rp.Steps < 1000 {
		t.Fatalf("%d steps, the dungeon replays %d", rp.Steps, len(d.Steps))
	}
	// Rebuild every step from the pages, as the page's script does.
	for from := 0; from < rp.Steps; from += FramePage {
		p := rp.Page(from)
		if !p.Frames[0].Full || p.From != from {
			t.Fatalf("page at %d: from %d, first frame full %v", from, p.From, p.Frames[0].Full)
		}
		rows := make([][]rune, rp.Height)
		for k, f := range p.Frames {
			for _, r := range f.Rows {
				old := rows[r.Y]
				for len(old) < r.X {
					old = append(old, ' ')
				}
				nr := []rune(r.Text)
				tail := []rune{}
				if r.X+len(nr) < len(old) {
					tail = old[r.X+len(nr):]
				}
				rows[r.Y] = append(append(append([]rune{}, old[:r.X]...), nr...), tail...)
			}
			var got []string
			for _, r := range rows {
				got = append(got, strings.TrimRight(string(r), " "))
			}
			want := strings.Split(strings.TrimRight(d.Steps[from+k].Map, "\n"), "\n")
			for len(want) < len(got) {
				want = append(want, "")
			}
			for y := range want {
				want[y] = strings.TrimRight(want[y], " ")
			}
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Fatalf("step %d: rebuilt map\n%s\nwant\n%s", from+k, strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
		}
	}
	if testing.Verbose() {
		p := rp.Page(500)
		for _, f := range p.Frames[1:4] {
			b, _ := json.Marshal(f)
			t.Logf("frame: %s", b)
		}
	}
	if n, gz := replayBytes(t, rp); n > 200_000 {
		t.Errorf("a %d-step replay sends %d bytes, want <= 200,000", rp.Steps, n)
	} else {
		t.Logf("a %d-step dungeon replay sends %d bytes, %d gzipped (%d bytes stored)", rp.Steps, n, gz, len(e.Data))
	}
	kinds := map[string]int{}
	for _, ev := range rp.Events {
		kinds[ev.Kind]++
		if ev.Step < 1 || ev.Step >= rp.Steps || ev.Text == "" {
			t.Errorf("event %+v out of range", ev)
		}
	}
	if len(rp.Log) < len(rp.Events) {
		t.Errorf("%d log entries for %d events", len(rp.Log), len(rp.Events))
	}
	t.Logf("events %v", kinds)
}

// TestReplayCast: an asciicast recording is played through vt10x on
// the server: the last frame shows the screen the recording leaves,
// colours as classes, the status line's turn as the label, input
// events as keys, a prayer and a fight on the track, and a damaged line
// ends the frames with the problem named.
func TestReplayCast(t *testing.T) {
	cast := "{\"version\":2,\"width\":30,\"height\":4}\n" +
		`[0.1,"o","\u001b[2J\u001b[1;1H\u001b[31mred\u001b[0m plain"]` + "\n" +
		`[0.15,"i","k"]` + "\n" +
		`[0.2,"o","\u001b[1;1H\u001b[KYou hit the newt!\u001b[4;1HDlvl:1 HP:10(12) T:5"]` + "\n" +
		`[0.25,"i","#pray\r"]` + "\n" +
		`[0.3,"o","\u001b[1;1H\u001b[KYou begin praying to Mitra.\u001b[4;1HDlvl:2 HP:7(12) T:9 "]` + "\n" +
		"not an event\n"
	rp, err := Decode(trajectory.Entry{Format: envs.TrajectoryAsciicast, Data: []byte(cast)})
	if err != nil {
		t.Fatal(err)
	}
	if rp.Steps != 3 || rp.Problem == "" || !strings.Contains(rp.Problem, "line 7") {
		t.Fatalf("%d steps, problem %q; want 3 and line 7 named", rp.Steps, rp.Problem)
	}
	p := rp.Page(0)
	if got := p.Frames[0].Rows[0].HTML; got != `<span class="f1">red</span> plain` {
		t.Errorf("first row %q, want the red span", got)
	}
	if f := p.Frames[2]; f.Label != "turn 9" || f.Keys != "#pray⏎" || p.Frames[1].Keys != "k" || p.Frames[1].Label != "turn 5" {
		t.Errorf("labels %q %q, keys %q %q", p.Frames[1].Label, f.Label, p.Frames[1].Keys, f.Keys)
	}
	got := map[string]bool{}
	for _, e := range rp.Events {
		got[e.Kind+"@"+strconv.Itoa(e.Step)] = true
	}
	for _, w := range []string{"fight@1", "prayer@2", "descent@2", "hp_drop@2"} {
		if !got[w] {
			t.Errorf("no event %s in %+v", w, rp.Events)
		}
	}
	if len(rp.Log) != 3 || rp.Log[2].Text != "You begin praying to Mitra." {
		t.Errorf("log %+v", rp.Log)
	}
}

// bigCast writes an asciicast recording of about size bytes, shaped
// as envs/nethack records one: an event per key, most redrawing the
// message line, a few map cells and the status line (about 200 bytes),
// every 100th the whole screen in colour.
func bigCast(size int) []byte {
	var b strings.Builder
	b.WriteString(`{"version": 2, "width": 80, "height": 24}` + "\n")
	for i := 0; b.Len() < size; i++ {
		var s strings.Builder
		if i%100 == 0 {
			s.WriteString("\x1b[H\x1b[2J")
			for y := 2; y < 22; y++ {
				s.WriteString(fmt.Sprintf("\x1b[%d;%dH\x1b[3%dm", y+1, 1+(i+y)%10, y%8))
				s.WriteString(strings.Repeat("-.#", 20+(i*y)%6))
				s.WriteString("\x1b[0m")
			}
		}
		s.WriteString(fmt.Sprintf("\x1b[1;1H\x1b[KYou hit the jackal! (%d)", i))
		for k := 0; k < 3; k++ {
			s.WriteString(fmt.Sprintf("\x1b[%d;%dH\x1b[3%dm%c\x1b[0m", 3+(i+k)%18, 1+(i*7+k)%70, k+1, "@d."[k]))
		}
		s.WriteString(fmt.Sprintf("\x1b[24;1HDlvl:%d $:0 HP:%d(16) Pw:2(2) AC:6 T:%d\x1b[K", 1+i/5000, 16-i%5, i))
		data, _ := json.Marshal(s.String())
		fmt.Fprintf(&b, "[%.1f, \"o\", %s]\n", float64(i)*0.1, data)
	}
	return []byte(b.String())
}

// BenchmarkReplayCast16MiBOpen opens a 16 MiB recording (the storage
// cap) as the episode page does: read on the server with vt10x up to
// its first page of frames (the rest is read in the background), that
// page encoded. Target: well under 3 s. Reported: the page's bytes.
func BenchmarkReplayCast16MiBOpen(b *testing.B) {
	data := bigCast(trajectory.MaxBytes - 1024)
	var page int
	for b.Loop() {
		lr, err := decodeLazy(trajectory.Entry{Format: envs.TrajectoryAsciicast, Data: data})
		if err != nil {
			b.Fatal(err)
		}
		out, _ := json.Marshal(lr.page(0))
		page = len(out)
		b.StopTimer()
		lr.page(lr.rp.Steps) // the background reading ends before the next open
		b.StartTimer()
	}
	b.ReportMetric(float64(page), "page-bytes")
}

// BenchmarkReplayCast16MiBAll reads a whole 16 MiB recording: the time
// until its track is complete.
func BenchmarkReplayCast16MiBAll(b *testing.B) {
	data := bigCast(trajectory.MaxBytes - 1024)
	var steps int
	for b.Loop() {
		rp, err := Decode(trajectory.Entry{Format: envs.TrajectoryAsciicast, Data: data})
		if err != nil {
			b.Fatal(err)
		}
		steps = rp.Steps
	}
	b.ReportMetric(float64(steps), "steps")
}

// BenchmarkReplayDungeon1000 expands a 1,000-step dungeon episode and
// encodes all its pages. Reported: the bytes a replay sends in all
// (target <= 200 KB).
func BenchmarkReplayDungeon1000(b *testing.B) {
	e := longDungeon(b, 1000)
	var n, gz int
	for b.Loop() {
		rp, err := Decode(e)
		if err != nil {
			b.Fatal(err)
		}
		n, gz = replayBytes(b, rp)
	}
	b.ReportMetric(float64(n), "sent-bytes")
	b.ReportMetric(float64(gz), "sent-gzip-bytes")
}

// TestFramesAPI: the frames endpoint answers the page holding ?step=N,
// its first frame full; ?step=N on the page is where the replay starts.
func TestFramesAPI(t *testing.T) {
	ts, f := newTestServer(t, "")
	c := ts.Client()
	id1 := runID(f, f.run1.Dir)
	var page EpisodePage
	get(t, c, ts.URL+"/api/v1/runs/"+id1+"/episodes?split=val&cause=injury&size=1", &page)
	u := ts.URL + "/api/v1" + page.Episodes[0].Link(id1)
	var d EpisodeDetail
	get(t, c, u+"?step=2", &d)
	if d.Replay == nil || d.Step != 2 {
		t.Fatalf("step %d, replay %v", d.Step, d.Replay != nil)
	}
	var fr Replay
	if code := get(t, c, u+"/frames?step=1", &fr); code != 200 || fr.From != 0 || len(fr.Frames) == 0 || !fr.Frames[0].Full {
		t.Fatalf("frames: %d from %d, %d frames", code, fr.From, len(fr.Frames))
	}
	if code := get(t, c, u+"/frames?step=-1", nil); code != http.StatusBadRequest {
		t.Errorf("step=-1: %d, want 400", code)
	}
}
