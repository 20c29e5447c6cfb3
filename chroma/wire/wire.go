// Package wire turns cmdai's plain values into what chroma-go sends and
// back: metadata as maps of strings, numbers and bools, and text as the
// server will store it (what a record's authenticator is computed over).
package wire

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Plain keeps the values Chroma stores (strings, numbers, bools)
// and drops the rest; string lists are joined with commas.
func Plain(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		switch x := v.(type) {
		case string:
			out[k] = Text(x)
		case bool, int, int64, float64, float32:
			out[k] = x
		case []string:
			out[k] = Text(strings.Join(x, ","))
		case nil:
		default:
			out[k] = fmt.Sprint(x)
		}
	}
	return out
}

// typedMetadata is what chroma-go's collection and document metadata
// share.
type typedMetadata interface {
	Keys() []string
	GetString(key string) (string, bool)
	GetInt(key string) (int64, bool)
	GetFloat(key string) (float64, bool)
	GetBool(key string) (bool, bool)
}

// Map turns chroma-go metadata into plain values: string, bool,
// int64 or float64.
func Map(m any) map[string]any {
	tm, ok := m.(typedMetadata)
	if !ok || tm == nil {
		return nil
	}
	out := map[string]any{}
	for _, k := range tm.Keys() {
		if v, ok := tm.GetString(k); ok {
			out[k] = v
		} else if v, ok := tm.GetBool(k); ok {
			out[k] = v
		} else if v, ok := tm.GetInt(k); ok {
			out[k] = v
		} else if v, ok := tm.GetFloat(k); ok {
			out[k] = v
		}
	}
	return out
}

// Text is s as the server stores it (a request's JSON replaces each
// byte of an invalid sequence with U+FFFD): what is sealed.
func Text(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	return string([]rune(s))
}
