package prompt

import "testing"

func TestIsDocument(t *testing.T) {
	tests := []struct {
		name string
		data string
		want bool
	}{
		{"the base prompt", string(BaseYAML()), true},
		{"version only", "version: v1.0.0\n", true},
		{"sections only", "sections:\n  a: b\n", true},
		{"task only", "task_definition: play\n", true},
		{"parameters only", "policy_parameters: {risk_tolerance: 0.5}\n", true},
		{"a wrong type keeps the key", "version: [1, 2]\nsections: 3\n", true},
		{"invalid UTF-8 keeps the key", "version: v1.0.0\nslug: a\xff\n", true},
		{"a migration list", "- slug: a\n  sections: {a: b}\n", false},
		{"a JSON migration", `[{"slug": "a"}]`, false},
		{"an experiment config", "name: exp\nseeds: seeds\n", false},
		{"a scalar", "hello\n", false},
		{"empty", "", false},
		{"a syntax error", "version: [\n", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := IsDocument([]byte(tt.data)); got != tt.want {
				t.Errorf("IsDocument(%q) = %v, want %v", tt.data, got, tt.want)
			}
		})
	}
}
