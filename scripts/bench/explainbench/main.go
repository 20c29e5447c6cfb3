// Command explainbench measures `cmdai explain` (issue #21) over real
// command lines, one a line (NL2Bash's all.cm), against a real index of
// this machine's installed commands:
//
//   - coverage: of the option words used with installed commands whose
//     page has option records, the share matched to an option record; the
//     misses grouped by cause (the installed page read with `man -P cat`
//     tells a parsing gap from an option the page really lacks)
//   - flagged: the lines with an `unknown option`, and a seeded sample of
//     them (-sample) to check by hand against the man pages; -handcheck
//     reads the verdicts back into the report
//   - detection: -mutations real lines per half with one option changed
//     to one the command does not have (a typo, an option of the most
//     similar indexed command, an invented long option), seeded, each
//     checked absent from the command's records and page: the share
//     flagged
//   - speed: each line explained again with every lookup cached (warm),
//     mean, p50, p95
//
// Lines are split into two halves by a hash of their text (the same line
// twice lands in one half): tune on train, report test. -baseline reads
// an earlier run's lines.jsonl and gives the paired comparison (exact
// McNemar test over the lines of each half).
//
// It reads the index through the repo's own packages (chroma,
// search.Searcher.Docs in explain.CachedLookup), without the model:
// -chroma-url, or -home (CMDAI_HOME) whose Chroma data it serves with a
// private server. `scripts/bench/bench-explain.sh` builds and runs it.
package main

import (
	"bufio"
	"context"
	"crypto/sha256"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/cmdai/cmdai/chroma"
	"github.com/cmdai/cmdai/distro"
	"github.com/cmdai/cmdai/explain"
	"github.com/cmdai/cmdai/explain/judge"
	"github.com/cmdai/cmdai/scripts/bench/explainbench/mutate"
	"github.com/cmdai/cmdai/scripts/bench/explainbench/report"
	"github.com/cmdai/cmdai/search"
)

type options struct {
	lines, home, chromaURL, chromaBin, collection, out string
	seed                                               string
	mutations, sample                                  int
	baseline, handcheck                                string
	man                                                bool
	doc                                                string
}

