package view

import (
	"math"
	"reflect"
)

// scrub returns v as nested maps, slices and scalars with every NaN or
// infinite float replaced by nil, for the tables whose statistics may be
// undefined (a standard deviation of one score, a CI of one episode):
// JSON has no NaN. Struct fields keep their JSON names (the json tag's
// name, else the field's).
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
		if m, ok := v.Interface().(interface{ MarshalJSON() ([]byte, error) }); ok {
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
				if n, _, _ := cut(tag, ','); n != "" {
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
	return v.Interface()
}

func cut(s string, sep byte) (string, string, bool) {
	for i := 0; i < len(s); i++ {
		if s[i] == sep {
			return s[:i], s[i+1:], true
		}
	}
	return s, "", false
}
