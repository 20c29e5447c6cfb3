// Package optable reads a command's option table from its records in the
// index: every spelling of every documented option and whether it takes a
// value, from the option records' headings, the synopsis, and the options
// the page names only in its prose. Package explain judges a command
// line's words against it.
package optable

import (
	"regexp"
	"sort"
	"strings"
	"sync"
	"unicode"

	"github.com/cmdai/cmdai/index"
	"github.com/cmdai/cmdai/search"
	"github.com/cmdai/cmdai/search/shown"
)

// ArgKind is whether an option takes a value.
type ArgKind int

const (
	ArgNone     ArgKind = iota
	ArgRequired         // -f ARCHIVE, --file=ARCHIVE, --file ARCHIVE
	ArgOptional         // --color[=WHEN]: a value only when attached
)

// Spec is one spelling of a documented option.
type Spec struct {
	Name string // as written: "-x", "--extract", "-name"
	Arg  ArgKind
	// NArgs is how many words a single-dash long option (find's -fprintf
	// file format) takes; exec marks -exec-like options whose value is a
	// command ending at ";" or "+".
	NArgs int
	Exec  bool
	Rec   int // index of its record in the doc
	// Weak: learned from prose (a section's text, the synopsis) rather
	// than an option record of its own.
	Weak bool
}

// Table is what Explain knows of one command's options, built once per
// CommandDoc from its records.
type Table struct {
	Doc     search.CommandDoc
	Long    map[string]*Spec // "--extract"
	Short   map[byte]*Spec   // 'x'
	Single  map[string]*Spec // "-name" (single-dash long options)
	Numeric *Spec            // -NUM (grep -5, ps -123)
	// Prefixes are spellings with a placeholder tail (find's -newerXY):
	// a word is theirs if it starts with the prefix and has tailLen more
	// letters.
	Prefixes []PrefixSpec
	// FromSynopsis: specs being read from the synopsis, which may give
	// an argument the option's heading lost.
	FromSynopsis bool
	// Patterns are long spellings with a placeholder inside
	// (--LTYPE-line-format): a word matches its regexp.
	Patterns []PatternSpec
	// SingleFirm counts single-dash long options from option records.
	SingleFirm int
	// LongNames are long's keys, sorted, for prefix abbreviations.
	LongNames []string
	// Options counts option records; FirmOptions those that are more
	// than --help and --version; ProseHeads the option headings found in
	// other sections' text. With none of them, nothing is refused.
	Options, FirmOptions, ProseHeads int
	// Mentioned holds every flag-like token of the page's prose: many
	// pages name an option only in running text.
	Mentioned map[string]bool
	// Synopsis is the summary's SYNOPSIS lines.
	Synopsis string
	// Subcommands: the synopsis names a command or subcommand operand
	// (git <command>, ssh destination [command]).
	Subcommands bool
}

type PatternSpec struct {
	Re *regexp.Regexp
	S  *Spec
}

type PrefixSpec struct {
	Prefix  string
	TailLen int
	S       *Spec
}

// tableCache keeps the tables of docs a CachedLookup hands out (the same
// Records slice each time), so that a warm caller parses each page's
// option headings once. Bounded: cleared when full.
var tableCache = struct {
	sync.Mutex
	m map[*shown.Match]*Table
}{m: map[*shown.Match]*Table{}}

const tableCacheMax = 4096

func TableOf(doc search.CommandDoc) *Table {
	if len(doc.Records) == 0 {
		return buildTable(doc)
	}
	key := &doc.Records[0]
	tableCache.Lock()
	t := tableCache.m[key]
	tableCache.Unlock()
	if t != nil && len(t.Doc.Records) == len(doc.Records) {
		return t
	}
	t = buildTable(doc)
	tableCache.Lock()
	if len(tableCache.m) >= tableCacheMax {
		tableCache.m = map[*shown.Match]*Table{}
	}
	tableCache.m[key] = t
	tableCache.Unlock()
	return t
}

