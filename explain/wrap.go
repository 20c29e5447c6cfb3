package explain

import (
	"github.com/cmdai/cmdai/explain/optable"
	"path"
	"regexp"
	"strings"
)

// wrapperDef is what we know ourselves of a command that runs another:
// which of its options take a value (so that the value is not taken for
// the command), how many operands come before the command, whether
// NAME=VALUE words may precede it. Its options are still judged by its
// page when the index has one; this only fills what a terse page lacks.
type wrapperDef struct {
	heads    []string
	operands int
	assigns  bool
	// noCommand: options after which the operands are no command
	// (sudo -l lists, sudo -e edits files).
	noCommand []string
	// shellString: a single operand is a shell command line (watch).
	shellString bool
	fb          *optable.Table
}

var wrappers = map[string]*wrapperDef{
	"sudo": {heads: []string{"-u, --user USER", "-g, --group GROUP", "-C, --close-from NUM", "-D, --chdir DIR",
		"-h, --host HOST", "-p, --prompt PROMPT", "-r, --role ROLE", "-t, --type TYPE", "-U, --other-user USER",
		"-T, --command-timeout TIMEOUT", "-R, --chroot DIR"},
		noCommand: []string{"-l", "--list", "-e", "--edit", "-v", "--validate", "-k", "-K", "--reset-timestamp", "--remove-timestamp", "-V", "--version", "-h", "--help"}},
	"doas":    {heads: []string{"-u USER", "-C CONFIG"}},
	"env":     {heads: []string{"-u, --unset NAME", "-C, --chdir DIR", "-S, --split-string STRING"}, assigns: true},
	"xargs":   {heads: []string{"-I REPLACE", "-i, --replace [REPLACE]", "-n, --max-args N", "-P, --max-procs N", "-L N", "-l, --max-lines [N]", "-s, --max-chars N", "-d, --delimiter DELIM", "-a, --arg-file FILE", "-E EOF", "-e, --eof [EOF]", "--process-slot-var NAME"}},
	"time":    {heads: []string{"-f, --format FORMAT", "-o, --output FILE"}},
	"nice":    {heads: []string{"-n, --adjustment N"}},
	"timeout": {heads: []string{"-s, --signal SIGNAL", "-k, --kill-after DURATION"}, operands: 1},
	"nohup":   {},
	"exec":    {heads: []string{"-a NAME"}},
	"command": {noCommand: []string{"-v", "-V"}},
	"builtin": {},
	"stdbuf":  {heads: []string{"-i, --input MODE", "-o, --output MODE", "-e, --error MODE"}},
	"ionice":  {heads: []string{"-c, --class CLASS", "-n, --classdata LEVEL", "-p, --pid PID", "-P, --pgid PGID", "-u, --uid UID"}, noCommand: []string{"-p", "--pid", "-P", "--pgid", "-u", "--uid"}},
	"watch":   {heads: []string{"-n, --interval SECONDS", "-d, --differences [=permanent]", "-q, --equexit CYCLES"}, shellString: true},
	"chroot":  {heads: []string{"--userspec USER:GROUP", "--groups GROUPS"}, operands: 1},
	"strace": {heads: []string{"-o FILE", "-p PID", "-e EXPR", "-s STRSIZE", "-u USERNAME", "-E VAR", "-a COLUMN", "-b SYSCALL", "-I INTERRUPTIBLE", "-O OVERHEAD", "-P PATH", "-S SORTBY", "-X FORMAT"},
		noCommand: []string{"-p"}},
	"ltrace":   {heads: []string{"-o FILE", "-p PID", "-e EXPR", "-s STRSIZE", "-u USERNAME", "-a COLUMN", "-n NR"}, noCommand: []string{"-p"}},
	"setsid":   {},
	"fakeroot": {heads: []string{"-l, --lib LIB", "--faked BINARY", "-s FILE", "-i FILE"}},
	"unbuffer": {},
	"nocache":  {},
	"torsocks": {},
	"flock":    {heads: []string{"-w, --timeout SECONDS", "-E, --conflict-exit-code NUMBER", "-c, --command COMMAND"}, operands: 1},
}

