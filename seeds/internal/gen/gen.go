// Package gen generates the embedded seed files of package seeds.
//
// They are seeds.Generate(Origin, seeds.DefaultSizes, By): SplitMix64
// (Steele, Lea and Flood 2014) started at the constant Origin; the first
// 200 distinct values form train, the next 300 val, the next 1000 test.
// Run `go run ./seeds/internal/gen/cmd` from the repository root to rewrite
// the files; a test of package seeds checks they match.
package gen

import "evolve/seeds"

// Origin is the SplitMix64 start state of the embedded seed sets.
const Origin = 0x65766f6c7665 // "evolve" in ASCII

// By names this generator in the files' header.
const By = "seeds/internal/gen"

// Files returns the contents of the three split files and of SHA256SUMS,
// by file name.
func Files() (map[string][]byte, error) { return seeds.Generate(Origin, seeds.DefaultSizes, By) }