func buildTable(doc search.CommandDoc) *Table {
	t := &Table{Doc: doc, Long: map[string]*Spec{}, Short: map[byte]*Spec{}, Single: map[string]*Spec{},
		Mentioned: map[string]bool{}}
	// Option records first: they are firm; prose and synopsis only fill
	// gaps.
	for i, r := range doc.Records {
		if r.Kind != index.KindOption {
			continue
		}
		t.Options++
		switch r.Option {
		case "--help", "--version", "-h", "-V", "-?":
		default:
			t.FirmOptions++
		}
		head, next, _ := strings.Cut(r.Text, "\n")
		if j := strings.Index(head, ") option "); j >= 0 {
			head = head[j+len(") option "):]
		} else {
			head = r.Option
		}
		if argOnNextLine(head, next) {
			head += " ARG"
		}
		if !t.addHeading(head, i, false) && r.Option != "" {
			t.addHeading(r.Option, i, false)
		}
	}
	for i, r := range doc.Records {
		switch r.Kind {
		case index.KindOption:
			t.scanProse(r.Text, i, false)
		case index.KindSummary:
			t.Synopsis = synopsisOf(r.Text)
			t.FromSynopsis = true
			t.scanSynopsis(t.Synopsis, i)
			t.FromSynopsis = false
			t.scanProse(r.Text, i, true)
		default:
			t.scanProse(r.Text, i, true)
		}
	}
	low := strings.ToLower(t.Synopsis)
	for _, w := range []string{"command", "<command>", "subcommand", "cmd"} {
		if containsWord(low, w) {
			t.Subcommands = true
		}
	}
	for k := range t.Long {
		t.LongNames = append(t.LongNames, k)
	}
	sort.Strings(t.LongNames)
	for _, s := range t.Single {
		if !s.Weak {
			t.SingleFirm++
		}
	}
	return t
}

// argOnNextLine: the heading names flags only and the text's next line
// is an argument, not prose (mdoc's continued headings: ssh's
// "-R" then "[bind_address:] port: host: hostport").
func argOnNextLine(head, next string) bool {
	for _, f := range strings.Fields(head) {
		if !strings.HasPrefix(f, "-") && !strings.HasPrefix(f, "+") {
			return false
		}
	}
	next, _, _ = strings.Cut(next, "\n")
	next = strings.TrimSpace(next)
	if next == "" || len(next) > 60 || strings.HasSuffix(next, ".") {
		return false
	}
	c := next[0]
	if !(c == '[' || c == '<' || c >= 'a' && c <= 'z') {
		return false
	}
	// GNU descriptions are lower-case prose without a stop; an argument
	// has the marks of a placeholder.
	return strings.ContainsAny(next, "[<:_=") || !strings.Contains(next, " ")
}

// containsWord: w occurs in s between non-letters.
func containsWord(s, w string) bool {
	for i := 0; ; {
		j := strings.Index(s[i:], w)
		if j < 0 {
			return false
		}
		a, b := i+j, i+j+len(w)
		if (a == 0 || !IsWordByte(s[a-1])) && (b == len(s) || !IsWordByte(s[b])) {
			return true
		}
		i = a + 1
	}
}

