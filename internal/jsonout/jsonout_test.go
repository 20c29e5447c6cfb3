package jsonout

import (
	"bytes"
	"encoding/json"
	"testing"
)

func TestVersionFirst(t *testing.T) {
	type obj struct {
		A int    `json:"a"`
		B string `json:"b,omitempty"`
	}
	for _, tc := range []struct {
		v    any
		want string
	}{
		{obj{A: 1, B: "x"}, `{"schema_version":1,"a":1,"b":"x"}`},
		{struct{}{}, `{"schema_version":1}`},
		{map[string]int{"schema_version": 7, "z": 1}, `{"schema_version":7,"z":1}`},
		{[]int{1, 2}, `[1,2]`},
		{Error{Error: "no index", ExitCode: 3}, `{"schema_version":1,"error":"no index","exit_code":3}`},
		{Error{Error: "run <x> & \x1b[2J"}, `{"schema_version":1,"error":"run <x> & \u001b[2J","exit_code":0}`},
	} {
		got, err := Marshal(tc.v)
		if err != nil || string(got) != tc.want {
			t.Errorf("Marshal(%#v) = %s, %v; want %s", tc.v, got, err, tc.want)
		}
		if !json.Valid(got) {
			t.Errorf("Marshal(%#v) is not JSON: %s", tc.v, got)
		}
	}
	var buf bytes.Buffer
	if err := EncodeIndent(&buf, obj{A: 2}, "  "); err != nil || buf.String() != "{\n  \"schema_version\": 1,\n  \"a\": 2\n}\n" {
		t.Errorf("EncodeIndent: %q %v", buf.String(), err)
	}
}
