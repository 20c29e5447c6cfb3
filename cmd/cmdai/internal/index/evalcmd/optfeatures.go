package evalcmd

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/cmdai/cmdai/index"
	"github.com/cmdai/cmdai/internal/safefile"
	"github.com/cmdai/cmdai/search"
	"github.com/cmdai/cmdai/search/evaluate"
	"github.com/cmdai/cmdai/search/optrank"
)

// optionRow is one line of an --option-features file: one request's
// expected command's option and example records, their features and
// whether each shows what the request needs.
type optionRow struct {
	Query   string `json:"query"`
	Command string `json:"command"`
	// Source is "request" (the queries file) or "page" (a page's own
	// example as a pseudo-request).
	Source string   `json:"source"`
	IDs    []string `json:"ids"`
	// Names are the features' names, in the order of each row's.
	Names    []string    `json:"names"`
	Features [][]float64 `json:"features"`
	Labels   []int       `json:"labels"`
}

// maxPageExamples bounds the pseudo-requests one page gives, so that a
// page with a hundred examples does not decide the fit.
const maxPageExamples = 8

// writeOptionFeatures writes the option ranker's features for every
// request that carries options and whose command is indexed, and, with
// pageExamples, for every indexed page's examples (their description
// as the request, the options their line uses as needed, the example
// itself left out of its page).
func writeOptionFeatures(ctx context.Context, s search.Searcher, queries []evaluate.EvalQuery, path string, pageExamples bool) error {
	need := needOf(s)
	var jobs []optionJob
	for _, q := range queries {
		want, ok := s.Keywords.Command(q.Command)
		if !ok || (len(q.Options) == 0 && q.Line == "") {
			continue
		}
		n, _, err := need(ctx, q, want)
		if err != nil {
			return err
		}
		if len(n) > 0 {
			jobs = append(jobs, optionJob{query: q.Text(), command: want, source: "request", needed: n})
		}
	}
	if pageExamples {
		jobs = append(jobs, pageExampleJobs(s)...)
	}
	return safefile.WriteFile(path, 0o644, func(w io.Writer) error {
		enc := json.NewEncoder(w)
		const batch = 32
		for start := 0; start < len(jobs); start += batch {
			part := jobs[start:min(len(jobs), start+batch)]
			texts := make([]string, len(part))
			for i, j := range part {
				texts[i] = j.query
			}
			vecs, err := s.Embedder.Embed(ctx, texts)
			if err != nil {
				return fmt.Errorf("embed the requests: %w", err)
			}
			for i, j := range part {
				pages, err := optrank.Pages(ctx, s.Keywords, s.Coll, s.KeywordDir, vecs[i], []string{j.command})
				if err != nil {
					return err
				}
				p := pages[j.command]
				kept := p.Records[:0:0]
				for _, r := range p.Records {
					if r.ID != j.skip {
						kept = append(kept, r)
					}
				}
				p.Records = kept
				if len(p.Records) == 0 {
					continue
				}
				row := optionRow{Query: j.query, Command: j.command, Source: j.source, Names: optrank.Features(), Features: optrank.Vectors(s.Keywords, j.query, p, "")}
				ids := map[string]bool{}
				var spellings [][]string
				for _, n := range j.needed {
					ids[n.ID] = true
					spellings = append(spellings, n.Spellings)
				}
				for _, r := range p.Records {
					label := 0
					if ids[r.ID] {
						label = 1
					} else if r.Kind == index.KindExample {
						for _, sp := range spellings {
							if optrank.Uses(r.Text, sp, nil) {
								label = 1
								break
							}
						}
					}
					row.IDs = append(row.IDs, r.ID)
					row.Labels = append(row.Labels, label)
				}
				if err := enc.Encode(row); err != nil {
					return err
				}
			}
		}
		return nil
	})
}

// commandsOf are the commands of the keyword index, in index order.
func commandsOf(s search.Searcher) []string {
	seen := map[string]bool{}
	var out []string
	for i := 0; i < s.Keywords.Len(); i++ {
		_, md := s.Keywords.Chunk(i)
		if md.Command != "" && !seen[md.Command] && md.Kind == index.KindSummary {
			seen[md.Command] = true
			out = append(out, md.Command)
		}
	}
	return out
}

// splitExample is an example record's description (the paragraphs
// before its command line) and its command line: the first paragraph
// after the first that runs the command (its first word, past a "$ "
// prompt and sudo, is the command's name or its page's invocation's
// first word), else the last; the notes after it are neither.
func splitExample(text, command string) (desc, line string) {
	_, body, ok := strings.Cut(text, "\n")
	if !ok {
		return "", ""
	}
	paras := strings.Split(strings.TrimSpace(body), "\n\n")
	if len(paras) < 2 {
		return "", ""
	}
	at := len(paras) - 1
	name, _, _ := strings.Cut(command, "-") // git-commit's lines start with git
	for i := 1; i < len(paras); i++ {
		w := strings.Fields(paras[i])
		for len(w) > 0 && (w[0] == "$" || w[0] == "#" || w[0] == "sudo") {
			w = w[1:]
		}
		if len(w) > 0 && (w[0] == command || w[0] == name || strings.HasSuffix(w[0], "/"+command)) {
			at = i
			break
		}
	}
	line = strings.TrimSpace(paras[at])
	desc = strings.TrimSpace(strings.Join(paras[:at], " "))
	return strings.Join(strings.Fields(desc), " "), line
}

// optionJob is one request whose option features are written: its
// expected command, the records it needs, and the example it was made
// from (skip: left out of its page).
type optionJob struct {
	query, command, source string
	needed                 []evaluate.Needed
	skip                   string
}

// pageExampleJobs are every indexed page's examples as requests (at most
// maxPageExamples a page): the description, needing the options its
// command line uses.
func pageExampleJobs(s search.Searcher) []optionJob {
	var jobs []optionJob
	for _, c := range commandsOf(s) {
		p := optrank.PageOf(s.Keywords, c, nil)
		known := map[string]bool{}
		var opts []optrank.Record
		for _, r := range p.Records {
			if r.Kind == index.KindOption {
				opts = append(opts, r)
				for _, sp := range optrank.Spellings(r.Label()) {
					known[sp] = true
				}
			}
		}
		taken := 0
		for _, r := range p.Records {
			if r.Kind != index.KindExample || taken == maxPageExamples {
				continue
			}
			desc, line := splitExample(r.Text, c)
			if desc == "" || line == "" {
				continue
			}
			var n []evaluate.Needed
			for _, o := range opts {
				if sp := optrank.Spellings(o.Label()); optrank.Uses(line, sp, known) {
					n = append(n, evaluate.Needed{ID: o.ID, Spellings: sp})
				}
			}
			if len(n) > 0 {
				jobs = append(jobs, optionJob{query: desc, command: c, source: "page", needed: n, skip: r.ID})
				taken++
			}
		}
	}
	return jobs
}
