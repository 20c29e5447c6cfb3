package explain_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/cmdai/cmdai/explain"
	"github.com/cmdai/cmdai/index"
	"github.com/cmdai/cmdai/search"
	"github.com/cmdai/cmdai/search/shown"
)

// A Lookup over a one-command index of our own; a real caller passes
// search.Searcher.Docs (or a running serve's), wrapped in CachedLookup.
func ExampleExplain() {
	lookup := explain.CachedLookup(func(ctx context.Context, name string) (search.CommandDoc, error) {
		if name != "grep" {
			return search.CommandDoc{}, fmt.Errorf("%w %q", search.ErrUnknownCommand, name)
		}
		return search.CommandDoc{CommandHit: shown.CommandHit{Command: "grep", ManSection: "1", Description: "print matching lines"},
			Records: []shown.Match{
				{ID: "grep.1#NAME", Kind: index.KindSummary, Text: "grep(1) - print matching lines\nSYNOPSIS\ngrep [OPTION...] PATTERNS [FILE...]"},
				{ID: "grep.1#OPTIONS#--count", Kind: index.KindOption, Option: "--count", Text: "grep(1) option -c, --count\nCount the matching lines."},
			}}, nil
	})
	r, err := explain.Explain(context.Background(), "grep -c foo f | grpe --cuont x", lookup, explain.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, c := range r.Commands {
		fmt.Printf("%s: %s\n", c.Name, c.Verdict)
		for _, w := range c.Words {
			fmt.Printf("  %s: %s\n", w.Text, strings.TrimSpace(string(w.Verdict)+" "+w.Option))
		}
	}
	fmt.Println("ok:", r.OK, "not installed:", r.NotInstalledCount)
	// Output:
	// grep: known
	//   -c: known --count
	//   foo: operand
	//   f: operand
	// grpe: not installed
	//   --cuont: undocumented
	//   x: operand
	// ok: false not installed: 1
}
