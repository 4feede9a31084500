package format

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"net/http"
	"reflect"
	"strings"
)

// Finite returns a pointer to v, or nil when v is NaN or infinite: a
// *float64 field that JSON writes as null for a statistic that could not
// be computed (JSON has neither NaN nor infinities).
func Finite(v float64) *float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return &v
}

// Float is a float64 that JSON writes as encoding/json writes a float64,
// and as null when it is NaN or infinite.
type Float float64

// MarshalJSON writes x as encoding/json writes a float64 ("0.5", "1e-7",
// "100000000"), or null for NaN and ±Inf.
func (x Float) MarshalJSON() ([]byte, error) {
	f := float64(x)
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return []byte("null"), nil
	}
	return json.Marshal(f)
}

// Marshal encodes v as JSON ending in a newline, without HTML escaping
// (messages hold "<" and ">="), indented by indent when it is not empty.
// A NaN or infinite float anywhere in v (which encoding/json refuses) is
// written as null: v is then encoded again as nested maps, slices and
// scalars (Scrub), so such a document's objects have sorted keys.
//
// Errors: those of encoding/json other than a non-finite float (a
// channel, a cycle, a failing MarshalJSON).
func Marshal(v any, indent string) ([]byte, error) {
	data, err := encode(v, indent)
	var ue *json.UnsupportedValueError
	if errors.As(err, &ue) {
		data, err = encode(Scrub(v), indent)
	}
	return data, err
}

// encode is Marshal without the NaN fallback.
func encode(v any, indent string) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if indent != "" {
		enc.SetIndent("", indent)
	}
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// encodeFailed is the body WriteJSON sends when v cannot be encoded.
const encodeFailed = `{"error":"encoding the response"}` + "\n"

// WriteJSON writes v as the body of an HTTP response with status code
// and Content-Type application/json, encoded by Marshal (NaN and ±Inf as
// null, no HTML escaping, a final newline). When v cannot be encoded the
// response is 500 with {"error":"encoding the response"}. Other headers
// (Cache-Control) are the caller's to set before.
func WriteJSON(w http.ResponseWriter, code int, v any) {
	data, err := Marshal(v, "")
	if err != nil {
		code, data = http.StatusInternalServerError, []byte(encodeFailed)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	w.Write(data)
}

// Scrub returns v as nested maps, slices and scalars with every NaN or
// infinite float replaced by nil, for a JSON encoder (JSON has no NaN).
// Struct fields keep their JSON names (the json tag's name, else the
// field's; "-" fields are dropped, embedded structs are flattened); a
// value with a MarshalJSON or MarshalText method is kept as it is.
func Scrub(v any) any { return scrub(reflect.ValueOf(v)) }

func scrub(v reflect.Value) any {
	switch v.Kind() {
	case reflect.Invalid:
		return nil
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return nil
		}
		return scrub(v.Elem())
	case reflect.Float32, reflect.Float64:
		f := v.Float()
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return nil
		}
		return f
	case reflect.Slice, reflect.Array:
		if v.Kind() == reflect.Slice && v.IsNil() {
			return nil
		}
		out := make([]any, v.Len())
		for i := range out {
			out[i] = scrub(v.Index(i))
		}
		return out
	case reflect.Map:
		out := make(map[string]any, v.Len())
		for _, k := range v.MapKeys() {
			out[k.String()] = scrub(v.MapIndex(k))
		}
		return out
	case reflect.Struct:
		return scrubStruct(v)
	}
	return v.Interface()
}

// scrubStruct is scrub of a struct value.
func scrubStruct(v reflect.Value) any {
	if m, ok := v.Interface().(json.Marshaler); ok {
		return m
	}
	if m, ok := v.Interface().(interface{ MarshalText() ([]byte, error) }); ok {
		return m
	}
	out := map[string]any{}
	t := v.Type()
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		name := f.Name
		if tag := f.Tag.Get("json"); tag != "" {
			if tag == "-" {
				continue
			}
			if n, _, _ := strings.Cut(tag, ","); n != "" {
				name = n
			}
		}
		if f.Anonymous && f.Type.Kind() == reflect.Struct {
			if inner, ok := scrub(v.Field(i)).(map[string]any); ok {
				for k, x := range inner {
					out[k] = x
				}
				continue
			}
		}
		out[name] = scrub(v.Field(i))
	}
	return out
}
