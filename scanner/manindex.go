package scanner

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"

	"golang.org/x/sync/errgroup"
)

// DefaultSections is man-db's search order for a bare "man NAME": user
// commands, then administration, then games, before the library sections,
// so that printf finds printf(1) rather than printf(3).
var DefaultSections = []string{"1", "8", "6", "n", "l", "3", "0", "2", "5", "4", "9", "7"}

// IndexOptions configure BuildManIndex.
type IndexOptions struct {
	// Lang prefers translated pages: "de" or "de_DE.UTF-8" searches
	// <root>/de_DE.UTF-8, <root>/de_DE and <root>/de before the English
	// page. "", "C", "POSIX" and "en" mean English only.
	Lang string
	// Sections is the lookup order; nil means DefaultSections. A page whose
	// section matches none of them (by longest prefix: "3type" or else
	// "3") is listed by All but never returned by Lookup.
	Sections []string
}

// ManIndex knows every page file in a set of man hierarchies. It is built
// once from directory listings and is safe for concurrent lookups.
type ManIndex struct {
	byName map[string][]candidate // best first
	all    []ManPage
}

// candidate is a page with the sort key Lookup uses.
type candidate struct {
	page ManPage
	sec  int  // index of the matching configured section
	lang int  // index in the locale list; English is last
	suf  bool // section has a suffix ("1ssl" where "1" was configured)
	root int  // index of the hierarchy in the man path
}

// less orders candidates as man-db's compare_candidates does: configured
// section order first, then language (a German reader wants the German
// ls(1) even if an English one sits in an earlier hierarchy), then the
// plain section over a suffixed one, then man path order.
func (a candidate) less(b candidate) bool {
	if a.sec != b.sec {
		return a.sec < b.sec
	}
	if a.lang != b.lang {
		return a.lang < b.lang
	}
	if a.suf != b.suf {
		return !a.suf
	}
	if a.root != b.root {
		return a.root < b.root
	}
	return a.page.Path < b.page.Path
}

// sectionDir is one manN directory to list.
type sectionDir struct {
	path string
	sec  string // "1", "3type"
	lang int
	loc  string
	root int
}

// BuildManIndex lists the manN directories of each root (and of its locale
// subdirectories when opts.Lang is set), reading each directory once: no
// per-page stat, which matters with 20,000+ pages. Missing or unreadable
// roots are reported as problems; the error is non-nil only when ctx is
// cancelled.
func BuildManIndex(ctx context.Context, roots []string, opts IndexOptions) (*ManIndex, []Problem, error) {
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	sections := opts.Sections
	if len(sections) == 0 {
		sections = DefaultSections
	}
	locales := localeDirs(opts.Lang)
	langs := append(append([]string(nil), locales...), "") // English last
	limit := 4 * runtime.NumCPU()                          // directory reads are I/O bound

	dirs, problems, err := findSectionDirs(ctx, manBases(uniqueRoots(roots), langs), langs, limit)
	if err != nil {
		return nil, nil, fmt.Errorf("index man pages: %w", err)
	}
	pages, dirProblems, err := listSectionDirs(ctx, dirs, sections, limit)
	if err != nil {
		return nil, nil, fmt.Errorf("index man pages: %w", err)
	}
	for _, p := range dirProblems {
		if p != nil {
			problems = append(problems, *p)
		}
	}
	return newManIndex(pages), problems, nil
}

// manBase is one directory that may hold manN directories: a root, or
// one of its locale subdirectories.
type manBase struct {
	path      string
	root      int
	lang      int
	mustExist bool // a root, not a translation
}

// manBases lists every root × locale, English (lang "") last within each
// root.
func manBases(roots, langs []string) []manBase {
	var bases []manBase
	for ri, r := range roots {
		for li, l := range langs {
			bases = append(bases, manBase{filepath.Join(r, l), ri, li, l == ""})
		}
	}
	return bases
}

