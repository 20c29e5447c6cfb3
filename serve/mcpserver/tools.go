package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"os"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cmdai/cmdai/answer"
	"github.com/cmdai/cmdai/builder"
	"github.com/cmdai/cmdai/index"
	"github.com/cmdai/cmdai/internal/jsonout"
	"github.com/cmdai/cmdai/search"
	"github.com/cmdai/cmdai/search/render"
	"github.com/cmdai/cmdai/search/shown"
	"github.com/cmdai/cmdai/serve/guard"
)

// Limits of the tools' arguments: a request is a sentence, not a page; an
// agent that asks for more commands or tokens than this pays for
// context it will not read.
const (
	DefaultK         = 5
	MaxK             = 20
	MaxQueryRunes    = 1000
	DefaultMaxTokens = 600
	MaxTokensLimit   = 4000
	MaxOptionBytes   = 200
)

// SearchInput is search_commands' arguments.
type SearchInput struct {
	Query string `json:"query" jsonschema:"what you want to do, in plain words, e.g. find files modified today"`
	K     *int   `json:"k,omitempty" jsonschema:"how many commands to return, 1 to 20 (default 5)"`
	Mode  string `json:"mode,omitempty" jsonschema:"ranking: learned (default; every channel below and priors, weights learned on a train split), semantic (embeddings), keyword (BM25 and command names), hybrid (both) or fused (semantic, BM25 over NAME chunks and whole pages, command names)"`
}

// DocsInput is command_docs' arguments.
type DocsInput struct {
	Command   string `json:"command" jsonschema:"the command's name, e.g. grep; a subcommand as it is run (git commit) or as its page is named (git-commit)"`
	Option    string `json:"option,omitempty" jsonschema:"one option, e.g. --count or -c: gives that option's full text only"`
	Section   string `json:"section,omitempty" jsonschema:"summary, synopsis, options (one line each), examples, or all (default: summary, options and examples)"`
	MaxTokens *int   `json:"max_tokens,omitempty" jsonschema:"token budget of the answer, 50 to 4000 (default 600)"`
	Request   string `json:"request,omitempty" jsonschema:"what you want to do with the command, e.g. extract into a directory: the options and examples that do it come first, and flags names them"`
}

// Choice is what the option ranker chose for one command: how its
// command line starts, the options that do what was asked as the page
// spells them, and the command lines of the examples chosen, best first:
// for an agent that builds the command line itself.
type Choice struct {
	// Invocation is how its command line starts ("git commit").
	Invocation string   `json:"invocation"`
	Flags      []string `json:"flags"`
	Examples   []string `json:"examples"`
}

// SearchOutput is search_commands' structured content: the object
// `cmdai search --json` prints (its schema_version, request, collection,
// whether the answer is degraded or has no close match), each command
// as --json gives it with its Choice beside.
type SearchOutput struct {
	SchemaVersion int `json:"schema_version"`
	answer.QueryResult
	Commands []SearchHit `json:"commands"`
}

// SearchHit is one command of search_commands' answer: as `cmdai search
// --json` gives it, and its Choice.
type SearchHit struct {
	shown.CommandHit
	Choice
}

// DocsOutput is command_docs' structured content: the object `cmdai
// show --json` prints (the command and its records, the ones that do the
// request first), holding the records the text shows (docsOutput), and
// its Choice.
type DocsOutput struct {
	SchemaVersion int `json:"schema_version"`
	search.CommandDoc
	Choice
}

// StatusInput is index_status' arguments: none.
type StatusInput struct{}

// StatusOutput is index_status' structured content: the index that
// answers, as `cmdai index status --json` gives it (its counts, state,
// build and model), and who holds it. Verification is the check of its
// records ("" when they hold); a metadata check that failed leaves only
// the collection, its record count and that failure.
type StatusOutput struct {
	Collection   string `json:"collection"`
	Records      int    `json:"records_count"`
	Commands     int    `json:"commands,omitempty"`
	Complete     bool   `json:"complete"`
	Distro       string `json:"distro,omitempty"`
	OS           string `json:"os,omitempty"`
	BuiltAt      string `json:"built_at,omitempty"`
	ToolVersion  string `json:"tool_version,omitempty"`
	Model        string `json:"model,omitempty"`
	ModelVariant string `json:"model_variant,omitempty"`
	Dims         int    `json:"dims,omitempty"`
	Verification string `json:"verification,omitempty"`
	HeldBy       string `json:"held_by"`
}

