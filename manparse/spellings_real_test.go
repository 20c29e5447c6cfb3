package manparse_test

// The option spellings of this machine's pages, checked against groff's
// rendering through man: what a reader sees on an option's tag line is
// what the option record must name.

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cmdai/cmdai/manparse"
	"github.com/cmdai/cmdai/scanner"
)

// Measured on 2026-11-25 (Debian 12, 2 cores; BENCHMARKS.md "Option
// spellings" lists the causes): 1.33% of the rendered tag entries differ
// (142 of 10,667 on 1,070 pages); 0.95% (101) since nested entries, long
// DocBook tag lines and usage displays give entries (issue 43, item 4).
// The bound sits just above, so a regression fails.
const (
	maxSpellingMismatch = 0.011
	// maxFamilyPages caps the pages of one family ("gcloud_*": 16,000
	// pages from one generator) so the test stays near a minute on 2
	// cores; CMDAI_SPELLINGS_ALL=1 lifts it.
	maxFamilyPages = 20
)

// spellingPages lists the command pages (sections 1, 6, 8) once each
// (symlinks and .so redirects followed), at most maxFamilyPages a family.
func spellingPages(t *testing.T) []scanner.ManPage {
	all := os.Getenv("CMDAI_SPELLINGS_ALL") == "1"
	seen := map[string]bool{}
	family := map[string]int{}
	var out []scanner.ManPage
	for _, mp := range installedPages(t) {
		if mp.Lang != "" || !strings.ContainsAny(mp.Section[:1], "168") {
			continue
		}
		_, real, err := scanner.ReadPage(mp.Path, 16<<20)
		if err != nil {
			continue // a dangling link is no parser's business
		}
		if r, err := filepath.EvalSymlinks(real); err == nil {
			real = r
		}
		name := filepath.Base(real)
		stem := name[:strings.IndexFunc(name+".", func(r rune) bool { return r == '.' || r == '_' || r == '-' })]
		if seen[real] || (!all && family[stem] >= maxFamilyPages) {
			continue
		}
		seen[real] = true
		family[stem]++
		mp.Path = real
		out = append(out, mp)
	}
	return out
}

// renderWide is groff's rendering of a page's source 200 columns wide
// (tags do not wrap), without hyphenation, fonts, or the header and footer
// lines. groff itself, not man: man's pipeline of a dozen processes a
// page would double the time, and the formatter is the same.
func renderWide(ctx context.Context, src []byte) (string, error) {
	cmd := exec.CommandContext(ctx, "groff", "-k", "-t", "-mandoc", "-Tutf8", "-rLL=200n", "-rHY=0", "-P-c", "-P-b", "-P-o", "-P-u")
	cmd.Env = append(os.Environ(), "LC_ALL=C.UTF-8")
	cmd.Stdin = bytes.NewReader(src)
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("groff: %w", err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) > 2 {
		lines = lines[1 : len(lines)-1]
	}
	return strings.Join(lines, "\n"), nil
}

// renderedEntry is one option entry as a reader sees it: its tag lines
// (several for .TQ or DocBook's one spelling a line) and their spellings.
type renderedEntry struct {
	section string
	tag     string
	flags   []string
	wraps   bool // a tag line ends in "," or "|": the tag went on
}

var (
	spellingRE = regexp.MustCompile(`^(--?|\+)[A-Za-z0-9?#@%!_][A-Za-z0-9_.:@+#?%!-]*`)
	proseWord  = regexp.MustCompile(`^[A-Za-z]+[.,;:]?$`)
)

// renderedSpellings reads the flags of a rendered tag the simple way a
// reader would: every word that starts with a dash, up to "=", "[" or "<",
// until two words in a row are not flags (a flag's argument is one word;
// two are the description, set on the tag's line).
func renderedSpellings(tag string) []string {
	var out []string
	plain := 0
	for _, w := range strings.FieldsFunc(tag, func(r rune) bool { return r == ',' || r == ' ' || r == '|' || r == '/' }) {
		f := strings.TrimRight(spellingRE.FindString(w), ".:")
		if len(f) < 2 || f == "--" {
			if proseWord.MatchString(w) && w != "or" {
				if plain++; plain == 2 {
					break
				}
			}
			continue
		}
		plain = 0
		if !slices.Contains(out, f) {
			out = append(out, f)
		}
	}
	return out
}

func indentOf(l string) int { return len(l) - len(strings.TrimLeft(l, " ")) }

