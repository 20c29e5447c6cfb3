package explain

import (
	"context"
	"errors"
	"fmt"
	"path"
	"sort"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/cmdai/cmdai/explain/judge"
	"github.com/cmdai/cmdai/explain/optable"
	"github.com/cmdai/cmdai/search"
)

// Explain gives every command of line and every word of each its verdict
// from the index's documentation, read through lookup. Errors: one
// wrapping ErrBadLine for a line that is not a shell command line (empty,
// binary, unparseable), one wrapping ErrTooBig too for a line over a
// limit (MaxLine, MaxNesting, MaxAnswer), else lookup's own failure (the
// index unreachable, ctx done) with the command it was asked for.
func Explain(ctx context.Context, line string, lookup Lookup, opts Options) (Result, error) {
	if lookup == nil {
		return Result{}, errors.New("explain: no lookup given: pass one that reads the index (search.Searcher.Docs)")
	}
	if err := checkLine(line); err != nil {
		return Result{}, err
	}
	f, err := parseLine(line)
	if err != nil {
		return Result{}, err
	}
	if err := checkNesting(f); err != nil {
		return Result{}, err
	}
	e := &explainer{ctx: ctx, lookup: lookup, opts: opts, docs: map[string]*docResult{},
		funcs: map[string]bool{}, aliases: map[string]bool{}}
	e.file(f, line, func(o int) int { return o }, nil, 0)
	if e.err != nil {
		return Result{}, e.err
	}
	res := Result{Line: line, Commands: e.out}
	if res.Commands == nil {
		res.Commands = []Command{}
	}
	sort.SliceStable(res.Commands, func(i, k int) bool { return res.Commands[i].Start < res.Commands[k].Start })
	for i := range res.Commands {
		c := &res.Commands[i]
		if c.Words == nil {
			c.Words = []judge.Word{}
		}
		if c.Verdict == judge.NotInstalled {
			res.NotInstalledCount++
		}
		for _, w := range c.Words {
			if w.Verdict == judge.UnknownOption {
				res.UnknownCount++
			}
		}
	}
	res.OK = res.UnknownCount == 0 && res.NotInstalledCount == 0
	if n := answerSize(&res); n > MaxAnswer {
		return Result{}, tooBig("its explanation would be over %d MiB (each documented option comes with its text): explain a shorter line, or its commands one at a time", MaxAnswer>>20)
	}
	return res, nil
}

// explainer is one Explain call's state.
type explainer struct {
	ctx    context.Context
	lookup Lookup
	opts   Options
	docs   map[string]*docResult
	// funcs and aliases are names the line itself defines.
	funcs, aliases map[string]bool
	out            []Command
	err            error
	// src is the text being walked (the line, or an alias body inside
	// it); off maps an offset in src to one in the line.
	src string
	off func(int) int
}

type docResult struct {
	doc   search.CommandDoc
	t     *optable.Table
	found bool
}

// maxVia bounds the wrappers followed (sudo env nice ... ls).
const maxVia = 16

// maxDepth bounds nested parsing (an alias body holding sh -c '...').
const maxDepth = 4

// get looks a command up once per call; a failure other than "not in the
// index" stops the whole explanation.
func (e *explainer) get(name string) *docResult {
	if r, ok := e.docs[name]; ok {
		return r
	}
	r := &docResult{}
	if e.err == nil {
		if err := e.ctx.Err(); err != nil {
			e.err = fmt.Errorf("explain: %w", err)
		} else if doc, err := e.lookup(e.ctx, name); err == nil {
			r.doc, r.t, r.found = doc, optable.TableOf(doc), true
		} else if !errors.Is(err, search.ErrUnknownCommand) {
			e.err = fmt.Errorf("look %s up in the index: %w (see `cmdai index status` for the index and the server's health)", name, err)
		}
	}
	e.docs[name] = r
	return r
}

