// Package judge gives the words of one command their verdicts against the
// command's option table (package optable), by GNU getopt_long's rules
// and the few commands that read their words their own way (find's
// expression, tar's dashless cluster, ps, kill's signals, chmod's modes).
package judge

import (
	"regexp"
	"strings"

	"github.com/cmdai/cmdai/explain/optable"
	"github.com/cmdai/cmdai/search"
)

// Judger gives the words of one command their verdicts, by GNU
// getopt_long's rules: short clusters, values attached or in the next
// word, long options with =value and unique-prefix abbreviations, "--"
// ending the options, options after operands.
type Judger struct {
	// Call explains a command the words run (find -exec's).
	Call  func(args []Arg, via []string, depth int)
	Name  string         // the command, for notes
	Base  string         // the command as invoked (its quirks)
	Page  string         // "tar(1)"
	Table *optable.Table // the command's page; nil: none in the index
	// Fallback is what we know of a wrapper's options ourselves (which take a
	// value), for when its page is missing or terse.
	Fallback *optable.Table
	// Lenient: an option the page lacks is Undocumented, not
	// UnknownOption (after a subcommand that has no page of its own).
	Lenient     bool
	LenientNote string
}

// Mode tunes where judging stops.
type Mode struct {
	// StopAt: stop at operand number StopAt (0: the first operand),
	// returning its index; -1: judge every word.
	StopAt int
	// Assigns: NAME=VALUE operands before that are env's, not counted.
	Assigns bool
	// Ended: a "--" before these words Ended the options.
	Ended bool
}

// canFlag: the page gives a firm list of options, so a word missing from
// it is an unknown option rather than something we cannot judge.
func (j *Judger) canFlag() bool {
	return j.Table != nil && !j.Lenient && j.Table.Firm()
}

func (j *Judger) unknownNote() string {
	if j.Table == nil {
		return "no page to judge it by"
	}
	if j.Lenient {
		return j.LenientNote
	}
	return "the page documents too few options to judge it"
}

// short finds a single letter option: its page spec (nil when the page
// lacks it) and whether it takes a value (the page's word, else ours).
func (j *Judger) short(c byte) (*optable.Spec, optable.ArgKind) {
	var s, f *optable.Spec
	if j.Table != nil {
		s = j.Table.Short[c]
	}
	if j.Fallback != nil {
		f = j.Fallback.Short[c]
	}
	return pick(s, f)
}

func pick(s, f *optable.Spec) (*optable.Spec, optable.ArgKind) {
	switch {
	case s != nil && f != nil && f.Arg > s.Arg:
		return s, f.Arg
	case s != nil:
		return s, s.Arg
	case f != nil:
		return nil, f.Arg
	}
	return nil, -1
}

// long finds a long option by exact name or unique prefix.
func (j *Judger) long(name string) (s *optable.Spec, arg optable.ArgKind, abbrev bool, ambiguous []string) {
	var f *optable.Spec
	if j.Fallback != nil {
		f = j.Fallback.Long[name]
	}
	if j.Table != nil {
		if s = j.Table.Long[name]; s == nil {
			s, ambiguous = j.Table.PrefixOf(name)
			abbrev = s != nil
		}
	}
	if s == nil && j.Table != nil {
		for _, p := range j.Table.Patterns {
			if p.Re.MatchString(name) {
				s = p.S
				break
			}
		}
	}
	if s == nil && f == nil && j.Fallback != nil {
		f, _ = j.Fallback.PrefixOf(name)
	}
	s, arg = pick(s, f)
	return s, arg, abbrev, ambiguous
}

// known fills w from a documented spec.
func (j *Judger) known(w *Word, s *optable.Spec) {
	w.Verdict = Known
	if j.Table == nil || s == nil || s.Rec >= len(j.Table.Doc.Records) {
		w.Note = JoinNotes(w.Note, "no page: read as "+j.Name+" takes it")
		w.Verdict = Undocumented
		return
	}
	r := j.Table.Doc.Records[s.Rec]
	w.Option = s.Name
	if r.Option != "" && r.Kind == "option" {
		w.Option = r.Option
	}
	w.OptionID = r.ID
	if s.Weak {
		w.Help = excerpt(r.Text, s.Name)
		w.Note = JoinNotes(w.Note, "named in the page's text, without an option entry of its own")
	} else {
		w.Help = r.Text
	}
}