// findSectionDirs reads the bases concurrently (limit at a time) and
// returns their manN directories and the bases that could not be read,
// both in the bases' order so that the index does not depend on timing.
// The error is ctx's.
func findSectionDirs(ctx context.Context, bases []manBase, langs []string, limit int) ([]sectionDir, []Problem, error) {
	found := make([][]sectionDir, len(bases))
	baseProblems := make([]*Problem, len(bases))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(limit)
	for i, b := range bases {
		g.Go(func() error {
			if err := gctx.Err(); err != nil {
				return err
			}
			found[i], baseProblems[i] = sectionDirsOf(b, langs)
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, nil, err
	}
	var dirs []sectionDir
	var problems []Problem
	for i := range bases {
		dirs = append(dirs, found[i]...)
		if baseProblems[i] != nil {
			problems = append(problems, *baseProblems[i])
		}
	}
	return dirs, problems, nil
}

// sectionDirsOf lists the manN directories (or symlinks to directories)
// in one base.
func sectionDirsOf(b manBase, langs []string) ([]sectionDir, *Problem) {
	entries, err := os.ReadDir(b.path)
	if err != nil {
		// A missing translation is normal; a missing root is not.
		if b.mustExist || !errors.Is(err, fs.ErrNotExist) {
			return nil, &Problem{Path: b.path, Err: manDirError(err)}
		}
		return nil, nil
	}
	var dirs []sectionDir
	for _, e := range entries {
		name := e.Name()
		if len(name) < 4 || !strings.HasPrefix(name, "man") || !isAlnum(name[3]) {
			continue
		}
		p := filepath.Join(b.path, name)
		if !e.IsDir() && !(e.Type()&fs.ModeSymlink != 0 && isDir(p)) {
			continue
		}
		dirs = append(dirs, sectionDir{path: p, sec: name[3:], lang: b.lang, loc: langs[b.lang], root: b.root})
	}
	return dirs, nil
}

// listSectionDirs lists every manN directory concurrently (limit at a
// time); results and problems are indexed like dirs. The error is ctx's.
func listSectionDirs(ctx context.Context, dirs []sectionDir, sections []string, limit int) ([][]candidate, []*Problem, error) {
	pages := make([][]candidate, len(dirs))
	dirProblems := make([]*Problem, len(dirs))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(limit)
	for i, d := range dirs {
		g.Go(func() error {
			if err := gctx.Err(); err != nil {
				return err
			}
			pages[i], dirProblems[i] = listSectionDir(d, sections)
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	return pages, dirProblems, nil
}

// newManIndex gathers the listed pages: all of them for All, and those
// in a configured section under their name, best first, for Lookup.
func newManIndex(pages [][]candidate) *ManIndex {
	ix := &ManIndex{byName: map[string][]candidate{}}
	for _, cs := range pages {
		for _, c := range cs {
			ix.all = append(ix.all, c.page)
			if c.sec >= 0 {
				name := pageName(c.page)
				ix.byName[name] = append(ix.byName[name], c)
			}
		}
	}
	for _, cs := range ix.byName {
		sort.Slice(cs, func(a, b int) bool { return cs[a].less(cs[b]) })
	}
	sort.Slice(ix.all, func(a, b int) bool { return ix.all[a].Path < ix.all[b].Path })
	return ix
}

// listSectionDir parses the file names of one manN directory.
func listSectionDir(d sectionDir, sections []string) ([]candidate, *Problem) {
	entries, err := os.ReadDir(d.path)
	if err != nil && len(entries) == 0 {
		return nil, &Problem{Path: d.path, Err: manDirError(err)}
	}
	var prob *Problem
	if err != nil {
		prob = &Problem{Path: d.path, Err: manDirError(err)}
	}
	out := make([]candidate, 0, len(entries))
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		_, sec, comp, ok := ParsePageName(e.Name(), d.sec)
		if !ok {
			continue
		}
		si, exact := matchSection(sec, sections)
		out = append(out, candidate{
			page: ManPage{Path: filepath.Join(d.path, e.Name()), Section: sec, Compression: comp, Lang: d.loc},
			sec:  si, lang: d.lang, suf: !exact, root: d.root,
		})
	}
	return out, prob
}

// compressions are the suffixes (without the dot) man-db decompresses; the
// one list of them, which the reader and the builder use too. The order of
// a match does not matter since none is a suffix of another.
var compressions = []string{"gz", "bz2", "xz", "zst", "Z"}

// Compressions returns the compression suffixes a man page file may carry,
// without the dot: "gz", "bz2", "xz", "zst", "Z". The slice is the caller's.
func Compressions() []string { return slices.Clone(compressions) }

// TrimCompression strips one compression suffix from a page file name or
// path: ("grep.1", "gz") for grep.1.gz, (file, "") when it has none.
func TrimCompression(file string) (base, compression string) {
	for _, c := range compressions {
		if strings.HasSuffix(file, "."+c) {
			return file[:len(file)-len(c)-1], c
		}
	}
	return file, ""
}

// ParsePageName splits a page file name, <name>.<section>[.<compression>],
// found in the man<dirSection> directory. The name may itself contain dots
// (python3.11.1.gz is python3.11 in section 1), so the section is the last
// dot-component once the compression suffix is gone, and it must start
// like the directory's section (man1 holds 1, 1ssl, 1p), which also
// rejects strays such as README or foo.1.gz.dpkg-old.
func ParsePageName(file, dirSection string) (name, section, compression string, ok bool) {
	base, compression := TrimCompression(file)
	i := strings.LastIndexByte(base, '.')
	if i <= 0 || i == len(base)-1 || dirSection == "" {
		return "", "", "", false
	}
	name, section = base[:i], base[i+1:]
	if section[0] != dirSection[0] {
		return "", "", "", false
	}
	return name, section, compression, true
}

// matchSection finds the configured section a page section belongs to: the
// longest configured prefix, so "3type" beats "3" when both are listed.
// exact reports whether the page section is that configured section itself.
func matchSection(sec string, sections []string) (idx int, exact bool) {
	idx, best := -1, 0
	for i, s := range sections {
		if strings.HasPrefix(sec, s) && len(s) > best {
			idx, best = i, len(s)
		}
	}
	return idx, idx >= 0 && sections[idx] == sec
}

// pageName recovers the command name from an indexed page's path.
func pageName(mp ManPage) string {
	base := filepath.Base(mp.Path)
	if mp.Compression != "" {
		base = strings.TrimSuffix(base, "."+mp.Compression)
	}
	return strings.TrimSuffix(base, "."+mp.Section)
}

// Lookup returns the page man(1) would show for "man name", or nil.
func (ix *ManIndex) Lookup(name string) *ManPage {
	if ix == nil {
		return nil
	}
	cs := ix.byName[name]
	if len(cs) == 0 {
		return nil
	}
	mp := cs[0].page // a copy: callers may not edit the index
	return &mp
}

// Len is the number of page files indexed.
func (ix *ManIndex) Len() int {
	if ix == nil {
		return 0
	}
	return len(ix.all)
}

// All returns every page file indexed, sorted by path, including pages in
// sections Lookup does not search and translations.
func (ix *ManIndex) All() []ManPage {
	if ix == nil {
		return nil
	}
	return append([]ManPage(nil), ix.all...)
}

// Attach sets each command's Man to its best page (nil when none).
func Attach(cmds []Command, ix *ManIndex) {
	for i := range cmds {
		cmds[i].Man = ix.Lookup(cmds[i].Name)
	}
}

// localeDirs lists the translation directories man-db searches for a
// locale, most specific first: de_DE.UTF-8 → de_DE.UTF-8, de_DE, de.
// A bare language gets its usual territory (de → de_DE).
func localeDirs(lang string) []string {
	switch {
	case lang == "", lang == "C", lang == "POSIX", strings.HasPrefix(lang, "C."):
		return nil
	}
	l := lang
	if i := strings.IndexByte(l, '@'); i >= 0 {
		l = l[:i]
	}
	codeset := ""
	if i := strings.IndexByte(l, '.'); i >= 0 {
		l, codeset = l[:i], l[i+1:]
	}
	ll, terr, _ := strings.Cut(l, "_")
	if ll == "" || ll == "en" {
		return nil
	}
	if terr == "" {
		terr = strings.ToUpper(ll)
	}
	var cands []string
	if strings.ContainsAny(lang, ".@") { // as given, e.g. sr_RS@latin
		cands = append(cands, lang)
	}
	if codeset != "" {
		cands = append(cands, ll+"_"+terr+"."+codeset)
	}
	cands = append(cands, ll+"_"+terr+".UTF-8", ll+"_"+terr, ll)
	var out []string
	seen := map[string]bool{}
	for _, c := range cands {
		if !seen[c] {
			seen[c] = true
			out = append(out, c)
		}
	}
	return out
}

// uniqueRoots cleans roots and drops later spellings of the same directory.
func uniqueRoots(roots []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, r := range roots {
		if r == "" {
			continue
		}
		r = filepath.Clean(r)
		key := r
		if real, err := filepath.EvalSymlinks(r); err == nil {
			key = real
		}
		if !seen[key] {
			seen[key] = true
			out = append(out, r)
		}
	}
	return out
}

func manDirError(err error) string {
	if errors.Is(err, fs.ErrNotExist) {
		return "man directory does not exist (check $MANPATH)"
	}
	return fmt.Sprintf("cannot read man directory: %v", err)
}

func isAlnum(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}
