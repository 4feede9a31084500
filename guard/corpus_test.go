package guard_test

import (
	"bufio"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"evolve/guard"
)

// Thresholds of TestCorpus: the least share of the attacks of each
// category rejected with an issue of that category, and the largest share
// of benign lines rejected.
const (
	minDetection     = 0.95
	maxFalsePositive = 0.01
)

// corpusLine is one line of a corpus file.
type corpusLine struct {
	line     int
	category string // "" in benign.txt
	text     string
}

// readCorpus reads testdata/NAME: one text a line, "category<TAB>text" if
// tabbed; blank lines and lines starting with "#" are skipped.
func readCorpus(t testing.TB, name string, tabbed bool) []corpusLine {
	f, err := os.Open("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []corpusLine
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		l := sc.Text()
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		c := corpusLine{line: n, text: l}
		if tabbed {
			var ok bool
			if c.category, c.text, ok = strings.Cut(l, "\t"); !ok {
				t.Fatalf("testdata/%s:%d: no tab in %q", name, n, l)
			}
		}
		out = append(out, c)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// rate is a count out of a total.
type rate struct{ hit, n int }

func (r rate) frac() float64 { return float64(r.hit) / float64(r.n) }

func (r rate) String() string { return fmt.Sprintf("%d/%d = %.3f", r.hit, r.n, r.frac()) }

// TestCorpus checks the default policy on testdata/attacks.tsv (each line
// must get an issue of its category) and testdata/benign.txt (no line may
// get an issue) and logs the detection and false-positive rates per
// category; run with -v to see them. The classifier is fitted on these
// lines, so these are training-set rates; TestClassifierCrossValidated
// gives the cross-validated ones.
func TestCorpus(t *testing.T) {
	p := guard.Default()
	attacks := readCorpus(t, "attacks.tsv", true)
	benign := readCorpus(t, "benign.txt", false)
	if len(attacks) < 100 || len(benign) < 500 {
		t.Fatalf("%d attacks and %d benign lines, want at least 100 and 500", len(attacks), len(benign))
	}

	detect := map[string]*rate{}
	total := rate{}
	for _, a := range attacks {
		r := detect[a.category]
		if r == nil {
			r = &rate{}
			detect[a.category] = r
		}
		r.n++
		total.n++
		rep := p.Check(guard.Text{Field: "f", Text: a.text})
		if slices.ContainsFunc(rep.Issues, func(i guard.Issue) bool { return string(i.Category) == a.category }) {
			r.hit++
			total.hit++
		} else {
			t.Logf("missed attacks.tsv:%d (%s): %q %v", a.line, a.category, a.text, rep.Issues)
		}
	}

	fp := map[guard.Category]int{}
	flagged := rate{n: len(benign)}
	for _, b := range benign {
		rep := p.Check(guard.Text{Field: "f", Text: b.text})
		if !rep.OK() {
			flagged.hit++
			seen := map[guard.Category]bool{}
			for _, i := range rep.Issues {
				if !seen[i.Category] {
					fp[i.Category]++
					seen[i.Category] = true
				}
			}
			t.Logf("flagged benign.txt:%d: %v", b.line, rep.Issues)
		}
	}

	cats := []guard.Category{guard.MetaOverride, guard.SafetyBypass, guard.SystemPromptDisclosure, guard.RoleReassignment}
	for _, c := range cats {
		r := detect[string(c)]
		if r == nil {
			t.Fatalf("no attack of category %s", c)
		}
		fpr := rate{fp[c], len(benign)}
		t.Logf("%-25s detected %-16v benign flagged %v", c, r, fpr)
		if r.frac() < minDetection {
			t.Errorf("%s: detection %v, want >= %.2f", c, r, minDetection)
		}
	}
	t.Logf("%-25s detected %-16v benign flagged %v", "all", total, flagged)
	if flagged.frac() > maxFalsePositive {
		t.Errorf("benign lines flagged: %v, want <= %.2f", flagged, maxFalsePositive)
	}
}
