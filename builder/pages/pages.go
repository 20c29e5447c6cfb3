// Package pages runs the build's first stages (scan $PATH and the man
// hierarchies, read, parse and chunk each page) concurrently with bounded
// memory, and hands each command's result on in a stable order.
package pages

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/cmdai/cmdai/distro"
	"github.com/cmdai/cmdai/index"
	"github.com/cmdai/cmdai/manparse"
	"github.com/cmdai/cmdai/scanner"
	"github.com/cmdai/cmdai/scanner/helprun"
	"github.com/cmdai/cmdai/scanner/pkgdb"
)

// Status of one command after these stages, as index.Status names it.
const (
	StatusParsed    = string(index.StatusParsed)
	StatusAlias     = string(index.StatusAlias)
	StatusNoManPage = string(index.StatusNoManPage)
	StatusFailed    = string(index.StatusFailed)
	StatusDenied    = string(index.StatusDenied)
	// StatusNotSubcommand: a subcommand-named page that is not one.
	StatusNotSubcommand = string(index.StatusNotSubcommand)
)

// Sources of a command's documentation, as its records say.
const (
	SourceMan  = string(index.SourceMan)
	SourceHelp = string(index.SourceHelp)
)

// MaxPageBytes caps one decompressed man page; the largest on a Debian
// system (perltoc, ffmpeg-all) are a few MiB.
const MaxPageBytes = 16 << 20

// Options configure a run. The zero value scans $PATH with the system's
// man path.
type Options struct {
	// PathDirs are the directories to scan; nil means $PATH.
	PathDirs []string
	// ManPath lists the man hierarchies; nil derives them as man-db does.
	ManPath []string
	// Lang prefers pages in this language ("de", "fr"); "" is English.
	Lang string
	// Commands restricts the run to these names (as found on PATH).
	Commands []string
	// HelpFallback runs "cmd --help" for commands without a man page.
	HelpFallback bool
	// HelpCommands runs "cmd --help" for these commands, when they have
	// no man page, even without HelpFallback: a build over an index reads
	// again the commands it holds from --help (their records' source),
	// which the user's own init asked for.
	HelpCommands map[string]bool
	Help         helprun.Runner
	// Parallel bounds concurrent work; 0 means the number of CPUs.
	Parallel int
	Distro   distro.Info
	// Chunk sizes chunks; Command is set per command by Run.
	Chunk manparse.ChunkOptions
	// ProseBudget bounds the word pieces of prose kept per page besides
	// its summary, options and examples (manparse.Budget). 0 keeps all.
	ProseBudget int
	// Now stamps records (indexed_at); nil means time.Now.
	Now func() time.Time
	// Packages says which installed packages own the commands'
	// executables, asked once per run; nil asks this system's package
	// database (pkgdb.System). A database that cannot be read gives no
	// package fields, never a failed run.
	Packages func(ctx context.Context, paths []string) (map[string]pkgdb.Package, error)
	// Progress, if set, is called after each command is processed, from
	// the goroutine that calls emit.
	Progress func(done, total int)
}

// Result is what Run learned about one command. It is the object
// `cmdai index scan --json` prints, one per line: keep the JSON stable.
type Result struct {
	Command string `json:"command"`
	// Parent is set for a subcommand's page (git-commit for git): the
	// command on $PATH whose subcommand it is; Path is that command's.
	Parent      string         `json:"parent,omitempty"`
	Path        string         `json:"path"`
	Status      string         `json:"status"`
	Source      string         `json:"source,omitempty"`
	ManPage     string         `json:"man_page,omitempty"`
	ManSection  string         `json:"man_section,omitempty"`
	AliasOf     string         `json:"alias_of,omitempty"`
	Aliases     []string       `json:"aliases,omitempty"`
	Description string         `json:"description,omitempty"`
	Sections    []string       `json:"sections,omitempty"`
	Options     int            `json:"options"`
	Examples    int            `json:"examples"`
	Chunks      []index.Record `json:"chunks,omitempty"`
	// Trimmed counts chunks left out by Options.ProseBudget.
	Trimmed int `json:"trimmed_chunks,omitempty"`
	// Cut says why the page was indexed only in part ("": whole): the
	// parser stopped at its limits (manparse.Page.Cut), or its chunks
	// were more than MaxChunksPerPage.
	Cut   string `json:"cut,omitempty"`
	Error string `json:"error,omitempty"`
	// Fingerprint changes when the executable or its man page does (path,
	// size, modification time): what `index status` compares for staleness.
	// A command read from --help has its executable's alone.
	Fingerprint string `json:"fingerprint,omitempty"`
	// Package is the installed package owning the executable, with its
	// version and priority (none when no package does).
	Package         string `json:"package,omitempty"`
	PackageVersion  string `json:"package_version,omitempty"`
	PackagePriority string `json:"package_priority,omitempty"`
}