// file walks a parsed line (or a nested body) and explains every simple
// command in it.
func (e *explainer) file(f *syntax.File, src string, off func(int) int, via []string, depth int) {
	oldSrc, oldOff := e.src, e.off
	e.src, e.off = src, off
	defer func() { e.src, e.off = oldSrc, oldOff }()
	timed := map[*syntax.CallExpr]bool{}
	syntax.Walk(f, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.FuncDecl:
			if n.Name != nil {
				e.funcs[n.Name.Value] = true
			}
		case *syntax.CallExpr:
			if len(n.Args) > 1 && n.Args[0].Lit() == "alias" {
				for _, w := range n.Args[1:] {
					if name, _, ok := strings.Cut(wordArg(src, w).Lit, "="); ok {
						e.aliases[name] = true
					}
				}
			}
		}
		return true
	})
	syntax.Walk(f, func(n syntax.Node) bool {
		if e.err != nil {
			return false
		}
		switch n := n.(type) {
		case *syntax.TimeClause:
			if n.Stmt != nil {
				if c, ok := n.Stmt.Cmd.(*syntax.CallExpr); ok {
					timed[c] = true
				}
			}
		case *syntax.CallExpr:
			if len(n.Args) == 0 {
				return true
			}
			args := make([]judge.Arg, len(n.Args))
			for i, w := range n.Args {
				args[i] = e.argOf(w)
			}
			v := via
			if timed[n] {
				v = append(append([]string(nil), via...), "time")
			}
			e.call(args, v, depth)
		case *syntax.DeclClause:
			e.builtinCmd(n.Variant.Value, int(n.Pos().Offset()), int(n.End().Offset()), via)
		case *syntax.TestClause:
			e.builtinCmd("[[", int(n.Pos().Offset()), int(n.End().Offset()), via)
		case *syntax.LetClause:
			e.builtinCmd("let", int(n.Pos().Offset()), int(n.End().Offset()), via)
		}
		return true
	})
}

// argOf reads a word. A word holding commands ($(...), <(...)) keeps
// only the start of its text: those commands are reported on their own,
// and a nest of them would otherwise repeat the line at every level.
func (e *explainer) argOf(w *syntax.Word) judge.Arg {
	a := wordArg(e.src, w)
	s, t := a.Start, a.End
	if s >= 0 && t <= len(e.src) && s <= t {
		a.Text = e.src[s:t]
		if len(a.Text) > maxQuoted && a.Dynamic && holdsCommands(w) {
			a.Text = quoted(a.Text)
		}
	}
	a.Start, a.End = e.off(s), e.off(t)
	return a
}

func (e *explainer) builtinCmd(name string, start, end int, via []string) {
	c := Command{Name: name, Verdict: judge.Undocumented, Note: "a shell builtin", Via: via,
		Start: e.off(start), End: e.off(end)}
	e.out = append(e.out, c)
}

// builtins are the shell's own commands: judged by a page only when the
// index holds one of that name (echo, printf, test, kill).
var builtins = set("cd", "echo", "export", "read", "set", "test", "[", "[[", "printf", "source", ".",
	"eval", "exit", "shift", "trap", "wait", "type", "alias", "unalias", "unset", "local", "declare",
	"typeset", "readonly", "let", "pushd", "popd", "dirs", "shopt", "hash", "help", "history", "jobs",
	"fg", "bg", "disown", "umask", "ulimit", "getopts", "return", "break", "continue", ":", "true",
	"false", "kill", "times", "enable", "bind", "complete", "compgen", "mapfile", "readarray", "caller",
	"suspend", "logout", "fc")

func set(names ...string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
}

var shells = set("sh", "bash", "dash", "zsh", "ksh")

