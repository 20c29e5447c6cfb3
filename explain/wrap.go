package explain

import (
	"github.com/cmdai/cmdai/explain/judge"
	"github.com/cmdai/cmdai/explain/optable"
	"path"
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
func (e *explainer) wrapper(w *wrapperDef, args []judge.Arg, via []string, depth int) {
	cmd := Command{Name: args[0].Lit, Via: via, Start: args[0].Start, End: args[len(args)-1].End}
	r := e.resolve(&cmd, args[0])
	if e.err != nil {
		return
	}
	j := &judge.Judger{Call: e.call, Name: cmd.Name, Page: cmd.Page, Fallback: w.fb, Base: path.Base(args[0].Lit)}
	if r != nil {
		j.Table = r.t
	}
	words, at := j.Judge(args[1:], judge.Mode{StopAt: w.operands, Assigns: w.assigns})
	runs := at < len(args)-1
	for _, wd := range words {
		for _, nc := range w.noCommand {
			if wd.Text == nc {
				runs = false
			}
		}
	}
	if !runs {
		more, _ := j.Judge(args[1+at:], judge.Mode{StopAt: -1})
		words = append(words, more...)
	}
	cmd.Words = words
	e.out = append(e.out, cmd)
	if !runs {
		return
	}
	inner := args[1+at:]
	v := append(append([]string(nil), via...), path.Base(args[0].Lit))
	if w.shellString && len(inner) == 1 && !inner[0].Dynamic && strings.ContainsAny(inner[0].Lit, " |;&") {
		if e.nested(inner[0].Lit, inner[0], v, depth) {
			return
		}
	}
	e.call(inner, v, depth)
}