// excerpt is the line of text that names flag (its prose), else the
// text's start.
func excerpt(text, flag string) string {
	for _, l := range strings.Split(text, "\n") {
		if strings.Contains(l, flag) {
			return strings.TrimSpace(l)
		}
	}
	if len(text) > 200 {
		return text[:200]
	}
	return text
}

func JoinNotes(a, b string) string {
	if a == "" {
		return b
	}
	if b == "" {
		return a
	}
	return a + "; " + b
}

// mentioned: the page's prose names the flag though no option entry
// does: known, with a note, rather than a false alarm.
func (j *Judger) mentioned(w *Word, flag string) bool {
	if j.Table == nil || !j.Table.Mentioned[flag] {
		return false
	}
	w.Verdict = Known
	w.Option = flag
	w.Note = JoinNotes(w.Note, "named in the page's text, without an option entry of its own")
	if len(j.Table.Doc.Records) > 0 {
		for _, r := range j.Table.Doc.Records {
			if strings.Contains(r.Text, flag) {
				w.OptionID, w.Help = r.ID, excerpt(r.Text, flag)
				break
			}
		}
	}
	return true
}

func (j *Judger) unknown(w *Word, flag string) {
	if j.canFlag() {
		w.Verdict = UnknownOption
		w.Note = JoinNotes(w.Note, "no such option in "+j.Page)
		return
	}
	w.Verdict = Undocumented
	w.Note = JoinNotes(w.Note, j.unknownNote())
}

func NewWord(a Arg) Word {
	return Word{Text: a.Text, Start: a.Start, End: a.End}
}

func OperandWord(w Word, note string) Word {
	w.Verdict, w.Note = Operand, JoinNotes(w.Note, note)
	return w
}

// ValueOf makes args[i] the value of option opt.
func ValueOf(a Arg, opt string) Word {
	w := NewWord(a)
	w.Verdict, w.Of, w.Note = Operand, opt, "a value of "+opt
	return w
}

// Judge gives verdicts to args by m; it returns the words and where it
// stopped (len(args), or the operand m.stopAt names).
func (j *Judger) Judge(args []Arg, m Mode) ([]Word, int) {
	var out []Word
	operands := 0
	endOpts := m.Ended
	for i := 0; i < len(args); i++ {
		a := args[i]
		lit := a.Lit
		if !endOpts && lit == "--" && !a.Dynamic {
			w := OperandWord(NewWord(a), "ends the options")
			out = append(out, w)
			endOpts = true
			continue
		}
		isOpt := !endOpts && len(lit) > 1 && lit[0] == '-'
		if isOpt {
			w := NewWord(a)
			if j.quirk(&w, a) {
				out = append(out, w)
				continue
			}
		}
		if !isOpt && a.Lit != "" && a.Lit[0] == '+' && !endOpts && j.Table != nil && j.Table.Single[a.Lit] != nil {
			w := NewWord(a)
			j.known(&w, j.Table.Single[a.Lit])
			out = append(out, w)
			continue
		}
		if !isOpt {
			if m.Assigns && !a.Dynamic && isAssign(lit) {
				out = append(out, OperandWord(NewWord(a), "an environment variable set for the command"))
				continue
			}
			if m.StopAt >= 0 && operands == m.StopAt {
				return out, i
			}
			operands++
			note := ""
			switch {
			case a.Dynamic:
				note = "expanded at run time"
			case lit == "-":
				note = "standard input or output"
			}
			out = append(out, OperandWord(NewWord(a), note))
			continue
		}
		var ws []Word
		var used int
		if strings.HasPrefix(lit, "--") {
			ws, used = j.longWord(args, i)
		} else {
			ws, used = j.shortWord(args, i)
		}
		out = append(out, ws...)
		i += used
	}
	return out, len(args)
}

func isAssign(s string) bool {
	eq := strings.IndexByte(s, '=')
	if eq <= 0 {
		return false
	}
	for k := 0; k < eq; k++ {
		if !optable.IsWordByte(s[k]) {
			return false
		}
	}
	return true
}

