package experiment

import (
	"strings"
	"testing"

	"evolve/trajectory"
)

// llmYAML is a language-model config (no server is reached: the tests
// only resolve and record it).
const llmYAML = `name: settings
agent:
  kind: llm
  llm: {base_url: "http://127.0.0.1:9", model: m}
`

// A resume without --config plays with every setting the run started
// with, also those the resolved config leaves out; the run's ID does not
// change with them.
func TestResumeRestoresSettings(t *testing.T) {
	for _, tc := range []struct {
		name string
		yaml string // added to llmYAML
		got  func(*Config) any
		want any
	}{
		{"workers", "workers: 3\n", func(c *Config) any { return c.Workers }, 3},
		{"trajectories", "trajectories: all\n", func(c *Config) any { return c.Trajectories }, trajectory.All},
		{"max_error_rate", "max_error_rate: 0.25\n", func(c *Config) any { return c.MaxErrorRate }, 0.25},
		{"agent.cache read", "  cache: read\n", func(c *Config) any { return c.Agent.Cache }, "read"},
		{"agent.cache off", "  cache: off\n", func(c *Config) any { return c.Agent.Cache }, "off"},
		{"agent.cache_dir", "  cache_dir: /tmp/llm-cache\n", func(c *Config) any { return c.Agent.CacheDir }, "/tmp/llm-cache"},
		{"agent.max_fallback_rate", "  max_fallback_rate: 0.05\n", func(c *Config) any { return c.Agent.MaxFallbackRate }, 0.05},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := llmYAML
			if strings.HasPrefix(tc.yaml, " ") {
				data += tc.yaml // an agent key
			} else {
				data = tc.yaml + data
			}
			cfg, err := Parse("settings.yaml", []byte(data))
			if err != nil {
				t.Fatal(err)
			}
			if got := tc.got(cfg); got == tc.got(DefaultConfigLLM(t)) {
				t.Fatalf("%s = %v is the default: the case tests nothing", tc.name, got)
			}
			ck, err := configRecord(cfg)
			if err != nil {
				t.Fatal(err)
			}
			back, given, err := resumeConfig(t.TempDir(), &ck, nil, Options{})
			if err != nil || given {
				t.Fatalf("resumeConfig: %v (given %v)", err, given)
			}
			if got := tc.got(back); got != tc.want {
				t.Errorf("resumed with %s = %v, the run started with %v", tc.name, got, tc.want)
			}
			a, _ := cfg.identity()
			b, _ := back.identity()
			if string(a) != string(b) {
				t.Errorf("the resumed config's identity differs:\n%s\n%s", a, b)
			}
		})
	}
}

// DefaultConfigLLM is llmYAML with nothing else set.
func DefaultConfigLLM(t *testing.T) *Config {
	t.Helper()
	cfg, err := Parse("settings.yaml", []byte(llmYAML))
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// A resume given a config that changes a recorded setting that decides
// when the run stops or what it stores is refused, naming the field;
// --cache may change the cache's mode, and workers and cache_dir may
// change with the machine.
func TestResumeRefusesChangedSettings(t *testing.T) {
	start, err := Parse("a.yaml", []byte("max_error_rate: 0.1\n"+llmYAML+"  cache: read\n  max_fallback_rate: 0.05\n"))
	if err != nil {
		t.Fatal(err)
	}
	ck, err := configRecord(start)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, yaml string
		opt        Options
		want       string // "" for accepted
	}{
		{"same", "max_error_rate: 0.1\n" + llmYAML + "  cache: read\n  max_fallback_rate: 0.05\n", Options{}, ""},
		{"max_fallback_rate", "max_error_rate: 0.1\n" + llmYAML + "  cache: read\n", Options{}, "agent.max_fallback_rate: 0.05 → 0.2"},
		{"max_error_rate", llmYAML + "  cache: read\n  max_fallback_rate: 0.05\n", Options{}, "max_error_rate: 0.1 → 0.05"},
		{"cache", "max_error_rate: 0.1\n" + llmYAML + "  max_fallback_rate: 0.05\n", Options{}, "agent.cache: read → readwrite"},
		{"cache with --cache", "max_error_rate: 0.1\n" + llmYAML + "  max_fallback_rate: 0.05\n", Options{LLMCache: "readwrite"}, ""},
		{"trajectories", "trajectories: none\nmax_error_rate: 0.1\n" + llmYAML + "  cache: read\n  max_fallback_rate: 0.05\n", Options{}, "trajectories: failed → none"},
		{"workers and cache_dir", "workers: 7\nmax_error_rate: 0.1\n" + llmYAML + "  cache: read\n  cache_dir: /elsewhere\n  max_fallback_rate: 0.05\n", Options{}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg, err := Parse("b.yaml", []byte(tc.yaml))
			if err != nil {
				t.Fatal(err)
			}
			_, _, err = resumeConfig("RUN", &ck, cfg, tc.opt)
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("refused: %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("error %v, want one naming %q", err, tc.want)
			}
		})
	}
}
