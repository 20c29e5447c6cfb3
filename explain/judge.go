package explain

import (
	"strings"

	"github.com/cmdai/cmdai/explain/optable"
	"github.com/cmdai/cmdai/search"
)

// judger gives the words of one command their verdicts, by GNU
// getopt_long's rules: short clusters, values attached or in the next
// word, long options with =value and unique-prefix abbreviations, "--"
// ending the options, options after operands.
type judger struct {
	e    *explainer
	name string         // the command, for notes
	base string         // the command as invoked (its quirks)
	page string         // "tar(1)"
	t    *optable.Table // the command's page; nil: none in the index
	// fb is what we know of a wrapper's options ourselves (which take a
	// value), for when its page is missing or terse.
	fb *optable.Table
	// lenient: an option the page lacks is Undocumented, not
	// UnknownOption (after a subcommand that has no page of its own).
	lenient     bool
	lenientNote string
}

// mode tunes where judging stops.
type mode struct {
	// stopAt: stop at operand number stopAt (0: the first operand),
	// returning its index; -1: judge every word.
	stopAt int
	// assigns: NAME=VALUE operands before that are env's, not counted.
	assigns bool
	// ended: a "--" before these words ended the options.
	ended bool
}

// canFlag: the page gives a firm list of options, so a word missing from
// it is an unknown option rather than something we cannot judge.
func (j *judger) canFlag() bool {
	return j.t != nil && !j.lenient && j.t.Firm()
}

func (j *judger) unknownNote() string {
	if j.t == nil {
		return "no page to judge it by"
	}
	if j.lenient {
		return j.lenientNote
	}
	return "the page documents too few options to judge it"
}