// New is an MCP server with the four tools over a.
func New(a answer.Answerer, version string) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "cmdai", Title: "cmdai: this machine's command documentation", Version: version}, &mcp.ServerOptions{
		Instructions: "Look up shell commands installed on this machine: search_commands finds the commands for a task, command_docs gives one command's synopsis, options or examples (or one option's text), explain_command checks a command line you mean to run or propose (every option documented, every command installed), index_status says what the index holds.",
	})
	t := tools{a: a}
	mcp.AddTool(s, &mcp.Tool{
		Name:         "search_commands",
		Title:        "Find installed commands for a task",
		Description:  "Find the commands installed on this machine that do what you describe. Returns the best commands, best first, a few lines each: name, man section, what it does, and the options (as many as the task needs) or examples that do it, best first; structured: each command's flags and example lines.",
		InputSchema:  searchSchema(),
		OutputSchema: mustSchema[SearchOutput](),
		Annotations:  &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: ptr(false)},
	}, t.search)
	mcp.AddTool(s, &mcp.Tool{
		Name:         "command_docs",
		Title:        "One command's documentation",
		Description:  "One command's documentation from the index (its man page as indexed on this machine): one option's full text (option), or one section (summary, synopsis, options, examples), within a token budget; with request, the options and examples that do it first (structured: their flags and example lines).",
		InputSchema:  docsSchema(),
		OutputSchema: mustSchema[DocsOutput](),
		Annotations:  &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: ptr(false)},
	}, t.docs)
	mcp.AddTool(s, &mcp.Tool{
		Name:         "explain_command",
		Title:        "Check a command line",
		Description:  "Check a shell command line before you run or propose it: for each command in it (pipelines, lists, sudo/xargs/env wrappers, git-style subcommands), its man page summary and, for each word, whether it is a documented option (with the option's text from the installed page), an unknown option, an operand, or undocumented; and whether each command is installed. The first line says ok or NOT OK. Reads this machine's index only.",
		InputSchema:  explainSchema(),
		OutputSchema: explainOutputSchema(),
		Annotations:  &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: ptr(false)},
	}, t.explain)
	mcp.AddTool(s, &mcp.Tool{
		Name:         "index_status",
		Title:        "Which index answers",
		Description:  "Which index answers: its collection, command and record counts, whether it is complete, when it was built, and the embedding model.",
		OutputSchema: mustSchema[StatusOutput](),
		Annotations:  &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: ptr(false)},
	}, t.status)
	return s
}

func ptr[T any](v T) *T { return &v }

// searchSchema is SearchInput's schema with the bounds an agent should
// see before it calls.
func searchSchema() *jsonschema.Schema {
	s := mustSchema[SearchInput]()
	s.Properties["query"].MinLength = ptr(1)
	s.Properties["k"].Minimum, s.Properties["k"].Maximum = ptr(1.0), ptr(float64(MaxK))
	s.Properties["mode"].Enum = []any{string(search.ModeSemantic), string(search.ModeKeyword), string(search.ModeHybrid), string(search.ModeFused), string(search.ModeLearned)}
	return s
}

func docsSchema() *jsonschema.Schema {
	s := mustSchema[DocsInput]()
	s.Properties["command"].MinLength = ptr(1)
	s.Properties["command"].MaxLength = ptr(guard.MaxCommandBytes)
	s.Properties["option"].MaxLength = ptr(MaxOptionBytes)
	s.Properties["section"].Enum = []any{"summary", "synopsis", "options", "examples", "all"}
	s.Properties["max_tokens"].Minimum, s.Properties["max_tokens"].Maximum = ptr(50.0), ptr(float64(MaxTokensLimit))
	return s
}

// mustSchema infers T's schema; T is one of this package's structs (or
// of the answers it gives), so a failure is a programming error caught by
// any test.
func mustSchema[T any]() *jsonschema.Schema { return mustSchemaWith[T](nil) }

// mustSchemaWith is mustSchema with the schemas of some types given.
func mustSchemaWith[T any](types map[reflect.Type]*jsonschema.Schema) *jsonschema.Schema {
	s, err := jsonschema.For[T](&jsonschema.ForOptions{TypeSchemas: types})
	if err != nil {
		panic(fmt.Sprintf("schema of %T: %v", *new(T), err))
	}
	return s
}

// tools are the tools' handlers: each checks its arguments, makes one
// call to a and renders the answer.
type tools struct{ a answer.Answerer }

