package online

import (
	"os"
	"reflect"
	"strings"
	"testing"
)

// TestParseSignals: a table with defaults and a binary signal, and each
// way a table can be wrong, named by file, line and field.
func TestParseSignals(t *testing.T) {
	good := `signals:
  - name: time_pressure
    description: shorter turn limit
  - {name: temperature, min: -40, max: 50}
  - {name: task_coding, binary: true}
`
	got, err := ParseSignals("s.yaml", []byte(good))
	if err != nil {
		t.Fatal(err)
	}
	want := []SignalSpec{
		{Name: "time_pressure", Min: 0, Max: 1, Description: "shorter turn limit"},
		{Name: "temperature", Min: -40, Max: 50},
		{Name: "task_coding", Min: 0, Max: 1, Binary: true},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("ParseSignals = %+v, want %+v", got, want)
	}
	for _, tt := range []struct{ name, yaml, want string }{
		{"empty list", "signals: []\n", "s.yaml:1: signals: no signals declared"},
		{"unknown key", "signals:\n  - {name: a, maxx: 2}\n", `s.yaml:2: signals[0]: unknown key "maxx"`},
		{"bad name", "signals:\n  - {name: Mood}\n", `s.yaml:2: signals[0].name: "Mood": want 1-64 lower-case letters`},
		{"twice", "signals:\n  - {name: a}\n  - {name: a}\n", `s.yaml:3: signals[1].name: "a" is declared twice (also signals[0])`},
		{"empty range", "signals:\n  - {name: a, min: 1, max: 1}\n", "s.yaml:2: signals[0]: range [1, 1]: min must be below max"},
		{"infinite", "signals:\n  - {name: a, max: .inf}\n", "min and max must be finite"},
		{"wrong type", "signals:\n  - name: a\n    max: high\n", `s.yaml:3: signals[0].max: "high" is not a number`},
		{"not a table", "- a\n", "s.yaml:1"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseSignals("s.yaml", []byte(tt.yaml))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("ParseSignals: %v, want an error containing %q", err, tt.want)
			}
		})
	}
}

// TestFormatSignals: the design's table written and read back is the
// same table, and it passes ValidateSignals.
func TestFormatSignals(t *testing.T) {
	def := DefaultSignals()
	if err := ValidateSignals(def); err != nil {
		t.Fatal(err)
	}
	back, err := ParseSignals("default.yaml", FormatSignals(def))
	if err != nil {
		t.Fatalf("%v\n%s", err, FormatSignals(def))
	}
	if !reflect.DeepEqual(back, def) {
		t.Errorf("round trip: %+v, want %+v", back, def)
	}
	if err := ValidateSignals([]SignalSpec{{Name: "a", Min: 0, Max: 1}, {Name: "a", Min: 0, Max: 1}}); err == nil || !strings.Contains(err.Error(), `signals[1]: "a" is declared twice`) {
		t.Errorf("ValidateSignals of a repeated name: %v", err)
	}
}

// TestStoreSignals: a store without signals.yaml has the design's table,
// one with it has its own, and a broken one is an error, never the
// default.
func TestStoreSignals(t *testing.T) {
	dir := t.TempDir()
	specs, from, err := StoreSignals(dir)
	if err != nil || from != "" || !reflect.DeepEqual(specs, DefaultSignals()) {
		t.Errorf("no file: %v %q %v", specs, from, err)
	}
	writeFile(t, dir+"/"+SignalTableFile, "signals:\n  - {name: goal_near}\n")
	specs, from, err = StoreSignals(dir)
	if err != nil || !strings.HasSuffix(from, SignalTableFile) || len(specs) != 1 || specs[0].Name != "goal_near" {
		t.Errorf("a table: %v %q %v", specs, from, err)
	}
	writeFile(t, dir+"/"+SignalTableFile, "signals: nope\n")
	if _, _, err := StoreSignals(dir); err == nil || !strings.Contains(err.Error(), SignalTableFile) {
		t.Errorf("a broken table: %v, want an error naming the file", err)
	}
}

func FuzzParseSignals(f *testing.F) {
	f.Add([]byte("signals:\n  - {name: a, min: -1, max: 2, binary: true, description: x}\n"))
	f.Add(FormatSignals(DefaultSignals()))
	f.Fuzz(func(t *testing.T, data []byte) {
		specs, err := ParseSignals("f.yaml", data)
		if err != nil {
			return
		}
		if err := ValidateSignals(specs); err != nil {
			t.Fatalf("ParseSignals accepted a table ValidateSignals refuses: %v", err)
		}
		back, err := ParseSignals("g.yaml", FormatSignals(specs))
		if err != nil || !reflect.DeepEqual(back, specs) {
			t.Fatalf("round trip: %v, %+v want %+v", err, back, specs)
		}
	})
}

func writeFile(t *testing.T, path, data string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}