// short finds a single letter option: its page spec (nil when the page
// lacks it) and whether it takes a value (the page's word, else ours).
func (j *judger) short(c byte) (*optable.Spec, optable.ArgKind) {
	var s, f *optable.Spec
	if j.t != nil {
		s = j.t.Short[c]
	}
	if j.fb != nil {
		f = j.fb.Short[c]
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
func (j *judger) long(name string) (s *optable.Spec, arg optable.ArgKind, abbrev bool, ambiguous []string) {
	var f *optable.Spec
	if j.fb != nil {
		f = j.fb.Long[name]
	}
	if j.t != nil {
		if s = j.t.Long[name]; s == nil {
			s, ambiguous = j.t.PrefixOf(name)
			abbrev = s != nil
		}
	}
	if s == nil && j.t != nil {
		for _, p := range j.t.Patterns {
			if p.Re.MatchString(name) {
				s = p.S
				break
			}
		}
	}
	if s == nil && f == nil && j.fb != nil {
		f, _ = j.fb.PrefixOf(name)
	}
	s, arg = pick(s, f)
	return s, arg, abbrev, ambiguous
}

// known fills w from a documented spec.
func (j *judger) known(w *Word, s *optable.Spec) {
	w.Verdict = Known
	if j.t == nil || s == nil || s.Rec >= len(j.t.Doc.Records) {
		w.Note = join(w.Note, "no page: read as "+j.name+" takes it")
		w.Verdict = Undocumented
		return
	}
	r := j.t.Doc.Records[s.Rec]
	w.Option = s.Name
	if r.Option != "" && r.Kind == "option" {
		w.Option = r.Option
	}
	w.OptionID = r.ID
	if s.Weak {
		w.Help = excerpt(r.Text, s.Name)
		w.Note = join(w.Note, "named in the page's text, without an option entry of its own")
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

func join(a, b string) string {
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
func (j *judger) mentioned(w *Word, flag string) bool {
	if j.t == nil || !j.t.Mentioned[flag] {
		return false
	}
	w.Verdict = Known
	w.Option = flag
	w.Note = join(w.Note, "named in the page's text, without an option entry of its own")
	if len(j.t.Doc.Records) > 0 {
		for _, r := range j.t.Doc.Records {
			if strings.Contains(r.Text, flag) {
				w.OptionID, w.Help = r.ID, excerpt(r.Text, flag)
				break
			}
		}
	}
	return true
}

func (j *judger) unknown(w *Word, flag string) {
	if j.canFlag() {
		w.Verdict = UnknownOption
		w.Note = join(w.Note, "no such option in "+j.page)
		return
	}
	w.Verdict = Undocumented
	w.Note = join(w.Note, j.unknownNote())
}

func (e *explainer) word(a arg) Word {
	return Word{Text: a.text, Start: a.start, End: a.end}
}

func operand(w Word, note string) Word {
	w.Verdict, w.Note = Operand, join(w.Note, note)
	return w
}

// valueOf makes args[i] the value of option opt.
func (e *explainer) valueOf(a arg, opt string) Word {
	w := e.word(a)
	w.Verdict, w.Of, w.Note = Operand, opt, "a value of "+opt
	return w
}

// judge gives verdicts to args by m; it returns the words and where it
// stopped (len(args), or the operand m.stopAt names).
func (j *judger) judge(args []arg, m mode) ([]Word, int) {
	var out []Word
	operands := 0
	endOpts := m.ended
	for i := 0; i < len(args); i++ {
		a := args[i]
		lit := a.lit
		if !endOpts && lit == "--" && !a.dynamic {
			w := operand(j.e.word(a), "ends the options")
			out = append(out, w)
			endOpts = true
			continue
		}
		isOpt := !endOpts && len(lit) > 1 && lit[0] == '-'
		if isOpt {
			w := j.e.word(a)
			if j.e.quirk(j, &w, a) {
				out = append(out, w)
				continue
			}
		}
		if !isOpt && a.lit != "" && a.lit[0] == '+' && !endOpts && j.t != nil && j.t.Single[a.lit] != nil {
			w := j.e.word(a)
			j.known(&w, j.t.Single[a.lit])
			out = append(out, w)
			continue
		}
		if !isOpt {
			if m.assigns && !a.dynamic && isAssign(lit) {
				out = append(out, operand(j.e.word(a), "an environment variable set for the command"))
				continue
			}
			if m.stopAt >= 0 && operands == m.stopAt {
				return out, i
			}
			operands++
			note := ""
			switch {
			case a.dynamic:
				note = "expanded at run time"
			case lit == "-":
				note = "standard input or output"
			}
			out = append(out, operand(j.e.word(a), note))
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
func (j *judger) longWord(args []arg, i int) ([]Word, int) {
	a := args[i]
	w := j.e.word(a)
	name, _, hasEq := strings.Cut(a.lit, "=")
	if a.dynamic && !hasEq {
		w.Verdict, w.Note = Undocumented, "the option's name is expanded at run time"
		return []Word{w}, 0
	}
	s, arg, abbrev, amb := j.long(name)
	switch {
	case s != nil:
		j.known(&w, s)
		if abbrev {
			w.Note = join(w.Note, "abbreviation of "+s.Name)
		}
	case len(amb) > 0:
		w.Verdict, w.Note = Undocumented, "ambiguous abbreviation: "+strings.Join(amb, ", ")
		return []Word{w}, 0
	case j.mentioned(&w, name):
	case strings.HasPrefix(name, "--no-") && j.t != nil && j.t.Long["--"+name[5:]] != nil:
		w.Verdict, w.Note = Undocumented, "the negation of --"+name[5:]+", which the page does not spell out"
		return []Word{w}, 0
	case arg >= 0:
		// Our own knowledge of a wrapper's option, its page lacking.
		w.Verdict, w.Note = Undocumented, "not on the page; read as "+j.name+" takes it"
	default:
		j.unknown(&w, name)
		return []Word{w}, 0
	}
	if hasEq && arg == optable.ArgNone && w.Verdict == Known {
		w.Note = join(w.Note, "given a value, which the page does not show it taking")
	}
	if arg == optable.ArgRequired && !hasEq && i+1 < len(args) {
		opt := w.Option
		if opt == "" {
			opt = name
		}
		return []Word{w, j.e.valueOf(args[i+1], opt)}, 1
	}
	return []Word{w}, 0
}

// shortWord judges a word starting with one dash: a single-dash long
// option (find's -name), a -NUM, or a cluster of short options.
func (j *judger) shortWord(args []arg, i int) ([]Word, int) {
	a := args[i]
	lit := a.lit
	w := j.e.word(a)
	if j.t != nil && !a.dynamic && len(lit) > 2 {
		if s := j.t.Single[lit]; s != nil {
			j.known(&w, s)
			return j.takeValues(w, s, args, i)
		}
		for _, p := range j.t.Prefixes {
			if len(lit) == len(p.Prefix)+p.TailLen && strings.HasPrefix(lit, p.Prefix) {
				j.known(&w, p.S)
				return j.takeValues(w, p.S, args, i)
			}
		}
	}
	if !a.dynamic && allDigits(lit[1:]) {
		if j.t != nil && j.t.Numeric != nil {
			j.known(&w, j.t.Numeric)
			return []Word{w}, 0
		}
		if _, ak := j.short(lit[1]); ak < 0 && (j.t == nil || !j.t.Mentioned[lit]) {
			return []Word{operand(w, "a negative number")}, 0
		}
	}
	// Java-style pages (many single-dash long options, this word not one
	// of them, its first letter no short option): the whole word is the
	// unknown option, not a cluster.
	if j.t != nil && len(lit) > 2 && j.t.SingleFirm >= 3 && !a.dynamic {
		if s, _ := j.short(lit[1]); s == nil {
			if !j.mentioned(&w, lit) {
				j.unknown(&w, lit)
			}
			return []Word{w}, 0
		}
	}
	if j.t != nil && len(lit) > 2 && !a.dynamic && j.t.Mentioned[lit] {
		// A cluster the page itself writes (an example's -xzvf).
		if ws, used, ok := j.cluster(args, i, true); ok {
			return ws, used
		}
	}
	ws, used, _ := j.cluster(args, i, false)
	return ws, used
}

// cluster judges -xzvf letter by letter. strict: succeed only when every
// letter is documented.
func (j *judger) cluster(args []arg, i int, strict bool) ([]Word, int, bool) {
	a := args[i]
	lit := a.lit
	w := j.e.word(a)
	var flags []Word
	used := 0
	unknown, undoc, valueDone := false, false, false
	for k := 1; k < len(lit); k++ {
		c := lit[k]
		f := Word{Text: "-" + string(c), Start: a.start, End: a.end}
		if a.raw {
			f.Start, f.End = a.start+k, a.start+k+1
		}
		s, ak := j.short(c)
		if s == nil && c >= '0' && c <= '9' && j.t != nil && j.t.Numeric != nil {
			// -4t: a -NUM option, then more letters.
			n := k
			for n < len(lit) && lit[n] >= '0' && lit[n] <= '9' {
				n++
			}
			f.Text = "-" + lit[k:n]
			if a.raw {
				f.End = a.start + n
			}
			j.known(&f, j.t.Numeric)
			flags = append(flags, f)
			k = n - 1
			continue
		}
		switch {
		case s != nil:
			j.known(&f, s)
		case j.mentioned(&f, "-"+string(c)):
		case ak >= 0:
			f.Verdict, f.Note = Undocumented, "not on the page; read as "+j.name+" takes it"
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
			if k+1 < len(lit) || (a.dynamic && ak == optable.ArgRequired) {
				v := Word{Text: lit[k+1:], Start: a.start, End: a.end, Verdict: Operand, Of: opt, Note: "a value of " + opt}
				if a.raw {
					v.Start = a.start + k + 1
				}
				if a.dynamic {
					v.Text, v.Note = a.text[min(k+1, len(a.text)):], v.Note+", expanded at run time"
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
	switch {
	case unknown:
		w.Verdict = UnknownOption
		for _, f := range flags {
			if f.Verdict == UnknownOption {
				w.Note = join(w.Note, f.Text+": "+f.Note)
			}
		}
	case undoc:
		w.Verdict = Undocumented
		w.Note = flags[len(flags)-1].Note
	case a.dynamic && !valueDone:
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
			w.Note = join(w.Note, f.Note)
		}
		flags = nil
	} else if w.Verdict == Known && len(flags) > 0 && flags[0].Verdict == Known && countOptions(flags) == 1 {
		f := flags[0]
		w.Option, w.OptionID, w.Help = f.Option, f.OptionID, f.Help
	}
	w.Flags = flags
	out := []Word{w}
	if used == 1 {
		out = append(out, j.e.valueOf(args[i+1], valueOpt))
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
func (j *judger) takeValues(w Word, s *optable.Spec, args []arg, i int) ([]Word, int) {
	out := []Word{w}
	n := 0
	if s.Arg == optable.ArgRequired {
		n = max(s.NArgs, 1)
	}
	used := 0
	for k := 1; k <= n && i+k < len(args); k++ {
		out = append(out, j.e.valueOf(args[i+k], w.Option))
		used++
	}
	return out, used
}

func allDigits(s string) bool {
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

// pageName is how a doc names its page: "tar(1)".
func pageName(doc search.CommandDoc) string {
	if doc.ManSection != "" {
		return doc.Command + "(" + doc.ManSection + ")"
	}
	return doc.Command
}
