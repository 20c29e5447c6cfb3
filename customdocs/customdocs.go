// Package customdocs reads the Markdown command docs and hint files users
// write about their own tools and cuts them into index records.
//
// A command doc has YAML frontmatter with `command` (required), `aliases`,
// `keywords`, `categories`, `priority` (high, medium, low) and `version`,
// and a Markdown body whose **User**: / **Command**: line pairs are
// examples. A hint file has `description` (required) and
// `relevant_for`. A file that is neither, or does not parse, is reported
// by name and skipped.
package customdocs

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/cmdai/cmdai/manparse"
)

// Sources, as records' "source" metadata says.
const (
	SourceCustom = "custom"
	SourceHint   = "hint"
)

// Doc is one parsed file.
type Doc struct {
	Path        string
	Source      string // SourceCustom or SourceHint
	Command     string // the command, or the hint's name (file name)
	Aliases     []string
	Keywords    []string
	Categories  []string
	Priority    string
	Version     string
	Description string
	RelevantFor string
	Body        string
	Examples    []Example
	// Fingerprint changes with the file's content.
	Fingerprint string
}

// Example is one request/command pair of a command doc.
type Example struct {
	User, Command string
}

// Problem is a file that was skipped, and why.
type Problem struct {
	Path string `json:"path"`
	Err  string `json:"error"`
}

type frontmatter struct {
	Command     string   `yaml:"command"`
	Aliases     []string `yaml:"aliases"`
	Keywords    []string `yaml:"keywords"`
	Categories  []string `yaml:"categories"`
	Priority    string   `yaml:"priority"`
	Version     any      `yaml:"version"`
	Description string   `yaml:"description"`
	RelevantFor string   `yaml:"relevant_for"`
}

// MaxFileBytes bounds one file: these are notes, not manuals.
const MaxFileBytes = 1 << 20

// Load reads every *.md under dirs (missing dirs are fine: they are
// optional) and returns the docs, sorted by command, and the files that
// were skipped.
func Load(dirs []string) ([]Doc, []Problem) {
	var docs []Doc
	var probs []Problem
	seen := map[string]string{}
	for _, dir := range dirs {
		err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				if errors.Is(err, fs.ErrNotExist) && path == dir {
					return filepath.SkipDir
				}
				probs = append(probs, Problem{Path: path, Err: err.Error()})
				return nil
			}
			if d.IsDir() || !strings.HasSuffix(strings.ToLower(d.Name()), ".md") {
				return nil
			}
			doc, err := loadOne(path)
			if err != nil {
				probs = append(probs, Problem{Path: path, Err: err.Error()})
				return nil
			}
			key := doc.Source + ":" + doc.Command
			if first, dup := seen[key]; dup {
				probs = append(probs, Problem{Path: path, Err: fmt.Sprintf("%s %q is already documented in %s", doc.Source, doc.Command, first)})
				return nil
			}
			seen[key] = path
			docs = append(docs, doc)
			return nil
		})
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			probs = append(probs, Problem{Path: dir, Err: err.Error()})
		}
	}
	sort.Slice(docs, func(i, j int) bool { return docs[i].Source+docs[i].Command < docs[j].Source+docs[j].Command })
	return docs, probs
}

// chunkDoc cuts a doc into chunks; a variable so that tests can make it
// fail the way an unknown bug would.
var chunkDoc = Doc.Chunks

// loadOne reads one file and checks that it chunks: one doc can never fail
// the build, so a panic in either (a file unlike any we have seen trips a
// bug) is this file's error, and Load skips it. Chunking is pure: a doc
// that chunks here chunks the same when the build indexes it.
func loadOne(path string) (doc Doc, err error) {
	defer func() {
		if v := recover(); v != nil {
			doc, err = Doc{}, fmt.Errorf("panic: %v (a bug in cmdai: please report it with this file)", v)
		}
	}()
	if doc, err = ParseFile(path); err != nil {
		return Doc{}, err
	}
	chunkDoc(doc)
	return doc, nil
}

// ParseFile reads one file.
func ParseFile(path string) (Doc, error) {
	st, err := os.Stat(path)
	if err != nil {
		return Doc{}, err
	}
	if st.Size() > MaxFileBytes {
		return Doc{}, fmt.Errorf("%d bytes: over the %d a doc may have", st.Size(), MaxFileBytes)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return Doc{}, err
	}
	return Parse(path, data)
}

