package gate

import (
	"evolve/stats"

	"bytes"
	"encoding/json"
	"encoding/xml"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// fixture is a deterministic set of checks covering a regression, a pass,
// a pass with an unpaired fallback warning, an empty variant and names
// that need escaping in XML and Markdown.
func fixture(t testing.TB) []Check {
	t.Helper()
	base := []Sample{
		sample("main", "easy", game(120, 0, 1)),
		sample("main", "max_turns=1000|hard", game(120, -100, 5)),
		sample("main", "", game(40, 0, 8)),
	}
	unpaired := Sample{Version: "v1.0.3", Variant: "easy", Scores: game(90, -2, 4)}
	cands := []Sample{
		sample("v1.0.1", "easy", game(120, -40, 2)),
		sample("v1.0.2 <fast & loose>", "easy", game(120, 4, 3)),
		unpaired,
		sample("v1.0.1", "max_turns=1000|hard", game(120, -103, 6)),
		sample("v1.0.1", "", game(40, -1, 9)),
	}
	checks, err := Compare(base, cands, Config{Margin: 10})
	if err != nil {
		t.Fatal(err)
	}
	return checks
}

// golden compares got with testdata/name, or rewrites it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		gl, wl := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
		for i := range max(len(gl), len(wl)) {
			var g, w string
			if i < len(gl) {
				g = gl[i]
			}
			if i < len(wl) {
				w = wl[i]
			}
			if g != w {
				t.Fatalf("%s differs at line %d (run go test -update if intended):\n got %q\nwant %q", path, i+1, g, w)
			}
		}
	}
}

func TestGolden(t *testing.T) {
	checks := fixture(t)
	var x bytes.Buffer
	if err := WriteJUnit(&x, "evolve eval: dungeon", checks); err != nil {
		t.Fatal(err)
	}
	golden(t, "junit.xml.golden", x.Bytes())
	golden(t, "summary.md.golden", []byte(Markdown(checks, "evolve eval: dungeon vs main")))
	j, err := JSON(checks)
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "checks.json.golden", j)
}

// The fixture must hold what the goldens are meant to show.
func TestFixture(t *testing.T) {
	checks := fixture(t)
	want := []struct {
		test       stats.TestName
		regression bool
		warned     bool
	}{
		{stats.TestSignedRank, true, false},
		{stats.TestSignedRank, false, false},
		{stats.TestMWU, false, true},
		{stats.TestSignedRank, false, false},
		{stats.TestSignedRank, false, true}, // a zero difference
	}
	for i, w := range want {
		c := checks[i]
		if c.Test != w.test || c.Regression != w.regression || (len(c.Warnings) > 0) != w.warned {
			t.Errorf("check %d %s: test %s, regression %v, warnings %q; want %s, %v, warned %v",
				i, c.Name(), c.Test, c.Regression, c.Warnings, w.test, w.regression, w.warned)
		}
	}
}

// junitDoc mirrors the Jenkins JUnit schema, for decoding.
type junitDoc struct {
	XMLName  xml.Name `xml:"testsuites"`
	Tests    int      `xml:"tests,attr"`
	Failures int      `xml:"failures,attr"`
	Suites   []struct {
		Name     string `xml:"name,attr"`
		Tests    int    `xml:"tests,attr"`
		Failures int    `xml:"failures,attr"`
		Errors   int    `xml:"errors,attr"`
		Cases    []struct {
			Name      string `xml:"name,attr"`
			Classname string `xml:"classname,attr"`
			Failure   *struct {
				Message string `xml:"message,attr"`
				Type    string `xml:"type,attr"`
				Text    string `xml:",chardata"`
			} `xml:"failure"`
			SystemOut string `xml:"system-out"`
		} `xml:"testcase"`
	} `xml:"testsuite"`
}

