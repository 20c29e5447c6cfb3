package main

import (
	"reflect"
	"testing"

	"github.com/cmdai/cmdai/cmd/cmdai/internal/cmdutil"
	"github.com/cmdai/cmdai/internal/clix"
)

func TestHoistFlags(t *testing.T) {
	app := newApp(cmdutil.NewFactory(&cmdutil.IOStreams{}, func(string) string { return "" }, ""))
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
		if got := clix.HoistFlags(app, c.in); !reflect.DeepEqual(got, c.want) {
			t.Errorf("clix.HoistFlags(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
