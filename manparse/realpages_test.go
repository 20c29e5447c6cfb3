package manparse_test

// Tests on the man pages really installed on this machine. .ci/run
// installs them (scripts/install/install-test-deps.sh); a machine without them
// fails these tests with the command that fixes it, never skips them.

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode"

	"github.com/cmdai/cmdai/internal/testmode"
	"github.com/cmdai/cmdai/manparse"
	"github.com/cmdai/cmdai/scanner"
)

const installHint = "install the test dependencies with `make test-deps` (Debian: apt-get install man-db manpages groff-base)"

var (
	pagesOnce sync.Once
	pagesList []scanner.ManPage
	pagesErr  error
)

// installedPages lists every man page file in this machine's man path.
func installedPages(t testing.TB) []scanner.ManPage {
	t.Helper()
	testmode.Heavy(t, "this machine's man pages")
	pagesOnce.Do(func() {
		roots := scanner.ManPath(os.Getenv, scanner.SplitPath(os.Getenv("PATH")), "")
		ix, _, err := scanner.BuildManIndex(context.Background(), roots, scanner.IndexOptions{})
		if err != nil {
			pagesErr = err
			return
		}
		pagesList = ix.All()
	})
	if pagesErr != nil {
		t.Fatalf("list man pages: %v", pagesErr)
	}
	if len(pagesList) < 1000 {
		t.Fatalf("only %d man pages installed; the real-page tests need a full set: %s", len(pagesList), installHint)
	}
	return pagesList
}

// parseInstalled reads and parses one installed page. A read that fails
// (a dangling symlink left by a removed package) is not the parser's fault.
func parseInstalled(mp scanner.ManPage) (*manparse.Page, error, error) {
	src, _, err := scanner.ReadPage(mp.Path, 16<<20)
	if err != nil {
		return nil, err, nil
	}
	p, perr := manparse.Parse(src)
	return p, nil, perr
}

// TestEveryInstalledPageParses parses every page on the machine: none may
// panic or hang, NAME must be found for at least 99%, and the failures
// are listed with their reason.
func TestEveryInstalledPageParses(t *testing.T) {
	pages := installedPages(t)
	type outcome struct {
		readErr, parseErr error
		named             bool
		took              time.Duration
	}
	res := make([]outcome, len(pages))
	var wg sync.WaitGroup
	next := make(chan int)
	for w := 0; w < runtime.NumCPU(); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				start := time.Now()
				p, rerr, perr := parseInstalled(pages[i])
				res[i] = outcome{readErr: rerr, parseErr: perr, took: time.Since(start)}
				if p != nil && p.Name != "" && p.Description != "" {
					res[i].named = true
				}
			}
		}()
	}
	done := make(chan struct{})
	go func() {
		for i := range pages {
			next <- i
		}
		close(next)
		wg.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Minute):
		t.Fatal("parsing the installed pages did not finish in 5 minutes: a page hangs the parser")
	}

	var read, parsed, named int
	var failures []string
	var slowest time.Duration
	slowPage := ""
	for i, o := range res {
		if o.took > slowest {
			slowest, slowPage = o.took, pages[i].Path
		}
		switch {
		case o.readErr != nil:
			t.Logf("unreadable (not counted): %s: %v", pages[i].Path, o.readErr)
			continue
		case o.parseErr != nil:
			failures = append(failures, fmt.Sprintf("%s: %v", pages[i].Path, o.parseErr))
		default:
			parsed++
		}
		read++
		if o.named {
			named++
		} else if o.parseErr == nil {
			failures = append(failures, pages[i].Path+": no NAME section with a description")
		}
	}
	for _, f := range failures {
		t.Log("failure:", f)
	}
	ratio := float64(named) / float64(read)
	t.Logf("%d pages: %d read, %d parsed, NAME found for %d (%.2f%%), slowest %v (%s)",
		len(pages), read, parsed, named, 100*ratio, slowest, slowPage)
	if ratio < 0.99 {
		t.Errorf("NAME found for %.2f%% of pages, want at least 99%%", 100*ratio)
	}
	if slowest > 10*time.Second {
		t.Errorf("%s took %v to parse", slowPage, slowest)
	}
}

func wordCounts(s string) map[string]int {
	m := map[string]int{}
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	}) {
		m[w]++
	}
	return m
}

