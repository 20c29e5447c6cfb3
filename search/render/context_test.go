package render

import (
	"strings"
	"testing"

	"github.com/cmdai/cmdai/index"
	"github.com/cmdai/cmdai/manparse"
	"github.com/cmdai/cmdai/search/shown"
)

func TestContextStaysInBudget(t *testing.T) {
	var hits []shown.CommandHit
	for _, name := range []string{"find", "locate", "fd", "stat", "ls", "du"} {
		h := shown.CommandHit{Command: name, Version: name + " 1.0", Description: "does things with files in a directory tree"}
		for i, opt := range []string{"-a", "-b", "-c", "-d", "-e", "-f", "-g", "-h"} {
			h.Matches = append(h.Matches, shown.Match{Kind: "option", Option: opt,
				Text: name + "(1) option " + opt + "\nDoes the " + strings.Repeat("very ", i) + "useful thing. And more after the first sentence."})
		}
		h.Matches = append(h.Matches,
			shown.Match{Kind: "example", Text: name + "(1) example\nSearch the tree.\n$ " + name + " -a /tmp"},
			shown.Match{Kind: "example", Text: name + "(1) example\nNo command line here."},
			shown.Match{Kind: "section", Text: "prose is never rendered"})
		hits = append(hits, h)
	}
	full := Context(hits, 100000)
	if !strings.HasPrefix(full, "COMMAND DOCUMENTATION (from vector database):\n- Command: find\n  Version: find 1.0\n") {
		t.Errorf("header and first command:\n%s", full)
	}
	if n := strings.Count(full, "- Command: "); n != 6 {
		t.Errorf("unbounded budget renders all 6 commands, got %d", n)
	}
	first := full[:strings.Index(full, "- Command: locate")]
	if n := strings.Count(first, "\n  -"); n != maxOptions {
		t.Errorf("find renders %d options, want %d:\n%s", n, maxOptions, first)
	}
	if !strings.Contains(first, "  find -a /tmp    # Search the tree.") || strings.Contains(first, "No command line") {
		t.Errorf("example lines:\n%s", first)
	}
	if strings.Contains(full, "prose is never rendered") || strings.Contains(full, "And more after") {
		t.Errorf("prose or second sentences leaked:\n%s", full)
	}
	for _, budget := range []int{40, 120, 300} {
		out := Context(hits, budget)
		if got := estimateTokens(out); got > budget {
			t.Errorf("budget %d: rendered %d tokens:\n%s", budget, got, out)
		}
		if !strings.Contains(out, "- Command: find") {
			t.Errorf("budget %d: the best command is missing:\n%s", budget, out)
		}
		if n := strings.Count(out, "- Command: "); budget < 300 && n == 6 {
			t.Errorf("budget %d still renders every command", budget)
		}
	}
}

// The context block renders what the chunker wrote: an option's flags and
// argument, an example's command line.
func TestContextFromChunks(t *testing.T) {
	page, err := manparse.Parse([]byte(".TH FROB 1\n.SH NAME\nfrob \\- frobnicate files\n.SH OPTIONS\n.TP\n\\fB\\-o\\fR, \\fB\\-\\-output\\fR \\fIFILE\\fR\nwrite to FILE. Then more.\n.SH EXAMPLES\nFrobnicate a file:\n.PP\n.nf\nfrob -o out in\n.fi\n"))
	if err != nil {
		t.Fatal(err)
	}
	h := shown.CommandHit{Command: "frob"}
	for _, c := range page.Chunks(manparse.ChunkOptions{}) {
		h.Matches = append(h.Matches, shown.Match{Kind: index.Kind(c.Kind), Option: c.Option, Section: c.Section, Text: c.Text})
	}
	out := Context([]shown.CommandHit{h}, 1000)
	for _, want := range []string{"\n  -o, --output FILE        write to FILE.\n", "\n  frob -o out in    # Frobnicate a file:\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in:\n%s", want, out)
		}
	}
}