func main() {
	var o options
	flag.StringVar(&o.lines, "lines", "", "the command lines, one a line (NL2Bash's all.cm)")
	flag.StringVar(&o.home, "home", os.Getenv("CMDAI_HOME"), "CMDAI_HOME holding the index (its chroma/ is served by a private server)")
	flag.StringVar(&o.chromaURL, "chroma-url", "", "a running Chroma server holding the index (instead of -home)")
	flag.StringVar(&o.chromaBin, "chroma-bin", "", "the chroma executable (default: as cmdai finds it)")
	flag.StringVar(&o.collection, "collection", "", "the collection (default: this machine's)")
	flag.StringVar(&o.out, "out", ".cache/explainbench", "where to write report.json, summary.md, lines.jsonl, mutations.jsonl, flagged-sample.tsv")
	flag.StringVar(&o.seed, "seed", "cmdai-explain-bench-v1", "seed of the split, the mutations and the sample")
	flag.IntVar(&o.mutations, "mutations", 500, "mutated lines per half")
	flag.IntVar(&o.sample, "sample", 100, "flagged lines of the test half to sample for the hand check")
	flag.StringVar(&o.baseline, "baseline", "", "an earlier run's lines.jsonl: paired comparison")
	flag.StringVar(&o.handcheck, "handcheck", "", "the hand check of the sample (TSV: line, command, option, verdict false-alarm|true-catch, reason)")
	flag.StringVar(&o.doc, "doc", "", "print one command's records as the index holds them, and exit (for the hand check)")
	flag.BoolVar(&o.man, "man", true, "read the installed man pages (man -P cat) to class misses and check mutations")
	flag.Parse()
	if o.lines == "" && o.doc == "" {
		fmt.Fprintln(os.Stderr, "explainbench: give -lines FILE (NL2Bash's all.cm)")
		os.Exit(2)
	}
	if err := run(context.Background(), o); err != nil {
		fmt.Fprintln(os.Stderr, "explainbench:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, o options) error {
	var lines []string
	if o.doc == "" {
		var err error
		if lines, err = readLines(o.lines); err != nil {
			return err
		}
	}
	coll, stop, err := openIndex(ctx, &o)
	if err != nil {
		return err
	}
	defer stop()
	if o.doc != "" {
		d, err := search.Searcher{Coll: coll}.Docs(ctx, o.doc)
		if err != nil {
			return err
		}
		for _, r := range d.Records {
			fmt.Printf("=== %s kind=%s option=%q\n%s\n", r.ID, r.Kind, r.Option, r.Text)
		}
		return nil
	}
	b := &bench{o: o, lookup: explain.CachedLookup(search.Searcher{Coll: coll}.Docs), docs: map[string]search.CommandDoc{},
		pages: map[string]string{}, flagSets: map[string]*mutate.FlagSet{}, similarOf: map[string]string{},
		spellOf: map[string]map[string]bool{}}
	b.opts = explain.Options{OnPath: func(name string) bool { _, err := exec.LookPath(name); return err == nil }}
	rep := &report.Report{Corpus: o.lines, CorpusSHA256: fileSHA(o.lines), Collection: o.collection, Seed: o.seed,
		Started: time.Now().UTC().Format(time.RFC3339)}
	if n, err := coll.Count(ctx); err == nil {
		rep.IndexRecords = n
	}
	if c, ok := coll.Metadata()["commands"]; ok {
		rep.IndexCommands = fmt.Sprint(c)
	}
	results, err := b.measure(ctx, lines, rep)
	if err != nil {
		return err
	}
	muts := b.detect(ctx, results)
	if b.err != nil {
		return b.err
	}
	for i := range rep.Parts {
		rep.Parts[i].Detection = detection(rep.Parts[i].Part, muts)
	}
	sample := flaggedSample(o.seed, results, o.sample)
	rep.SampleLines = len(sample)
	if o.handcheck != "" {
		for _, part := range []string{"all", "train", "test"} {
			hc, err := readHandcheck(o.handcheck, part, sample)
			if err != nil {
				return err
			}
			rep.Handcheck = append(rep.Handcheck, hc)
		}
	}
	if o.baseline != "" {
		base, err := readBaseline(o.baseline)
		if err != nil {
			return err
		}
		// the baseline's own mutations, judged again now: detection paired
		baseMuts, err := readMutations(filepath.Join(filepath.Dir(o.baseline), "mutations.jsonl"))
		if err != nil {
			return err
		}
		again := make([]mutation, len(baseMuts))
		for i, m := range baseMuts {
			again[i] = m
			b.judgeMutation(ctx, &again[i])
		}
		for _, part := range []string{"all", "train", "test"} {
			p := paired(part, base, results)
			pairedDetection(&p, baseMuts, again)
			rep.Paired = append(rep.Paired, p)
		}
	}
	rep.Finished = time.Now().UTC().Format(time.RFC3339)
	return write(o.out, rep, results, muts, sample)
}

// openIndex opens the collection: on -chroma-url, or on a private
// server over -home's Chroma data (stop stops it).
func openIndex(ctx context.Context, o *options) (*chroma.Collection, func(), error) {
	stop := func() {}
	url := o.chromaURL
	if url == "" {
		if o.home == "" {
			return nil, stop, errors.New("give -chroma-url URL or -home CMDAI_HOME")
		}
		bin, err := chroma.FindBin(o.chromaBin, os.Getenv)
		if err != nil {
			return nil, stop, err
		}
		srv, err := chroma.StartServer(ctx, chroma.ServerOptions{Bin: bin, DataDir: filepath.Join(o.home, "chroma")})
		if err != nil {
			return nil, stop, err
		}
		stop = func() { srv.Stop() }
		url = srv.URL
	}
	store, err := chroma.Connect(ctx, chroma.Config{URL: url})
	if err != nil {
		return nil, stop, err
	}
	srvStop := stop
	stop = func() { store.Close(); srvStop() }
	if o.collection == "" {
		info, err := distro.Detect(ctx)
		if err != nil {
			return nil, stop, err
		}
		o.collection = info.CollectionName()
	}
	coll, err := store.OpenCollection(ctx, o.collection)
	return coll, stop, err
}

// measure explains every line twice: first with cold lookups, judged
// (the figures of each half), then warm (every lookup cached), timed.
func (b *bench) measure(ctx context.Context, lines []string, rep *report.Report) ([]lineResult, error) {
	results := make([]lineResult, len(lines))
	for i, l := range lines {
		results[i] = b.line(ctx, i+1, l)
		if b.err != nil {
			return nil, b.err
		}
	}
	times := make([]float64, 0, len(lines))
	for i, l := range lines {
		t := time.Now()
		_, err := explain.Explain(ctx, l, b.lookup, b.opts)
		ms := float64(time.Since(t).Nanoseconds()) / 1e6
		if err != nil && !errors.Is(err, explain.ErrBadLine) {
			return nil, err
		}
		results[i].WarmMs = ms
		times = append(times, ms)
	}
	rep.Timing = report.TimingOf(times)
	for _, part := range []string{"all", "train", "test"} {
		rep.Parts = append(rep.Parts, b.summarise(part, results))
	}
	return results, nil
}

// bench holds one run's lookups and the pages read.
type bench struct {
	o      options
	lookup explain.Lookup
	opts   explain.Options
	docs   map[string]search.CommandDoc // by command as the index names it
	pages  map[string]string            // man -P cat output by page
	err    error

	flagSets  map[string]*mutate.FlagSet
	similarOf map[string]string
	spellOf   map[string]map[string]bool
}

// lineResult is one line's outcome (a row of lines.jsonl).
type lineResult struct {
	N        int       `json:"n"` // line number in the corpus, from 1
	Part     string    `json:"part"`
	Line     string    `json:"line"`
	Parsed   bool      `json:"parsed"`
	BadLine  string    `json:"bad_line,omitempty"`
	Flagged  bool      `json:"flagged"`
	Commands []cmdStat `json:"commands,omitempty"`
	// Options counts the option units (a cluster's letters one each) of
	// installed commands whose page has option records; Matched those
	// matched to a record.
	Options int `json:"options"`
	Matched int `json:"matched"`
	// MatchedProse: matched to a record whose text names the option
	// though no option entry of its own does.
	MatchedProse int     `json:"matched_prose"`
	Misses       []miss  `json:"misses,omitempty"`
	Unknown      []miss  `json:"unknown,omitempty"`
	ColdMs       float64 `json:"cold_ms"`
	WarmMs       float64 `json:"warm_ms"`
	Units        []unit  `json:"-"`
}

type cmdStat struct {
	Name    string `json:"name"`
	Verdict string `json:"verdict"`
	// Documented: in the index with option records to judge by.
	Documented bool   `json:"documented"`
	Note       string `json:"note,omitempty"`
}

// miss is an option unit not matched to a record, or one flagged.
type miss struct {
	Command string `json:"command"`
	Page    string `json:"page"`
	Word    string `json:"word"`
	Flag    string `json:"flag"`
	Verdict string `json:"verdict"`
	Note    string `json:"note,omitempty"`
	Cause   string `json:"cause"`
}

// unit is a matched option of a line: where a mutation may go.
type unit struct {
	mutate.Unit
	cmd, page string
}

// partOf is the line's half: by a hash of its text, so that the same
// line twice lands in one half.
func partOf(seed, line string) string {
	if mutate.Hash64(seed+":split:"+line)%2 == 0 {
		return "train"
	}
	return "test"
}

func (b *bench) doc(ctx context.Context, name string) (search.CommandDoc, bool) {
	if d, ok := b.docs[name]; ok {
		return d, true
	}
	d, err := b.lookup(ctx, name)
	if err != nil {
		if !errors.Is(err, search.ErrUnknownCommand) && b.err == nil {
			b.err = err
		}
		return d, false
	}
	b.docs[name] = d
	return d, true
}

// optionRecords counts the doc's option records, as explain's firm list
// does (--help and --version alone are no list).
func optionRecords(d search.CommandDoc) int {
	n := 0
	for _, r := range d.Records {
		if r.Kind == "option" {
			switch r.Option {
			case "--help", "--version", "-h", "-V", "-?":
			default:
				n++
			}
		}
	}
	return n
}

func (b *bench) line(ctx context.Context, n int, l string) lineResult {
	lr := lineResult{N: n, Part: partOf(b.o.seed, l), Line: l}
	t := time.Now()
	res, err := explain.Explain(ctx, l, b.lookup, b.opts)
	lr.ColdMs = float64(time.Since(t).Nanoseconds()) / 1e6
	if err != nil {
		if errors.Is(err, explain.ErrBadLine) {
			lr.BadLine = err.Error()
			return lr
		}
		b.err = err
		return lr
	}
	lr.Parsed = true
	lr.Flagged = res.UnknownCount > 0
	for _, c := range res.Commands {
		cs := cmdStat{Name: c.Name, Verdict: string(c.Verdict), Note: c.Note}
		var d search.CommandDoc
		if c.Verdict == judge.Known {
			var ok bool
			if d, ok = b.doc(ctx, c.Name); ok {
				cs.Documented = optionRecords(d) > 0
			}
		}
		lr.Commands = append(lr.Commands, cs)
		for _, w := range c.Words {
			for _, u := range units(w) {
				if u.Verdict == judge.UnknownOption {
					m := b.missOf(c, u, w)
					lr.Unknown = append(lr.Unknown, m)
				}
				if !cs.Documented {
					continue
				}
				lr.Options++
				if u.Verdict == judge.Known {
					lr.Matched++
					if strings.Contains(u.Note, "named in the page's text") {
						lr.MatchedProse++
					}
					lr.Units = append(lr.Units, unitOf(c, u, w))
					continue
				}
				lr.Misses = append(lr.Misses, b.missOf(c, u, w))
			}
		}
	}
	return lr
}

// units are a word's option units: a cluster's letters one each (their
// values left out), else the word itself when it is an option.
func units(w judge.Word) []judge.Word {
	if w.Verdict == judge.Operand {
		return nil
	}
	if len(w.Flags) == 0 {
		return []judge.Word{w}
	}
	var out []judge.Word
	for _, f := range w.Flags {
		if f.Of == "" && f.Verdict != judge.Operand {
			out = append(out, f)
		}
	}
	return out
}

func unitOf(c explain.Command, u, w judge.Word) unit {
	f := flagOf(u.Text)
	short := len(f) == 2 && f[0] == '-'
	return unit{cmd: c.Name, page: c.Page, Unit: mutate.Unit{Flag: f, Start: u.Start, End: u.End, Short: short,
		Single: !short && !strings.HasPrefix(f, "--"), Cluster: len(w.Flags) > 0}}
}

// flagOf is an option word without its attached value (--file=x -> --file).
func flagOf(text string) string {
	if strings.HasPrefix(text, "--") {
		name, _, _ := strings.Cut(text, "=")
		return name
	}
	return text
}

func readLines(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		out = append(out, strings.TrimRight(sc.Text(), "\r"))
	}
	return out, sc.Err()
}

func fileSHA(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return ""
	}
	return fmt.Sprintf("%x", h.Sum(nil))
}