var nameRe = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._+-]*$`)

// ValidName reports whether name can be a command's name (and a file's).
func ValidName(name string) bool { return nameRe.MatchString(name) }

// Parse reads one file's content.
func Parse(path string, data []byte) (Doc, error) {
	front, body, err := split(data)
	if err != nil {
		return Doc{}, err
	}
	var fm frontmatter
	if err := yaml.Unmarshal(front, &fm); err != nil {
		return Doc{}, fmt.Errorf("frontmatter is not valid YAML: %v", err)
	}
	sum := sha256.Sum256(data)
	d := Doc{Path: path, Body: strings.TrimSpace(string(body)), Fingerprint: hex.EncodeToString(sum[:8])}
	switch {
	case fm.Command != "":
		if !nameRe.MatchString(fm.Command) {
			return Doc{}, fmt.Errorf("command %q is not a command name", fm.Command)
		}
		d.Source, d.Command = SourceCustom, fm.Command
		d.Aliases, d.Keywords, d.Categories = fm.Aliases, fm.Keywords, fm.Categories
		d.Version = strings.TrimSpace(fmt.Sprint(orEmpty(fm.Version)))
		switch p := strings.ToLower(fm.Priority); p {
		case "", "medium", "high", "low":
			d.Priority = p
		default:
			return Doc{}, fmt.Errorf("priority %q: use high, medium or low", fm.Priority)
		}
		d.Description = firstLine(d.Body)
		d.Examples = examples(d.Body)
	case fm.Description != "":
		d.Source = SourceHint
		d.Command = strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
		d.Description, d.RelevantFor = fm.Description, fm.RelevantFor
	default:
		return Doc{}, errors.New("frontmatter has neither `command:` (a command doc) nor `description:` (a hint)")
	}
	return d, nil
}

func orEmpty(v any) any {
	if v == nil {
		return ""
	}
	return v
}

// split cuts "---\n<yaml>\n---\n<body>".
func split(data []byte) (front, body []byte, err error) {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	data = bytes.ReplaceAll(data, []byte("\r\n"), []byte("\n"))
	if !bytes.HasPrefix(data, []byte("---\n")) {
		return nil, nil, errors.New("no YAML frontmatter: the file must start with a line `---`")
	}
	rest := data[4:]
	i := bytes.Index(rest, []byte("\n---"))
	if i < 0 {
		return nil, nil, errors.New("frontmatter is not closed by a line `---`")
	}
	front, body = rest[:i], rest[i+4:]
	if j := bytes.IndexByte(body, '\n'); j >= 0 {
		body = body[j+1:]
	} else {
		body = nil
	}
	return front, body, nil
}

var (
	userRe    = regexp.MustCompile(`(?m)^\s*[-*]?\s*\*\*User\*\*:\s*(.+?)\s*$`)
	commandRe = regexp.MustCompile(`(?m)^\s*[-*]?\s*\*\*Command\*\*:\s*(.+?)\s*$`)
)

// examples pairs each **User**: line with the **Command**: line after it.
func examples(body string) []Example {
	var out []Example
	users := userRe.FindAllStringSubmatchIndex(body, -1)
	for _, u := range users {
		user := strings.Trim(body[u[2]:u[3]], `"' `)
		m := commandRe.FindStringSubmatchIndex(body[u[1]:])
		if m == nil {
			continue
		}
		cmd := strings.Trim(body[u[1]+m[2]:u[1]+m[3]], "` ")
		out = append(out, Example{User: user, Command: cmd})
	}
	return out
}

// firstLine is the description: the first line of prose, not a heading
// (the template's "# NAME" made every description the command's own
// name), a code fence or an example's **User**: line. A body of headings
// and examples only gives its first heading's text, without the "#".
func firstLine(body string) string {
	heading := ""
	fenced := false
	for _, l := range strings.Split(body, "\n") {
		l = strings.TrimSpace(l)
		switch {
		case strings.HasPrefix(l, "```"):
			fenced = !fenced
		case fenced || l == "" || strings.HasPrefix(l, "**"):
		case strings.HasPrefix(l, "#"):
			if heading == "" {
				heading = strings.TrimSpace(strings.TrimLeft(l, "#"))
			}
		default:
			for _, bullet := range []string{"- ", "* ", "+ "} {
				l = strings.TrimPrefix(l, bullet)
			}
			return strings.TrimSpace(l)
		}
	}
	return heading
}