func init() {
	for _, w := range wrappers {
		w.fb = optable.FromHeadings(w.heads)
	}
	for _, n := range []string{"exec", "command", "builtin", "time"} {
		builtins[n] = true
	}
}

// wrapper explains a command that runs another: its own words by its
// page (or our knowledge of it), then the command it runs, with the
// wrapper in Via.
func (e *explainer) wrapper(w *wrapperDef, args []arg, via []string, depth int) {
	cmd := Command{Name: args[0].lit, Via: via, Start: args[0].start, End: args[len(args)-1].end}
	r := e.resolve(&cmd, args[0])
	if e.err != nil {
		return
	}
	j := &judger{e: e, name: cmd.Name, page: cmd.Page, fb: w.fb, base: path.Base(args[0].lit)}
	if r != nil {
		j.t = r.t
	}
	words, at := j.judge(args[1:], mode{stopAt: w.operands, assigns: w.assigns})
	runs := at < len(args)-1
	for _, wd := range words {
		for _, nc := range w.noCommand {
			if wd.Text == nc {
				runs = false
			}
		}
	}
	if !runs {
		more, _ := j.judge(args[1+at:], mode{stopAt: -1})
		words = append(words, more...)
	}
	cmd.Words = words
	e.out = append(e.out, cmd)
	if !runs {
		return
	}
	inner := args[1+at:]
	v := append(append([]string(nil), via...), path.Base(args[0].lit))
	if w.shellString && len(inner) == 1 && !inner[0].dynamic && strings.ContainsAny(inner[0].lit, " |;&") {
		if e.nested(inner[0].lit, inner[0], v, depth) {
			return
		}
	}
	e.call(inner, v, depth)
}

// isFindExpr: a word that starts find's expression.
func isFindExpr(l string) bool {
	return len(l) > 1 && l[0] == '-' || l == "(" || l == "!" || l == ")"
}

var findOperators = set("(", ")", "!", ",", "-o", "-a", "-or", "-and", "-not")

func (j *judger) findSpec(l string) *optable.Spec {
	if j.t == nil {
		return nil
	}
	if s := j.t.Single[l]; s != nil {
		return s
	}
	if len(l) == 2 {
		if s := j.t.Short[l[1]]; s != nil {
			return s
		}
	}
	for _, p := range j.t.Prefixes {
		if len(l) == len(p.Prefix)+p.TailLen && strings.HasPrefix(l, p.Prefix) {
			return p.S
		}
	}
	return j.t.Long[l]
}

