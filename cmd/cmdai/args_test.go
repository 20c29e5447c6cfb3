package main

import (
	"reflect"
	"testing"
)

func TestHoistFlags(t *testing.T) {
	app := newApp(&Factory{IO: &IOStreams{}, Getenv: func(string) string { return "" }})
	for _, c := range []struct{ in, want []string }{
		{[]string{"cmdai", "index", "query", "count lines", "-k", "3", "--json"},
			[]string{"cmdai", "index", "query", "-k", "3", "--json", "--", "count lines"}},
		{[]string{"cmdai", "index", "query", "--context", "find", "files", "--chroma-url=http://x"},
			[]string{"cmdai", "index", "query", "--context", "--chroma-url=http://x", "--", "find", "files"}},
		{[]string{"cmdai", "index", "query", "a", "--", "-k"},
			[]string{"cmdai", "index", "query", "--", "a", "-k"}},
		{[]string{"cmdai", "index"}, []string{"cmdai", "index"}},
		{[]string{"cmdai", "--batch-mode", "model", "status"}, []string{"cmdai", "--batch-mode", "model", "status"}},
	} {
		if got := hoistFlags(app, c.in); !reflect.DeepEqual(got, c.want) {
			t.Errorf("hoistFlags(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
