package params

import (
	"fmt"
	"regexp"

	"gopkg.in/yaml.v3"
)

// decimalRE is a decimal integer literal without a leading zero.
var decimalRE = regexp.MustCompile(`^[-+]?(0|[1-9][0-9]*)$`)

// UnmarshalYAML reads a YAML mapping of parameters, keeping its order: an
// !!int scalar written in decimal digits is an Integer (010, 0x10, 0o10
// and 1_000 are refused, not read as 8, 16, 8 and 1000), a !!float a Number, any other scalar an
// Enum, a sequence of scalars an Ordering. Problems (a repeated or invalid
// name, a mapping or null value, a non-finite number) are reported
// together as a *yaml.TypeError whose messages start "line N: ", the form
// strict decoders locate.
func (s *Set) UnmarshalYAML(node *yaml.Node) error {
	if node.Kind == yaml.AliasNode {
		node = node.Alias
	}
	if node.Kind != yaml.MappingNode {
		return &yaml.TypeError{Errors: []string{fmt.Sprintf("line %d: want a mapping of parameter names to values, got %s", node.Line, describe(node))}}
	}
	var out Set
	var problems []string
	seen := map[string]int{}
	bad := func(n *yaml.Node, format string, args ...any) {
		problems = append(problems, fmt.Sprintf("line %d: ", n.Line)+fmt.Sprintf(format, args...))
	}
	for i := 0; i+1 < len(node.Content); i += 2 {
		k, v := node.Content[i], node.Content[i+1]
		if v.Kind == yaml.AliasNode {
			v = v.Alias
		}
		name := k.Value
		if line, dup := seen[name]; dup {
			bad(k, "duplicate key (first at line %d)", line)
			continue
		}
		seen[name] = k.Line
		if !ValidName(name) {
			bad(k, "%q is not a parameter name (lower-case letters, digits and _, starting with a letter)", name)
			continue
		}
		var val Value
		switch {
		case v.Kind == yaml.ScalarNode && v.Tag == "!!int" && !decimalRE.MatchString(v.Value):
			// yaml.v3 reads 010 as 8 (YAML 1.1 octal) and 0x10 as 16.
			bad(v, "%q is not a decimal integer (write integers in decimal digits, without a leading zero or base prefix)", v.Value)
			continue
		case v.Kind == yaml.ScalarNode && (v.Tag == "!!int" || v.Tag == "!!float"):
			x, err := ParseNumber(v.Value)
			if err != nil {
				bad(v, "%v", err)
				continue
			}
			if v.Tag == "!!float" {
				x.Kind = Number
			}
			val = x
		case v.Kind == yaml.ScalarNode && v.Tag != "!!null" && v.Tag != "!!bool":
			val = EnumValue(v.Value)
		case v.Kind == yaml.SequenceNode:
			items := make([]string, 0, len(v.Content))
			ok := true
			for _, it := range v.Content {
				if it.Kind != yaml.ScalarNode || it.Tag == "!!null" {
					bad(it, "an ordering's items must be names, got %s", describe(it))
					ok = false
					break
				}
				items = append(items, it.Value)
			}
			if !ok {
				continue
			}
			val = OrderingValue(items)
		default:
			bad(v, "want a number, a name or a list of names, got %s", describe(v))
			continue
		}
		out = append(out, Param{Name: name, Value: val})
	}
	if len(problems) > 0 {
		return &yaml.TypeError{Errors: problems}
	}
	*s = out
	return nil
}

func describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	}
	if n.Tag == "!!null" {
		return "null"
	}
	return fmt.Sprintf("%q", n.Value)
}