// Stats summarise a run.
type Stats struct {
	CommandsSeen int `json:"commands_seen"`
	WithManPage  int `json:"with_man_page"`
	Parsed       int `json:"parsed"`
	FromHelp     int `json:"from_help"`
	Aliases      int `json:"aliases_count"`
	NoManPage    int `json:"no_man_page"`
	Failed       int `json:"failed_count"`
	Denied       int `json:"denied"`
	// Subcommands counts the subcommand pages indexed (git-commit(1)),
	// NotSubcommands the pages named like one whose SYNOPSIS shows none;
	// neither is among CommandsSeen, which counts $PATH's commands.
	Subcommands    int               `json:"subcommand_pages"`
	NotSubcommands int               `json:"not_subcommand_pages"`
	Failures       map[string]int    `json:"failures_by_reason,omitempty"`
	Chunks         int               `json:"chunks_count"`
	Trimmed        int               `json:"trimmed_chunks"`
	Problems       []scanner.Problem `json:"problems,omitempty"`
	// PackageDB is the package database asked (dpkg, rpm, none, or
	// "custom" for Options.Packages), PackageOwned how many commands it
	// knows the package of, PackageTime how long it took, PackageError
	// why it could not be read (the run goes on without packages).
	PackageDB    string   `json:"package_db"`
	PackageOwned int      `json:"package_owned"`
	PackageTime  Duration `json:"package_db_seconds"`
	PackageError string   `json:"package_db_error,omitempty"`
	ManPages     int      `json:"man_pages_indexed"`
	ScanTime     Duration `json:"scan_seconds"`
	ParseTime    Duration `json:"parse_seconds"`
	Total        Duration `json:"total_seconds"`
	PagesPerSec  float64  `json:"pages_per_second"`
}

// Duration marshals as seconds, which scripts can do arithmetic on.
type Duration time.Duration

func (d Duration) MarshalJSON() ([]byte, error) {
	return []byte(fmt.Sprintf("%.3f", time.Duration(d).Seconds())), nil
}

func (d *Duration) UnmarshalJSON(b []byte) error {
	var s float64
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	*d = Duration(s * float64(time.Second))
	return nil
}

func (d Duration) String() string { return time.Duration(d).Round(time.Millisecond).String() }

// ErrUnknownCommand is returned when --command names something not on PATH.
var ErrUnknownCommand = errors.New("command not found on PATH")

// job is one unit of parse work: a command and the commands that share
// its page.
type job struct {
	cmd     scanner.Command
	aliases []scanner.Command
	page    string // resolved page file, "" if none
	// commandsPage: a subcommand-named page that is a command's own
	// (git-foo(1) a link to git(1)): read as not_subcommand, unparsed
	commandsPage bool
	// owners holds the packages owning the run's executables, by path
	// (shared by every job of a run).
	owners map[string]pkgdb.Package
}

func (st *Stats) count(r Result) {
	switch {
	case r.Parent != "" && r.Status == StatusParsed:
		st.Subcommands++
		st.Chunks += len(r.Chunks)
		st.Trimmed += r.Trimmed
		return
	case r.Parent != "" && r.Status == StatusNotSubcommand:
		st.NotSubcommands++
		return
	case r.Parent != "" && r.Status == StatusAlias:
		return // another name of a subcommand page: not a command's alias
	}
	if r.ManPage != "" {
		st.WithManPage++
	}
	switch r.Status {
	case StatusParsed:
		st.Parsed++
		if r.Source == SourceHelp {
			st.FromHelp++
		} else {
			st.ManPages++
		}
	case StatusAlias:
		st.Aliases++
	case StatusNoManPage:
		st.NoManPage++
	case StatusDenied:
		st.Denied++
	case StatusFailed:
		st.Failed++
		if st.Failures == nil {
			st.Failures = map[string]int{}
		}
		st.Failures[failureReason(r.Error)]++
	}
	st.Chunks += len(r.Chunks)
	st.Trimmed += r.Trimmed
}

// failureReason shortens an error to its kind for the totals ("read",
// "parse: not roff", ...): the full message is in the command's Result.
func failureReason(msg string) string {
	if strings.HasPrefix(msg, "help:") {
		switch {
		case strings.Contains(msg, "no answer within"):
			return "help: timeout"
		case strings.Contains(msg, "printed nothing"):
			return "help: no output"
		}
		return "help: failed"
	}
	for _, k := range []string{"not a man page", "too large", "redirect", "dangling symlink", "corrupt", "permission denied", "no such file"} {
		if strings.Contains(msg, k) {
			return k
		}
	}
	if k := strings.Index(msg, ":"); k > 0 {
		return msg[:k]
	}
	return msg
}