// longWord judges a --long word (and its value word); used: how many
// following words it took.
func (j *Judger) longWord(args []Arg, i int) ([]Word, int) {
	a := args[i]
	w := NewWord(a)
	name, _, hasEq := strings.Cut(a.Lit, "=")
	if a.Dynamic && !hasEq {
		w.Verdict, w.Note = Undocumented, "the option's name is expanded at run time"
		return []Word{w}, 0
	}
	s, arg, abbrev, amb := j.long(name)
	switch {
	case s != nil:
		j.known(&w, s)
		if abbrev {
			w.Note = JoinNotes(w.Note, "abbreviation of "+s.Name)
		}
	case len(amb) > 0:
		w.Verdict, w.Note = Undocumented, "ambiguous abbreviation: "+strings.Join(amb, ", ")
		return []Word{w}, 0
	case j.mentioned(&w, name):
	case strings.HasPrefix(name, "--no-") && j.Table != nil && j.Table.Long["--"+name[5:]] != nil:
		w.Verdict, w.Note = Undocumented, "the negation of --"+name[5:]+", which the page does not spell out"
		return []Word{w}, 0
	case arg >= 0:
		// Our own knowledge of a wrapper's option, its page lacking.
		w.Verdict, w.Note = Undocumented, "not on the page; read as "+j.Name+" takes it"
	default:
		j.unknown(&w, name)
		return []Word{w}, 0
	}
	if hasEq && arg == optable.ArgNone && w.Verdict == Known {
		w.Note = JoinNotes(w.Note, "given a value, which the page does not show it taking")
	}
	if arg == optable.ArgRequired && !hasEq && i+1 < len(args) {
		opt := w.Option
		if opt == "" {
			opt = name
		}
		return []Word{w, ValueOf(args[i+1], opt)}, 1
	}
	return []Word{w}, 0
}

// shortWord judges a word starting with one dash: a single-dash long
// option (find's -name), a -NUM, or a cluster of short options.
func (j *Judger) shortWord(args []Arg, i int) ([]Word, int) {
	a := args[i]
	lit := a.Lit
	w := NewWord(a)
	if j.Table != nil && !a.Dynamic && len(lit) > 2 {
		if s := j.Table.Single[lit]; s != nil {
			j.known(&w, s)
			return j.takeValues(w, s, args, i)
		}
		for _, p := range j.Table.Prefixes {
			if len(lit) == len(p.Prefix)+p.TailLen && strings.HasPrefix(lit, p.Prefix) {
				j.known(&w, p.S)
				return j.takeValues(w, p.S, args, i)
			}
		}
	}
	if !a.Dynamic && AllDigits(lit[1:]) {
		if j.Table != nil && j.Table.Numeric != nil {
			j.known(&w, j.Table.Numeric)
			return []Word{w}, 0
		}
		if _, ak := j.short(lit[1]); ak < 0 && (j.Table == nil || !j.Table.Mentioned[lit]) {
			return []Word{OperandWord(w, "a negative number")}, 0
		}
	}
	// Java-style pages (many single-dash long options, this word not one
	// of them, its first letter no short option): the whole word is the
	// unknown option, not a cluster.
	if j.Table != nil && len(lit) > 2 && j.Table.SingleFirm >= 3 && !a.Dynamic {
		if s, _ := j.short(lit[1]); s == nil {
			if !j.mentioned(&w, lit) {
				j.unknown(&w, lit)
			}
			return []Word{w}, 0
		}
	}
	if j.Table != nil && len(lit) > 2 && !a.Dynamic && j.Table.Mentioned[lit] {
		// A cluster the page itself writes (an example's -xzvf).
		if ws, used, ok := j.cluster(args, i, true); ok {
			return ws, used
		}
	}
	ws, used, _ := j.cluster(args, i, false)
	return ws, used
}

