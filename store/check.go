package store

import (
	"fmt"
	"os"
	"strconv"

	"evolve/guard"
	"evolve/prompt"
)

// Check checks every entry of m on its own, without a store, as
// evolve prompt validate does: it returns m's decoding problems (of the
// file, Entry -1, and of each entry) followed by the problems CheckEntry
// finds in each entry that decoded without one, with Entry and Line set,
// in entry order. Problems that need a store (inheritance from a prompt
// that does not exist, a branch that exists already) are Migrate's.
// nil means every entry would be accepted on its own.
func (m *Migration) Check(policy guard.Policy) []Problem {
	probs := append([]Problem(nil), m.Problems...)
	bad := map[int]bool{}
	for _, p := range m.Problems {
		bad[p.Entry] = true
	}
	for i := range m.Entries {
		if bad[i] {
			continue
		}
		for _, p := range CheckEntry(&m.Entries[i], policy) {
			p.Entry, p.Line = i, m.Line(i)
			probs = append(probs, p)
		}
	}
	return probs
}

// FileCheck is the verdict on one file of evolve prompt validate: a prompt
// version or a migration, checked as a store would check it before
// writing (see CheckFile). Its JSON form is what evolve prompt validate
// --json prints per file.
type FileCheck struct {
	File string `json:"file"` // the path as given
	// Kind is what the file was read as: "prompt v1.0.1" (or "prompt" if
	// it did not decode), "migration, 10 entries", or "file" if it could
	// not be read.
	Kind   string       `json:"kind"`
	Status guard.Status `json:"status"` // guard.Valid or guard.Rejected
	// Issues are a prompt file's text issues (field, line and column in
	// the text, pattern, byte offset); empty, never nil.
	Issues []guard.Issue `json:"issues"`
	// Problems are every other problem, one message each, naming the
	// file: decoding, schema and parameter problems of a prompt, every
	// problem of a migration's entries ("FILE: line 3: entry 0: FIELD:
	// MSG"), or the read error; empty, never nil.
	Problems []string `json:"problems"`
}

// CheckFile reads the file at path and checks it as a store would before
// writing it: a prompt version (prompt.IsDocument) with checker (decoding,
// content hash, parameters against checker.Schema, every text against
// checker.Policy), or else a migration (DecodeMigration and
// Migration.Check with checker.Policy, each entry on its own). Every
// problem is in the result, which is Rejected if there is any; a file
// that cannot be read is Rejected with the read error as its problem.
func CheckFile(path string, checker prompt.Checker) FileCheck {
	r := FileCheck{File: path, Kind: "file", Status: guard.Valid, Issues: []guard.Issue{}, Problems: []string{}}
	reject := func(msg string) { r.Status, r.Problems = guard.Rejected, append(r.Problems, msg) }
	data, err := os.ReadFile(path)
	if err != nil {
		reject(err.Error())
		return r
	}
	if prompt.IsDocument(data) {
		r.Kind = "prompt"
		c := checker.Check(path, data)
		if c.Prompt != nil {
			r.Kind = "prompt " + c.Prompt.Ref().String()
		}
		for _, p := range c.Problems {
			reject(p.Error())
		}
		if len(c.Issues) > 0 {
			r.Status, r.Issues = guard.Rejected, c.Issues
		}
		return r
	}
	m := DecodeMigration(path, data)
	r.Kind = "migration, " + plural(len(m.Entries), "entry", "entries")
	for _, p := range m.Check(checker.Policy) {
		reject(fmt.Sprintf("%s: %s", path, p))
	}
	return r
}

// plural returns n and the noun in the number n asks for: "1 entry",
// "2 entries".
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}
