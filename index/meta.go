package index

import (
	"encoding/json"
	"sort"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// SchemaVersion numbers the layout of records and collection metadata;
// an index of another schema is rebuilt, not reused. 2: records carry
// their vector's authenticator.
const SchemaVersion = 2

// Collection metadata keys: only this package knows them.
const (
	metaModel         = "model"
	metaDims          = "dims"
	metaModelSHA      = "model_sha256"
	metaModelVariant  = "model_variant"
	metaToolVersion   = "tool_version"
	metaSchemaVersion = "schema_version"
	metaDistro        = "distro"
	metaOS            = "os"
	metaBuiltAt       = "built_at"
	metaComplete      = "complete"
	metaCommands      = "commands"
	metaChunks        = "chunks"
	metaProseBudget   = "prose_budget"
	metaSkipped       = "skipped"
	metaFailed        = "failed"
	metaImportedFrom  = "imported_from"
	metaUnsigned      = "unsigned"
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
	Commands int  `json:"commands_count"`
	Chunks   int  `json:"chunks_count"`
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
	// ImportedFrom says where an imported index came from (the tarball,
	// its checksums, the key that signed them, when): "" for one built
	// here. Unsigned: no signature this cmdai verified vouched for it
	// (`index import --allow-unsigned`): its records are only as
	// trustworthy as that file, until `cmdai index init --force`
	// rebuilds them here. A refresh in place keeps both.
	ImportedFrom string `json:"imported_from,omitempty"`
	Unsigned     bool   `json:"unsigned,omitempty"`
}

// Map is the form Chroma stores.
func (m Meta) Map() map[string]any {
	md := map[string]any{
		metaModel: m.Model, metaDims: m.Dims, metaModelSHA: m.ModelSHA256, metaModelVariant: m.ModelVariant,
		metaToolVersion: m.ToolVersion, metaSchemaVersion: m.SchemaVersion, metaDistro: m.Distro, metaOS: m.OS,
		metaBuiltAt: m.BuiltAt.UTC().Format(time.RFC3339), metaComplete: m.Complete,
		metaCommands: m.Commands, metaChunks: m.Chunks, metaProseBudget: m.ProseBudget,
		metaSkipped: encodeSkipped(m.Skipped), metaFailed: encodeFailed(m.Failed),
	}
	if m.ImportedFrom != "" || m.Unsigned {
		SetOrigin(md, m.ImportedFrom, m.Unsigned)
	}
	return md
}

// ParseMeta reads collection metadata back; missing keys stay zero.
func ParseMeta(md map[string]any) Meta {
	var m Meta
	m.Model, _ = md[metaModel].(string)
	m.Dims = intOf(md[metaDims])
	m.ModelSHA256, _ = md[metaModelSHA].(string)
	m.ModelVariant, _ = md[metaModelVariant].(string)
	m.ToolVersion, _ = md[metaToolVersion].(string)
	m.SchemaVersion = intOf(md[metaSchemaVersion])
	m.Distro, _ = md[metaDistro].(string)
	m.OS, _ = md[metaOS].(string)
	if s, ok := md[metaBuiltAt].(string); ok {
		m.BuiltAt, _ = time.Parse(time.RFC3339, s)
	}
	m.Complete, _ = md[metaComplete].(bool)
	m.Commands = intOf(md[metaCommands])
	m.Chunks = intOf(md[metaChunks])
	m.ProseBudget = intOf(md[metaProseBudget])
	if s, ok := md[metaSkipped].(string); ok {
		m.Skipped = decodeSkipped(s)
	}
	if s, ok := md[metaFailed].(string); ok {
		m.Failed = decodeFailed(s)
	}
	m.ImportedFrom, _ = md[metaImportedFrom].(string)
	m.Unsigned, _ = md[metaUnsigned].(bool)
	return m
}

// Exported is collection metadata md as an export carries it: without
// where this machine's copy came from (SetOrigin), which is the
// importing machine's to say.
func Exported(md map[string]any) map[string]any {
	out := make(map[string]any, len(md))
	for k, v := range md {
		if k != metaImportedFrom && k != metaUnsigned {
			out[k] = v
		}
	}
	return out
}

// SetOrigin records in collection metadata md where an import came from
// and whether a verified signature vouched for it (Meta.ImportedFrom,
// Meta.Unsigned), replacing whatever the tarball said of itself.
func SetOrigin(md map[string]any, from string, unsigned bool) {
	md[metaImportedFrom], md[metaUnsigned] = from, unsigned
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

// Placed is collection metadata md (as an export holds it) for an index
// placed on distro and os: another distribution's tarball imported with
// --distro becomes that one's index. Every other key is kept as it was,
// ours or not, so that an import holds exactly what was exported.
func Placed(md map[string]any, distro, os string) map[string]any {
	out := make(map[string]any, len(md))
	for k, v := range md {
		out[k] = v
	}
	out[metaDistro], out[metaOS] = distro, os
	return out
}

// SetComplete marks collection metadata md complete or not, leaving the
// rest as it is.
func SetComplete(md map[string]any, complete bool) { md[metaComplete] = complete }