// renderedOptions collects the tag entries of a rendering's OPTIONS
// sections: lines starting with a dash at the section's tag indent, the
// lines of one entry being adjacent (no blank or body line between).
func renderedOptions(text string) []renderedEntry {
	var out []renderedEntry
	lines := strings.Split(text, "\n")
	for i := 0; i < len(lines); i++ {
		if indentOf(lines[i]) != 0 || !strings.Contains(strings.ToUpper(lines[i]), "OPTION") {
			continue
		}
		title := strings.Join(strings.Fields(lines[i]), " ")
		end := i + 1
		for end < len(lines) && (lines[end] == "" || indentOf(lines[end]) > 0) {
			end++
		}
		body := lines[i+1 : end]
		tagIndent := -1
		for _, l := range body {
			if strings.HasPrefix(strings.TrimSpace(l), "-") && (tagIndent < 0 || indentOf(l) < tagIndent) {
				tagIndent = indentOf(l)
			}
		}
		open := false
		for _, l := range body {
			isTag := indentOf(l) == tagIndent && strings.HasPrefix(strings.TrimSpace(l), "-")
			if !isTag {
				open = false
				continue
			}
			tag, hasBody := splitTagLine(strings.TrimSpace(l))
			if open {
				e := &out[len(out)-1]
				e.tag += "\n" + tag
				for _, f := range renderedSpellings(tag) {
					if !slices.Contains(e.flags, f) {
						e.flags = append(e.flags, f)
					}
				}
			} else {
				out = append(out, renderedEntry{section: title, tag: tag, flags: renderedSpellings(tag)})
			}
			e := &out[len(out)-1]
			e.wraps = e.wraps || strings.HasSuffix(tag, ",") || strings.HasSuffix(tag, "|")
			open = !hasBody
		}
		i = end - 1
	}
	return out
}

var wideGap = regexp.MustCompile(`\s{2,}`)

// splitTagLine cuts a rendered tag line where its body starts, at a gap
// of two blanks or more, keeping gaps inside the tag: patch's
// "-b  or  --backup", a usage block's "-v,  --verbose".
func splitTagLine(l string) (tag string, hasBody bool) {
	segs := wideGap.Split(l, -1)
	tag = segs[0]
	for _, s := range segs[1:] {
		if !strings.HasSuffix(tag, ",") && !strings.HasSuffix(tag, " or") && !strings.HasPrefix(s, "-") && !strings.HasPrefix(s+" ", "or ") {
			return tag, true
		}
		tag += " " + s
	}
	return tag, false
}

// spellingDiff is one difference between the rendered page and the parse.
type spellingDiff struct {
	cause, page, rendered, parsed string
}

// spellingTally is one page's comparison.
type spellingTally struct {
	entries, matched, parsedOnly, outside, noSpelling int
	diffs                                             []spellingDiff
}

func overlap(a, b []string) int {
	n := 0
	for _, f := range a {
		if slices.Contains(b, f) {
			n++
		}
	}
	return n
}

// compareSpellings matches each rendered entry with the parsed option
// that shares most spellings in the same section and says why they differ.
func compareSpellings(page string, p *manparse.Page, rendered []renderedEntry) spellingTally {
	var t spellingTally
	used := map[int]bool{}
	for _, e := range rendered {
		if len(e.flags) == 0 {
			t.noSpelling++ // a lone "-" (standard input) or "--"
			continue
		}
		t.entries++
		best, bestN := -1, 0
		for i, o := range p.Options {
			if n := overlap(e.flags, o.Flags); o.Section == strings.ToUpper(e.section) && n > bestN {
				best, bestN = i, n
			}
		}
		if best >= 0 {
			used[best] = true
		}
		if best >= 0 && bestN == len(e.flags) && bestN == len(p.Options[best].Flags) {
			t.matched++
			continue
		}
		d := spellingDiff{cause: spellingCause(p, e, best, bestN), page: page, rendered: strings.ReplaceAll(e.tag, "\n", " / ")}
		if best >= 0 {
			d.parsed = strings.Join(p.Options[best].Flags, ", ")
		}
		t.diffs = append(t.diffs, d)
	}
	for i, o := range p.Options {
		switch {
		case !strings.Contains(o.Section, "OPTION"):
			t.outside++
		case !used[i]:
			t.parsedOnly++
			t.diffs = append(t.diffs, spellingDiff{cause: "parsed, but no rendered tag line (a deeper indent, prose)", page: page, parsed: strings.Join(o.Flags, ", ")})
		}
	}
	return t
}

func spellingCause(p *manparse.Page, e renderedEntry, best, n int) string {
	switch {
	case e.wraps:
		return "rendered tag wraps onto the next line"
	case best >= 0 && n == len(p.Options[best].Flags):
		o := p.Options[best]
		for _, f := range e.flags {
			if !slices.Contains(o.Flags, f) && strings.Contains(strings.SplitN(o.Description, "\n", 2)[0], f) {
				return "a spelling left in the description"
			}
		}
		return "a spelling missing (in the argument text or lost)"
	case best >= 0 && n == len(e.flags):
		return "extra spellings in the parsed entry (tags merged: an empty-bodied tag taken as an alias, or a duplicate)"
	case best >= 0:
		return "spellings differ"
	case len(strings.Fields(e.tag)) > 4:
		return "non-option tags (prose starting with a dash)"
	}
	for _, o := range p.Options {
		if overlap(e.flags, o.Flags) > 0 {
			return "parsed under another section"
		}
	}
	if p.Format == "mdoc" {
		return "mdoc: entry not found"
	}
	for _, sec := range p.Sections {
		for _, b := range sec.Blocks {
			if b.Literal && strings.Contains(b.Text, e.flags[0]) {
				return "options listed in a no-fill block (a usage text, as --help prints it)"
			}
		}
	}
	return "entry not found by the parser"
}