// Chunk is one record's worth of a doc: the indexer adds its metadata.
type Chunk struct {
	ID, Kind, Section, Text string
}

// Chunks cuts a doc into records: a summary (name, description, aliases,
// keywords, categories), one per Markdown section of the body, and one per
// example.
func (d Doc) Chunks() []Chunk {
	base := d.Source + ":" + d.Command
	var head strings.Builder
	head.WriteString(d.Command)
	if d.Description != "" {
		head.WriteString(" - " + d.Description)
	}
	if d.RelevantFor != "" {
		head.WriteString("\nrelevant for: " + d.RelevantFor)
	}
	for _, l := range []struct {
		what string
		list []string
	}{{"aliases", d.Aliases}, {"keywords", d.Keywords}, {"categories", d.Categories}} {
		if len(l.list) > 0 {
			head.WriteString("\n" + l.what + ": " + strings.Join(l.list, ", "))
		}
	}
	out := []Chunk{{ID: base + "#NAME", Kind: manparse.KindSummary, Section: "NAME", Text: head.String()}}
	n := 0
	for _, sec := range sections(d.Body) {
		if strings.TrimSpace(sec.text) == "" || strings.EqualFold(sec.title, "Examples") {
			continue
		}
		for _, piece := range pack(sec.text, manparse.DefaultMaxTokens-16) {
			n++
			out = append(out, Chunk{ID: fmt.Sprintf("%s#BODY#%d", base, n), Kind: manparse.KindSection, Section: sec.title,
				Text: d.Command + " " + sec.title + "\n" + piece})
		}
	}
	for i, e := range d.Examples {
		out = append(out, Chunk{ID: fmt.Sprintf("%s#EXAMPLES#%d", base, i+1), Kind: manparse.KindExample, Section: "EXAMPLES",
			Text: d.Command + " example\n" + e.User + "\n$ " + e.Command})
	}
	return out
}

type section struct{ title, text string }

// sections splits a Markdown body at its headings.
func sections(body string) []section {
	var out []section
	cur := section{title: "DESCRIPTION"}
	var b strings.Builder
	for _, l := range strings.Split(body, "\n") {
		if t := strings.TrimSpace(l); strings.HasPrefix(t, "#") {
			cur.text = b.String()
			out = append(out, cur)
			b.Reset()
			cur = section{title: strings.TrimSpace(strings.TrimLeft(t, "#"))}
			continue
		}
		b.WriteString(l + "\n")
	}
	cur.text = b.String()
	return append(out, cur)
}

// pack cuts text into pieces of at most max estimated word pieces, at
// paragraph, then line boundaries.
func pack(text string, max int) []string {
	var out []string
	cur := ""
	for _, line := range strings.Split(strings.TrimSpace(text), "\n") {
		next := strings.TrimSpace(cur + "\n" + line)
		if manparse.EstimateTokens(next) > max && cur != "" {
			out = append(out, strings.TrimSpace(cur))
			cur = line
			continue
		}
		cur = next
	}
	if strings.TrimSpace(cur) != "" {
		out = append(out, strings.TrimSpace(cur))
	}
	return out
}

// Template is what `cmdai index docs new NAME` writes.
func Template(name string) string {
	t := `---
# A command doc for cmdai: what the index should know about NAME.
# Only "command" is required. Lines starting with # are comments.
command: NAME
aliases: []            # other names it is called by, e.g. ["k"]
keywords: []           # words a request may use for it, e.g. ["deploy", "rollout"]
categories: []         # e.g. ["devops"]
priority: medium       # high, medium or low: how strongly to prefer it
version: ""            # the version this doc describes
---

# NAME

One line saying what NAME is for: the index reads it first.

## Common patterns

- Do one thing: BTNAME do-thing --flagBT

## Examples

**User**: "an example of what someone would ask"
**Command**: BTNAME subcommand --option valueBT
`
	return strings.ReplaceAll(strings.ReplaceAll(t, "BT", "`"), "NAME", name)
}
