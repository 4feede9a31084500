package main

import (
	"fmt"
	"os"
)

// viewRoots returns the directories evolve runs and evolve view read:
// args, or runs and evals (those that exist) when there are none. No
// argument and neither default directory is a usage error; an argument
// that is not a directory (a file, a missing path) is an error naming
// it.
func viewRoots(args []string) ([]string, error) {
	if len(args) > 0 {
		for _, a := range args {
			fi, err := os.Stat(a)
			if err != nil {
				return nil, err
			}
			if !fi.IsDir() {
				return nil, fmt.Errorf("%s is not a directory: give the directories that hold runs and evals (e.g. runs, evals)", a)
			}
		}
		return args, nil
	}
	var roots []string
	for _, d := range []string{"runs", "evals"} {
		if fi, err := os.Stat(d); err == nil && fi.IsDir() {
			roots = append(roots, d)
		}
	}
	if len(roots) == 0 {
		return nil, usagef("no DIR given and neither runs/ nor evals/ exists here")
	}
	return roots, nil
}
