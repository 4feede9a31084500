package store

import (
	"evolve/prompt"
	"fmt"
	"testing"
)

// BenchmarkStoreAppend measures one Append to a store of a few hundred
// versions: lock, index read and write (both fsynced), a new file.
func BenchmarkStoreAppend(b *testing.B) {
	s, err := OpenStore(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	p := sectioned("agent", "identity", "You help.")
	p.PolicyParameters = prompt.Base().PolicyParameters
	for i := 0; i < 200; i++ {
		p.Metadata = prompt.Metadata{"i": int64(i)}
		if _, err := s.Append(p.Clone(), "edit", ""); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		p.Metadata = prompt.Metadata{"i": int64(-i - 1)}
		if _, err := s.Append(p.Clone(), "edit", fmt.Sprint(i)); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkResolve measures resolving a prompt through a chain of eight
// ancestors from the store (index read, eight verified file loads, merge).
func BenchmarkResolve(b *testing.B) {
	s, err := OpenStore(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	for i := 0; i < 9; i++ {
		p := sectioned(fmt.Sprintf("p%d", i), "identity", "You help.", fmt.Sprintf("s%d", i), "More.")
		if i > 0 {
			p.InheritsFrom = &prompt.Ref{Slug: fmt.Sprintf("p%d", i-1)}
		}
		if _, err := s.Append(p, "edit", ""); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		res, err := s.Resolve(prompt.Ref{Slug: "p8"})
		if err != nil || len(res.Prompt.Sections) != 10 {
			b.Fatal(err)
		}
	}
}