func TestJUnitParses(t *testing.T) {
	checks := fixture(t)
	var buf bytes.Buffer
	if err := WriteJUnit(&buf, "", checks); err != nil {
		t.Fatal(err)
	}
	var doc junitDoc
	if err := xml.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Suites) != 1 {
		t.Fatalf("%d test suites, want 1", len(doc.Suites))
	}
	s := doc.Suites[0]
	failures := 0
	for _, c := range checks {
		if c.Regression {
			failures++
		}
	}
	if s.Name != DefaultSuite || s.Tests != len(checks) || s.Failures != failures || s.Errors != 0 || doc.Tests != len(checks) || doc.Failures != failures {
		t.Errorf("suite %q: tests %d/%d, failures %d/%d, errors %d; want %d tests, %d failures", s.Name, s.Tests, doc.Tests, s.Failures, doc.Failures, s.Errors, len(checks), failures)
	}
	if len(s.Cases) != len(checks) {
		t.Fatalf("%d test cases, want %d", len(s.Cases), len(checks))
	}
	for i, c := range checks {
		tc := s.Cases[i]
		want := c.Version + " [" + c.Variant + "]"
		if c.Variant == "" {
			want = c.Version
		}
		if tc.Name != want || tc.Classname != "evolve.eval" {
			t.Errorf("case %d: name %q classname %q; want %q, evolve.eval", i, tc.Name, tc.Classname, want)
		}
		if (tc.Failure != nil) != c.Regression {
			t.Errorf("case %q: failure %v, regression %v", tc.Name, tc.Failure != nil, c.Regression)
		}
		if tc.Failure != nil && (tc.Failure.Message != c.Message || tc.Failure.Type != "regression" || !strings.Contains(tc.Failure.Text, "p: ")) {
			t.Errorf("case %q: failure %+v", tc.Name, *tc.Failure)
		}
		if !strings.HasPrefix(tc.SystemOut, c.Message) {
			t.Errorf("case %q: system-out %q", tc.Name, tc.SystemOut)
		}
	}
	if err := validJUnit(buf.Bytes()); err != nil {
		t.Error(err)
	}
}

// junitSchema is the Jenkins JUnit schema (junit-4.xsd, JUnit 5's
// platform-tests jenkins-junit.xsd): each element's attributes (required
// ones marked "!"), and its child sequence with each child's maximum count
// (0 = unbounded). Elements with text content have no children.
var junitSchema = map[string]struct {
	attrs    []string
	children []string
	most     []int
}{
	"testsuites": {[]string{"name", "time", "tests", "failures", "disabled", "errors"}, []string{"testsuite"}, []int{0}},
	"testsuite": {
		[]string{"!name", "!tests", "failures", "errors", "time", "disabled", "skipped", "timestamp", "hostname", "id", "package"},
		[]string{"properties", "testcase", "system-out", "system-err"}, []int{1, 0, 1, 1},
	},
	"testcase": {
		[]string{"!name", "assertions", "time", "classname", "status"},
		[]string{"skipped", "error", "failure", "system-out", "system-err"}, []int{1, 0, 0, 0, 0},
	},
	"failure":    {[]string{"type", "message"}, nil, nil},
	"error":      {[]string{"type", "message"}, nil, nil},
	"system-out": {nil, nil, nil},
	"system-err": {nil, nil, nil},
}

// validJUnit checks doc against junitSchema: root, element order and
// counts, known and required attributes.
func validJUnit(doc []byte) error {
	dec := xml.NewDecoder(bytes.NewReader(doc))
	type frame struct {
		name  string
		pos   int // index in the parent's sequence reached
		count int // of the element at pos
	}
	var stack []*frame
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		switch el := tok.(type) {
		case xml.StartElement:
			name := el.Name.Local
			def, ok := junitSchema[name]
			if !ok {
				return fmt.Errorf("unknown element <%s>", name)
			}
			if len(stack) == 0 && name != "testsuites" && name != "testsuite" {
				return fmt.Errorf("root <%s>, want testsuites or testsuite", name)
			}
			if len(stack) > 0 {
				parent := stack[len(stack)-1]
				pdef := junitSchema[parent.name]
				at := -1
				for i, c := range pdef.children {
					if c == name {
						at = i
					}
				}
				switch {
				case at < 0:
					return fmt.Errorf("<%s> inside <%s>", name, parent.name)
				case at < parent.pos:
					return fmt.Errorf("<%s> after a later element of <%s>'s sequence", name, parent.name)
				case at > parent.pos:
					parent.pos, parent.count = at, 0
				}
				parent.count++
				if m := pdef.most[at]; m > 0 && parent.count > m {
					return fmt.Errorf("more than %d <%s> in <%s>", m, name, parent.name)
				}
			}
			have := map[string]bool{}
			for _, a := range el.Attr {
				have[a.Name.Local] = true
			}
			known := map[string]bool{}
			for _, a := range def.attrs {
				req := strings.HasPrefix(a, "!")
				a = strings.TrimPrefix(a, "!")
				known[a] = true
				if req && !have[a] {
					return fmt.Errorf("<%s> lacks the required attribute %s", name, a)
				}
			}
			for a := range have {
				if !known[a] {
					return fmt.Errorf("<%s> has the unknown attribute %s", name, a)
				}
			}
			stack = append(stack, &frame{name: name})
		case xml.EndElement:
			stack = stack[:len(stack)-1]
		}
	}
	return nil
}

