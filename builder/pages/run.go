package pages

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/cmdai/cmdai/scanner"
	"github.com/cmdai/cmdai/scanner/pkgdb"
)

// Run scans, parses and chunks, calling emit once per command, in name
// order except that aliases follow the command whose page they share. A
// page that fails is reported in its Result, not as an error; Run fails
// only on setup errors, cancellation or an emit error.
func Run(ctx context.Context, opts Options, emit func(Result) error) (Stats, error) {
	start := time.Now()
	opts = withDefaults(opts)
	var st Stats
	jobs, err := scan(ctx, opts, &st)
	if err != nil {
		return st, err
	}
	st.ScanTime = Duration(time.Since(start))
	owners(ctx, opts, jobs, &st)
	for _, j := range jobs {
		if j.cmd.Parent == "" {
			st.CommandsSeen += 1 + len(j.aliases)
		}
	}
	parseStart := time.Now()
	if err := parseInOrder(ctx, opts, jobs, &st, emit); err != nil {
		return st, err
	}
	st.ParseTime = Duration(time.Since(parseStart))
	st.Total = Duration(time.Since(start))
	if s := time.Duration(st.ParseTime).Seconds(); s > 0 {
		st.PagesPerSec = float64(st.ManPages) / s
	}
	return st, nil
}

// withDefaults fills what the zero Options leave to the machine: the
// CPUs, the clock, $PATH and man-db's man path.
func withDefaults(opts Options) Options {
	if opts.Parallel <= 0 {
		opts.Parallel = runtime.NumCPU()
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.PathDirs == nil {
		opts.PathDirs = scanner.SplitPath(os.Getenv("PATH"))
	}
	if opts.ManPath == nil {
		opts.ManPath = scanner.ManPath(os.Getenv, opts.PathDirs, "")
	}
	return opts
}

// scan is the first stage: the $PATH walk and the man-hierarchy listing,
// which are independent and so run together, joined into one job per
// page (restricted to opts.Commands when set). Its problems go to st.
func scan(ctx context.Context, opts Options, st *Stats) ([]job, error) {
	var cmds []scanner.Command
	var ix *scanner.ManIndex
	var pathProblems, manProblems []scanner.Problem
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() (err error) {
		cmds, pathProblems, err = scanner.ScanPath(gctx, opts.PathDirs, opts.Parallel)
		return err
	})
	g.Go(func() (err error) {
		ix, manProblems, err = scanner.BuildManIndex(gctx, opts.ManPath, scanner.IndexOptions{Lang: opts.Lang})
		return err
	})
	if err := g.Wait(); err != nil {
		return nil, fmt.Errorf("scan: %w", err)
	}
	st.Problems = append(pathProblems, manProblems...)
	scanner.Attach(cmds, ix)
	jobs := withSubcommands(groupByPage(cmds), scanner.Subcommands(cmds, ix))
	if len(opts.Commands) > 0 {
		return selectJobs(jobs, opts.Commands)
	}
	return jobs, nil
}

// owners asks the package database, once for the whole run, which
// packages own the jobs' executables, and hands the answer to every job.
// A database that cannot be read is noted in st and costs the run
// nothing but the package fields.
func owners(ctx context.Context, opts Options, jobs []job, st *Stats) {
	start := time.Now()
	ask := opts.Packages
	st.PackageDB = "custom"
	if ask == nil {
		db := pkgdb.System()
		ask, st.PackageDB = db.Owners, string(db.Kind())
	}
	var paths []string
	for _, j := range jobs {
		paths = append(paths, j.cmd.Path)
		for _, a := range j.aliases {
			paths = append(paths, a.Path)
		}
	}
	got, err := ask(ctx, paths)
	if err != nil {
		st.PackageError = fmt.Sprintf("%v (commands get no package version)", err)
		got = nil
	}
	for i := range jobs {
		jobs[i].owners = got
	}
	st.PackageOwned = len(got)
	st.PackageTime = Duration(time.Since(start))
}

// parseInOrder is the second stage: parse and chunk in a bounded worker
// pool. Workers write into a pre-sized slice by index; the emitter hands
// results on in order, and a window keeps workers from running far ahead
// of it, so memory stays flat however many commands there are.
func parseInOrder(ctx context.Context, opts Options, jobs []job, st *Stats, emit func(Result) error) error {
	results := make([][]Result, len(jobs))
	done := make([]chan struct{}, len(jobs))
	for i := range done {
		done[i] = make(chan struct{})
	}
	window := make(chan struct{}, 4*opts.Parallel)
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() error {
		return parseAll(gctx, opts, jobs, window, func(i int, rs []Result) {
			results[i] = rs
			close(done[i])
		})
	})
	g.Go(func() error {
		for i := range jobs {
			select {
			case <-done[i]:
			case <-gctx.Done():
				return gctx.Err()
			}
			for _, r := range results[i] {
				st.count(r)
				if err := emit(r); err != nil {
					return err
				}
			}
			results[i] = nil
			<-window
			if opts.Progress != nil {
				opts.Progress(i+1, len(jobs))
			}
		}
		return nil
	})
	return g.Wait()
}

// parseAll feeds the jobs, in order, to opts.Parallel workers as the
// window lets it, and hands each job's results to done.
func parseAll(ctx context.Context, opts Options, jobs []job, window chan struct{}, done func(int, []Result)) error {
	next := make(chan int)
	w, wctx := errgroup.WithContext(ctx)
	for n := 0; n < opts.Parallel; n++ {
		w.Go(func() error {
			for i := range next {
				done(i, process(wctx, opts, jobs[i]))
			}
			return nil
		})
	}
feed:
	for i := range jobs {
		select {
		case window <- struct{}{}:
		case <-wctx.Done():
			break feed
		}
		select {
		case next <- i:
		case <-wctx.Done():
			break feed
		}
	}
	close(next)
	return w.Wait()
}
