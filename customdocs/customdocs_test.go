package customdocs

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const kubectlDoc = `---
command: kubectl
aliases: ["k8s", "kube"]
keywords: ["kubernetes", "pods"]
categories: ["devops"]
priority: high
version: "1.28"
---

# Kubernetes kubectl

kubectl is the Kubernetes command-line tool for managing clusters.

## Common Patterns

- List resources: ` + "`kubectl get {type}`" + `

## Examples

**User**: "show me all pods"
**Command**: ` + "`kubectl get pods`" + `

**User**: "get logs from nginx"
**Command**: ` + "`kubectl logs nginx`" + `
`

const hintDoc = `---
description: How to set up a new Go module
relevant_for: starting a Go project, go mod init
---

## Setting up

- Run go mod init with the module path.
`

func TestParseCommandDoc(t *testing.T) {
	d, err := Parse("kubectl.md", []byte(kubectlDoc))
	if err != nil {
		t.Fatal(err)
	}
	if d.Source != SourceCustom || d.Command != "kubectl" || d.Priority != "high" || d.Version != "1.28" ||
		strings.Join(d.Aliases, ",") != "k8s,kube" || strings.Join(d.Keywords, ",") != "kubernetes,pods" || d.Description != "kubectl is the Kubernetes command-line tool for managing clusters." {
		t.Errorf("doc: %+v", d)
	}
	if len(d.Examples) != 2 || d.Examples[0] != (Example{"show me all pods", "kubectl get pods"}) || d.Examples[1].Command != "kubectl logs nginx" {
		t.Errorf("examples: %+v", d.Examples)
	}
	cs := d.Chunks()
	ids := map[string]Chunk{}
	for _, c := range cs {
		ids[c.ID] = c
	}
	if s := ids["custom:kubectl#NAME"]; !strings.Contains(s.Text, "keywords: kubernetes, pods") || s.Kind != "summary" {
		t.Errorf("summary: %+v", s)
	}
	if e := ids["custom:kubectl#EXAMPLES#1"]; !strings.Contains(e.Text, "show me all pods\n$ kubectl get pods") {
		t.Errorf("example chunk: %+v", e)
	}
	for _, c := range cs {
		if c.Kind == "section" && strings.Contains(c.Text, "**User**") {
			t.Errorf("examples leaked into a section chunk: %q", c.Text)
		}
	}
}

func TestParseHint(t *testing.T) {
	d, err := Parse("/x/new-go-module.md", []byte(hintDoc))
	if err != nil {
		t.Fatal(err)
	}
	if d.Source != SourceHint || d.Command != "new-go-module" || d.Description != "How to set up a new Go module" || !strings.Contains(d.Chunks()[0].Text, "relevant for: starting a Go project") {
		t.Errorf("hint: %+v", d)
	}
}

func TestLoadReportsBrokenFiles(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"kubectl.md":      kubectlDoc,
		"hints/go.md":     hintDoc,
		"no-front.md":     "# just markdown\n",
		"bad-yaml.md":     "---\ncommand: [unclosed\n---\nbody\n",
		"neither.md":      "---\ntitle: what\n---\nbody\n",
		"bad-priority.md": "---\ncommand: foo\npriority: urgent\n---\n",
		"unclosed.md":     "---\ncommand: foo\n",
		"dup.md":          strings.Replace(kubectlDoc, "priority: high", "priority: low", 1),
		"notes.txt":       "not markdown: ignored",
	}
	for name, body := range files {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(body), 0o644)
	}
	docs, probs := Load([]string{dir, filepath.Join(dir, "missing")})
	if len(docs) != 2 || docs[0].Command != "kubectl" || docs[1].Command != "go" {
		t.Errorf("docs: %+v", docs)
	}
	want := map[string]string{"no-front.md": "no YAML frontmatter", "bad-yaml.md": "not valid YAML", "neither.md": "neither",
		"bad-priority.md": "high, medium or low", "unclosed.md": "not closed", "kubectl.md": "already documented"}
	got := map[string]string{}
	for _, p := range probs {
		got[filepath.Base(p.Path)] = p.Err
	}
	for f, msg := range want {
		// of kubectl.md and dup.md, the one read second is the duplicate
		if f == "kubectl.md" {
			if !strings.Contains(got["kubectl.md"]+got["dup.md"], msg) {
				t.Errorf("duplicate not reported: %v", got)
			}
			continue
		}
		if !strings.Contains(got[f], msg) {
			t.Errorf("%s: got %q, want it to mention %q", f, got[f], msg)
		}
	}
	if len(probs) != 6 {
		t.Errorf("problems: %+v", probs)
	}
}

func TestTemplateParses(t *testing.T) {
	d, err := Parse("mytool.md", []byte(Template("mytool")))
	if err != nil {
		t.Fatal(err)
	}
	if d.Command != "mytool" || d.Priority != "medium" || len(d.Examples) != 1 || !strings.HasPrefix(d.Examples[0].Command, "mytool ") {
		t.Errorf("template doc: %+v", d)
	}
}

func TestLoadSkipsADocThatPanics(t *testing.T) {
	orig := chunkDoc
	t.Cleanup(func() { chunkDoc = orig })
	chunkDoc = func(d Doc) []Chunk {
		if d.Command == "boom" {
			var m map[string]int
			m[d.Command]++ // the kind of bug an unseen file trips
		}
		return orig(d)
	}
	dir := t.TempDir()
	for name, body := range map[string]string{
		"kubectl.md": kubectlDoc,
		"boom.md":    "---\ncommand: boom\n---\n# boom\n",
		"go.md":      hintDoc,
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	docs, probs := Load([]string{dir})
	var got []string
	for _, d := range docs {
		got = append(got, d.Command)
	}
	if strings.Join(got, ",") != "kubectl,go" {
		t.Errorf("docs %q: want kubectl and go, boom skipped", got)
	}
	if len(probs) != 1 || filepath.Base(probs[0].Path) != "boom.md" || !strings.Contains(probs[0].Err, "panic: assignment to entry in nil map") {
		t.Errorf("problems: %+v", probs)
	}
}

// TestDescriptionIsProseNotHeading: the description is the first line of
// prose; a doc written from the template ("# NAME", then a line saying
// what it is for) used to get its heading, the bare name.
func TestDescriptionIsProseNotHeading(t *testing.T) {
	for _, tc := range []struct{ body, want string }{
		{"# gizmo\n\ngizmo turns widgets into gadgets.\n", "gizmo turns widgets into gadgets."},
		{"## gizmo\n- turns widgets into gadgets\n", "turns widgets into gadgets"},
		{"```\ngizmo --help\n```\nConverts widgets.\n", "Converts widgets."},
		{"# gizmo ships our services\n\n**User**: \"ship it\"\n**Command**: `gizmo ship`\n", "gizmo ships our services"},
		{"", ""},
	} {
		d, err := Parse("gizmo.md", []byte("---\ncommand: gizmo\n---\n"+tc.body))
		if err != nil {
			t.Fatal(err)
		}
		if d.Description != tc.want {
			t.Errorf("body %q: description %q, want %q", tc.body, d.Description, tc.want)
		}
	}
	d, err := Parse("gizmo.md", []byte(Template("gizmo")))
	if err != nil {
		t.Fatal(err)
	}
	if strings.HasPrefix(d.Description, "#") || d.Description == "gizmo" {
		t.Errorf("template's description %q", d.Description)
	}
}
