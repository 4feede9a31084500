package online

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"

	"evolve/internal/strictyaml"
)

// SignalTableFile is the name of a prompt store's declared signal table,
// beside its versions.json: evolve serve reads STORE/signals.yaml when it
// exists and the design's table (DefaultSignals) otherwise.
const SignalTableFile = "signals.yaml"

// signalName is what a signal's name may be: a lower-case letter, then
// up to 63 lower-case letters, digits or '_'.
var signalName = regexp.MustCompile(`^[a-z][a-z0-9_]{0,63}$`)

// signalTableYAML is a signal table file:
//
//	signals:
//	  - name: time_pressure
//	    min: 0            # optional, default 0
//	    max: 1            # optional, default 1
//	    binary: false     # optional: the value must be exactly min or max
//	    description: ...  # optional
type signalTableYAML struct {
	Signals []signalYAML `yaml:"signals"`
}

type signalYAML struct {
	Name        string   `yaml:"name"`
	Min         *float64 `yaml:"min"`
	Max         *float64 `yaml:"max"`
	Binary      bool     `yaml:"binary"`
	Description string   `yaml:"description"`
}

// ParseSignals reads a signal table (see SignalTableFile) from data,
// strictly: an unknown or repeated key, a wrong type, no signals, a name
// that is not 1-64 lower-case letters, digits and '_' starting with a
// letter, a name given twice, or a range whose min and max are not
// finite with min < max is an error naming file, line and field. min and
// max default to 0 and 1. The specs come in the file's order.
func ParseSignals(file string, data []byte) ([]SignalSpec, error) {
	var doc signalTableYAML
	if err := strictyaml.Decode(file, data, &doc); err != nil {
		return nil, err
	}
	root := strictyaml.Root(data)
	at := func(path, msg string) error {
		return &strictyaml.Error{File: file, Line: strictyaml.Line(root, path), Field: path, Msg: msg}
	}
	if len(doc.Signals) == 0 {
		return nil, at("signals", "no signals declared (want a list of {name, min, max, binary, description})")
	}
	out := make([]SignalSpec, len(doc.Signals))
	seen := map[string]int{}
	for i, s := range doc.Signals {
		path := "signals[" + strconv.Itoa(i) + "]"
		if !signalName.MatchString(s.Name) {
			return nil, at(path+".name", fmt.Sprintf("%q: want 1-64 lower-case letters, digits and '_', starting with a letter", s.Name))
		}
		if j, dup := seen[s.Name]; dup {
			return nil, at(path+".name", fmt.Sprintf("%q is declared twice (also signals[%d])", s.Name, j))
		}
		seen[s.Name] = i
		sp := SignalSpec{Name: s.Name, Min: 0, Max: 1, Binary: s.Binary, Description: s.Description}
		if s.Min != nil {
			sp.Min = *s.Min
		}
		if s.Max != nil {
			sp.Max = *s.Max
		}
		if err := checkRange(sp); err != nil {
			return nil, at(path, err.Error())
		}
		out[i] = sp
	}
	return out, nil
}

func checkRange(sp SignalSpec) error {
	switch {
	case math.IsNaN(sp.Min) || math.IsInf(sp.Min, 0) || math.IsNaN(sp.Max) || math.IsInf(sp.Max, 0):
		return fmt.Errorf("range [%v, %v]: min and max must be finite", sp.Min, sp.Max)
	case sp.Min >= sp.Max:
		return fmt.Errorf("range [%v, %v]: min must be below max", sp.Min, sp.Max)
	}
	return nil
}

// ValidateSignals checks a table built in code as ParseSignals checks a
// file: at least one signal, valid and distinct names, finite ranges with
// Min < Max. The error names the offending signal by index.
func ValidateSignals(specs []SignalSpec) error {
	if len(specs) == 0 {
		return errors.New("signals: none declared")
	}
	seen := map[string]bool{}
	for i, sp := range specs {
		if !signalName.MatchString(sp.Name) {
			return fmt.Errorf("signals[%d]: name %q: want 1-64 lower-case letters, digits and '_', starting with a letter", i, sp.Name)
		}
		if seen[sp.Name] {
			return fmt.Errorf("signals[%d]: %q is declared twice", i, sp.Name)
		}
		seen[sp.Name] = true
		if err := checkRange(sp); err != nil {
			return fmt.Errorf("signals[%d] (%s): %w", i, sp.Name, err)
		}
	}
	return nil
}

// FormatSignals writes specs as a signal table file that ParseSignals
// reads back to the same specs (min, max and binary always written, a
// description only when set). The output is a function of specs alone.
func FormatSignals(specs []SignalSpec) []byte {
	var b bytes.Buffer
	b.WriteString("# Declared context signals (evolve serve: STORE/" + SignalTableFile + ").\n")
	b.WriteString("# A request's signals must be declared here and lie in [min, max]; a\n")
	b.WriteString("# binary signal is exactly min or max.\n")
	b.WriteString("signals:\n")
	num := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
	for _, sp := range specs {
		fmt.Fprintf(&b, "  - name: %s\n    min: %s\n    max: %s\n    binary: %t\n", sp.Name, num(sp.Min), num(sp.Max), sp.Binary)
		if sp.Description != "" {
			fmt.Fprintf(&b, "    description: %s\n", strconv.Quote(sp.Description))
		}
	}
	return b.Bytes()
}

// LoadSignals reads the signal table file at path (ParseSignals). Errors
// name the path.
func LoadSignals(path string) ([]SignalSpec, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading the signal table: %w", err)
	}
	return ParseSignals(path, data)
}

// StoreSignals returns the signal table of the prompt store in dir: its
// SignalTableFile when it has one (and that file's path), else
// DefaultSignals (and ""). An unreadable or invalid file is an error
// naming it; it never falls back to the default silently.
func StoreSignals(dir string) ([]SignalSpec, string, error) {
	path := filepath.Join(dir, SignalTableFile)
	specs, err := LoadSignals(path)
	if errors.Is(err, fs.ErrNotExist) {
		return DefaultSignals(), "", nil
	}
	if err != nil {
		return nil, "", err
	}
	return specs, path, nil
}
