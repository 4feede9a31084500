package main

import (
	"flag"
	"strings"
)

// parseInterleaved parses args with fs, taking flags before, between and
// after the positional arguments (the standard flag package stops at the
// first argument that is not a flag), and returns the positional arguments
// in their order. "--" ends the flags: everything after it is positional,
// even if it starts with "-". A lone "-" is positional (it often means
// stdin). The errors are fs.Parse's, flag.ErrHelp included.
//
// Every evolve command parses its command line with it, so
// `evolve compare --json a b` and `evolve compare a b --json` mean the
// same.
func parseInterleaved(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if consumed := len(args) - len(rest); consumed > 0 && args[consumed-1] == "--" && !isFlagValue(fs, args[:consumed-1]) {
			// fs.Parse stopped at "--" and dropped it: the rest is
			// positional.
			return append(pos, rest...), nil
		}
		if len(rest) == 0 {
			return pos, nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

// isFlagValue reports whether the argument following before (a prefix of
// a command line fs parsed) is the value of a flag: before ends with
// "-name" or "--name" (no "=value") naming a flag of fs that is not
// boolean, so the argument after it was that flag's value, not an
// end-of-flags marker.
func isFlagValue(fs *flag.FlagSet, before []string) bool {
	if len(before) == 0 {
		return false
	}
	a := before[len(before)-1]
	if len(a) < 2 || a[0] != '-' || a == "--" || strings.Contains(a, "=") {
		return false
	}
	f := fs.Lookup(strings.TrimPrefix(a[1:], "-"))
	if f == nil {
		return false
	}
	b, ok := f.Value.(interface{ IsBoolFlag() bool })
	return !ok || !b.IsBoolFlag()
}
