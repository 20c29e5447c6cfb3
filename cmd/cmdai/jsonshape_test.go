package main

import (
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"testing"

	answerlayer "github.com/cmdai/cmdai/answer"
	"github.com/cmdai/cmdai/builder"
	"github.com/cmdai/cmdai/builder/pages"
	"github.com/cmdai/cmdai/cmd/cmdai/internal/doctorcmd"
	"github.com/cmdai/cmdai/cmd/cmdai/internal/index/exportcmd"
	"github.com/cmdai/cmdai/cmd/cmdai/internal/index/importcmd"
	"github.com/cmdai/cmdai/embed"
	"github.com/cmdai/cmdai/internal/jsonout"
	"github.com/cmdai/cmdai/search"
	"github.com/cmdai/cmdai/search/evaluate"
	"github.com/cmdai/cmdai/serve"
	"github.com/cmdai/cmdai/serve/mcpserver"
	"github.com/cmdai/cmdai/ship/release"
)

// jsonOutputs are the types whose JSON a user or an agent reads: every
// CLI --json output, serve's HTTP API (requests and answers, which the
// MCP tools ask too) and the MCP tools' inputs. The anonymous wrappers
// the commands print (scan's "type", init's chroma fields, download
// --list's "indexes") are written out as the commands write them. Files on disk (an index
// tarball's manifest, the model's manifest) are not here: they keep their
// names so that older files still read.
var jsonOutputs = map[string]any{
	"index init --json": struct {
		builder.Summary
		Chroma string `json:"chroma"`
		Mode   string `json:"chroma_mode"`
	}{},
	"index refresh --json": builder.RefreshSummary{},
	"index status --json":  answerlayer.IndexStatus{},
	"index scan --json": struct {
		Type string `json:"type"`
		pages.Result
	}{},
	"index scan --stats --json": struct {
		Type string `json:"type"`
		pages.Stats
	}{},
	"index query --json": answerlayer.QueryResult{},
	"explain --json (POST /v1/explain, mcp explain_command)": answerlayer.ExplainResult{},
	"POST /v1/explain request":                               answerlayer.ExplainRequest{},
	"index docs (GET /v1/docs)":                              search.CommandDoc{},
	"index eval --json":                                      evaluate.EvalResult{},
	"index eval misses":                                      evaluate.Miss{},
	"index export --json":                                    exportcmd.ExportResult{},
	"index import --json":                                    importcmd.ImportResult{},
	"index download --list --json": struct {
		Indexes []release.Entry `json:"indexes"`
	}{},
	"model status --json": embed.ModelStatus{},
	"doctor --json":       doctorcmd.Report{},
	"--json errors":       jsonout.Error{},
	"POST /v1/query":      answerlayer.QueryRequest{},
	"GET /v1/health":      serve.Health{},
	"POST /v1/lease":      serve.Lease{},
	"mcp search_commands": mcpserver.SearchInput{},
	"mcp command_docs":    mcpserver.DocsInput{},
	"mcp explain_command": mcpserver.ExplainInput{},
}

// TestJSONFieldsHaveOneShape: a field name means one thing in every JSON
// output: `aliases` is a list wherever it appears, and its count is
// `aliases_count`. It fails when a name comes back as a number in one
// output and a list (or a string, or an object) in another.
func TestJSONFieldsHaveOneShape(t *testing.T) {
	if clashes := shapeClashes(jsonOutputs); len(clashes) > 0 {
		t.Errorf("field names with more than one JSON shape (name a count NAME_count, keep lists as NAME):\n%s", strings.Join(clashes, "\n"))
	}
	// The check itself sees a clash, nested and through a pointer.
	type inner struct {
		Chunks []string `json:"chunks"`
	}
	made := map[string]any{
		"a": struct {
			Chunks int `json:"chunks"`
		}{},
		"b": struct {
			In *inner `json:"in"`
		}{},
	}
	if got := shapeClashes(made); len(got) != 1 || !strings.Contains(got[0], "chunks") {
		t.Errorf("a made-up clash of chunks (number vs array): %q, want it found", got)
	}
}

// shapeClashes lists, one line per name, the names that have two JSON
// kinds across outputs, with where each kind was seen.
func shapeClashes(outputs map[string]any) []string {
	seen := map[string]map[string][]string{} // name -> kind -> where
	for label, v := range outputs {
		walkJSON(reflect.TypeOf(v), label, map[reflect.Type]bool{}, func(name, kind, where string) {
			if kind == "any" {
				return
			}
			if seen[name] == nil {
				seen[name] = map[string][]string{}
			}
			seen[name][kind] = append(seen[name][kind], where)
		})
	}
	var out []string
	for name, kinds := range seen {
		if len(kinds) < 2 {
			continue
		}
		var parts []string
		for k, where := range kinds {
			sort.Strings(where)
			parts = append(parts, fmt.Sprintf("%s in %s", k, strings.Join(where, ", ")))
		}
		sort.Strings(parts)
		out = append(out, fmt.Sprintf("  %s: %s", name, strings.Join(parts, "; ")))
	}
	sort.Strings(out)
	return out
}

var marshalerType = reflect.TypeOf((*json.Marshaler)(nil)).Elem()

// walkJSON calls see for every field encoding/json writes for type t,
// nested ones included, with the field's JSON kind.
func walkJSON(t reflect.Type, where string, done map[reflect.Type]bool, see func(name, kind, where string)) {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Array || t.Kind() == reflect.Map {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct || done[t] || marshals(t) {
		return
	}
	done[t] = true
	defer delete(done, t)
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		name, _, _ := strings.Cut(tag, ",")
		if name == "-" || (!f.IsExported() && !f.Anonymous) {
			continue
		}
		if f.Anonymous && name == "" {
			walkJSON(f.Type, where, done, see) // embedded: its fields are inline
			continue
		}
		if name == "" {
			name = f.Name
		}
		see(name, jsonKind(f.Type), where+"."+name)
		walkJSON(f.Type, where+"."+name, done, see)
	}
}

func marshals(t reflect.Type) bool {
	return t.Implements(marshalerType) || reflect.PointerTo(t).Implements(marshalerType)
}

// jsonKind is what encoding/json writes for t: number, string, bool,
// array, object, or any (an interface: whatever it holds).
func jsonKind(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if marshals(t) {
		if b, err := json.Marshal(reflect.New(t).Interface()); err == nil && len(b) > 0 && b[0] != 'n' {
			switch b[0] {
			case '{':
				return "object"
			case '[':
				return "array"
			case '"':
				return "string"
			case 't', 'f':
				return "bool"
			default:
				return "number"
			}
		}
	}
	switch t.Kind() {
	case reflect.Struct, reflect.Map:
		return "object"
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() == reflect.Uint8 {
			return "string" // []byte is base64
		}
		return "array"
	case reflect.String:
		return "string"
	case reflect.Bool:
		return "bool"
	case reflect.Interface:
		return "any"
	default:
		return "number"
	}
}