// clusterVerdict is the verdict of a cluster's word w from its letters'
// (flags): unknown or undocumented when one letter is, else known; a
// cluster of one option reads as that option.
func clusterVerdict(w Word, flags []Word, dynamic, unknown, undoc, valueDone bool) Word {
	switch {
	case unknown:
		w.Verdict = UnknownOption
		for _, f := range flags {
			if f.Verdict == UnknownOption {
				w.Note = JoinNotes(w.Note, f.Text+": "+f.Note)
			}
		}
	case undoc:
		w.Verdict = Undocumented
		w.Note = flags[len(flags)-1].Note
	case dynamic && !valueDone:
		w.Verdict, w.Note = Undocumented, "part of the word is expanded at run time"
	default:
		w.Verdict = Known
	}
	if len(flags) == 1 {
		f := flags[0]
		w.Option, w.OptionID, w.Help = f.Option, f.OptionID, f.Help
		switch {
		case w.Verdict == UnknownOption:
			w.Note = f.Note
		case w.Note != f.Note:
			w.Note = JoinNotes(w.Note, f.Note)
		}
		flags = nil
	} else if w.Verdict == Known && len(flags) > 0 && flags[0].Verdict == Known && countOptions(flags) == 1 {
		f := flags[0]
		w.Option, w.OptionID, w.Help = f.Option, f.OptionID, f.Help
	}
	w.Flags = flags
	return w
}

// cluster judges -xzvf letter by letter. strict: succeed only when every
// letter is documented.
func (j *Judger) cluster(args []Arg, i int, strict bool) ([]Word, int, bool) {
	a := args[i]
	lit := a.Lit
	w := NewWord(a)
	var flags []Word
	used := 0
	unknown, undoc, valueDone := false, false, false
	for k := 1; k < len(lit); k++ {
		c := lit[k]
		f := Word{Text: "-" + string(c), Start: a.Start, End: a.End}
		if a.Raw {
			f.Start, f.End = a.Start+k, a.Start+k+1
		}
		s, ak := j.short(c)
		if s == nil && c >= '0' && c <= '9' && j.Table != nil && j.Table.Numeric != nil {
			// -4t: a -NUM option, then more letters.
			n := k
			for n < len(lit) && lit[n] >= '0' && lit[n] <= '9' {
				n++
			}
			f.Text = "-" + lit[k:n]
			if a.Raw {
				f.End = a.Start + n
			}
			j.known(&f, j.Table.Numeric)
			flags = append(flags, f)
			k = n - 1
			continue
		}
		switch {
		case s != nil:
			j.known(&f, s)
		case j.mentioned(&f, "-"+string(c)):
		case ak >= 0:
			f.Verdict, f.Note = Undocumented, "not on the page; read as "+j.Name+" takes it"
			undoc = true
		default:
			if strict {
				return nil, 0, false
			}
			j.unknown(&f, "-"+string(c))
			if f.Verdict == UnknownOption {
				unknown = true
			} else {
				undoc = true
			}
			flags = append(flags, f)
			// getopt stops at an unknown letter's error; the rest of the
			// word is judged no further.
			k = len(lit)
			continue
		}
		flags = append(flags, f)
		opt := f.Option
		if opt == "" {
			opt = f.Text
		}
		if ak == optable.ArgRequired || ak == optable.ArgOptional {
			if k+1 < len(lit) || (a.Dynamic && ak == optable.ArgRequired) {
				v := Word{Text: lit[k+1:], Start: a.Start, End: a.End, Verdict: Operand, Of: opt, Note: "a value of " + opt}
				if a.Raw {
					v.Start = a.Start + k + 1
				}
				if a.Dynamic {
					v.Text, v.Note = a.Text[min(k+1, len(a.Text)):], v.Note+", expanded at run time"
				}
				if v.Text != "" {
					flags = append(flags, v)
				}
				valueDone = true
				break
			}
			valueDone = true
			if ak == optable.ArgRequired && i+1 < len(args) {
				used = 1
			}
			break
		}
	}
	valueOpt := ""
	if len(flags) > 0 {
		last := flags[len(flags)-1]
		valueOpt = last.Option
		if valueOpt == "" {
			valueOpt = last.Text
		}
	}
	w = clusterVerdict(w, flags, a.Dynamic, unknown, undoc, valueDone)
	out := []Word{w}
	if used == 1 {
		out = append(out, ValueOf(args[i+1], valueOpt))
	}
	return out, used, true
}