// call explains one simple command (and those it runs).
func (e *explainer) call(args []judge.Arg, via []string, depth int) {
	name := args[0]
	cmd := Command{Name: name.Lit, Via: via, Start: name.Start, End: args[len(args)-1].End}
	switch {
	case len(via) >= maxVia:
		cmd.Verdict, cmd.Note = judge.Undocumented, "run under too many wrappers to follow"
	case name.Dynamic || name.Lit == "":
		cmd.Name = name.Text
		cmd.Verdict, cmd.Note = judge.Undocumented, "the command is named at run time"
	case e.funcs[name.Lit]:
		cmd.Verdict, cmd.Note = judge.Undocumented, "a shell function defined in this line: not looked up"
	case e.aliases[name.Lit] && name.Lit != "alias":
		cmd.Verdict, cmd.Note = judge.Undocumented, "an alias defined in this line: its body is explained where it is defined"
	}
	if cmd.Verdict != "" {
		cmd.Words = e.plainWords(args[1:], cmd.Note)
		e.out = append(e.out, cmd)
		return
	}
	if w, ok := wrappers[name.Lit]; ok {
		e.wrapper(w, args, via, depth)
		return
	}
	if name.Lit == "alias" {
		e.alias(args, via, depth)
		return
	}
	e.command(args, via, depth)
}

// plainWords are the words of a command nothing can judge: options
// judge.Undocumented, the rest operands.
func (e *explainer) plainWords(args []judge.Arg, note string) []judge.Word {
	out := make([]judge.Word, 0, len(args))
	for _, a := range args {
		w := judge.NewWord(a)
		if strings.HasPrefix(a.Lit, "-") && len(a.Lit) > 1 {
			w.Verdict, w.Note = judge.Undocumented, note
		} else {
			w.Verdict = judge.Operand
		}
		out = append(out, w)
	}
	return out
}

// resolve looks the command named by args[0] up and fills cmd's verdict;
// it returns the doc when the index has one.
func (e *explainer) resolve(cmd *Command, a judge.Arg) *docResult {
	n := a.Lit
	look := n
	if strings.Contains(n, "/") {
		look = path.Base(n)
	}
	r := e.get(look)
	if e.err != nil {
		return nil
	}
	if r.found && r.doc.Parent != "" && (e.opts.OnPath == nil || !e.opts.OnPath(look)) {
		// git-commit(1) is indexed as "git commit": the name alone runs
		// nothing (it was not on PATH when the index was built)
		cmd.Verdict = judge.NotInstalled
		cmd.Note = "not a command: " + judge.PageName(r.doc) + " documents `" + r.doc.Invocation() + "`"
		return nil
	}
	if r.found {
		cmd.Name = r.doc.Command
		if cmd.Name == "" {
			cmd.Name = look
		}
		cmd.Verdict, cmd.Page, cmd.Summary = judge.Known, judge.PageName(r.doc), r.doc.Description
		if r.doc.AliasAsked != "" {
			cmd.Note = n + " is another name of " + cmd.Name
		}
		return r
	}
	switch {
	case builtins[n]:
		cmd.Verdict, cmd.Note = judge.Undocumented, "a shell builtin"
	case strings.Contains(n, "/") && !strings.HasPrefix(n, "/"):
		cmd.Verdict, cmd.Note = judge.Undocumented, "a program run by its path: not in the index"
	case e.opts.OnPath != nil && e.opts.OnPath(look):
		cmd.Verdict, cmd.Note = judge.Undocumented, "on PATH, but the index has no page of it: `cmdai index init --command "+look+" --help-fallback` indexes its --help"
	default:
		cmd.Verdict, cmd.Note = judge.NotInstalled, "not in the index (not installed here, or not indexed: `cmdai index init --command "+look+"`)"
	}
	return nil
}

