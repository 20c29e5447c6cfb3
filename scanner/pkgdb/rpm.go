package pkgdb

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"time"
)

// rpmBatch bounds the paths given to one rpm run, well under the
// kernel's argument limit.
const rpmBatch = 512

// rpmTimeout bounds one rpm run.
const rpmTimeout = 60 * time.Second

// rpmFormat prints, for each package owning a path asked about, every
// file of that package with the package's name and version: the plain
// "%{NAME} %{VERSION}-%{RELEASE}" cannot be matched back to the paths
// when one path has no owner (rpm prints a message instead) or several.
const rpmFormat = "[%{FILENAMES}\t%{NAME}\t%{VERSION}-%{RELEASE}\n]"

// rpmOwners asks rpm, in a few batched runs of `rpm -qf`, which package
// owns each path.
func rpmOwners(ctx context.Context, bin string, paths []string) (map[string]Package, error) {
	cands := make([][]string, len(paths))
	var all []string
	seen := map[string]bool{}
	for i, p := range paths {
		cands[i] = candidates(p)
		for _, c := range cands[i] {
			if !seen[c] {
				seen[c] = true
				all = append(all, c)
			}
		}
	}
	owned := map[string]Package{}
	for len(all) > 0 {
		n := min(rpmBatch, len(all))
		if err := rpmQuery(ctx, bin, all[:n], owned); err != nil {
			return nil, err
		}
		all = all[n:]
	}
	out := make(map[string]Package, len(paths))
	for i, p := range paths {
		for _, c := range cands[i] {
			if pkg, ok := owned[c]; ok {
				out[p] = pkg
				break
			}
		}
	}
	return out, nil
}

// rpmQuery runs one `rpm -qf` over paths and adds what it prints to
// owned. rpm exits 1 when some path has no owner; its output still
// holds the others.
func rpmQuery(ctx context.Context, bin string, paths []string, owned map[string]Package) error {
	ctx, cancel := context.WithTimeout(ctx, rpmTimeout)
	defer cancel()
	args := append([]string{"-qf", "--queryformat", rpmFormat, "--"}, paths...)
	cmd := exec.CommandContext(ctx, bin, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if err != nil && (!errors.As(err, &exit) || ctx.Err() != nil) {
		return fmt.Errorf("ask rpm which packages own the commands (%s -qf): %w %s", bin, err, strings.TrimSpace(stderr.String()))
	}
	parseRPM(stdout.Bytes(), owned)
	return nil
}

// parseRPM reads rpmFormat lines ("file\tname\tversion-release") into
// owned, the first owner of a file winning; other lines (rpm's "file X
// is not owned by any package") are not ours.
func parseRPM(b []byte, owned map[string]Package) {
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 0, 4096), maxListLine)
	for sc.Scan() {
		f := strings.Split(sc.Text(), "\t")
		if len(f) != 3 || !strings.HasPrefix(f[0], "/") || f[1] == "" {
			continue
		}
		if _, ok := owned[f[0]]; !ok {
			owned[f[0]] = Package{Name: f[1], Version: f[2]}
		}
	}
}