// find judges find's words: its options (-H -L -P -D -O), the starting
// points, then the expression: tests, actions and operators, each test's
// values, and -exec's command (explained as a command of its own, up to
// ";" or "{} +").
func (j *judger) find(args []arg, via []string, depth int) []Word {
	var out []Word
	i := 0
	for ; i < len(args); i++ {
		a := args[i]
		l := a.lit
		if a.dynamic || !(l == "-H" || l == "-L" || l == "-P" || l == "-D" || strings.HasPrefix(l, "-O") && len(l) > 2 && allDigits(l[2:])) {
			break
		}
		ws, used := j.shortWord(args, i)
		out = append(out, ws...)
		i += used
	}
	for ; i < len(args); i++ {
		a := args[i]
		if !a.dynamic && isFindExpr(a.lit) {
			break
		}
		note := "a starting point"
		if a.dynamic {
			note += ", expanded at run time"
		}
		out = append(out, operand(j.e.word(a), note))
	}
	for ; i < len(args); i++ {
		a := args[i]
		l := a.lit
		w := j.e.word(a)
		if a.dynamic {
			if strings.HasPrefix(l, "-") {
				w.Verdict, w.Note = Undocumented, "expanded at run time"
			} else {
				w = operand(w, "expanded at run time")
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
			w.Note = join(w.Note, "an expression operator")
			out = append(out, w)
			continue
		}
		if len(l) < 2 || l[0] != '-' {
			out = append(out, operand(w, ""))
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
				if !t.dynamic && (t.lit == ";" || t.lit == "+" && k > i+1 && args[k-1].lit == "{}") {
					break
				}
			}
			if k >= len(args) {
				w.Note = join(w.Note, "its command does not end with ; or {} +")
			}
			out = append(out, w)
			if k > i+1 {
				j.e.call(args[i+1:k], append(append([]string(nil), via...), "find "+l), depth)
				for m := i + 1; m < k; m++ {
					out = append(out, j.e.valueOf(args[m], w.Option))
				}
			}
			if k < len(args) {
				out = append(out, operand(j.e.word(args[k]), "ends the command of "+l))
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

// tarOld judges tar's traditional form (tar xzvf a.tgz): its first word
// is a cluster of option letters without a dash, whose values are the
// words that follow, in order.
func (j *judger) tarOld(args []arg) []Word {
	first := args[0]
	if !optable.IsLetters(first.lit) || len(first.lit) > 20 {
		out, _ := j.judge(args, mode{stopAt: -1})
		return out
	}
	w := j.e.word(first)
	var flags, values []Word
	next := 1
	unknown := false
	for k := 0; k < len(first.lit); k++ {
		c := first.lit[k]
		f := Word{Text: string(c), Start: first.start, End: first.end}
		if first.raw {
			f.Start, f.End = first.start+k, first.start+k+1
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
			values = append(values, j.e.valueOf(args[next], opt))
			next++
		}
	}
	w.Verdict, w.Flags, w.Note = Known, flags, "tar's traditional form: option letters without a dash"
	if unknown {
		w.Verdict = UnknownOption
	}
	rest, _ := j.judge(args[next:], mode{stopAt: -1})
	return append(append([]Word{w}, values...), rest...)
}

// ps takes BSD options without a dash (ps aux) that its page describes
// in prose: such words are not judged.
func (j *judger) ps(args []arg) []Word {
	out, _ := j.judge(args, mode{stopAt: -1})
	for i := range out {
		w := &out[i]
		if w.Verdict == Operand && w.Of == "" && optable.IsLetters(w.Text) {
			w.Verdict, w.Note = Undocumented, "a BSD-style option (no dash): not judged"
		}
	}
	return out
}

var (
	signalWord = regexp.MustCompile(`^-(SIG)?([A-Z][A-Z0-9+-]*|[0-9]+)$`)
	modeWord   = regexp.MustCompile(`^[ugoa]*([-+=][rwxXstugo]*)+(,[ugoa]*([-+=][rwxXstugo]*)+)*$`)
)

// quirk handles words some commands read their own way; it reports
// whether it judged w.
func (e *explainer) quirk(j *judger, w *Word, a arg) bool {
	if a.dynamic {
		return false
	}
	l := a.lit
	switch j.base {
	case "kill", "pkill", "killall", "pgrep":
		if signalWord.MatchString(l) && (j.t == nil || j.t.Short[l[1]] == nil || len(l) > 2) {
			w.Verdict, w.Option, w.Note = Known, "-SIGNAL", "a signal"
			return true
		}
	case "chmod":
		if modeWord.MatchString(l) {
			w.Verdict, w.Note = Operand, "a mode"
			return true
		}
	case "head", "tail":
		if allDigits(l[1:]) && j.t != nil && j.t.Numeric == nil {
			if s := j.t.Long["--lines"]; s != nil {
				j.known(w, s)
				w.Note = join(w.Note, "-NUM: the old form of -n NUM")
				return true
			}
		}
	case "nice", "renice":
		if allDigits(l[1:]) {
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
		if len(l) != 2 || j.t == nil || j.t.Short[l[1]] == nil {
			w.Verdict, w.Note = Operand, "an operator of the expression"
			return true
		}
	}
	return false
}
