package mcpserver

import (
	"context"
	"fmt"
	"os"
	"reflect"
	"strings"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cmdai/cmdai/answer"
	"github.com/cmdai/cmdai/explain"
	"github.com/cmdai/cmdai/explain/judge"
)

// ExplainInput is explain_command's arguments.
type ExplainInput struct {
	Line string `json:"line" jsonschema:"the shell command line to check, as you would run it, e.g. tar -xzvf a.tgz -C /tmp | grep -c foo"`
}

func explainSchema() *jsonschema.Schema {
	s := mustSchema[ExplainInput]()
	s.Properties["line"].MinLength = ptr(1)
	s.Properties["line"].MaxLength = ptr(explain.MaxLine)
	return s
}

// explainOutputSchema is the schema of explain_command's structured
// content (answer.ExplainResult). judge.Word holds words of its own (a
// cluster's flags), which inference refuses as a cycle: a word's flags
// are given the schema of a word whose flags are any objects (a flag
// holds none).
func explainOutputSchema() *jsonschema.Schema {
	anyWords := map[reflect.Type]*jsonschema.Schema{
		reflect.TypeFor[[]judge.Word](): {Types: []string{"null", "array"}, Items: &jsonschema.Schema{Type: "object"}},
	}
	word := mustSchemaWith[judge.Word](anyWords)
	word.Properties["flags"] = &jsonschema.Schema{Types: []string{"null", "array"}, Items: mustSchemaWith[judge.Word](anyWords)}
	return mustSchemaWith[answer.ExplainResult](map[reflect.Type]*jsonschema.Schema{reflect.TypeFor[judge.Word](): word})
}

// explain answers explain_command: the compact text an agent reads, and
// the whole result as structured content (the JSON of `cmdai explain
// --json` and POST /v1/explain).
func (t tools) explain(ctx context.Context, _ *mcp.CallToolRequest, in ExplainInput) (*mcp.CallToolResult, answer.ExplainResult, error) {
	line := in.Line
	switch {
	case strings.TrimSpace(line) == "":
		return nil, answer.ExplainResult{}, fmt.Errorf("empty line: give the command line to check, e.g. \"tar -xzf a.tgz\"")
	case !utf8.ValidString(line):
		return nil, answer.ExplainResult{}, fmt.Errorf("line is not valid UTF-8")
	}
	if err := (answer.ExplainRequest{Line: line}).Check(answer.Limits{}); err != nil {
		return nil, answer.ExplainResult{}, fmt.Errorf("%w: check one command line at a time", err)
	}
	// the agent's $PATH (cmdai mcp's own), not a background serve's
	res, err := t.a.Explain(ctx, answer.ExplainRequest{Line: line, Path: os.Getenv("PATH")})
	if err != nil {
		return nil, answer.ExplainResult{}, err
	}
	// a typo of an installed name is told which, as `cmdai explain` does
	answer.SuggestInstalled(&res, os.Getenv("PATH"))
	return text(explainText(res)), res, nil
}

// explainText renders a result for an agent: the verdict first (what it
// acts on), then per command its page and summary and one line per word
// (per flag of a cluster), the documented option's text cut short.
func explainText(res answer.ExplainResult) string {
	var b strings.Builder
	if res.Degraded {
		b.WriteString("degraded: " + res.DegradedReason + "\n")
	}
	r := res.Result
	if r.OK {
		b.WriteString("ok: every option is documented and every command installed\n")
	} else {
		fmt.Fprintf(&b, "NOT OK: %d unknown option(s), %d command(s) not installed\n", r.UnknownCount, r.NotInstalledCount)
	}
	for _, c := range r.Commands {
		b.WriteString(c.Name)
		if len(c.Via) > 0 {
			b.WriteString(" (via " + strings.Join(c.Via, ", ") + ")")
		}
		b.WriteString(": " + string(c.Verdict))
		if c.Page != "" {
			b.WriteString(", " + c.Page)
		}
		if c.Summary != "" {
			b.WriteString(", " + flat(c.Summary, 120))
		}
		if c.Note != "" {
			b.WriteString(" (" + flat(c.Note, 120) + ")")
		}
		b.WriteByte('\n')
		for _, w := range c.Words {
			wordLine(&b, w, "  ")
			for _, f := range w.Flags {
				wordLine(&b, f, "    ")
			}
		}
	}
	return b.String()
}

func wordLine(b *strings.Builder, w judge.Word, indent string) {
	b.WriteString(indent + flat(w.Text, 60) + ": " + string(w.Verdict))
	spellings, text := optionText(w.Help)
	switch {
	case spellings != "":
		b.WriteString(" " + flat(spellings, 60))
	case w.Option != "" && w.Option != w.Text:
		b.WriteString(" " + w.Option)
	}
	if text != "" {
		b.WriteString(": " + flat(text, 100))
	}
	if w.Note != "" {
		b.WriteString(" (" + flat(w.Note, 100) + ")")
	} else if w.Of != "" {
		b.WriteString(" (value of " + w.Of + ")")
	}
	b.WriteByte('\n')
}

// optionText splits an option record's text into its heading's
// spellings ("-c, --count" of "grep(1) option -c, --count") and its
// description (the heading repeats what the agent reads beside it).
func optionText(help string) (spellings, text string) {
	head, rest, _ := strings.Cut(help, "\n")
	if _, sp, ok := strings.Cut(head, ") option "); ok {
		return sp, rest
	}
	return "", help
}

// flat is s on one line, cut to max runes.
func flat(s string, max int) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) > max {
		s = string([]rune(s)[:max-3]) + "..."
	}
	return s
}
