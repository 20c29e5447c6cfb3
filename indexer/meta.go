package indexer

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/cmdai/cmdai/embed"
)

// SchemaVersion numbers the layout of records and collection metadata;
// an index of another schema is rebuilt, not reused.
const SchemaVersion = 1

// Collection metadata keys.
const (
	MetaModel         = "model"
	MetaDims          = "dims"
	MetaModelSHA      = "model_sha256"
	MetaModelVariant  = "model_variant"
	MetaToolVersion   = "tool_version"
	MetaSchemaVersion = "schema_version"
	MetaDistro        = "distro"
	MetaOS            = "os"
	MetaBuiltAt       = "built_at"
	MetaComplete      = "complete"
	MetaCommands      = "commands"
	MetaChunks        = "chunks"
	MetaProseBudget   = "prose_budget"
	MetaSkipped       = "skipped"
	MetaFailed        = "failed"
)

// Meta is an index's collection metadata.
type Meta struct {
	Model         string    `json:"model"`
	Dims          int       `json:"dims"`
	ModelSHA256   string    `json:"model_sha256"`
	ModelVariant  string    `json:"model_variant"`
	ToolVersion   string    `json:"tool_version"`
	SchemaVersion int       `json:"schema_version"`
	Distro        string    `json:"distro"`
	OS            string    `json:"os"`
	BuiltAt       time.Time `json:"built_at"`
	// Complete is false while a build runs or after one was interrupted.
	Complete bool `json:"complete"`
	Commands int  `json:"commands"`
	Chunks   int  `json:"chunks"`
	// ProseBudget is the build's word pieces of prose per page (0: all).
	ProseBudget int `json:"prose_budget"`
	// Skipped holds the commands whose page gave no chunk (it failed to
	// parse, or was empty), with their fingerprints, so that staleness
	// does not count them as new on every check.
	Skipped map[string]string `json:"skipped,omitempty"`
	// Failed holds the commands whose page could not be read, parsed or
	// chunked, with why (FailureText), for `index status --detailed`.
	// Collections built before it was kept have none.
	Failed map[string]string `json:"failed,omitempty"`
}

// Map is the form Chroma stores.
func (m Meta) Map() map[string]any {
	return map[string]any{
		MetaModel: m.Model, MetaDims: m.Dims, MetaModelSHA: m.ModelSHA256, MetaModelVariant: m.ModelVariant,
		MetaToolVersion: m.ToolVersion, MetaSchemaVersion: m.SchemaVersion, MetaDistro: m.Distro, MetaOS: m.OS,
		MetaBuiltAt: m.BuiltAt.UTC().Format(time.RFC3339), MetaComplete: m.Complete,
		MetaCommands: m.Commands, MetaChunks: m.Chunks, MetaProseBudget: m.ProseBudget,
		MetaSkipped: encodeSkipped(m.Skipped), MetaFailed: encodeFailed(m.Failed),
	}
}

// ParseMeta reads collection metadata back; missing keys stay zero.
func ParseMeta(md map[string]any) Meta {
	var m Meta
	m.Model, _ = md[MetaModel].(string)
	m.Dims = intOf(md[MetaDims])
	m.ModelSHA256, _ = md[MetaModelSHA].(string)
	m.ModelVariant, _ = md[MetaModelVariant].(string)
	m.ToolVersion, _ = md[MetaToolVersion].(string)
	m.SchemaVersion = intOf(md[MetaSchemaVersion])
	m.Distro, _ = md[MetaDistro].(string)
	m.OS, _ = md[MetaOS].(string)
	if s, ok := md[MetaBuiltAt].(string); ok {
		m.BuiltAt, _ = time.Parse(time.RFC3339, s)
	}
	m.Complete, _ = md[MetaComplete].(bool)
	m.Commands = intOf(md[MetaCommands])
	m.Chunks = intOf(md[MetaChunks])
	m.ProseBudget = intOf(md[MetaProseBudget])
	if s, ok := md[MetaSkipped].(string); ok {
		m.Skipped = decodeSkipped(s)
	}
	if s, ok := md[MetaFailed].(string); ok {
		m.Failed = decodeFailed(s)
	}
	return m
}

// encodeFailed writes the failures as a JSON object in a string: Chroma
// metadata values are scalars, and reasons hold any character.
func encodeFailed(m map[string]string) string {
	if len(m) == 0 {
		return ""
	}
	b, _ := json.Marshal(m) // a map of strings always marshals
	return string(b)
}

// decodeFailed reads encodeFailed's string; one that does not parse (not
// written by us) gives no failures rather than an unreadable index.
func decodeFailed(s string) map[string]string {
	var m map[string]string
	if s == "" || json.Unmarshal([]byte(s), &m) != nil {
		return nil
	}
	return m
}

// maxFailureText bounds one stored reason: the collection's metadata holds
// every failed command's, and the first line of a panic says enough.
const maxFailureText = 300

// FailureText is how a page's failure is kept in the collection metadata:
// control characters (which a terminal would obey when status prints it)
// become spaces, and a long reason is cut at maxFailureText bytes.
func FailureText(reason string) string {
	reason = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, reason)
	if len(reason) <= maxFailureText {
		return reason
	}
	cut := maxFailureText
	for cut > 0 && !utf8.RuneStart(reason[cut]) {
		cut--
	}
	return reason[:cut] + "..."
}

// encodeSkipped writes "name=fingerprint" pairs, sorted, comma-separated:
// Chroma metadata values are scalars. Command names hold neither.
func encodeSkipped(m map[string]string) string {
	parts := make([]string, 0, len(m))
	for k, v := range m {
		parts = append(parts, k+"="+v)
	}
	sort.Strings(parts)
	return strings.Join(parts, ",")
}

func decodeSkipped(s string) map[string]string {
	if s == "" {
		return nil
	}
	m := map[string]string{}
	for _, p := range strings.Split(s, ",") {
		k, v, _ := strings.Cut(p, "=")
		m[k] = v
	}
	return m
}

func intOf(v any) int {
	switch x := v.(type) {
	case int:
		return x
	case int64:
		return int(x)
	case float64:
		return int(x)
	}
	return 0
}

// CheckModel says whether vectors from info can be compared with this
// index's, and what to do when not.
func (m Meta) CheckModel(info embed.Info) error {
	if m.ModelSHA256 == info.SHA256 {
		return nil
	}
	return fmt.Errorf("the index was built with %s %s (sha256 %.12s) but the embedder is %s %s (sha256 %.12s): use --model-variant %s, or rebuild with `cmdai index init --force`",
		m.Model, m.ModelVariant, m.ModelSHA256, info.Model, info.Variant, info.SHA256, m.ModelVariant)
}