// TestValidJUnitRejects: the schema check can fail.
func TestValidJUnitRejects(t *testing.T) {
	for _, doc := range []string{
		`<testsuites><testsuite tests="1"/></testsuites>`,
		`<testsuites><testsuite name="a" tests="1"><testcase name="x"><system-out/><failure/></testcase></testsuite></testsuites>`,
		`<testsuites><testsuite name="a" tests="1"><testcase name="x" foo="1"/></testsuite></testsuites>`,
		`<testcase name="x"/>`,
	} {
		if validJUnit([]byte(doc)) == nil {
			t.Errorf("accepted %s", doc)
		}
	}
}

func TestJUnitEmpty(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteJUnit(&buf, "s", nil); err != nil {
		t.Fatal(err)
	}
	var doc junitDoc
	if err := xml.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Tests != 0 || len(doc.Suites) != 1 || doc.Suites[0].Tests != 0 {
		t.Errorf("empty: %s", buf.String())
	}
	if err := validJUnit(buf.Bytes()); err != nil {
		t.Error(err)
	}
}

func TestMarkdown(t *testing.T) {
	checks := fixture(t)
	md := Markdown(checks, "")
	if !strings.HasPrefix(md, "## "+DefaultTitle+"\n") {
		t.Errorf("heading: %q", strings.SplitN(md, "\n", 2)[0])
	}
	if !strings.Contains(md, "❌ **1 of 5 checks regressed.**") {
		t.Error("verdict line missing")
	}
	// Every table row has the header's number of cells (escaped pipes do
	// not count).
	rows := 0
	for _, line := range strings.Split(md, "\n") {
		if !strings.HasPrefix(line, "|") {
			continue
		}
		rows++
		if n := strings.Count(strings.ReplaceAll(line, `\|`, ""), "|"); n != 13 {
			t.Errorf("row with %d pipes: %s", n, line)
		}
	}
	if rows != len(checks)+2 {
		t.Errorf("%d table lines, want %d", rows, len(checks)+2)
	}
	if !strings.Contains(md, `max_turns=1000\|hard`) {
		t.Error("pipe in a variant not escaped")
	}
	pass := Markdown(checks[1:2], "t")
	if !strings.Contains(pass, "✅ **No regression** in 1 check (not evidence of non-inferiority") || strings.Contains(pass, "❌") {
		t.Errorf("passing summary:\n%s", pass)
	}
	if got := Markdown(nil, "t"); !strings.Contains(got, "No checks") {
		t.Errorf("empty: %q", got)
	}
}