func countOptions(flags []Word) int {
	n := 0
	for _, f := range flags {
		if f.Of == "" {
			n++
		}
	}
	return n
}

// takeValues consumes a single-dash long option's value words (find's
// -fprintf file format).
func (j *Judger) takeValues(w Word, s *optable.Spec, args []Arg, i int) ([]Word, int) {
	out := []Word{w}
	n := 0
	if s.Arg == optable.ArgRequired {
		n = max(s.NArgs, 1)
	}
	used := 0
	for k := 1; k <= n && i+k < len(args); k++ {
		out = append(out, ValueOf(args[i+k], w.Option))
		used++
	}
	return out, used
}

func AllDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// PageName is how a doc names its page: "tar(1)".
func PageName(doc search.CommandDoc) string {
	if doc.ManSection != "" {
		return doc.Command + "(" + doc.ManSection + ")"
	}
	return doc.Command
}

// Verdict is what the index says of a command or a word.
type Verdict string

// The verdicts. A command is Known (the index documents it), NotInstalled
// or Undocumented; a word is Known (a documented option), UnknownOption,
// Operand (not an option: a file, a pattern, an option's value) or
// Undocumented (its command has no option records to judge it by: never
// a guess).
const (
	Known         Verdict = "known"
	UnknownOption Verdict = "unknown option"
	NotInstalled  Verdict = "not installed"
	Undocumented  Verdict = "undocumented"
	Operand       Verdict = "operand"
)

// Word is one word of a command's arguments.
type Word struct {
	// Text is the word as written; a word holding commands ($(...),
	// <(...)) keeps its first 64 bytes and "...", Start and End giving
	// the whole word (its commands are reported themselves).
	Text  string `json:"text"`
	Start int    `json:"start"` // byte offsets in the line
	End   int    `json:"end"`
	// Verdict is this word's; an option's value (the "ARCHIVE" of -f
	// ARCHIVE) is an Operand whose Of names the option.
	Verdict Verdict `json:"verdict"`
	// Option is the documented flag the word matched, as the page spells
	// it ("--extract" for -x in -xzvf; "--regexp" for --reg); OptionID
	// the option record's id; Help its text.
	Option   string `json:"option,omitempty"`
	OptionID string `json:"option_id,omitempty"`
	Help     string `json:"help,omitempty"`
	// Of is the option a value belongs to.
	Of string `json:"of,omitempty"`
	// Flags are the words' parts when it is a cluster of short options
	// (-xzvf): one entry each, in order.
	Flags []Word `json:"flags,omitempty"`
	// Note says why, where the verdict needs it ("abbreviation of
	// --regexp", "no such option in tar(1)", "a value of -C").
	Note string `json:"note,omitempty"`
}

// Arg is one shell word of a command as Explain judges it.
type Arg struct {
	// Lit is the word's value after quote removal when it is literal;
	// when dynamic, the literal prefix before the first expansion or
	// glob.
	Lit     string
	Dynamic bool
	// Text is the word as written.
	Text string
	// Start, End: byte offsets in the line. raw: line[Start:End] is lit
	// itself (no quotes, no escapes), so a character's offset within the
	// word is Start plus its index.
	Start, End int
	Raw        bool
}

// isFindExpr: a word that starts find's expression.
func isFindExpr(l string) bool {
	return len(l) > 1 && l[0] == '-' || l == "(" || l == "!" || l == ")"
}

func (j *Judger) findSpec(l string) *optable.Spec {
	if j.Table == nil {
		return nil
	}
	if s := j.Table.Single[l]; s != nil {
		return s
	}
	if len(l) == 2 {
		if s := j.Table.Short[l[1]]; s != nil {
			return s
		}
	}
	for _, p := range j.Table.Prefixes {
		if len(l) == len(p.Prefix)+p.TailLen && strings.HasPrefix(l, p.Prefix) {
			return p.S
		}
	}
	return j.Table.Long[l]
}

