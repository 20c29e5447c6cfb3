package explain

// Fixture documentation for the unit tests. Every text here is our own
// short wording in the shape the index gives (an option record's text
// starts "<cmd>(1) option <heading>"; the summary holds NAME and
// SYNOPSIS): never a copy of a real page.

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"

	"github.com/cmdai/cmdai/index"
	"github.com/cmdai/cmdai/search"
	"github.com/cmdai/cmdai/search/shown"
)

// fixture is one command's documentation: its synopsis, one-line
// description, option headings, and prose sections.
type fixture struct {
	syn, desc string
	heads     []string
	prose     []string
}

var fixtures = map[string]fixture{
	"tar": {syn: "tar -c [-f ARCHIVE] [OPTIONS] [FILE...]", desc: "store files in an archive and get them back",
		heads: []string{"-x, --extract, --get", "-c, --create", "-t, --list", "-z, --gzip", "-v, --verbose",
			"-f, --file=ARCHIVE", "-C, --directory=DIR", "--zstd", "--exclude=PATTERN"}},
	"grep": {syn: "grep [OPTION...] PATTERNS [FILE...]", desc: "print the lines that match",
		heads: []string{"-c, --count", "-e, --regexp=PATTERNS", "-i, --ignore-case", "--color[=WHEN], --colour[=WHEN]",
			"-C, -NUM, --context=NUM", "-r, --recursive", "--exclude=GLOB", "--exclude-dir=GLOB", "-v, --invert-match",
			"-l, --files-with-matches", "-E, --extended-regexp"}},
	"find": {syn: "find [-H] [-L] [-P] [starting-point...] [expression]", desc: "walk a tree of files",
		heads: []string{"-H", "-L", "-name pattern", "-iname pattern", "-type c", "-mtime n", "-newerXY reference",
			"-exec command ;", "-exec command {} +", "-print0", "-print", "-delete", "-maxdepth levels",
			"-not expr", "-fprintf file format", "-size n[ckMG]"}},
	"xargs": {syn: "xargs [options] [command [initial-arguments]]", desc: "run a command over input items",
		heads: []string{"-0, --null", "-I replace-str", "-n, --max-args=max-args", "-P, --max-procs=max-procs", "-r, --no-run-if-empty"}},
	"env": {syn: "env [OPTION]... [NAME=VALUE]... [COMMAND [ARG]...]", desc: "run a program in a changed environment",
		heads: []string{"-i, --ignore-environment", "-u, --unset=NAME"}},
	"sudo": {syn: "sudo [-u user] command", desc: "run a command as another user",
		heads: []string{"-u user, --user=user", "-E, --preserve-env", "-l, --list"}},
	"nice": {syn: "nice [OPTION] [COMMAND [ARG]...]", desc: "run a program at another priority",
		heads: []string{"-n, --adjustment=N"}},
	"timeout": {syn: "timeout [OPTION] DURATION COMMAND [ARG]...", desc: "stop a command after a while",
		heads: []string{"-s, --signal=SIGNAL", "-k, --kill-after=DURATION", "--foreground"}},
	"cp":   {syn: "cp [OPTION]... SOURCE... DIRECTORY", desc: "copy files", heads: []string{"-r, --recursive", "-t, --target-directory=DIRECTORY", "-v, --verbose", "-f, --force"}},
	"rm":   {syn: "rm [OPTION]... [FILE]...", desc: "remove files", heads: []string{"-r, --recursive", "-f, --force", "-i"}},
	"sort": {syn: "sort [OPTION]... [FILE]...", desc: "order lines", heads: []string{"-k, --key=KEYDEF", "-n, --numeric-sort", "-r, --reverse", "-t, --field-separator=SEP"}},
	"head": {syn: "head [OPTION]... [FILE]...", desc: "show the start of files", heads: []string{"-n, --lines=[-]NUM", "-c, --bytes=[-]NUM"}},
	"echo": {syn: "echo [SHORT-OPTION]... [STRING]...", desc: "write its arguments", heads: []string{"-n", "-e", "-E"}},
	"git": {syn: "git [-C <path>] [--git-dir=<path>] <command> [<args>]", desc: "track versions of files",
		heads: []string{"-C <path>", "--git-dir <path>", "--bare", "-p, --paginate"}},
	"git-commit": {syn: "git commit [-a] [-m <msg>] [--] [<pathspec>...]", desc: "record a change",
		heads: []string{"-a, --all", "-m <msg>, --message=<msg>", "--[no-]verify", "--amend"}},
	"ps":  {syn: "ps [options]", desc: "list processes", heads: []string{"-e", "-f", "-o format", "-u userlist"}},
	"cat": {syn: "cat [OPTION]... [FILE]...", desc: "join files", heads: []string{"-n, --number", "-A, --show-all"}},
	"ls": {syn: "ls [OPTION]... [FILE]...", desc: "list a directory", heads: []string{"-l", "-a, --all", "-h, --human-readable", "--color[=WHEN]"},
		prose: []string{"With --group-directories-first and -1 the listing changes."}},
	// helpish documents itself in prose only: nothing to judge options by.
	"helpish": {syn: "helpish [things]", desc: "a tool with prose only", prose: []string{"It takes a few flags."}},
	"wc":      {syn: "wc [OPTION]... [FILE]...", desc: "count", heads: []string{"-l, --lines", "-w, --words"}},
	"sh":      {syn: "sh [-c string] [arg...]", desc: "a shell", heads: []string{"-c", "-e", "-x"}},
	"chmod":   {syn: "chmod [OPTION]... MODE[,MODE]... FILE...", desc: "change modes", heads: []string{"-R, --recursive", "-v, --verbose"}},
	"kill":    {syn: "kill [options] <pid> [...]", desc: "signal a process", heads: []string{"-s signal", "-l, --list [signal]", "-L, --table"}},
	"tail":    {syn: "tail [OPTION]... [FILE]...", desc: "show the end of files", heads: []string{"-n, --lines=[+]NUM", "-f, --follow[={name|descriptor}]"}},
	"javaish": {syn: "javaish [options] -jar file [args...]", desc: "a runtime with single-dash long options",
		heads: []string{"-jar file", "-cp classpath", "-version", "-verbose", "-D<name>=<value>"}},
	"tmux": {syn: "tmux [-2CluvV] [-L socket-name] [command [flags]]", desc: "a terminal multiplexer", heads: []string{"-L socket-name", "-v"},
		prose: []string{"These commands look after sessions:\n\nattach-session\n    [-dr] [-t target-session]\n\n(alias: attach)\n\nJoin a session from a terminal."}},
	"awk": {syn: "awk [-F fs] [-v var=value] 'prog' [file...]", desc: "scan patterns", heads: []string{"-F fs", "-v var=value", "-f progfile"}},
}

