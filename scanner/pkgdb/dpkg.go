package pkgdb

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// maxListLine bounds one line of a .list file (one path).
const maxListLine = 64 << 10

// dpkgOwners reads dpkg's database under dir directly, not through
// `dpkg -S` (a process and a whole-database read per command, seconds
// for a machine's thousand commands): the status file for each installed
// package's version and priority, then every info/*.list once, keeping
// only the lines that name a path asked about.
func dpkgOwners(ctx context.Context, dir string, paths []string) (map[string]Package, error) {
	installed, err := readStatus(filepath.Join(dir, "status"))
	if err != nil {
		return nil, err
	}
	cands := make([][]string, len(paths))
	wanted := map[string]bool{}
	for i, p := range paths {
		cands[i] = candidates(p)
		for _, c := range cands[i] {
			wanted[c] = true
		}
	}
	listed, err := readLists(ctx, filepath.Join(dir, "info"), wanted)
	if err != nil {
		return nil, err
	}
	out := make(map[string]Package, len(paths))
	for i, p := range paths {
		for _, c := range cands[i] {
			if pkg, ok := installedOwner(installed, listed[c]); ok {
				out[p] = pkg
				break
			}
		}
	}
	return out, nil
}

// installedOwner is the first of the packages listing a file that is
// installed (a removed package's list may linger).
func installedOwner(installed map[string]Package, owners []string) (Package, bool) {
	for _, o := range owners {
		if pkg, ok := installed[o]; ok {
			return pkg, true
		}
		if name, _, ok := strings.Cut(o, ":"); ok {
			if pkg, ok := installed[name]; ok {
				return pkg, true
			}
		}
	}
	return Package{}, false
}

// readLists maps each wanted path to the packages whose info/*.list names
// it. A list's base name is the package, arch-qualified for multi-arch
// ones ("libc6:amd64").
func readLists(ctx context.Context, infoDir string, wanted map[string]bool) (map[string][]string, error) {
	lists, err := filepath.Glob(filepath.Join(infoDir, "*.list"))
	if err != nil {
		return nil, fmt.Errorf("list dpkg's file lists in %s: %w", infoDir, err)
	}
	if len(lists) == 0 {
		return nil, fmt.Errorf("no package file lists in %s: is dpkg's database there?", infoDir)
	}
	found := map[string][]string{}
	for _, l := range lists {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		pkg := strings.TrimSuffix(filepath.Base(l), ".list")
		if err := scanList(l, func(path string) {
			if wanted[path] {
				found[path] = append(found[path], pkg)
			}
		}); err != nil {
			return nil, err
		}
	}
	return found, nil
}

// scanList calls each with every path a .list file names.
func scanList(name string, each func(string)) error {
	f, err := os.Open(name)
	if err != nil {
		return fmt.Errorf("read dpkg's file list: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 4096), maxListLine)
	for sc.Scan() {
		each(sc.Text())
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("read dpkg's file list %s: %w", name, err)
	}
	return nil
}

// readStatus reads dpkg's status file: the installed packages (Status
// "... installed"), keyed by name and by name:arch.
func readStatus(name string) (map[string]Package, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, fmt.Errorf("read dpkg's status file: %w", err)
	}
	defer f.Close()
	out, err := parseStatus(f)
	if err != nil {
		return nil, fmt.Errorf("read dpkg's status file %s: %w", name, err)
	}
	return out, nil
}

// parseStatus reads stanzas of "Field: value" lines separated by blank
// lines; continuation lines (a leading blank) belong to fields it does
// not need.
func parseStatus(r io.Reader) (map[string]Package, error) {
	out := map[string]Package{}
	var pkg Package
	var arch, status string
	flush := func() {
		if pkg.Name != "" && pkg.Version != "" && strings.HasSuffix(status, " installed") {
			out[pkg.Name] = pkg
			if arch != "" {
				out[pkg.Name+":"+arch] = pkg
			}
		}
		pkg, arch, status = Package{}, "", ""
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if strings.TrimSpace(line) == "" {
			flush()
			continue
		}
		if line[0] == ' ' || line[0] == '\t' {
			continue
		}
		field, value, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		value = strings.TrimSpace(value)
		switch field {
		case "Package":
			pkg.Name = value
		case "Version":
			pkg.Version = value
		case "Priority":
			pkg.Priority = value
		case "Architecture":
			arch = value
		case "Status":
			status = value
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	flush()
	return out, nil
}