// text is a tool's answer: plain text, which costs an agent fewer tokens
// than the same in JSON.
func text(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

func (t tools) search(ctx context.Context, _ *mcp.CallToolRequest, in SearchInput) (*mcp.CallToolResult, SearchOutput, error) {
	q, err := checkSearch(in)
	if err != nil {
		return nil, SearchOutput{}, err
	}
	res, err := t.a.Query(ctx, q)
	if err != nil {
		return nil, SearchOutput{}, err
	}
	// the matches --json shows (its default cut), each command's choice
	// from all of them
	so := SearchOutput{SchemaVersion: jsonout.SchemaVersion, QueryResult: res, Commands: []SearchHit{}}
	so.QueryResult.Commands = nil
	for i, h := range shown.Compact(slices.Clone(res.Commands), 0, 0) {
		so.Commands = append(so.Commands, SearchHit{CommandHit: h, Choice: choiceOf(res.Commands[i], res.Commands[i].Matches)})
	}
	out := render.Brief(res.Commands, render.DefaultBriefMatches)
	if res.NoCloseMatch {
		out = answer.NoCloseMatchLine + "\n" + out
	}
	if res.DegradedReason != "" {
		// first, so that an agent reading the top knows the ranking is
		// keyword-only
		out = "degraded: " + res.DegradedReason + "\n" + out
	}
	return text(out), so, nil
}

// choiceOf is a command's choice: the flags the option ranker chose, and
// the command lines of the examples among the first Chosen of records.
func choiceOf(h shown.CommandHit, records []shown.Match) Choice {
	c := Choice{Invocation: h.Invocation(), Flags: render.ChosenFlags(records, h.Chosen), Examples: []string{}}
	if c.Flags == nil {
		c.Flags = []string{}
	}
	for _, m := range records[:min(h.Chosen, len(records))] {
		if ex := render.ExampleLine(h.Invocation(), m); ex != "" && m.Kind == index.KindExample {
			c.Examples = append(c.Examples, ex)
		}
	}
	return c
}

// checkSearch turns the arguments into the request of every front door,
// or says what is wrong with them; the schema says the same, but a
// client need not check it. Full: every match of each command, whole
// (render.Brief picks), as the search gave them.
func checkSearch(in SearchInput) (answer.QueryRequest, error) {
	q := answer.QueryRequest{Request: strings.TrimSpace(in.Query), K: DefaultK, Mode: string(search.DefaultMode), Full: true}
	if q.Request == "" {
		return q, fmt.Errorf("empty query: say what you want to do, e.g. \"find files modified today\"")
	}
	if !utf8.ValidString(q.Request) {
		return q, fmt.Errorf("query is not valid UTF-8")
	}
	if n := utf8.RuneCountInString(q.Request); n > MaxQueryRunes {
		return q, fmt.Errorf("query of %d characters is too long (at most %d): say the task in a sentence", n, MaxQueryRunes)
	}
	if in.K != nil {
		q.K = *in.K
		// the answering layer's check, at this door's limit (a request's
		// length is checked above in characters, as the tool's schema
		// says)
		if err := q.Check(answer.Limits{MaxK: MaxK}); err != nil {
			return q, err
		}
	}
	if in.Mode != "" {
		m, err := search.ParseMode(in.Mode)
		if err != nil {
			return q, err
		}
		q.Mode = string(m)
	}
	return q, nil
}

func (t tools) docs(ctx context.Context, _ *mcp.CallToolRequest, in DocsInput) (*mcp.CallToolResult, DocsOutput, error) {
	if strings.TrimSpace(in.Command) == "" {
		return nil, DocsOutput{}, fmt.Errorf("empty command: name one, e.g. \"grep\" (search_commands finds one by what it does)")
	}
	// "git commit" and "git-commit" alike, as the schema says
	command, err := guard.CommandName(in.Command)
	if err != nil {
		return nil, DocsOutput{}, err
	}
	if len(in.Option) > MaxOptionBytes {
		return nil, DocsOutput{}, fmt.Errorf("option of %d bytes: at most %d (one option, e.g. --count)", len(in.Option), MaxOptionBytes)
	}
	request := strings.TrimSpace(in.Request)
	if !utf8.ValidString(request) {
		return nil, DocsOutput{}, fmt.Errorf("request is not valid UTF-8")
	}
	if n := utf8.RuneCountInString(request); n > MaxQueryRunes {
		return nil, DocsOutput{}, fmt.Errorf("request of %d characters is too long (at most %d): say the task in a sentence", n, MaxQueryRunes)
	}
	part, err := render.ParsePart(in.Section)
	if err != nil {
		return nil, DocsOutput{}, err
	}
	budget := DefaultMaxTokens
	if in.MaxTokens != nil {
		if *in.MaxTokens < 50 || *in.MaxTokens > MaxTokensLimit {
			return nil, DocsOutput{}, fmt.Errorf("max_tokens must be 50 to %d, not %d", MaxTokensLimit, *in.MaxTokens)
		}
		budget = *in.MaxTokens
	}
	doc, err := t.a.Docs(ctx, answer.DocsRequest{Command: command, Request: request})
	if errors.Is(err, search.ErrUnknownCommand) && search.NotIndexed(err) {
		// what it is on the agent's machine (this process's PATH, the
		// agent's own) decides what to do (issue 46); an answer from disk
		// that knows more (livedoc: installed, no page) says it itself
		return nil, DocsOutput{}, fmt.Errorf("unknown command %q: %s; search_commands finds a command by what it does", command, answer.Unknown(ctx, command, os.Getenv("PATH")))
	}
	if err != nil {
		return nil, DocsOutput{}, err
	}
	choice := choiceOf(doc.CommandHit, doc.Records)
	// first, as search_commands does: the agent learns the text is not
	// the index's before it reads it
	degraded := ""
	if doc.Degraded {
		degraded = "degraded: " + doc.DegradedReason + "\n"
	}
	if opt := strings.TrimSpace(in.Option); opt != "" {
		out, rec, err := render.OptionShown(doc, opt)
		if err != nil {
			return nil, DocsOutput{}, err
		}
		return text(degraded + out), docsOutput(doc, choice, []int{rec}, false), nil
	}
	if len(choice.Flags) > 0 {
		// the choice first: an agent that reads no further has the flags
		degraded += "for " + strconv.Quote(request) + ": " + strings.Join(choice.Flags, "; ") + "\n"
	}
	out, records := render.DocsShown(doc, part, budget)
	return text(degraded + out), docsOutput(doc, choice, records, true), nil
}

// docsOutput is command_docs' structured content: doc as `cmdai show
// --json` gives it, with the records the text shows alone (records, in
// their order in doc), so that max_tokens, section and option bound both
// alike (a whole page's records are 20-70 KB); Chosen counts the chosen
// records still at its head. cut: each record's text as `cmdai search
// --json` cuts it (an option's first sentence, marked truncated), as
// the text shows one line of each; one option asked for is whole.
func docsOutput(doc search.CommandDoc, choice Choice, records []int, cut bool) DocsOutput {
	kept := make([]shown.Match, 0, len(records))
	chosen := 0
	for n, i := range records {
		kept = append(kept, doc.Records[i])
		if i == n && i < doc.Chosen {
			chosen++
		}
	}
	if cut {
		kept = shown.Compact([]shown.CommandHit{{Command: doc.Command, Parent: doc.Parent, Matches: kept}}, -1, 0)[0].Matches
	}
	doc.Records, doc.Chosen = kept, chosen
	return DocsOutput{SchemaVersion: jsonout.SchemaVersion, CommandDoc: doc, Choice: choice}
}

func (t tools) status(ctx context.Context, _ *mcp.CallToolRequest, _ StatusInput) (*mcp.CallToolResult, StatusOutput, error) {
	st, err := t.a.Status(ctx, answer.StatusRequest{})
	if err != nil {
		return nil, StatusOutput{}, err
	}
	out, so, err := statusText(st)
	if err != nil {
		return nil, StatusOutput{}, err
	}
	return text(out), so, nil
}

// statusText renders the status of st's current collection in a few
// lines: with what failed verification and the rebuild, and nothing of
// metadata that failed its check (anyone who reaches Chroma could have
// written it).
func statusText(st answer.IndexStatus) (string, StatusOutput, error) {
	var c *builder.CollectionStatus
	for i := range st.Collections {
		if st.Collections[i].Name == st.Current {
			c = &st.Collections[i]
		}
	}
	if c == nil {
		return "", StatusOutput{}, fmt.Errorf("no index %s held by %s: build it with `cmdai index init`", st.Current, st.Holder)
	}
	so := StatusOutput{Collection: c.Name, Records: c.Records, HeldBy: st.Holder}
	v := c.Verification
	if v != nil && v.MetadataFailed() {
		so.Verification = v.Summary()
		return fmt.Sprintf("index %s: %d records\n%s\nheld by %s\n", c.Name, c.Records, v.Summary(), st.Holder), so, nil
	}
	checked := ""
	if v != nil && !v.OK() {
		checked = v.Summary() + "\n"
		so.Verification = v.Summary()
	}
	m := c.Meta
	state := "complete"
	if !m.Complete {
		state = "INCOMPLETE (a build was interrupted: run `cmdai index init`)"
	}
	built := "unknown"
	if !m.BuiltAt.IsZero() {
		built = m.BuiltAt.UTC().Format(time.RFC3339)
	}
	so.Commands, so.Complete, so.Distro, so.OS, so.ToolVersion = m.Commands, m.Complete, m.Distro, m.OS, m.ToolVersion
	so.Model, so.ModelVariant, so.Dims = m.Model, m.ModelVariant, m.Dims
	if !m.BuiltAt.IsZero() {
		so.BuiltAt = built
	}
	return fmt.Sprintf("index %s: %d commands, %d records, %s\n%sdistribution %s (%s); built %s by cmdai %s\nmodel %s (%s, %d dims)\nheld by %s\n",
		c.Name, m.Commands, c.Records, state, checked, m.Distro, m.OS, built, m.ToolVersion, m.Model, m.ModelVariant, m.Dims, st.Holder), so, nil
}
