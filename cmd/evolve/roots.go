package main

import "os"

// viewRoots returns the directories evolve runs and evolve view read:
// args, or runs and evals (those that exist) when there are none. No
// argument and neither default directory is a usage error.
func viewRoots(args []string) ([]string, error) {
	if len(args) > 0 {
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
