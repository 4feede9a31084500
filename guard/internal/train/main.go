// Command train fits the classifier of package guard on its corpora and
// writes its weights; `go generate ./guard` runs it. Usage:
//
//	train [-corpora DIR] [-o FILE] [-v]
//
// It reads DIR/attacks.tsv and DIR/benign.txt (default testdata, relative
// to package guard, where go generate runs), cross-validates the intents
// and a naive Bayes model together over 10 folds to choose the threshold
// at which at most 0.5% of benign lines are flagged, fits the model on
// every line, and writes it to FILE (default weights.bin) in the format of
// bayes.Model.Encode. The fit is deterministic: the same corpora give the
// same bytes, which TestWeightsReproducible checks. It never reads the
// weights it replaces, so it runs when they are stale or empty. Rerun it
// after changing the corpora, the way package guard reads words, or the
// intents, whose verdicts enter the threshold. With -v it prints the
// cross-validated rates per fold and per category to stdout.
//
// Exit status: 0 on success, 1 if the corpora cannot be read or the file
// written, 2 for a usage error.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"

	"evolve/guard/internal/bayes"
	"evolve/guard/internal/corpus"
)

// Exit statuses.
const (
	exitOK    = 0
	exitFail  = 1
	exitUsage = 2
)

func main() {
	os.Exit(run(context.Background(), os.Stdout, os.Stderr, os.Args[1:]))
}

func run(_ context.Context, stdout, stderr io.Writer, args []string) int {
	fs := flag.NewFlagSet("train", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dir := fs.String("corpora", "testdata", "the directory of attacks.tsv and benign.txt")
	out := fs.String("o", "weights.bin", "the weights file to write")
	verbose := fs.Bool("v", false, "print the cross-validated rates")
	if err := fs.Parse(args); err != nil {
		return exitUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "train: unexpected argument %q\n", fs.Arg(0))
		return exitUsage
	}
	m, cv, err := corpus.Build(*dir, bayes.DefaultConfig)
	if err != nil {
		fmt.Fprintln(stderr, "train:", err)
		return exitFail
	}
	if err := os.WriteFile(*out, m.Encode(), 0o644); err != nil {
		fmt.Fprintln(stderr, "train:", err)
		return exitFail
	}
	if *verbose {
		printCV(stdout, cv)
	}
	fmt.Fprintf(stderr, "train: wrote %s: %d keys, threshold %.4f\n", *out, len(m.Keys), m.Threshold)
	return exitOK
}

// printCV writes the rates of cv, one fold a line, then per category.
func printCV(w io.Writer, cv bayes.CV) {
	for f, fd := range cv.Folds {
		fmt.Fprintf(w, "fold %d: threshold %.3f, attacks caught %v, benign flagged %v\n", f, fd.Threshold, fd.CaughtClass, fd.Flagged)
	}
	for c, r := range cv.Total.ByClass {
		fmt.Fprintf(w, "%-25s %v\n", corpus.Classes[c], r)
	}
	t := cv.Total
	fmt.Fprintf(w, "all: caught with own category %v, with any %v; benign flagged %v\n", t.CaughtClass, t.Caught, t.Flagged)
	fmt.Fprintf(w, "rules alone: caught %v, flagged %v; classifier alone: caught %v, flagged %v\n",
		t.RulesCaught, t.RulesFlagged, t.ModelCaught, t.ModelFlagged)
}
