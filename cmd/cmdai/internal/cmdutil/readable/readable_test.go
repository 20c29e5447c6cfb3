package readable

import (
	"strings"
	"testing"

	"github.com/cmdai/cmdai/index"
	"github.com/cmdai/cmdai/search/render"
)

// An example's command line that a backslash continues goes on under
// its "$ ", indented, not as commands of its own; the next line after
// it is a command again.
func TestContinuedCommandLines(t *testing.T) {
	var b strings.Builder
	Printer{W: &b}.Items([]render.Item{{Kind: index.KindExample, Label: "find / \\\n\\( -size +100M \\)\nls -l", Text: "List large files."}}, "")
	want := "$ find / \\\n  \\( -size +100M \\)\n$ ls -l\n  List large files.\n"
	if b.String() != want {
		t.Errorf("printed\n%q\nwant\n%q", b.String(), want)
	}
}