// renderWithMan is groff's rendering through man-db, without hyphenation
// (which would split words across lines) and without the page header and
// footer lines (which our text does not repeat).
func renderWithMan(path string) (string, error) {
	cmd := exec.Command("man", "-l", "-P", "cat", path)
	cmd.Env = append(os.Environ(), "LANG=C.UTF-8", "MANWIDTH=100", "MANROFFOPT=-rHY=0", "MAN_KEEP_FORMATTING=")
	out, err := cmd.Output()
	if err != nil {
		return "", err
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) > 2 {
		lines = lines[1 : len(lines)-1]
	}
	return strings.Join(lines, "\n"), nil
}

// samplePages picks n pages spread evenly over the sorted list, skipping
// .so redirect stubs (man renders their target; ReadPage follows them too,
// but then both sides are the target and the sample would repeat pages).
func samplePages(t *testing.T, n int) []scanner.ManPage {
	pages := installedPages(t)
	step := len(pages) / (n + n/5)
	if step < 1 {
		step = 1
	}
	var out []scanner.ManPage
	for i := 0; i < len(pages) && len(out) < n; i += step {
		_, real, err := scanner.ReadPage(pages[i].Path, 16<<20)
		if err != nil || real != pages[i].Path {
			continue
		}
		out = append(out, pages[i])
	}
	if len(out) < n {
		t.Fatalf("only %d pages sampled, want %d: %s", len(out), n, installHint)
	}
	return out
}

// TestRecallAgainstMan compares the words of our text with the words of
// man's rendering on 300 pages: at least 97% of man's words must be ours.
func TestRecallAgainstMan(t *testing.T) {
	if _, err := exec.LookPath("man"); err != nil {
		t.Fatalf("man not found: %s", installHint)
	}
	sample := samplePages(t, 300)
	type score struct{ want, hit, got, ghit int }
	scores := make([]score, len(sample))
	errs := make([]error, len(sample))
	var wg sync.WaitGroup
	sem := make(chan struct{}, runtime.NumCPU())
	for i, mp := range sample {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			p, rerr, perr := parseInstalled(mp)
			if rerr != nil || perr != nil {
				errs[i] = fmt.Errorf("read %v, parse %v", rerr, perr)
				return
			}
			rendered, err := renderWithMan(mp.Path)
			if err != nil {
				errs[i] = fmt.Errorf("man -P cat: %w", err)
				return
			}
			want, got := wordCounts(rendered), wordCounts(p.Text())
			var s score
			for w, n := range want {
				s.want += n
				s.hit += min(n, got[w])
			}
			for w, n := range got {
				s.got += n
				s.ghit += min(n, want[w])
			}
			scores[i] = s
		}()
	}
	wg.Wait()
	var tot score
	type low struct {
		path   string
		recall float64
	}
	var lows []low
	for i, s := range scores {
		if errs[i] != nil {
			t.Errorf("%s: %v", sample[i].Path, errs[i])
			continue
		}
		tot.want += s.want
		tot.hit += s.hit
		tot.got += s.got
		tot.ghit += s.ghit
		if s.want > 0 && float64(s.hit)/float64(s.want) < 0.97 {
			lows = append(lows, low{sample[i].Path, float64(s.hit) / float64(s.want)})
		}
	}
	sort.Slice(lows, func(i, j int) bool { return lows[i].recall < lows[j].recall })
	for _, l := range lows {
		t.Logf("page under 97%%: %.3f %s", l.recall, l.path)
	}
	recall := float64(tot.hit) / float64(tot.want)
	precision := float64(tot.ghit) / float64(tot.got)
	t.Logf("%d pages: recall %.4f (%d/%d words), precision %.4f, %d pages under 97%%",
		len(sample), recall, tot.hit, tot.want, precision, len(lows))
	if recall < 0.97 {
		t.Errorf("recall %.4f against man -P cat, want >= 0.97", recall)
	}
	if len(lows) > len(sample)/20 {
		t.Errorf("%d of %d pages under 97%% recall", len(lows), len(sample))
	}
}

