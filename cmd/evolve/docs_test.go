package main

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// docExample is one command line of a fenced code block in a doc.
type docExample struct {
	file string
	line int
	args []string // the words after "evolve"
}

// exampleStart finds the evolve invocation in a code line: "evolve ...",
// "$ evolve ...", "bin/evolve ...", "go run ./cmd/evolve ...", also after
// "VAR=value " prefixes.
var exampleStart = regexp.MustCompile(`^(?:\$\s+)?(?:[A-Z_][A-Z0-9_]*=\S*\s+)*(?:go run \./cmd/evolve|(?:\./)?bin/evolve|evolve)\s+(.*)$`)

// inlineExample finds an evolve command in an inline code span.
var inlineExample = regexp.MustCompile("`(?:go run \\./cmd/evolve|evolve) ([^`]+)`")

// docExamples returns the evolve command lines of the fenced code blocks
// of file, continuation lines (ending in '\') joined, and the evolve
// commands of its inline code spans.
func docExamples(t *testing.T, file string) []docExample {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var out []docExample
	in := false
	var pending strings.Builder
	pendingLine := 0
	sc := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		trim := strings.TrimSpace(line)
		if strings.HasPrefix(trim, "```") {
			in = !in
			continue
		}
		if !in {
			// Inline code spans in prose: `evolve report RUN_DIR`.
			for _, m := range inlineExample.FindAllStringSubmatch(line, -1) {
				out = appendExample(out, file, n, m[1])
			}
			continue
		}
		if pending.Len() > 0 {
			pending.WriteString(" " + strings.TrimSuffix(trim, "\\"))
			if !strings.HasSuffix(trim, "\\") {
				out = appendExample(out, file, pendingLine, pending.String())
				pending.Reset()
			}
			continue
		}
		m := exampleStart.FindStringSubmatch(trim)
		if m == nil {
			continue
		}
		if strings.HasSuffix(trim, "\\") {
			pending.WriteString(strings.TrimSuffix(m[1], "\\"))
			pendingLine = n
			continue
		}
		out = appendExample(out, file, n, m[1])
	}
	return out
}

// appendExample splits rest (the text after "evolve") into shell words,
// up to a comment, pipe, ';', '&&' or '||', and appends the example if its
// first word looks like a command name.
func appendExample(out []docExample, file string, line int, rest string) []docExample {
	words := shellWords(rest)
	if len(words) == 0 || !regexp.MustCompile(`^[a-z][a-z-]*$`).MatchString(words[0]) {
		return out
	}
	return append(out, docExample{file: file, line: line, args: words})
}

// shellWords splits s as a POSIX shell would into words (single and double
// quotes, backslash escapes), stopping at an unquoted '#' word, '|', ';',
// '&&', '||' or '>' redirection at the start of a word.
func shellWords(s string) []string {
	var words []string
	var w strings.Builder
	has := false
	quote := byte(0)
	flush := func() {
		if has {
			words = append(words, w.String())
		}
		w.Reset()
		has = false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			} else {
				w.WriteByte(c)
			}
		case c == '\'' || c == '"':
			quote, has = c, true
		case c == '\\' && i+1 < len(s):
			i++
			w.WriteByte(s[i])
			has = true
		case c == ' ' || c == '\t':
			flush()
		case !has && (c == '#' || c == '|' || c == ';' || c == '&' || c == '>'):
			// A comment, pipe, list or redirection starts a word; a '|'
			// inside a word is a synopsis's alternatives (mwu|signed-rank).
			flush()
			return words
		default:
			w.WriteByte(c)
			has = true
		}
	}
	flush()
	return words
}

// helpFlags returns the flags `evolve ARGS... --help` lists, and its exit
// status.
func helpFlags(args []string) (map[string]bool, int, string) {
	var out bytes.Buffer
	code := run(context.Background(), &out, io.Discard, append(append([]string{}, args...), "--help"))
	flags := map[string]bool{"h": true, "help": true}
	for _, l := range strings.Split(out.String(), "\n") {
		if m := regexp.MustCompile(`^\s+-([a-z0-9][a-z0-9-]*)`).FindStringSubmatch(l); m != nil {
			flags[m[1]] = true
		}
	}
	return flags, code, out.String()
}

// TestDocExamples parses every evolve command line in the code blocks of
// README.md and docs/*.md and checks it against the current CLI: the
// command (and subcommand) exists and every flag it uses is one that
// command's --help lists. Help and docs cannot drift apart.
func TestDocExamples(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "..", "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	files = append([]string{filepath.Join("..", "..", "README.md")}, files...)
	sort.Strings(files[1:])
	checked := 0
	for _, f := range files {
		for _, ex := range docExamples(t, f) {
			where := ex.file + ":" + itoa(ex.line)
			name := ex.args[0]
			c := lookup(name)
			if c == nil {
				t.Errorf("%s: evolve %s: no such command", where, name)
				continue
			}
			target := []string{name}
			rest := ex.args[1:]
			if len(c.Commands) > 0 {
				// The command's own flags come first, then the subcommand.
				i := 0
				for i < len(rest) && strings.HasPrefix(rest[i], "-") {
					i++
				}
				if i < len(rest) && regexp.MustCompile(`^[a-z][a-z-]*$`).MatchString(rest[i]) {
					target = append(target, rest[i])
				}
			}
			flags, code, help := helpFlags(target)
			if code != exitOK {
				t.Errorf("%s: evolve %s --help exits %d:\n%s", where, strings.Join(target, " "), code, help)
				continue
			}
			for _, a := range rest {
				if a == "--" {
					break
				}
				a = strings.Trim(a, "[]()")
				if !strings.HasPrefix(a, "-") || a == "-" {
					continue
				}
				fl := strings.TrimLeft(a, "-")
				fl, _, _ = strings.Cut(fl, "=")
				if fl == "" || !regexp.MustCompile(`^[a-z0-9][a-z0-9-]*$`).MatchString(fl) {
					continue
				}
				if !flags[fl] {
					t.Errorf("%s: evolve %s: flag --%s is not one of its flags (evolve %s --help)", where, strings.Join(ex.args, " "), fl, strings.Join(target, " "))
				}
			}
			checked++
		}
	}
	if checked < 20 {
		t.Errorf("only %d command examples found in README.md and docs/*.md; the parser lost them", checked)
	}
	t.Logf("%d command examples checked", checked)
}

func itoa(n int) string {
	var b [20]byte
	i := len(b)
	for {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
		if n == 0 {
			return string(b[i:])
		}
	}
}

// TestShellWords checks the word splitting of doc examples.
func TestShellWords(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []string
	}{
		{`run --config x.yaml   # comment`, []string{"run", "--config", "x.yaml"}},
		{`prompt rollback --reason "a b" SLUG@exp`, []string{"prompt", "rollback", "--reason", "a b", "SLUG@exp"}},
		{`env check --agent 'python3 a.py' -- python3 env.py`, []string{"env", "check", "--agent", "python3 a.py", "--", "python3", "env.py"}},
		{`eval x | tee out`, []string{"eval", "x"}},
		{`compare [--test mwu|signed-rank] A B`, []string{"compare", "[--test", "mwu|signed-rank]", "A", "B"}},
		{`run && echo`, []string{"run"}},
		{`compare a\ b c`, []string{"compare", "a b", "c"}},
	} {
		got := shellWords(c.in)
		if strings.Join(got, "\x00") != strings.Join(c.want, "\x00") {
			t.Errorf("shellWords(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
