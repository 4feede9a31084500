package main

import (
	"context"
	"flag"
	"fmt"
	"path/filepath"
	"strconv"

	"evolve/seeds"
)

// cmdSeeds is evolve seeds new.
var cmdSeeds = &Command{
	UsageLine: "evolve seeds new [--train N] [--val N] [--test N] --seed S DIR",
	Short:     "create a new frozen seed set (train, val, test and SHA256SUMS)",
	Long: `
Create a new frozen seed set in DIR, for experiments that must not share
seeds with the built-in set (a held-out test split, a replication):

	DIR/train.txt     N train seeds: their failures drive the mutations
	DIR/val.txt       N val seeds: candidates are accepted or rejected on them
	DIR/test.txt      N test seeds: the final version is reported on them
	DIR/SHA256SUMS    each file's SHA-256 (sha256sum -c SHA256SUMS checks it)

The seeds are SplitMix64 outputs from the start state S (decimal or 0x
hex), drawn in order and without repeats, so the splits are disjoint and
the same S and sizes give byte-identical files. Each file starts with a
comment naming its split, size, S and this command. S is required: pick
one and write it down, it is the set's name.

The set is frozen: every run checks the files against SHA256SUMS and
refuses a changed one. DIR must not exist or be empty; nothing is ever
overwritten. Use the set with 'seeds: DIR' in a config (a relative DIR is
relative to the config file's directory), and check it with
'evolve validate DIR'.

Exit status: 0 written, 1 DIR not empty or not writable, 2 usage error.

Examples:

	evolve seeds new --seed 20261123 seeds/replication
	evolve seeds new --train 100 --val 500 --test 2000 --seed 7 seeds/big-val
	echo 'seeds: seeds/replication' > exp.yaml && evolve run --config exp.yaml`,
	SetFlags: seedsFlags,
	Run:      runSeeds,
}

// seedsFlagValues are the flags of evolve seeds.
type seedsFlagValues struct {
	train int
	val   int
	test  int
	seed  string
}

// seedsFlags defines the flags of evolve seeds on fs.
func seedsFlags(fs *flag.FlagSet) any {
	f := new(seedsFlagValues)
	fs.IntVar(&f.train, "train", seeds.DefaultSizes.Train, "number of train seeds, `N` in [1, 1000000]")
	fs.IntVar(&f.val, "val", seeds.DefaultSizes.Val, "number of val seeds, `N` in [1, 1000000]")
	fs.IntVar(&f.test, "test", seeds.DefaultSizes.Test, "number of test seeds, `N` in [1, 1000000]")
	fs.StringVar(&f.seed, "seed", "", "SplitMix64 start state `S`, an unsigned 64-bit integer (decimal or 0x hex); required")
	return f
}

// runSeeds is evolve seeds.
func runSeeds(ctx context.Context, cmd *Command, args []string) error {
	f := cmd.Flags.(*seedsFlagValues)
	if len(args) == 0 || args[0] != "new" {
		return usagef("want the subcommand new (evolve seeds new [flags] DIR)")
	}
	if len(args) != 2 {
		return usagef("want one DIR after new, got %s", plural(len(args)-1, "argument", "arguments"))
	}
	dir := args[1]
	for _, split := range []struct {
		name string
		n    int
	}{{"train", f.train}, {"val", f.val}, {"test", f.test}} {
		if split.n < 1 || split.n > seeds.MaxSplitSize {
			return usagef("--%s must be in [1, %d], got %d", split.name, seeds.MaxSplitSize, split.n)
		}
	}
	if f.seed == "" {
		return usagef("--seed S is required: the set is a function of it, so choose one and record it")
	}
	s, err := strconv.ParseUint(f.seed, 0, 64)
	if err != nil {
		return usagef("--seed must be an unsigned 64-bit integer (decimal or 0x hex), got %q", f.seed)
	}
	by := fmt.Sprintf("evolve seeds new --seed %s", f.seed)
	set, err := seeds.Create(dir, s, seeds.Sizes{Train: f.train, Val: f.val, Test: f.test}, by)
	if err != nil {
		return err
	}
	fmt.Fprintf(cmd.Stdout, "seed set %s: train %d, val %d, test %d seeds (SplitMix64 from %d)\n",
		dir, len(set.Train), len(set.Val), len(set.Test), s)
	for _, sp := range seeds.Splits {
		fmt.Fprintf(cmd.Stdout, "  %-10s sha256 %s\n", sp.File(), set.Hashes[sp])
	}
	fmt.Fprintf(cmd.Stdout, "use it with 'seeds: %s' in a config; check it with 'evolve validate %s'\n",
		filepath.ToSlash(dir), dir)
	return nil
}