// command explains a command that is no wrapper.
func (e *explainer) command(args []judge.Arg, via []string, depth int) {
	cmd := Command{Name: args[0].Lit, Via: via, Start: args[0].Start, End: args[len(args)-1].End}
	r := e.resolve(&cmd, args[0])
	if e.err != nil {
		return
	}
	if r == nil {
		cmd.Words = e.plainWords(args[1:], cmd.Note)
		e.out = append(e.out, cmd)
		return
	}
	base := path.Base(args[0].Lit)
	j := &judge.Judger{Call: e.call, Name: cmd.Name, Page: cmd.Page, Table: r.t, Base: base}
	rest := args[1:]
	switch {
	case base == "find" || base == "gfind":
		cmd.Words = j.Find(rest, via, depth)
	case shells[base] && depth < maxDepth:
		cmd.Words = e.shellC(j, rest, via, depth)
	case base == "tar" && len(rest) > 0 && !rest[0].Dynamic && rest[0].Lit != "" && rest[0].Lit[0] != '-':
		cmd.Words = j.TarOld(rest)
	case base == "ps":
		cmd.Words = j.PS(rest)
	case stopsAtOperand[base] != nil:
		stop := stopsAtOperand[base]
		words, at := j.Judge(rest, judge.Mode{StopAt: stop.operands})
		for _, a := range rest[at:] {
			words = append(words, judge.OperandWord(judge.NewWord(a), stop.note))
		}
		cmd.Words = words
	default:
		cmd.Words = e.subcommand(j, &cmd, rest)
	}
	e.out = append(e.out, cmd)
}

// stopsAtOperand read options only before their first operand: the
// rest is printed (echo mkdir -vp is no echo option).
var stopsAtOperand = map[string]*struct {
	operands int
	note     string
}{
	"echo":   {0, ""},
	"printf": {0, ""},
	"ssh":    {1, "the command run on the remote host: not judged here"},
}

// subcommandFamilies take a subcommand as their first operand, whose
// options their own page may not list: past it, a word missing from the
// page is judge.Undocumented, not an unknown option. Commands whose page lists
// every subcommand's options (apt-get, systemctl, dnf, pacman) are not
// here: their pages judge.
var subcommandFamilies = set("git", "docker", "podman", "npm", "yarn", "pnpm", "cargo", "kubectl", "apt",
	"ip", "svn", "hg", "go", "pip", "pip3", "conda", "brew", "snap", "gcloud", "aws", "az", "gem", "bundle",
	"mvn", "gradle", "openssl", "flatpak", "helm", "terraform", "vagrant", "lxc", "virsh", "gh", "hub", "rustup",
	"dotnet", "composer", "heroku", "screen", "tmux", "perf", "nft", "parallel")

// subcommand judges a command whose synopsis names a subcommand (git
// <command>): its own options up to the first operand; then, when the
// index holds <cmd>-<operand> (git-commit), the rest by that page, else
// by the command's page, leniently (the subcommand's options may not be
// on it).
func (e *explainer) subcommand(j *judge.Judger, cmd *Command, args []judge.Arg) []judge.Word {
	words, at := j.Judge(args, judge.Mode{StopAt: 0})
	if at >= len(args) {
		return words
	}
	sub := args[at]
	ended := false
	for _, w := range words {
		ended = ended || w.Note == "ends the options"
	}
	if !sub.Dynamic && optable.IsSubcommandName(sub.Lit) && !strings.Contains(cmd.Name, "-") {
		r := e.get(cmd.Name + "-" + sub.Lit)
		if e.err != nil {
			return words
		}
		if r.found {
			cmd.Name, cmd.Page, cmd.Summary = r.doc.Command, judge.PageName(r.doc), r.doc.Description
			words = append(words, judge.OperandWord(judge.NewWord(sub), "the subcommand: judged by "+cmd.Page))
			sj := &judge.Judger{Call: e.call, Name: cmd.Name, Page: cmd.Page, Table: r.t, Base: cmd.Name}
			more, _ := sj.Judge(args[at+1:], judge.Mode{StopAt: -1})
			return append(words, more...)
		}
	}
	if subcommandFamilies[j.Base] && !sub.Dynamic {
		if st := optable.SubcommandUsage(j.Table.Doc, sub.Lit); st != nil {
			words = append(words, judge.OperandWord(judge.NewWord(sub), "the subcommand: judged by its usage line in "+j.Page))
			sj := &judge.Judger{Call: e.call, Name: j.Name + " " + sub.Lit, Page: j.Page + " (" + sub.Lit + ")", Table: st, Base: j.Base}
			more, _ := sj.Judge(args[at+1:], judge.Mode{StopAt: -1, Ended: ended})
			return append(words, more...)
		}
	}
	if j.Table.Subcommands || subcommandFamilies[j.Base] {
		words = append(words, judge.OperandWord(judge.NewWord(sub), "an operand that may name a subcommand ("+quoted(cmd.Name+"-"+sub.Text)+" is not in the index)"))
		j.Lenient = true
		j.LenientNote = "after the subcommand (or operand) " + quoted(sub.Text) + ": " + j.Page + " may not list its options"
	} else {
		note := ""
		if sub.Dynamic {
			note = "expanded at run time"
		}
		words = append(words, judge.OperandWord(judge.NewWord(sub), note))
	}
	more, _ := j.Judge(args[at+1:], judge.Mode{StopAt: -1, Ended: ended})
	return append(words, more...)
}

