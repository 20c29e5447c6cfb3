package answer

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/cmdai/cmdai/builder"
	"github.com/cmdai/cmdai/explain"
	"github.com/cmdai/cmdai/search/shown"
)

// QueryRequest is one search: the options of `cmdai index query`, the
// body of POST /v1/query and what the search_commands tool asks.
type QueryRequest struct {
	Request   string `json:"request"`
	K         int    `json:"k,omitempty"`
	Mode      string `json:"mode,omitempty"`
	Context   bool   `json:"with_context,omitempty"`
	MaxTokens int    `json:"max_tokens,omitempty"`
	// Matches is how many matches of each command to show (0: the
	// default, shown.DefaultMatches); Full shows every match, whole.
	Matches int  `json:"matches_count,omitempty"`
	Full    bool `json:"full,omitempty"`
	// Distro is the distribution whose index is asked for ("": the one
	// serve holds). Another one is answered 421: the CLI asks it itself.
	Distro string `json:"distro,omitempty"`
	// Strict: when Chroma cannot be reached, answer the error (exit 4)
	// instead of a keyword-only answer from the keyword index on disk.
	Strict bool `json:"strict,omitempty"`
}

// QueryResult is what `index query --json` prints, and the answer of
// POST /v1/query (which adds Context when asked).
type QueryResult struct {
	Request    string             `json:"request"`
	Collection string             `json:"collection"`
	Commands   []shown.CommandHit `json:"commands"`
	Millis     float64            `json:"query_ms"`
	// Degraded: Chroma could not be reached; the answer is keyword-only,
	// from the keyword index on disk, for the reason given.
	Degraded       bool   `json:"degraded,omitempty"`
	DegradedReason string `json:"degraded_reason,omitempty"`
	// NoCloseMatch: no installed command is documented as doing anything
	// close to the request (search.NoCloseMatchBelow); the commands are
	// only the nearest there are. Closeness is the cosine it is judged by.
	NoCloseMatch bool    `json:"no_close_match"`
	Closeness    float64 `json:"closeness,omitempty"`
	// Context is the --context block, in serve's answers that ask for it.
	Context string `json:"context,omitempty"`
}

// NoCloseMatchLine is what an answer says first when no installed
// command matches the request closely (QueryResult.NoCloseMatch): the
// CLI's text and --context, and MCP's search_commands.
const NoCloseMatchLine = "No installed command matches this closely; the nearest:"

// ExplainRequest is the body of POST /v1/explain: one shell command
// line, as `cmdai explain` takes it.
type ExplainRequest struct {
	Line string `json:"line"`
	// Distro is the distribution whose index judges the line ("": the
	// one serve holds). Another one is answered 421, as queries are.
	Distro string `json:"distro,omitempty"`
	// Strict: when Chroma cannot be reached, answer the error (exit 4)
	// instead of judging by the keyword index on disk.
	Strict bool `json:"strict,omitempty"`
	// Path is the caller's $PATH: a command the index lacks is judged
	// installed or not against it ("": the answerer's own; a serve
	// started in the background keeps its first caller's).
	Path string `json:"path,omitempty"`
}

// MaxPathBytes bounds a request's $PATH (ExplainRequest.Path, and a
// status's path and manpath): no environment a shell keeps is near it.
const MaxPathBytes = 8 << 10

// OnPath is how q's command lookup goes: own (the answerer's, nil when
// the index is not this machine's distribution's: then nothing is) in
// the directories of q.Path when it carries one.
func (q ExplainRequest) OnPath(own func(string) bool) func(string) bool {
	if own == nil || q.Path == "" {
		return own
	}
	return LookIn(q.Path)
}

// LookIn is exec.LookPath's test in the directories of path (a $PATH):
// an executable regular file of that name in one of its absolute
// directories (a relative one is never searched: it would name the
// answerer's working directory, not the caller's).
func LookIn(path string) func(string) bool {
	dirs := filepath.SplitList(path)
	return func(name string) bool {
		if name == "" || strings.ContainsRune(name, '/') {
			return false
		}
		for _, dir := range dirs {
			if !filepath.IsAbs(dir) {
				continue
			}
			if fi, err := os.Stat(filepath.Join(dir, name)); err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0 {
				return true
			}
		}
		return false
	}
}

// ExplainResult is what `cmdai explain --json` prints, and the answer of
// POST /v1/explain: the line's explain.Result, the index that judged it
// and how long that took.
type ExplainResult struct {
	explain.Result
	Collection string  `json:"collection"`
	Millis     float64 `json:"explain_ms"`
	// Degraded: Chroma could not be reached; the commands' option records
	// came from the keyword index on disk, for the reason given.
	Degraded       bool   `json:"degraded,omitempty"`
	DegradedReason string `json:"degraded_reason,omitempty"`
}

// IndexStatus is what `index status --json` prints, and the answer of
// GET /v1/status.
type IndexStatus struct {
	// Holder says who answered (this process, or a serve at an
	// address): MCP's index_status names it; JSON answers do not carry it.
	Holder string `json:"-"`
	Server struct {
		URL     string `json:"url"`
		Mode    string `json:"mode"`
		Version string `json:"version"`
		Healthy bool   `json:"healthy"`
	} `json:"server"`
	Current     string                     `json:"current_collection"`
	Collections []builder.CollectionStatus `json:"collections"`
}

// StatusRequest is what GET /v1/status asks: ?detailed=true lists the
// stale commands; ?path=...&manpath=... is the caller's environment.
type StatusRequest struct {
	Detailed bool
	// Verify checks every record against its authenticator, not a
	// sample (CheckIndex): seconds on a whole machine's index. Answered
	// where it is asked (`index status --verify` rules serve out).
	Verify bool
	// Env is the caller's $PATH and $MANPATH, against which staleness is
	// judged (the commands installed for the caller); nil, a request
	// without path, judges against serve's own environment.
	Env *ScanEnv
}

// ScanEnv is the part of a caller's environment a scan of the installed
// commands reads, sent as it is (an empty Path finds no command). A
// relative $MANPATH entry is refused: serve does not know the caller's
// working directory (the CLI then works out its status itself).
type ScanEnv struct {
	Path    string
	ManPath string
}

// Getenv reads e as os.Getenv reads the environment, for the scan.
func (e ScanEnv) Getenv(key string) string {
	switch key {
	case "PATH":
		return e.Path
	case "MANPATH":
		return e.ManPath
	}
	return ""
}

// DocsRequest asks for one command's documentation: GET /v1/docs and
// MCP's command_docs.
type DocsRequest struct {
	Command string
	// Request, when set, narrows the doc to what it asks: the options and
	// examples that do it first among the records (search's ForRequest).
	Request string
	// Strict: when Chroma cannot be reached, answer the error (exit 4)
	// instead of the command's records from disk.
	Strict bool
}
