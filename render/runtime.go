package render

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"gopkg.in/yaml.v3"
)

// DecodeRuntime decodes a turn's runtime values (turn, observation,
// history, vars; see Runtime) from data, the content of file, strictly:
// JSON when data is valid JSON (as JSON, so that the surrogate-pair
// escapes Python's json.dumps writes, "\ud83d\ude00", decode, which YAML's
// decoder refuses), else YAML (of which JSON is a subset). Errors name
// file ("FILE: ..."): an unknown key, a value of the wrong type, a syntax
// error, or a second YAML document after the first ("FILE: more than one
// document"). Empty YAML is the zero Runtime.
func DecodeRuntime(file string, data []byte) (Runtime, error) {
	var rt Runtime
	if json.Valid(data) {
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&rt); err != nil {
			return rt, fmt.Errorf("%s: %w", file, err)
		}
		return rt, nil
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&rt); err != nil && !errors.Is(err, io.EOF) {
		return rt, fmt.Errorf("%s: %w", file, err)
	}
	var extra any
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		return rt, fmt.Errorf("%s: more than one document", file)
	}
	return rt, nil
}
