package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRun runs the generator in-process and checks that it writes the
// committed weights and prints the cross-validated rates.
func TestRun(t *testing.T) {
	out := filepath.Join(t.TempDir(), "w.bin")
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), &stdout, &stderr, []string{"-corpora", "../../testdata", "-o", out, "-v"}); code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile("../../weights.bin")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Error("train wrote other weights than weights.bin: run go generate ./guard")
	}
	if !strings.Contains(stdout.String(), "fold 9: ") || !strings.Contains(stdout.String(), "role_reassignment") {
		t.Errorf("stdout lacks the folds or categories:\n%s", stdout.String())
	}
}

func TestRunErrors(t *testing.T) {
	tests := []struct {
		args []string
		code int
	}{
		{[]string{"-nope"}, exitUsage},
		{[]string{"extra"}, exitUsage},
		{[]string{"-corpora", t.TempDir(), "-o", filepath.Join(t.TempDir(), "w.bin")}, exitFail},
	}
	for _, tt := range tests {
		var stdout, stderr bytes.Buffer
		if code := run(context.Background(), &stdout, &stderr, tt.args); code != tt.code || stderr.Len() == 0 {
			t.Errorf("run %q = %d, stderr %q; want %d and a message", tt.args, code, stderr.String(), tt.code)
		}
	}
}
