package store

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"evolve/online"
	"evolve/prompt"
)

// lineage is a hand-built graph of agent: v1.0.0 (root) superseded by
// v1.0.1 on main, v1.0.2 a candidate never made HEAD, v1.1.0 branched
// into exp from v1.0.0, and coder inheriting agent.
func lineage() *Graph {
	at := func(s int) time.Time { return time.Date(2026, 11, 22, 12, 0, s, 0, time.UTC) }
	ref := func(slug, v string) prompt.Ref { return prompt.Ref{Slug: slug, Version: vv(v)} }
	return &Graph{
		Versions: []VersionInfo{
			{Seq: 1, Slug: "agent", Branch: "main", Version: vv("v1.0.0"), Type: "system", Tags: []string{"base"}, Created: at(1)},
			{Seq: 2, Slug: "agent", Branch: "main", Version: vv("v1.0.1"), Type: "system", Created: at(2), Operator: "edit", Description: "test edit"},
			{Seq: 4, Slug: "agent", Branch: "main", Version: vv("v1.0.2"), Type: "system", Created: at(4)},
			{Seq: 5, Slug: "agent", Branch: "exp", Version: vv("v1.1.0"), Type: "system", Created: at(5)},
			{Seq: 7, Slug: "coder", Branch: "main", Version: vv("v1.0.0"), Type: "user", Created: at(7)},
		},
		Edges: []Edge{
			{Seq: 3, Kind: Supersedes, From: ref("agent", "v1.0.1"), To: ref("agent", "v1.0.0"), Branch: "main", Time: at(3)},
			{Seq: 6, Kind: BranchedFrom, From: ref("agent", "v1.1.0"), To: ref("agent", "v1.0.0"), Branch: "exp", Time: at(6)},
			{Seq: 8, Kind: InheritsFrom, From: ref("coder", "v1.0.0"), To: prompt.Ref{Slug: "agent"}, Time: at(8)},
		},
	}
}

func TestEdgeDescribe(t *testing.T) {
	a0 := prompt.Ref{Slug: "agent", Version: vv("v1.0.0")}
	a1 := prompt.Ref{Slug: "agent", Version: vv("v1.0.1")}
	c0 := prompt.Ref{Slug: "coder", Version: vv("v1.0.0")}
	ev := &RollbackEvidence{Evidence: online.Evidence{Window: 10, Baseline: 30, BaselineMean: 0.8, RecentMean: 0.2,
		Sigma: 0.1, K: 3, Threshold: 0.7367, Observations: 40}, LogSeq: 41}
	tests := []struct {
		name string
		e    Edge
		self prompt.Ref
		want string
	}{
		{"supersedes", Edge{Kind: Supersedes, From: a1, To: a0}, a1, "supersedes v1.0.0"},
		{"superseded by", Edge{Kind: Supersedes, From: a1, To: a0}, a0, "superseded by v1.0.1"},
		{"branched from", Edge{Kind: BranchedFrom, From: a1, To: a0, Branch: "exp"}, a1, "branched from agent@v1.0.0 into branch exp"},
		{"forked into", Edge{Kind: BranchedFrom, From: a1, To: a0, Branch: "exp"}, a0, "forked into branch exp as v1.0.1"},
		{"rolled back to", Edge{Kind: RolledBack, From: a1, To: a0, Reason: "val regression"}, a1, `rolled back to v1.0.0 ("val regression")`},
		{"rolled back here", Edge{Kind: RolledBack, From: a1, To: a0}, a0, "HEAD rolled back here from v1.0.1"},
		{"automatic", Edge{Kind: RolledBack, From: a1, To: a0, Reason: "ignored", Evidence: ev}, a1,
			"rolled back to v1.0.0 automatically: window of 10 mean 0.2000 < baseline (30) mean 0.8000 - 3 sigma (0.1000) sqrt(1/10 + 1/30) = 0.7367, after 40 observations (log event 41)"},
		{"inherits", Edge{Kind: InheritsFrom, From: c0, To: prompt.Ref{Slug: "agent", Branch: "exp"}}, c0, "inherits from agent@exp"},
		{"inherited by", Edge{Kind: InheritsFrom, From: c0, To: a0}, a0, "inherited by coder@v1.0.0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.e.Describe(tt.self); got != tt.want {
				t.Errorf("Describe = %q\nwant       %q", got, tt.want)
			}
		})
	}
}

func TestBranchHeads(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteBranchHeads(&buf, lineage().BranchHeads()); err != nil {
		t.Fatal(err)
	}
	want := `slug   type    branch  head    versions  inherits from  tags
agent  system  main    v1.0.1  3         -              
agent  system  exp     v1.1.0  1         -              
coder  user    main    v1.0.0  1         agent          
`
	if buf.String() != want {
		t.Errorf("got\n%s\nwant\n%s", buf.String(), want)
	}
	if rows := (&Graph{}).BranchHeads(); rows == nil || len(rows) != 0 {
		t.Errorf("empty graph: %#v, want an empty non-nil slice", rows)
	}
	for _, r := range lineage().BranchHeads() {
		if r.Tags == nil {
			t.Errorf("%s@%s: nil tags (JSON would print null)", r.Slug, r.Branch)
		}
	}
}

