package process

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"evolve/envs"
)

// The schemas of docs/protocol are checked with
// github.com/santhosh-tekuri/jsonschema/v6 (a test-only dependency: a
// complete draft 2020-12 validator that passes the JSON Schema test
// suite, with no dependencies beyond golang.org/x/text, which we have).

var protocolDir = filepath.Join("..", "..", "docs", "protocol")

// schemas compiles every docs/protocol/*.schema.json, by name ("outcome",
// "step.response").
func schemas(t *testing.T) map[string]*jsonschema.Schema {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(protocolDir, "*.schema.json"))
	if err != nil || len(files) < 15 {
		t.Fatalf("schema files: %v, %v", files, err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	out := map[string]*jsonschema.Schema{}
	for _, f := range files {
		abs, _ := filepath.Abs(f)
		s, err := c.Compile(abs)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		out[strings.TrimSuffix(filepath.Base(f), ".schema.json")] = s
	}
	return out
}

func validate(t *testing.T, sc map[string]*jsonschema.Schema, name string, line []byte) {
	t.Helper()
	s, ok := sc[name]
	if !ok {
		t.Errorf("no schema %q for %s", name, line)
		return
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(line))
	if err != nil {
		t.Errorf("%s: %v", line, err)
		return
	}
	if err := s.Validate(v); err != nil {
		t.Errorf("%s does not conform to %s.schema.json: %v", line, name, err)
	}
}

// docExamples returns the lines of docs/protocol.md's fenced blocks whose
// info string is "json NAME", with their schema NAME.
func docExamples(t *testing.T) (names []string, lines [][]byte) {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "..", "docs", "protocol.md"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	name := ""
	for sc.Scan() {
		l := sc.Text()
		switch {
		case strings.HasPrefix(l, "```json "):
			name = strings.TrimPrefix(l, "```json ")
		case strings.HasPrefix(l, "```"):
			name = ""
		case name != "" && strings.TrimSpace(l) != "":
			names = append(names, name)
			lines = append(lines, []byte(l))
		}
	}
	return names, lines
}

// TestDocExamples: every example message of docs/protocol.md conforms to
// its schema, the hello example is accepted by New's checks, and the
// outcome examples decode against it.
func TestDocExamples(t *testing.T) {
	sc := schemas(t)
	names, lines := docExamples(t)
	if len(lines) < 15 {
		t.Fatalf("found %d examples in docs/protocol.md", len(lines))
	}
	var info envs.Info
	for i, l := range lines {
		validate(t, sc, names[i], l)
		switch names[i] {
		case "hello.response":
			h, err := checkHello(l)
			if err != nil {
				t.Fatalf("hello example: %v", err)
			}
			info = envs.Info{Name: h.Name, Causes: h.Causes, Metrics: h.Metrics, Params: h.Parameters, Remedies: h.Remedies, Fill: h.Fill}
			if err := info.Check(); err != nil {
				t.Errorf("hello example: %v", err)
			}
			if errs := CheckRemedies(&info); len(errs) > 0 {
				t.Errorf("hello example: %v", errs)
			}
		case "outcome":
			if _, err := decodeOutcome(l, 1, &info); err != nil {
				t.Errorf("outcome example: %v", err)
			}
		case "play.response":
			var r reply
			if err := decodeReply(l, 1, "outcome", &r); err != nil {
				t.Errorf("play.response example: %v", err)
			} else if _, err := decodeOutcome(r.Outcome, 1, &info); err != nil {
				t.Errorf("play.response example: %v", err)
			}
		}
	}
	// The schemas reject what evolve rejects.
	for _, bad := range []struct{ name, line string }{
		{"outcome", `{"score":1,"end_reason":"x"}`},
		{"outcome", `{"score":1,"end_reason":"x","cause":"error"}`},
		{"step.response", `{"id":3,"type":"step","observation":1,"reward":0,"done":true}`},
		{"hello.response", `{"id":0,"type":"hello","protocol":1,"name":"x","provides":["agent"],"mode":"episode"}`},
		{"play.request", `{"id":1,"type":"play","seed":18446744073709551616,"params":{},"prompt":null}`},
	} {
		v, _ := jsonschema.UnmarshalJSON(strings.NewReader(bad.line))
		if sc[bad.name].Validate(v) == nil {
			t.Errorf("%s conforms to %s.schema.json; want a violation", bad.line, bad.name)
		}
	}
}

// TestExampleMessagesConform plays the Python examples (both modes) and
// validates every request evolve wrote and every response the examples
// wrote against the schemas.
func TestExampleMessagesConform(t *testing.T) {
	py := python3(t)
	sc := schemas(t)
	stepCfg := testConfig(exampleDir, py, "step_env.py")
	stepCfg.Agent = []string{py, "step_agent.py"}
	for _, cfg := range []Config{testConfig(exampleDir, py, "env.py"), stepCfg} {
		e := newEnv(t, cfg)
		for _, h := range []*hello{e.hello, e.agent} {
			if h != nil {
				validate(t, sc, "hello.request", []byte(`{"id":0,"type":"hello","protocol":1}`))
				validate(t, sc, "hello.response", h.raw)
			}
		}
		p := newPlayer(t, e, 0)
		p.trace = &trace{record: true}
		for s := range uint64(5) {
			p.trace.reset()
			if _, err := p.Play(context.Background(), envs.Episode{Seed: s << 60, Params: e.Info().Params.Defaults(), Prompt: checkPrompt}); err != nil {
				t.Fatal(err)
			}
		}
		p.Close()
		n := 0
		for _, l := range p.trace.lines {
			var req struct{ Type string }
			if err := json.Unmarshal(l[0], &req); err != nil {
				t.Fatalf("request %s: %v", l[0], err)
			}
			validate(t, sc, req.Type+".request", l[0])
			validate(t, sc, req.Type+".response", l[1])
			n++
		}
		if n < 5 {
			t.Errorf("%v: %d messages traced", cfg.Command, n)
		}
	}
}
