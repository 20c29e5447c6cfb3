package explain

import (
	"context"
	"os"
	"strings"
	"testing"
)

func TestDebugTable(t *testing.T) {
	names := os.Getenv("EXPLAIN_TABLE")
	if names == "" {
		t.Skip()
	}
	l := realLookup(t)
	for _, n := range strings.Split(names, ",") {
		doc, err := l(context.Background(), n)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range doc.Records {
			if r.Kind == "option" {
				t.Logf("%s OPT %q | %q", n, r.Option, strings.SplitN(r.Text, "\n", 2)[0])
			}
		}
		tb := buildTable(doc)
		for c, s := range tb.short {
			t.Logf("short %c arg=%d weak=%v", c, s.arg, s.weak)
		}
		for k, s := range tb.long {
			t.Logf("long %s arg=%d weak=%v", k, s.arg, s.weak)
		}
		for k, s := range tb.single {
			t.Logf("single %s arg=%d n=%d weak=%v", k, s.arg, s.nargs, s.weak)
		}
		t.Logf("synopsis %q", tb.synopsis)
	}
}