func IsWordByte(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// synopsisOf is the SYNOPSIS lines of a summary record's text: those
// after the "SYNOPSIS" line up to the first line of prose.
func synopsisOf(text string) string {
	lines := strings.Split(text, "\n")
	var out []string
	in := false
	for _, l := range lines {
		if !in {
			in = strings.TrimSpace(l) == "SYNOPSIS"
			continue
		}
		tl := strings.TrimSpace(l)
		if tl == "" {
			continue
		}
		// Prose: a long line ending with a full stop, not a usage line.
		if len(tl) > 60 && strings.HasSuffix(tl, ".") && !strings.ContainsAny(tl, "[]") {
			break
		}
		out = append(out, l)
		if len(out) > 40 {
			break
		}
	}
	return strings.Join(out, "\n")
}

// addHeading reads one option heading ("-x, --extract, --get",
// "-f, --file=ARCHIVE", "--color, --colour [=WHEN]", "-name pattern",
// "-exec command ;") into specs for record rec. It reports whether it
// found a spelling.
func (t *Table) addHeading(head string, rec int, weak bool) bool {
	head = strings.TrimSpace(head)
	if head == "" || (head[0] != '-' && head[0] != '+') {
		return false
	}
	// Split the spellings ("-x, --extract") from the argument that
	// follows the last one.
	var spellings []string
	rest := head
	for {
		rest = strings.TrimLeft(rest, " ")
		if rest == "" || (rest[0] != '-' && rest[0] != '+') {
			break
		}
		end := strings.IndexAny(rest, ", ")
		if end < 0 {
			end = len(rest)
		}
		// A bracket may hold a space or comma: "-i[SUFFIX]" is fine,
		// "--pax-option keyword[[:]=value][,...]" ends at the space.
		word := rest[:end]
		if b := strings.IndexByte(word, '['); b >= 0 {
			if c := matchingBracket(rest, b); c > end {
				end = c + 1
				word = rest[:end]
			}
		}
		spellings = append(spellings, word)
		rest = rest[end:]
		if strings.HasPrefix(rest, ",") {
			rest = rest[1:]
			continue
		}
		if strings.HasPrefix(rest, " | ") {
			rest = rest[3:]
			continue
		}
		break
	}
	if len(spellings) == 0 {
		return false
	}
	rest = strings.TrimSpace(rest)
	// "-u user, --user=user": more spellings after the argument.
	if k := strings.Index(rest, ", -"); k >= 0 {
		t.addHeading(rest[k+2:], rec, weak)
		rest = rest[:k]
	}
	arg, nargs, exec := argOf(rest)
	// A value attached to one spelling (--file=ARCHIVE) is every
	// spelling's: GNU pages say so once for all.
	if arg == ArgNone {
		for _, sp := range spellings {
			switch {
			case strings.Contains(sp, "[="):
				arg = ArgOptional
			case strings.Contains(sp, "="):
				arg = ArgRequired
			case strings.Contains(sp, "[") && !strings.Contains(sp, "[no"):
				arg = ArgOptional
			}
			if arg == ArgRequired {
				break
			}
		}
	}
	found := false
	for _, sp := range spellings {
		a := arg
		name := sp
		// Attached argument forms: --file=ARCHIVE, --color[=WHEN],
		// -i[SUFFIX], --lines=[+]NUM.
		if i := strings.Index(name, "[="); i > 0 {
			name, a = name[:i], ArgOptional
		} else if i := strings.IndexByte(name, '='); i > 0 {
			name, a = name[:i], ArgRequired
		} else if i := strings.IndexByte(name, '['); i > 1 {
			inner := name[i:]
			if strings.HasPrefix(name, "--[no-]") || strings.HasPrefix(name, "-[no-]") {
				inner = ""
			}
			if inner != "" {
				name, a = name[:i], ArgOptional
			}
		}
		name = strings.TrimRight(name, ".:;")
		if t.addSpelling(name, a, nargs, exec, rec, weak) {
			found = true
		}
	}
	return found
}

func matchingBracket(s string, open int) int {
	depth := 0
	for i := open; i < len(s); i++ {
		switch s[i] {
		case '[':
			depth++
		case ']':
			depth--
			if depth == 0 {
				return i
			}
		}
	}
	return -1
}

// argOf reads what follows a heading's spellings: nothing, an argument
// ("ARCHIVE", "<path>", "[=WHEN]" optional, "[eof-str]" optional), several
// (find's "file format"), a command ("command ;"), or the start of a
// description that shared the heading's line (not an argument).
func argOf(rest string) (ArgKind, int, bool) {
	if rest == "" {
		return ArgNone, 0, false
	}
	words := strings.Fields(rest)
	if words[len(words)-1] == ";" || words[len(words)-1] == "+" {
		if words[0] == "command" || strings.Contains(rest, "{}") {
			return ArgRequired, 1, true
		}
	}
	// Prose: a capitalised word followed by more, ending with a stop.
	if len(words) >= 3 && strings.HasSuffix(rest, ".") {
		return ArgNone, 0, false
	}
	if len(words) > 4 {
		return ArgNone, 0, false
	}
	if strings.HasPrefix(rest, "[") && strings.HasSuffix(rest, "]") && len(words) == 1 {
		return ArgOptional, 1, false
	}
	n := 0
	for _, w := range words {
		if w != "..." && w != "|" {
			n++
		}
	}
	return ArgRequired, max(n, 1), false
}

// addSpelling adds one spelling; a spelling met again keeps its first
// record but learns an argument a later heading gives it.
func (t *Table) addSpelling(name string, a ArgKind, nargs int, exec bool, rec int, weak bool) bool {
	if strings.HasPrefix(name, "--[no-]") {
		base := name[len("--[no-]"):]
		ok := t.addSpelling("--"+base, a, nargs, exec, rec, weak)
		t.addSpelling("--no-"+base, a, nargs, exec, rec, weak)
		return ok
	}
	if strings.HasPrefix(name, "-[no]") {
		base := name[len("-[no]"):]
		ok := t.addSpelling("-"+base, a, nargs, exec, rec, weak)
		t.addSpelling("-no"+base, a, nargs, exec, rec, weak)
		return ok
	}
	if len(name) < 2 || !validSpelling(name) {
		return false
	}
	mk := func() *Spec { return &Spec{Name: name, Arg: a, NArgs: nargs, Exec: exec, Rec: rec, Weak: weak} }
	put := func(old *Spec) *Spec {
		if old == nil {
			return mk()
		}
		if old.Weak && !weak {
			return mk()
		}
		if old.Arg == ArgNone && a != ArgNone && (!weak || t.FromSynopsis) {
			old.Arg, old.NArgs, old.Exec = a, nargs, exec
		}
		return old
	}
	switch {
	case name[0] == '+':
		t.Single[name] = put(t.Single[name])
	case strings.HasPrefix(name, "--"):
		if len(name) == 2 {
			return false
		}
		// (A name all in capitals, less's --QUIT-AT-EOF, is a spelling
		// of its own: a placeholder stands beside a lower-case word.)
		if k := strings.IndexFunc(name, unicode.IsUpper); (k > 2 || k == 2 && len(name) > 3 && strings.ContainsRune(name[2:], '-')) &&
			strings.IndexFunc(name, unicode.IsLower) >= 0 {
			// --LTYPE-line-format: the capitals stand for a word.
			parts := placeholder.Split(name, -1)
			for i := range parts {
				parts[i] = regexp.QuoteMeta(parts[i])
			}
			if len(parts) > 1 {
				re, err := regexp.Compile("^" + strings.Join(parts, "[a-z0-9]+") + "$")
				if err == nil {
					t.Patterns = append(t.Patterns, PatternSpec{Re: re, S: mk()})
				}
			}
		}
		t.Long[name] = put(t.Long[name])
	case len(name) == 2:
		t.Short[name[1]] = put(t.Short[name[1]])
	case isNumericPlaceholder(name[1:]):
		t.Numeric = put(t.Numeric)
	default:
		body := name[1:]
		// -newerXY: a tail of capital placeholder letters after a
		// lower-case name.
		if k := upperTail(body); k > 0 && k < len(body) && k <= 3 && strings.ToLower(body[:len(body)-k]) == body[:len(body)-k] {
			s := mk()
			t.Prefixes = append(t.Prefixes, PrefixSpec{Prefix: name[:len(name)-k], TailLen: k, S: s})
			return true
		}
		// -Olevel: a capital letter with its value's name attached.
		if len(body) >= 3 && unicode.IsUpper(rune(body[0])) && strings.ToLower(body[1:]) == body[1:] && IsLetters(body[1:]) {
			if t.Short[body[0]] == nil {
				t.Short[body[0]] = &Spec{Name: name[:2], Arg: ArgRequired, Rec: rec, Weak: weak}
			}
		}
		t.Single[name] = put(t.Single[name])
	}
	return true
}

func validSpelling(name string) bool {
	if name == "--" {
		return false
	}
	for i := 1; i < len(name); i++ {
		c := name[i]
		if !(IsWordByte(c) || c == '-' || c == '?' || c == '@' || c == '#' || c == '.') {
			return false
		}
	}
	// A trailing dash is a word broken at the line's end ("--no-"), not
	// a flag; "-" followed by one character is always one.
	return len(name) == 2 || !strings.HasSuffix(name, "-")
}

// proseHeading is a line of prose that reads as an option heading
// ("-e script, --expression=script"), not a listing's "-rw-r--r--".
var proseHeading = regexp.MustCompile(`^--?[A-Za-z0-9?][A-Za-z0-9-]*(\[?=|\[|,| |$)`)

var subName = regexp.MustCompile(`^[a-z][a-z0-9]*(-[a-z0-9]+)*$`)

var placeholder = regexp.MustCompile(`[A-Z][A-Z0-9]+`)

func IsLetters(s string) bool {
	for _, r := range s {
		if !unicode.IsLetter(r) {
			return false
		}
	}
	return s != ""
}

// isNumericPlaceholder: "NUM", "N", "123", "num": the -NUM form.
func isNumericPlaceholder(s string) bool {
	switch s {
	case "NUM", "N", "NUMBER", "num", "number", "n", "COUNT", "count", "COLUMN", "COLUMNS", "<number>", "<n>", "<num>", "LINES", "lines":
		return true
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return s != ""
}

func upperTail(s string) int {
	k := 0
	for k < len(s) && unicode.IsUpper(rune(s[len(s)-1-k])) {
		k++
	}
	return k
}

// scanSynopsis learns from usage lines: "[-f ARCHIVE]" (f takes a value),
// "[-abc]" (each letter documented), "[--expression=script]".
func (t *Table) scanSynopsis(syn string, rec int) {
	t.scanAlternatives(syn, rec)
	for i := 0; i < len(syn); i++ {
		if syn[i] != '[' || i+1 >= len(syn) || syn[i+1] != '-' {
			continue
		}
		j := matchingBracket(syn, i)
		if j < 0 {
			continue
		}
		inner := syn[i+1 : j]
		if strings.ContainsAny(inner, "[|") {
			for _, alt := range strings.Split(inner, "|") {
				t.synopsisItem(strings.TrimSpace(alt), rec)
			}
			continue
		}
		t.synopsisItem(inner, rec)
	}
}

// alternatives is a spelling whose end is a bracketed choice:
// mount's --make-[shared|slave|rprivate].
var alternatives = regexp.MustCompile(`(?:^|[\s\[|])(--?[A-Za-z0-9][A-Za-z0-9-]*)\[([A-Za-z0-9-]+(?:\|[A-Za-z0-9-]+)+)\]`)

// scanAlternatives learns each spelling of a bracketed choice in a usage
// line: --make-[shared|rprivate] is --make-shared and --make-rprivate.
func (t *Table) scanAlternatives(syn string, rec int) {
	for _, m := range alternatives.FindAllStringSubmatch(syn, -1) {
		for _, alt := range strings.Split(m[2], "|") {
			t.addSpelling(m[1]+alt, ArgNone, 0, false, rec, true)
		}
	}
}

func (t *Table) synopsisItem(item string, rec int) {
	if !strings.HasPrefix(item, "-") || len(item) < 2 {
		return
	}
	fields := strings.Fields(item)
	flag := fields[0]
	if strings.HasPrefix(flag, "--") || len(fields) > 1 || strings.ContainsAny(flag, "=[") {
		t.addHeading(item, rec, true)
		return
	}
	// [-abc]: a set of single letters (BSD pages: [-ABC@1%,]).
	if len(flag) > 64 || strings.Trim(flag[1:], "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789@%#?,") != "" {
		return
	}
	if len(flag) > 2 && t.Options > 0 && len(t.Single) > 0 {
		t.addSpelling(flag, ArgNone, 0, false, rec, true)
		return
	}
	for k := 1; k < len(flag); k++ {
		if flag[k] == ',' {
			continue
		}
		if t.Short[flag[k]] == nil {
			t.Short[flag[k]] = &Spec{Name: "-" + flag[k:k+1], Rec: rec, Weak: true}
		}
	}
}

// scanProse learns from a record's prose: a line that starts with a dash
// reads as an option heading ("-e script, --expression=script" in a
// section the parser did not take for options), and every flag-like
// token is remembered as mentioned.
func (t *Table) scanProse(text string, rec int, headings bool) {
	for _, line := range strings.Split(text, "\n") {
		tl := strings.TrimSpace(line)
		if headings && strings.HasPrefix(tl, "-") && len(tl) < 80 && proseHeading.MatchString(tl) &&
			!strings.Contains(strings.Fields(tl)[0][2:], "--") && t.addHeading(tl, rec, true) {
			t.ProseHeads++
		}
	}
	for i := 0; i < len(text); i++ {
		c := text[i]
		if c != '-' && c != '+' {
			continue
		}
		if i > 0 && !strings.ContainsRune(" \t\n([,'\"`|/", rune(text[i-1])) {
			continue
		}
		j := i + 1
		if j < len(text) && text[j] == '-' {
			j++
		}
		for j < len(text) && (IsWordByte(text[j]) || text[j] == '-' || text[j] == '?' || text[j] == '@') {
			j++
		}
		tok := strings.TrimRight(text[i:j], "-")
		if len(tok) >= 2 && tok != "--" {
			t.Mentioned[tok] = true
		}
		i = j - 1
	}
}

// SubcommandUsage finds a subcommand's usage in its command's own page
// (tmux(1): a line "attach-session", then "[-dErx] [-t target-session]",
// then "(alias: attach)"; or the name and usage on one line) and reads its
// options into a table of their own: the subcommand is judged by them,
// firmly.
func SubcommandUsage(doc search.CommandDoc, sub string) *Table {
	for i, r := range doc.Records {
		if r.Kind == index.KindOption || !strings.Contains(r.Text, sub) {
			continue
		}
		lines := strings.Split(r.Text, "\n")
		for k := 0; k < len(lines); k++ {
			tl := strings.TrimSpace(lines[k])
			first, rest, _ := strings.Cut(tl, " ")
			if !subName.MatchString(first) || first != tl && !strings.HasPrefix(rest, "[-") {
				continue
			}
			// The usage: the rest of this line and the lines that follow
			// up to a blank one; then perhaps "(alias: name)".
			usage := []string{rest}
			m := k + 1
			for ; m < len(lines) && strings.TrimSpace(lines[m]) != ""; m++ {
				usage = append(usage, strings.TrimSpace(lines[m]))
			}
			for m < len(lines) && strings.TrimSpace(lines[m]) == "" {
				m++
			}
			alias := ""
			if m < len(lines) {
				if a, ok := strings.CutPrefix(strings.TrimSpace(lines[m]), "(alias: "); ok {
					alias = strings.TrimSuffix(a, ")")
				}
			}
			u := strings.Join(usage, " ")
			if (first != sub && alias != sub) || !strings.Contains(u, "[-") {
				continue
			}
			t := &Table{Doc: doc, Long: map[string]*Spec{}, Short: map[byte]*Spec{}, Single: map[string]*Spec{},
				Mentioned: map[string]bool{}, Synopsis: first + " " + u}
			t.FromSynopsis = true
			t.scanSynopsis(u, i)
			t.FromSynopsis = false
			// Firm for us: these are the subcommand's options, all of them.
			for _, sp := range t.Short {
				sp.Weak = false
			}
			for _, sp := range t.Long {
				sp.Weak = false
			}
			t.FirmOptions = len(t.Short) + len(t.Long) + len(t.Single)
			if t.FirmOptions == 0 {
				continue
			}
			for k := range t.Long {
				t.LongNames = append(t.LongNames, k)
			}
			sort.Strings(t.LongNames)
			return t
		}
	}
	return nil
}

// Firm: the page has option entries beyond --help and --version, or
// at least four option headings in its prose (sed's page keeps its
// options there): enough to refuse what it lacks. A help-only page is not.
func (t *Table) Firm() bool { return t.FirmOptions >= 1 || t.ProseHeads >= 4 }

// PrefixOf is the long option name abbreviates, when only one record's
// spellings start with it; ambiguous lists them when several do.
func (t *Table) PrefixOf(name string) (*Spec, []string) {
	if len(name) < 3 {
		return nil, nil
	}
	var hit *Spec
	var names []string
	recs := map[int]bool{}
	lo, hi := 0, len(t.LongNames)
	for lo < hi {
		m := (lo + hi) / 2
		if t.LongNames[m] < name {
			lo = m + 1
		} else {
			hi = m
		}
	}
	for k := lo; k < len(t.LongNames) && strings.HasPrefix(t.LongNames[k], name); k++ {
		s := t.Long[t.LongNames[k]]
		names = append(names, s.Name)
		if !recs[s.Rec] {
			recs[s.Rec] = true
			if hit == nil {
				hit = s
			}
		}
	}
	if len(recs) == 1 {
		return hit, nil
	}
	if len(recs) > 1 {
		return nil, names
	}
	return nil, nil
}

// FromHeadings is the table of options given as headings ("-w,
// --timeout SECONDS"): what explain knows of a wrapper's options itself,
// for when the wrapper's page is missing or terse.
func FromHeadings(heads []string) *Table {
	t := &Table{Long: map[string]*Spec{}, Short: map[byte]*Spec{}, Single: map[string]*Spec{}, Mentioned: map[string]bool{}}
	for _, h := range heads {
		t.addHeading(h, -1, false)
	}
	for k := range t.Long {
		t.LongNames = append(t.LongNames, k)
	}
	sort.Strings(t.LongNames)
	return t
}

// IsSubcommandName says whether s looks like a subcommand's name
// (commit, log, cherry-pick): lower-case words joined by dashes.
func IsSubcommandName(s string) bool { return subName.MatchString(s) }