// TestWellKnownOptions checks option extraction on pages every Debian
// system has (plus ssh and curl, which .ci/run installs).
func TestWellKnownOptions(t *testing.T) {
	testmode.Heavy(t, "this machine's man pages")
	roots := scanner.ManPath(os.Getenv, scanner.SplitPath(os.Getenv("PATH")), "")
	ix, _, err := scanner.BuildManIndex(context.Background(), roots, scanner.IndexOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		page, flag string
		flags      []string
		arg        string
		desc       string // a phrase of the description
	}{
		{"grep", "--recursive", []string{"-r", "--recursive"}, "", "Read all files under each directory, recursively"},
		{"grep", "-e", []string{"-e", "--regexp"}, "PATTERNS", "Use PATTERNS as the patterns"},
		{"ls", "--all", []string{"-a", "--all"}, "", "do not ignore entries starting with"},
		{"ls", "-l", []string{"-l"}, "", "use a long listing format"},
		{"tar", "--file", []string{"-f", "--file"}, "ARCHIVE", "Use archive file or device ARCHIVE"},
		{"tar", "--create", []string{"-c", "--create"}, "", "Create a new archive"},
		{"find", "-L", []string{"-L"}, "", "Follow symbolic links"},
		{"find", "-mtime", []string{"-mtime"}, "n", "modified less than, more than or exactly n*24 hours ago"},
		{"ssh", "-p", []string{"-p"}, "port", "Port to connect to on the remote host"},
		{"ssh", "-i", []string{"-i"}, "identity_file", "Selects a file from which the identity"},
		{"curl", "--output", []string{"-o", "--output"}, "<file>", "Write output to <file> instead of stdout"},
	}
	for _, c := range cases {
		t.Run(c.page+c.flag, func(t *testing.T) {
			mp := ix.Lookup(c.page)
			if mp == nil {
				t.Fatalf("no man page for %s: %s", c.page, installHint)
			}
			p, rerr, perr := parseInstalled(*mp)
			if rerr != nil || perr != nil {
				t.Fatalf("%s: read %v, parse %v", mp.Path, rerr, perr)
			}
			var o *manparse.Option
			for i := range p.Options {
				for _, f := range p.Options[i].Flags {
					if f == c.flag && o == nil {
						o = &p.Options[i]
					}
				}
			}
			if o == nil {
				t.Fatalf("%s: option %s not found among %d options", mp.Path, c.flag, len(p.Options))
			}
			desc := strings.Join(strings.Fields(o.Description), " ")
			if strings.Join(o.Flags, " ") != strings.Join(c.flags, " ") || o.Arg != c.arg || !strings.Contains(desc, c.desc) {
				t.Errorf("%s: got flags %q arg %q description %.120q; want flags %q arg %q description containing %q",
					mp.Path, o.Flags, o.Arg, desc, c.flags, c.arg, c.desc)
			}
		})
	}
}

// TestWellKnownExamples checks that examples keep their command lines on
// pages every Debian system has: find's bulleted examples used to end in
// the bullet ("...twenty-four hours.\n\n•"), the command a record apart.
func TestWellKnownExamples(t *testing.T) {
	testmode.Heavy(t, "this machine's man pages")
	roots := scanner.ManPath(os.Getenv, scanner.SplitPath(os.Getenv("PATH")), "")
	ix, _, err := scanner.BuildManIndex(context.Background(), roots, scanner.IndexOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct{ page, desc, command string }{
		{"find", "Search for files in your home directory which have been modified in the last twenty-four hours.", "$ find $HOME -mtime 0"},
		{"find", "Search for files which are executable but not readable.", "$ find /sbin /usr/sbin -executable \\! -readable -print"},
	}
	for _, c := range cases {
		mp := ix.Lookup(c.page)
		if mp == nil {
			t.Fatalf("no man page for %s: %s", c.page, installHint)
		}
		p, rerr, perr := parseInstalled(*mp)
		if rerr != nil || perr != nil {
			t.Fatalf("%s: read %v, parse %v", mp.Path, rerr, perr)
		}
		var e *manparse.Example
		for i := range p.Examples {
			if strings.Join(strings.Fields(p.Examples[i].Description), " ") == c.desc {
				e = &p.Examples[i]
			}
		}
		switch {
		case e == nil:
			t.Errorf("%s: no example described %q among %d", mp.Path, c.desc, len(p.Examples))
		case e.Command != c.command:
			t.Errorf("%s: example %q has command %q, want %q", mp.Path, c.desc, e.Command, c.command)
		}
	}
}