// fixtureDoc builds name's CommandDoc the way search.DocOf orders it.
func fixtureDoc(name string) (search.CommandDoc, bool) {
	f, ok := fixtures[name]
	if !ok {
		return search.CommandDoc{}, false
	}
	recs := []shown.Match{{ID: name + ".1#NAME", Kind: index.KindSummary, Section: "NAME",
		Text: name + "(1) - " + f.desc + "\nSYNOPSIS\n" + f.syn + "\nA longer description of what " + name + " does, in a sentence of its own that ends here."}}
	for _, h := range f.heads {
		main := mainFlag(h)
		recs = append(recs, shown.Match{ID: name + ".1#OPTIONS#" + main, Kind: index.KindOption, Section: "OPTIONS",
			Option: main, Text: name + "(1) option " + h + "\nWhat " + main + " does, in our words."})
	}
	for i, p := range f.prose {
		recs = append(recs, shown.Match{ID: fmt.Sprintf("%s.1#DESCRIPTION#%d", name, i), Kind: index.KindSection,
			Section: "DESCRIPTION", Text: name + "(1) DESCRIPTION\n" + p})
	}
	return search.CommandDoc{CommandHit: shown.CommandHit{Command: name, Description: f.desc, ManSection: "1", Source: "man"},
		Records: recs}, true
}

// mainFlag is the flag an index would name the record by: the first
// long spelling, else the first.
func mainFlag(head string) string {
	first := ""
	for _, f := range strings.FieldsFunc(head, func(r rune) bool { return r == ',' || r == ' ' }) {
		if !strings.HasPrefix(f, "-") {
			continue
		}
		f, _, _ = strings.Cut(f, "=")
		f, _, _ = strings.Cut(f, "[")
		if first == "" {
			first = f
		}
		if strings.HasPrefix(f, "--") {
			return f
		}
	}
	return first
}

// fixtureLookup answers from fixtures and counts its calls.
func fixtureLookup(calls *atomic.Int64) Lookup {
	docs := map[string]search.CommandDoc{}
	for n := range fixtures {
		docs[n], _ = fixtureDoc(n)
	}
	return func(ctx context.Context, name string) (search.CommandDoc, error) {
		if calls != nil {
			calls.Add(1)
		}
		if d, ok := docs[name]; ok {
			return d, nil
		}
		return search.CommandDoc{}, fmt.Errorf("%w %q", search.ErrUnknownCommand, name)
	}
}
