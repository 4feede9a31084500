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
	"evolve/prompt"
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
		case "run.response":
			var r reply
			err := decodeReply(l, 3, "outcome", &r)
			if err == nil {
				_, err = parseActs(r.Acts, 2)
			}
			if err != nil {
				t.Errorf("run.response example: %v", err)
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
		{"hello.response", `{"id":0,"type":"hello","protocol":1,"name":"x","provides":["environment","agent"],"mode":"episode","actions":["go"]}`},
		{"hello.response", `{"id":0,"type":"hello","protocol":1,"name":"x","provides":["agent"],"mode":"step","actions":["go"]}`},
		{"hello.response", `{"id":0,"type":"hello","protocol":1,"name":"x","provides":["environment"],"mode":"step","actions":["go","go"]}`},
		{"hello.response", `{"id":0,"type":"hello","protocol":1,"name":"x","provides":["environment"],"mode":"step","actions":[" go"]}`},
		{"hello.response", `{"id":0,"type":"hello","protocol":1,"name":"x","provides":["environment","agent"],"mode":"episode","direct":true}`},
		{"hello.response", `{"id":0,"type":"hello","protocol":1,"name":"x","provides":["agent"],"mode":"step","direct":true}`},
		{"run.response", `{"id":3,"type":"outcome","outcome":{"score":1,"end_reason":"x","cause":"none"}}`},
		{"run.response", `{"id":3,"type":"outcome","acts":0,"outcome":{"score":1,"end_reason":"x","cause":"none"}}`},
		{"run.request", `{"id":3,"type":"run","seed":1,"params":{}}`},
		{"play.request", `{"id":1,"type":"play","seed":18446744073709551616,"params":{},"prompt":null}`},
		{"hello.response", `{"id":0,"type":"hello","protocol":1,"name":"x","provides":["environment","agent"],"mode":"episode","parameters":[{"name":"n","type":"number","min":0,"max":1}]}`},
		{"hello.response", `{"id":0,"type":"hello","protocol":1,"name":"x","provides":["environment","agent"],"mode":"episode","parameters":[{"name":"n","type":"integer","min":0,"max":9,"step":1,"default":4.5}]}`},
		{"hello.response", `{"id":0,"type":"hello","protocol":1,"name":"x","provides":["environment","agent"],"mode":"episode","parameters":[{"name":"e","type":"enum","items":["a","b"],"default":1}]}`},
		{"hello.response", `{"id":0,"type":"hello","protocol":1,"name":"x","provides":["environment","agent"],"mode":"episode","parameters":[{"name":"o","type":"ordering","items":["a","b"],"default":"a"}]}`},
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
	directCfg := stepCfg
	directCfg.Direct = true
	for _, cfg := range []Config{testConfig(exampleDir, py, "env.py"), stepCfg, directCfg} {
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

// docBlock returns the fenced block of docs/protocol.md whose info string
// is info ("yaml base_prompt"), without the fence's indentation.
func docBlock(t *testing.T, info string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "docs", "protocol.md"))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	indent := ""
	in := false
	for _, l := range strings.Split(string(b), "\n") {
		trimmed := strings.TrimLeft(l, " ")
		switch {
		case !in && trimmed == "```"+info:
			in, indent = true, l[:len(l)-len(trimmed)]
		case in && trimmed == "```":
			return strings.Join(out, "\n") + "\n"
		case in:
			out = append(out, strings.TrimPrefix(l, indent))
		}
	}
	t.Fatalf("docs/protocol.md has no block %q", info)
	return ""
}

// TestDocBasePrompt: the base prompt of docs/protocol.md section 8 is a
// valid prompt whose policy parameters the hello example's schema accepts
// in another order than declared, and it renders as the doc says.
func TestDocBasePrompt(t *testing.T) {
	names, lines := docExamples(t)
	var h *hello
	for i, n := range names {
		if n == "hello.response" && h == nil { // the forager's, section 2.1
			var err error
			if h, err = checkHello(lines[i]); err != nil {
				t.Fatal(err)
			}
		}
	}
	if h == nil {
		t.Fatal("no hello.response example")
	}
	p, err := prompt.Decode("docs/protocol.md base_prompt", []byte(docBlock(t, "yaml base_prompt")))
	if err != nil {
		t.Fatal(err)
	}
	if err := h.Parameters.Validate(p.PolicyParameters); err != nil {
		t.Errorf("base prompt parameters: %v", err)
	}
	var order []string
	for _, pp := range p.PolicyParameters {
		order = append(order, pp.Name)
	}
	if got, decl := strings.Join(order, " "), strings.Join(h.Parameters.Names(), " "); got == decl {
		t.Errorf("the base prompt's parameters are in the declared order %q; the doc should show that any order will do", decl)
	}
	if got, want := p.Render(), docBlock(t, "text prompt.text"); got != want {
		t.Errorf("the base prompt renders as\n%s\nthe doc says\n%s", got, want)
	}
}

// TestSchemaUnknownKeys: the request schemas list exactly what evolve
// sends, so they reject an unknown key; the response schemas constrain
// the program and allow one (evolve ignores it). docs/protocol.md
// section 1 says both.
func TestSchemaUnknownKeys(t *testing.T) {
	sc := schemas(t)
	names, lines := docExamples(t)
	seen := map[string]bool{}
	for i, name := range names {
		if seen[name] || !strings.HasPrefix(string(lines[i]), "{") {
			continue
		}
		seen[name] = true
		extra := []byte(`{"later_key":1,` + string(lines[i][1:]))
		v, err := jsonschema.UnmarshalJSON(bytes.NewReader(extra))
		if err != nil {
			t.Fatal(err)
		}
		err = sc[name].Validate(v)
		if strings.HasSuffix(name, ".request") && err == nil {
			t.Errorf("%s.schema.json accepts an unknown key: %s", name, extra)
		}
		if !strings.HasSuffix(name, ".request") && err != nil {
			t.Errorf("%s.schema.json rejects an unknown key: %v", name, err)
		}
	}
	for _, name := range []string{"hello.request", "play.request", "reset.request", "step.request", "begin.request", "act.request", "close.request", "hello.response", "outcome"} {
		if !seen[name] {
			t.Errorf("docs/protocol.md has no %s example", name)
		}
	}
}