// Find judges Find's words: its options (-H -L -P -D -O), the starting
// points, then the expression: tests, actions and operators, each test's
// values, and -exec's command (explained as a command of its own, up to
// ";" or "{} +").
func (j *Judger) Find(args []Arg, via []string, depth int) []Word {
	var out []Word
	i := 0
	for ; i < len(args); i++ {
		a := args[i]
		l := a.Lit
		if a.Dynamic || !(l == "-H" || l == "-L" || l == "-P" || l == "-D" || strings.HasPrefix(l, "-O") && len(l) > 2 && AllDigits(l[2:])) {
			break
		}
		ws, used := j.shortWord(args, i)
		out = append(out, ws...)
		i += used
	}
	for ; i < len(args); i++ {
		a := args[i]
		if !a.Dynamic && isFindExpr(a.Lit) {
			break
		}
		note := "a starting point"
		if a.Dynamic {
			note += ", expanded at run time"
		}
		out = append(out, OperandWord(NewWord(a), note))
	}
	for ; i < len(args); i++ {
		a := args[i]
		l := a.Lit
		w := NewWord(a)
		if a.Dynamic {
			if strings.HasPrefix(l, "-") {
				w.Verdict, w.Note = Undocumented, "expanded at run time"
			} else {
				w = OperandWord(w, "expanded at run time")
			}
			out = append(out, w)
			continue
		}
		if findOperators[l] {
			if s := j.findSpec(l); s != nil {
				j.known(&w, s)
			} else {
				w.Verdict, w.Option = Known, l
			}
			w.Note = JoinNotes(w.Note, "an expression operator")
			out = append(out, w)
			continue
		}
		if len(l) < 2 || l[0] != '-' {
			out = append(out, OperandWord(w, ""))
			continue
		}
		s := j.findSpec(l)
		if s == nil {
			if !j.mentioned(&w, l) {
				j.unknown(&w, l)
			}
			out = append(out, w)
			continue
		}
		j.known(&w, s)
		if s.Exec || l == "-exec" || l == "-execdir" || l == "-ok" || l == "-okdir" {
			k := i + 1
			for ; k < len(args); k++ {
				t := args[k]
				if !t.Dynamic && (t.Lit == ";" || t.Lit == "+" && k > i+1 && args[k-1].Lit == "{}") {
					break
				}
			}
			if k >= len(args) {
				w.Note = JoinNotes(w.Note, "its command does not end with ; or {} +")
			}
			out = append(out, w)
			if k > i+1 {
				j.Call(args[i+1:k], append(append([]string(nil), via...), "find "+l), depth)
				for m := i + 1; m < k; m++ {
					out = append(out, ValueOf(args[m], w.Option))
				}
			}
			if k < len(args) {
				out = append(out, OperandWord(NewWord(args[k]), "ends the command of "+l))
			}
			i = k
			continue
		}
		ws, used := j.takeValues(w, s, args, i)
		out = append(out, ws...)
		i += used
	}
	return out
}

// TarOld judges tar's traditional form (tar xzvf a.tgz): its first word
// is a cluster of option letters without a dash, whose values are the
// words that follow, in order.
func (j *Judger) TarOld(args []Arg) []Word {
	first := args[0]
	if !optable.IsLetters(first.Lit) || len(first.Lit) > 20 {
		out, _ := j.Judge(args, Mode{StopAt: -1})
		return out
	}
	w := NewWord(first)
	var flags, values []Word
	next := 1
	unknown := false
	for k := 0; k < len(first.Lit); k++ {
		c := first.Lit[k]
		f := Word{Text: string(c), Start: first.Start, End: first.End}
		if first.Raw {
			f.Start, f.End = first.Start+k, first.Start+k+1
		}
		s, ak := j.short(c)
		switch {
		case s != nil:
			j.known(&f, s)
		case j.mentioned(&f, "-"+string(c)):
		default:
			j.unknown(&f, "-"+string(c))
			unknown = unknown || f.Verdict == UnknownOption
		}
		flags = append(flags, f)
		if ak == optable.ArgRequired && next < len(args) {
			opt := f.Option
			if opt == "" {
				opt = "-" + string(c)
			}
			values = append(values, ValueOf(args[next], opt))
			next++
		}
	}
	w.Verdict, w.Flags, w.Note = Known, flags, "tar's traditional form: option letters without a dash"
	if unknown {
		w.Verdict = UnknownOption
	}
	rest, _ := j.Judge(args[next:], Mode{StopAt: -1})
	return append(append([]Word{w}, values...), rest...)
}