// TestOptionSpellingsAgainstMan renders every command page (a capped
// number per family) with man and checks that the parser finds each
// OPTIONS tag entry with exactly the spellings the reader sees, printing
// the differences by cause.
func TestOptionSpellingsAgainstMan(t *testing.T) {
	if _, err := exec.LookPath("groff"); err != nil {
		t.Fatalf("groff not found: %s", installHint)
	}
	pages := spellingPages(t)
	limit := 4 * time.Minute // about 20 s on 2 cores with the family cap
	if os.Getenv("CMDAI_SPELLINGS_ALL") == "1" {
		limit = 30 * time.Minute
	}
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	start := time.Now()
	tallies := make([]spellingTally, len(pages))
	errs := make([]error, len(pages))
	var wg sync.WaitGroup
	sem := make(chan struct{}, runtime.NumCPU())
	for i, mp := range pages {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			src, _, err := scanner.ReadPage(mp.Path, 16<<20)
			if err != nil {
				errs[i] = err
				return
			}
			p, err := manparse.Parse(src)
			if err != nil {
				errs[i] = err
				return
			}
			text, err := renderWide(ctx, src)
			if err != nil {
				errs[i] = err
				return
			}
			tallies[i] = compareSpellings(filepath.Base(mp.Path), p, renderedOptions(text))
		}()
	}
	wg.Wait()
	if ctx.Err() != nil {
		t.Fatalf("rendering %d pages took over %v", len(pages), limit)
	}
	var tot spellingTally
	failed := 0
	byCause := map[string][]spellingDiff{}
	for i, tl := range tallies {
		if errs[i] != nil {
			failed++
			t.Logf("not compared: %s: %v", pages[i].Path, errs[i])
			continue
		}
		tot.entries += tl.entries
		tot.matched += tl.matched
		tot.parsedOnly += tl.parsedOnly
		tot.outside += tl.outside
		tot.noSpelling += tl.noSpelling
		for _, d := range tl.diffs {
			byCause[d.cause] = append(byCause[d.cause], d)
		}
	}
	causes := make([]string, 0, len(byCause))
	for c := range byCause {
		causes = append(causes, c)
	}
	sort.Slice(causes, func(i, j int) bool { return len(byCause[causes[i]]) > len(byCause[causes[j]]) })
	for _, c := range causes {
		ds := byCause[c]
		t.Logf("%5d  %s; most on %s", len(ds), c, topPages(ds, 3))
		shown := 4
		if os.Getenv("CMDAI_SPELLINGS_VERBOSE") == "1" {
			shown = len(ds) // every difference, to study one cause
		}
		for _, d := range ds[:min(shown, len(ds))] {
			t.Logf("         %s: rendered %q, parsed %q", d.page, d.rendered, d.parsed)
		}
	}
	rate := float64(tot.entries-tot.matched) / float64(max(tot.entries, 1))
	t.Logf("%d pages (%d not compared) in %v: %d rendered OPTIONS tag entries, %d with the same spellings, mismatch %.2f%%; "+
		"%d parsed entries with no rendered tag, %d parsed outside an OPTIONS section, %d tags without a spelling",
		len(pages), failed, time.Since(start).Round(time.Second), tot.entries, tot.matched, 100*rate,
		tot.parsedOnly, tot.outside, tot.noSpelling)
	if tot.entries < 1000 {
		t.Fatalf("only %d rendered option entries compared: %s", tot.entries, installHint)
	}
	if rate > maxSpellingMismatch {
		t.Errorf("%.2f%% of rendered option entries differ from the parse, want at most %.1f%%", 100*rate, 100*maxSpellingMismatch)
	}
	if failed > len(pages)/100 {
		t.Errorf("%d of %d pages could not be compared", failed, len(pages))
	}
}

// topPages names the n pages with the most differences of a cause.
func topPages(ds []spellingDiff, n int) string {
	count := map[string]int{}
	for _, d := range ds {
		count[d.page]++
	}
	pages := make([]string, 0, len(count))
	for p := range count {
		pages = append(pages, p)
	}
	sort.Slice(pages, func(i, j int) bool {
		if count[pages[i]] != count[pages[j]] {
			return count[pages[i]] > count[pages[j]]
		}
		return pages[i] < pages[j]
	})
	var out []string
	for _, p := range pages[:min(n, len(pages))] {
		out = append(out, fmt.Sprintf("%s (%d)", p, count[p]))
	}
	return strings.Join(out, ", ")
}
