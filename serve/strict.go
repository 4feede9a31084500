package serve

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strconv"
	"strings"
	"unicode/utf8"
)

// FieldError is a request body that DecodeStrict refuses: Field is the
// JSON path of the offending value ("prompt", "signals.task_coding",
// "versions[1]"; "" for the body as a whole) and Reason says why.
type FieldError struct {
	Field  string
	Reason string
}

func (e *FieldError) Error() string {
	if e.Field == "" {
		return e.Reason
	}
	return e.Field + ": " + e.Reason
}

// DecodeStrict decodes data, one JSON object, into v (a pointer to a
// struct whose fields carry json tags), refusing what encoding/json lets
// through and a client may mean differently from the server:
//
//   - bytes that are not valid UTF-8 (encoding/json replaces them with
//     U+FFFD, so the logged value differs from the one sent);
//   - a key given twice in one object (encoding/json keeps the last, so a
//     proxy or a logger reading the first sees another request);
//   - a key of the struct spelled in another case ("Prompt" for "prompt":
//     encoding/json matches keys case-insensitively);
//   - a key the struct does not have;
//   - null for any value (a null signal would count as 0, a null field as
//     absent: leave the field out instead);
//   - anything after the object but white space.
//
// Every error is a *FieldError naming the field; an encoding/json type
// error (a string for a number) is one too.
func DecodeStrict(data []byte, v any) error {
	if !utf8.Valid(data) {
		i := 0
		for i < len(data) {
			r, n := utf8.DecodeRune(data[i:])
			if r == utf8.RuneError && n <= 1 {
				break
			}
			i += n
		}
		return &FieldError{Reason: fmt.Sprintf("the body is not valid UTF-8 (byte %d is 0x%02x)", i, data[i])}
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	t, err := dec.Token()
	if errors.Is(err, io.EOF) {
		return &FieldError{Reason: "empty body: want a JSON object"}
	}
	if err != nil {
		return &FieldError{Reason: "invalid JSON: " + err.Error()}
	}
	if d, ok := t.(json.Delim); !ok || d != '{' {
		return &FieldError{Reason: fmt.Sprintf("the body must be a JSON object, got %s", describeToken(t))}
	}
	fields := jsonFields(reflect.TypeOf(v))
	if err := walkObject(dec, "", fields); err != nil {
		return err
	}
	if t, err := dec.Token(); !errors.Is(err, io.EOF) {
		if err != nil {
			return &FieldError{Reason: "data after the JSON object: " + err.Error()}
		}
		return &FieldError{Reason: fmt.Sprintf("data after the JSON object (%s)", describeToken(t))}
	}
	dec = json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(v); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return &FieldError{Field: te.Field, Reason: fmt.Sprintf("must be %s, got %s", te.Type, te.Value)}
		}
		return &FieldError{Reason: "invalid JSON: " + err.Error()}
	}
	return nil
}

// jsonFields returns the json names of the fields of the struct t points
// to; nil if t is not a pointer to a struct (every key is then allowed).
func jsonFields(t reflect.Type) map[string]bool {
	if t == nil || t.Kind() != reflect.Pointer || t.Elem().Kind() != reflect.Struct {
		return nil
	}
	st := t.Elem()
	out := map[string]bool{}
	for i := range st.NumField() {
		f := st.Field(i)
		if !f.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		out[name] = true
	}
	return out
}

// walkObject checks the rest of an object whose "{" dec has just read.
// fields, if not nil, are the keys allowed (exactly, case included).
func walkObject(dec *json.Decoder, path string, fields map[string]bool) error {
	seen := map[string]bool{}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return &FieldError{Field: path, Reason: "invalid JSON: " + err.Error()}
		}
		key := t.(string)
		field := key
		if path != "" {
			field = path + "." + key
		}
		if seen[key] {
			return &FieldError{Field: field, Reason: "key given twice"}
		}
		seen[key] = true
		if fields != nil && !fields[key] {
			for f := range fields {
				if strings.EqualFold(f, key) {
					return &FieldError{Field: field, Reason: fmt.Sprintf("unknown field (keys are case-sensitive: did you mean %q?)", f)}
				}
			}
			return &FieldError{Field: field, Reason: "unknown field"}
		}
		if err := walkValue(dec, field); err != nil {
			return err
		}
	}
	if _, err := dec.Token(); err != nil { // "}"
		return &FieldError{Field: path, Reason: "invalid JSON: " + err.Error()}
	}
	return nil
}

// walkValue checks the next value of dec, at path.
func walkValue(dec *json.Decoder, path string) error {
	t, err := dec.Token()
	if err != nil {
		return &FieldError{Field: path, Reason: "invalid JSON: " + err.Error()}
	}
	switch t := t.(type) {
	case nil:
		return &FieldError{Field: path, Reason: "null is not a value here: leave the field out"}
	case json.Delim:
		switch t {
		case '{':
			return walkObject(dec, path, nil)
		case '[':
			for i := 0; dec.More(); i++ {
				if err := walkValue(dec, path+"["+strconv.Itoa(i)+"]"); err != nil {
					return err
				}
			}
			if _, err := dec.Token(); err != nil { // "]"
				return &FieldError{Field: path, Reason: "invalid JSON: " + err.Error()}
			}
		}
	}
	return nil
}

func describeToken(t json.Token) string {
	switch t := t.(type) {
	case nil:
		return "null"
	case json.Delim:
		return fmt.Sprintf("%q", string(t))
	case string:
		return "a string"
	case json.Number:
		return "a number"
	case bool:
		return "a boolean"
	}
	return fmt.Sprintf("%v", t)
}
