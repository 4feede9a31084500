package prompt

import (
	"bytes"
	"errors"

	"gopkg.in/yaml.v3"
)

// DocumentKeys are the top-level keys that mark a YAML file as a prompt
// document (see IsDocument): a migration or an experiment config has none
// of them at its top level.
var DocumentKeys = []string{"version", "policy_parameters", "task_definition", "sections"}

// IsDocument reports whether data is a YAML mapping with one of
// DocumentKeys at its top level: a prompt version (to check with Checker),
// as opposed to a migration list or an experiment config. It only looks:
// a file it reports as a document may still fail Decode. Invalid UTF-8 is
// replaced before the look, and a value of the wrong type does not hide a
// key, so that a broken prompt is still recognised and its problems are
// reported by the check at their lines. Anything that is not a YAML
// mapping (a list, a scalar, a syntax error) is not a document.
func IsDocument(data []byte) bool {
	var top map[string]yaml.Node
	data = bytes.ToValidUTF8(data, []byte("?"))
	if err := yaml.Unmarshal(data, &top); err != nil {
		var te *yaml.TypeError
		if !errors.As(err, &te) {
			return false
		}
	}
	for _, k := range DocumentKeys {
		if _, ok := top[k]; ok {
			return true
		}
	}
	return false
}