func TestAppendStepSummary(t *testing.T) {
	path := filepath.Join(t.TempDir(), "summary.md")
	t.Setenv(StepSummaryEnv, path)
	if err := os.WriteFile(path, []byte("# earlier step\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := AppendStepSummary("## one"); err != nil {
		t.Fatal(err)
	}
	if err := AppendStepSummary("## two\n"); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(path)
	if string(got) != "# earlier step\n## one\n## two\n" {
		t.Errorf("summary file = %q", got)
	}

	t.Setenv(StepSummaryEnv, "")
	if err := AppendStepSummary("## three"); err != nil {
		t.Errorf("unset: %v", err)
	}
	got, _ = os.ReadFile(path)
	if strings.Contains(string(got), "three") {
		t.Error("wrote with the variable empty")
	}

	t.Setenv(StepSummaryEnv, filepath.Join(t.TempDir(), "missing-dir", "s.md"))
	if err := AppendStepSummary("x"); err == nil || !strings.Contains(err.Error(), StepSummaryEnv) {
		t.Errorf("bad path: err = %v", err)
	}
}

func TestJSON(t *testing.T) {
	checks := fixture(t)
	b, err := JSON(checks)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Regressions int              `json:"regressions"`
		Checks      []map[string]any `json:"checks"`
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(&doc); err != nil {
		t.Fatal(err)
	}
	if doc.Regressions != 1 || len(doc.Checks) != len(checks) {
		t.Errorf("regressions %d, %d checks", doc.Regressions, len(doc.Checks))
	}
	keys := []string{"version", "variant", "n", "n_baseline", "n_paired", "mean", "baseline_mean", "mean_diff", "test",
		"statistic", "p", "p_adj", "a12", "hl_shift", "hl_low", "hl_high", "margin", "margin_a12", "alpha",
		"correction", "regression", "message", "warnings",
		"n_unmatched", "paired", "hypothesis", "margin_on", "family", "failed", "power", "power_loss"}
	for _, c := range doc.Checks {
		if len(c) != len(keys) {
			t.Errorf("%d keys, want %d: %v", len(c), len(keys), c)
		}
		for _, k := range keys {
			if _, ok := c[k]; !ok {
				t.Errorf("key %q missing", k)
			}
		}
	}
	// Non-finite numbers are null, not an encoding error.
	c := checks[0]
	c.HLLow, c.Statistic = nan(), inf()
	b, err = JSON([]Check{c})
	if err != nil || !strings.Contains(string(b), `"hl_low": null`) || !strings.Contains(string(b), `"statistic": null`) {
		t.Errorf("non-finite: err %v\n%s", err, b)
	}
	if b, _ := JSON(nil); string(b) != "{\n  \"hypothesis\": \"\",\n  \"family\": \"\",\n  \"failed\": 0,\n  \"regressions\": 0,\n  \"checks\": []\n}\n" {
		t.Errorf("empty: %q", b)
	}
}

func nan() float64 { var z float64; return z / z }
func inf() float64 { var z float64; return 1 / z }

// FuzzNames: any version and variant names give well-formed, schema-valid
// JUnit XML with one test case, and a Markdown table row of 11 cells.
func FuzzNames(f *testing.F) {
	f.Add("v1.0.1", "easy")
	f.Add("a|b", "<x & \"y\">\n]]>")
	f.Add("\x00\xff", "")
	checks := fixture(f)[:1]
	f.Fuzz(func(t *testing.T, version, variant string) {
		c := checks[0]
		c.Version, c.Variant = version, variant
		c.Message = message(c)
		var buf bytes.Buffer
		if err := WriteJUnit(&buf, variant, []Check{c}); err != nil {
			t.Fatal(err)
		}
		var doc junitDoc
		if err := xml.Unmarshal(buf.Bytes(), &doc); err != nil {
			t.Fatalf("%v\n%s", err, buf.Bytes())
		}
		if len(doc.Suites) != 1 || len(doc.Suites[0].Cases) != 1 || doc.Suites[0].Failures != 1 {
			t.Fatalf("structure:\n%s", buf.Bytes())
		}
		if err := validJUnit(buf.Bytes()); err != nil {
			t.Fatal(err)
		}
		if utf8.ValidString(version) && !strings.ContainsFunc(version, func(r rune) bool { return r < 0x20 || r == 0xFFFD }) &&
			!strings.Contains(version, " [") && variant == "" && doc.Suites[0].Cases[0].Name != version {
			t.Errorf("name %q, want %q", doc.Suites[0].Cases[0].Name, version)
		}
		md := Markdown([]Check{c}, version)
		var row string
		for _, line := range strings.Split(md, "\n") {
			if strings.HasPrefix(line, "| ") && !strings.HasPrefix(line, "| version") && !strings.HasPrefix(line, "| ---") {
				if row != "" {
					t.Fatalf("two rows:\n%s", md)
				}
				row = line
			}
		}
		unescaped := strings.ReplaceAll(strings.ReplaceAll(row, `\\`, ""), `\|`, "")
		if n := strings.Count(unescaped, "|"); n != 13 {
			t.Fatalf("row with %d pipes: %q", n, row)
		}
	})
}