// PS takes BSD options without a dash (PS aux) that its page describes
// in prose: such words are not judged.
func (j *Judger) PS(args []Arg) []Word {
	out, _ := j.Judge(args, Mode{StopAt: -1})
	for i := range out {
		w := &out[i]
		if w.Verdict == Operand && w.Of == "" && optable.IsLetters(w.Text) {
			w.Verdict, w.Note = Undocumented, "a BSD-style option (no dash): not judged"
		}
	}
	return out
}

// quirk handles words some commands read their own way; it reports
// whether it judged w.
func (j *Judger) quirk(w *Word, a Arg) bool {
	if a.Dynamic {
		return false
	}
	l := a.Lit
	switch j.Base {
	case "kill", "pkill", "killall", "pgrep":
		if signalWord.MatchString(l) && isSignal(l) && (j.Table == nil || j.Table.Short[l[1]] == nil || len(l) > 2) {
			w.Verdict, w.Option, w.Note = Known, "-SIGNAL", "a signal"
			return true
		}
	case "chmod":
		if modeWord.MatchString(l) {
			w.Verdict, w.Note = Operand, "a mode"
			return true
		}
	case "head", "tail":
		if AllDigits(l[1:]) && j.Table != nil && j.Table.Numeric == nil {
			if s := j.Table.Long["--lines"]; s != nil {
				j.known(w, s)
				w.Note = JoinNotes(w.Note, "-NUM: the old form of -n NUM")
				return true
			}
		}
	case "nice", "renice":
		if AllDigits(l[1:]) {
			w.Verdict, w.Note = Known, "-N: the old form of -n N (the adjustment)"
			return true
		}
	case "echo":
		// echo prints a word that is not its options; one of letters
		// still reads as a mistaken option and is judged.
		if !optable.IsLetters(l[1:]) {
			w.Verdict, w.Note = Operand, "echo prints what is not one of its options"
			return true
		}
	case "test", "[":
		if len(l) != 2 || j.Table == nil || j.Table.Short[l[1]] == nil {
			w.Verdict, w.Note = Operand, "an operator of the expression"
			return true
		}
	}
	return false
}

var (
	signalWord = regexp.MustCompile(`^-(SIG)?([A-Z][A-Z0-9+-]*|[0-9]+)$`)
	modeWord   = regexp.MustCompile(`^[ugoa]*([-+=][rwxXstugo]*)+(,[ugoa]*([-+=][rwxXstugo]*)+)*$`)
)

// signalNames are the signals' names (Linux's, and the BSDs' few more):
// kill -HUP, -SIGTERM, -RTMIN+3. A capital word that names none (kill
// -S) is judged as an option.
var signalNames = map[string]bool{}

func init() {
	for _, n := range strings.Fields("HUP INT QUIT ILL TRAP ABRT IOT BUS EMT FPE KILL USR1 SEGV USR2 PIPE ALRM TERM " +
		"STKFLT CHLD CLD CONT STOP TSTP TTIN TTOU URG XCPU XFSZ VTALRM PROF WINCH IO POLL PWR LOST SYS UNUSED INFO RTMIN RTMAX EXIT") {
		signalNames[n] = true
	}
}

var rtSignal = regexp.MustCompile(`^RT(MIN\+|MAX-)[0-9]+$`)

// isSignal: the word (-9, -HUP, -SIGHUP, -RTMIN+3) names a signal.
func isSignal(word string) bool {
	name := strings.TrimPrefix(strings.TrimPrefix(word, "-"), "SIG")
	if name == "" {
		return false
	}
	if strings.Trim(name, "0123456789") == "" {
		return true
	}
	return signalNames[name] || rtSignal.MatchString(name)
}

var findOperators = map[string]bool{"(": true, ")": true, "!": true, ",": true, "-o": true, "-a": true, "-or": true, "-and": true, "-not": true}