func TestWriteLog(t *testing.T) {
	g := lineage()
	entry := func(v string, head bool) LogEntry {
		vi, _ := g.Find("agent", vv(v))
		return LogEntry{VersionInfo: vi, Head: head, Edges: g.EdgesOf("agent", vv(v))}
	}
	e1 := entry("v1.0.1", true)
	e1.Record = &prompt.MutationRecord{Operator: "threshold_adjustment", Description: "Adjusted health_threshold",
		Evidence: &prompt.Evidence{Test: "mann-whitney-u", Alternative: "greater", PValue: 0.0012, AdjustedPValue: 0.0048,
			Correction: "holm", A12: 0.58, NIncumbent: 300, NCandidate: 300, IncumbentValMean: 536.4, CandidateValMean: 601.25, Accepted: true}}
	e1.Online = &VersionWeight{Weight: 0.25, Observations: 4, ScoreSum: 2, Resets: 1,
		Alarm: &Alarm{Time: time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC), Branch: "main", RolledBackTo: ptr(vv("v1.0.0")),
			Evidence: online.Evidence{Observations: 4, RecentMean: 0.1, Threshold: 0.5}}}
	e2 := entry("v1.0.2", false)
	e0 := entry("v1.0.0", false)

	t.Run("chain", func(t *testing.T) {
		var buf bytes.Buffer
		if err := WriteLog(&buf, g, "agent", "main", []LogEntry{e1, e0}, false); err != nil {
			t.Fatal(err)
		}
		want := `agent@main: HEAD v1.0.1, 2 versions on the chain

v1.0.1 (HEAD)  2026-11-22 12:00:02
    threshold_adjustment: Adjusted health_threshold
    evidence: mann-whitney-u (greater), p 0.0012, adjusted p 0.0048 (holm), A12 0.580, val mean 536.4 → 601.2 (n 300, 300), generation 0, accepted
    supersedes v1.0.0  2026-11-22 12:00:03
    online: weight 0.2500, 4 observations, mean score 0.5000, detector reset 1 times
    alarm at observation 4: window mean 0.1000 < 0.5000: HEAD of main rolled back to v1.0.0  2026-11-23 00:00:00

v1.0.0  2026-11-22 12:00:01
    root
    superseded by v1.0.1  2026-11-22 12:00:03
    forked into branch exp as v1.1.0  2026-11-22 12:00:06
`
		if buf.String() != want {
			t.Errorf("got\n%s\nwant\n%s", buf.String(), want)
		}
	})
	t.Run("all", func(t *testing.T) {
		var buf bytes.Buffer
		if err := WriteLog(&buf, g, "agent", "main", []LogEntry{e0, e2}, true); err != nil {
			t.Fatal(err)
		}
		want := `agent@main: HEAD v1.0.1, 2 versions on 2 branches

v1.0.0 (branch main)  2026-11-22 12:00:01
    root
    superseded by v1.0.1  2026-11-22 12:00:03
    forked into branch exp as v1.1.0  2026-11-22 12:00:06

v1.0.2 (branch main, never HEAD)  2026-11-22 12:00:04
    root
`
		if buf.String() != want {
			t.Errorf("got\n%s\nwant\n%s", buf.String(), want)
		}
	})
}

func ptr[T any](v T) *T { return &v }

// The text of a plan: the summary says what was or would be written, each
// entry's details follow its action, and the problems come last.
func TestMigrationPlanText(t *testing.T) {
	m := readMigration(t, "ten.json")
	plan, err := PlanMigration(filepath.Join(t.TempDir(), "prompts"), m, testStore(t).TextPolicy, func() time.Time { return t0 })
	if plan == nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := plan.WriteText(&buf, "STORE"); err != nil {
		t.Fatal(err)
	}
	want := `migration ten.json: 10 entries, 1 problem (dry run: nothing written)
entry  line  action     prompt              version  details
0      2     create     base-agent@main     v1.0.0   system; sections identity, constraints, tools
1      18    create     coding-agent@main   v1.0.0   system; inherits base-agent; sections tools, style
2      25    create     writing-agent@main  v1.0.0   system; inherits base-agent@v1.0.0; sections style
3      30    branch     base-agent@exp      v2.0.0   forked from base-agent@v1.0.0 (major); system; sections identity, constraints, tools
4      45    create     greeter@main        v1.0.0   user; sections greeting
5      46    create     tool-runner@main    v1.0.0   tool; sections usage
6      47    invalid    helper@main         -        1 problem(s), below
7      56    append     coding-agent@main   v1.0.1   supersedes v1.0.0 (patch); system; inherits base-agent; sections tools, style
8      64    unchanged  base-agent@main     -        HEAD v1.0.0 holds this content
9      80    create     reviewer@main       v1.0.0   system; inherits writing-agent; sections checklist

problems:
    ten.json: line 47: entry 6: sections.notes: forbidden pattern ignore_previous_instructions (meta_override): "ignore all previous instructions" (line 2, column 8 of the text)
`
	if buf.String() != want {
		t.Errorf("got\n%s\nwant\n%s", buf.String(), want)
	}
	if n := plan.Written(); n != 8 {
		t.Errorf("Written() = %d, want 8 (ten entries, one invalid, one unchanged)", n)
	}

	// Without problems the summary names the count and the directory.
	ok := &MigrationPlan{File: "f.json", Entries: []PlannedEntry{{Slug: "a", Branch: "main", Action: ActionCreate, Version: ptr(vv("v1.0.0")), Type: "system"}, {Entry: 1, Action: ActionInvalid}}}
	for _, tt := range []struct {
		dry  bool
		want string
	}{
		{true, "migration f.json: 2 entries (dry run: would write 1 version to DIR)\n"},
		{false, "migration f.json: 2 entries: wrote 1 version to DIR\n"},
	} {
		ok.DryRun = tt.dry
		buf.Reset()
		ok.WriteText(&buf, "DIR")
		if first, _, _ := strings.Cut(buf.String(), "entry"); first != tt.want {
			t.Errorf("dry run %v: summary %q, want %q", tt.dry, first, tt.want)
		}
		if !strings.Contains(buf.String(), "\n1      0     invalid  ?       -        0 problem(s), below\n") {
			t.Errorf("an entry without a slug should show as ?:\n%s", buf.String())
		}
	}
}