// alias explains `alias name='body'`: the body is a command line itself,
// explained with "alias name" in Via.
func (e *explainer) alias(args []judge.Arg, via []string, depth int) {
	cmd := Command{Name: "alias", Via: via, Start: args[0].Start, End: args[len(args)-1].End}
	r := e.resolve(&cmd, args[0])
	if e.err != nil {
		return
	}
	if r == nil {
		cmd.Note = "a shell builtin"
	}
	for _, a := range args[1:] {
		w := judge.NewWord(a)
		switch name, body, ok := strings.Cut(a.Lit, "="); {
		case ok && !a.Dynamic:
			w.Verdict, w.Note = judge.Operand, "defines the alias "+name
			if strings.TrimSpace(body) != "" && !e.nested(body, a, append(append([]string(nil), via...), "alias "+quoted(name)), depth) {
				w.Note += ": its body does not parse as shell, so it is not explained"
			}
		case strings.HasPrefix(a.Lit, "-"):
			w.Verdict, w.Note = judge.Undocumented, "a shell builtin's option"
		default:
			w.Verdict = judge.Operand
		}
		cmd.Words = append(cmd.Words, w)
	}
	e.out = append(e.out, cmd)
}

// nested explains body, a command line held inside word a of the line
// (an alias body, sh -c's string). Offsets point into a's text when body
// appears in it verbatim, else at the whole word. A body that does not
// parse is no error of the line: nested reports false and the caller
// notes it.
func (e *explainer) nested(body string, a judge.Arg, via []string, depth int) bool {
	if depth >= maxDepth || strings.TrimSpace(body) == "" {
		return false
	}
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(body), "")
	if err != nil || checkNesting(f) != nil {
		return false
	}
	base := -1
	if a.Start >= 0 {
		if k := strings.Index(a.Text, body); k >= 0 && a.End-a.Start == len(a.Text) {
			base = a.Start + k
		}
	}
	start, end := a.Start, a.End
	off := func(o int) int {
		if base >= 0 {
			return base + o
		}
		return min(max(start, start+o), end)
	}
	e.file(f, body, off, via, depth+1)
	return true
}

// shellC explains sh -c 'command line': its string is explained as a line.
func (e *explainer) shellC(j *judge.Judger, args []judge.Arg, via []string, depth int) []judge.Word {
	words, _ := j.Judge(args, judge.Mode{StopAt: -1})
	for k, a := range args {
		if a.Dynamic || !strings.HasPrefix(a.Lit, "-") || strings.HasPrefix(a.Lit, "--") || !strings.Contains(a.Lit[1:], "c") {
			continue
		}
		if k+1 < len(args) && !args[k+1].Dynamic {
			b := args[k+1]
			if e.nested(b.Lit, b, append(append([]string(nil), via...), j.Name+" -c"), depth) {
				for i := range words {
					if words[i].Start == b.Start && words[i].End == b.End {
						words[i].Note = judge.JoinNotes(words[i].Note, "a command line: explained as such")
					}
				}
			}
		}
		break
	}
	return words
}
