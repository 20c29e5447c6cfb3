package scanner

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
)

// configFiles are man-db's configuration files: Debian and derivatives
// use the first, Fedora/RHEL/Arch the second.
var configFiles = []string{"/etc/manpath.config", "/etc/man_db.conf"}

// defaultManPath is used when no man-db configuration file exists
// (Alpine, minimal containers, macOS without man-db).
var defaultManPath = []string{"/usr/local/share/man", "/usr/share/man", "/usr/local/man", "/usr/man"}

// ManPath returns the man hierarchies to search, in order, as man-db's
// manpath(1) derives them. env is usually os.Getenv; pathDirs is the
// split $PATH; configPath is the man-db configuration file, or "" to try
// /etc/manpath.config and then /etc/man_db.conf.
//
// A non-empty $MANPATH is used as given, except that an empty component
// (a leading or trailing colon, or "::") stands for the system man path,
// which lets users add to it rather than replace it.
func ManPath(env func(string) string, pathDirs []string, configPath string) []string {
	system := func() []string { return systemManPath(pathDirs, configPath) }
	mp := env("MANPATH")
	if mp == "" {
		return system()
	}
	var out []string
	var sys []string
	inserted := false
	for _, d := range strings.Split(mp, ":") {
		if d == "" {
			if !inserted { // one insertion is enough: the rest would be duplicates
				sys, inserted = system(), true
				out = append(out, sys...)
			}
			continue
		}
		out = append(out, filepath.Clean(d))
	}
	// Explicit entries are kept even if missing, so that BuildManIndex can
	// report a typo in $MANPATH; only duplicates go.
	return dedupe(out, false)
}

// manConfig is the part of man-db's configuration that shapes the man path.
type manConfig struct {
	pathMap   map[string][]string // MANPATH_MAP bin-dir → man dirs, in file order
	mandatory []string            // MANDATORY_MANPATH, in file order
}

// systemManPath is the man path without $MANPATH: mapped or guessed
// hierarchies for each PATH directory, then the mandatory ones.
func systemManPath(pathDirs []string, configPath string) []string {
	cfg, ok := readManConfig(configPath)
	var out []string
	for _, d := range pathDirs {
		d = filepath.Clean(d)
		if mapped, ok := cfg.pathMap[d]; ok {
			out = append(out, mapped...)
			continue
		}
		out = append(out, guessManDirs(d)...)
	}
	if ok {
		out = append(out, cfg.mandatory...)
	} else {
		out = append(out, defaultManPath...)
	}
	return dedupe(out, true)
}

// guessManDirs is man-db's fallback for a PATH directory the configuration
// does not map: a ~/.local/bin or /opt/foo/bin usually has its pages next
// to it. Like man-db, every existing candidate is used, in this order.
func guessManDirs(dir string) []string {
	if dir == "/" || !filepath.IsAbs(dir) {
		return nil
	}
	parent := filepath.Dir(dir)
	var out []string
	for _, c := range []string{
		filepath.Join(parent, "man"),
		filepath.Join(dir, "man"),
		filepath.Join(parent, "share", "man"),
		filepath.Join(dir, "share", "man"),
	} {
		if isDir(c) {
			out = append(out, c)
		}
	}
	return out
}

// readManConfig parses the first readable configuration file. ok is false
// when there is none.
func readManConfig(configPath string) (cfg manConfig, ok bool) {
	cfg.pathMap = map[string][]string{}
	candidates := configFiles
	if configPath != "" {
		candidates = []string{configPath}
	}
	for _, p := range candidates {
		f, err := os.Open(p)
		if err != nil {
			continue
		}
		defer f.Close()
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			fields := strings.Fields(sc.Text())
			if len(fields) == 0 || strings.HasPrefix(fields[0], "#") {
				continue
			}
			switch {
			case fields[0] == "MANDATORY_MANPATH" && len(fields) >= 2:
				cfg.mandatory = append(cfg.mandatory, filepath.Clean(fields[1]))
			case fields[0] == "MANPATH_MAP" && len(fields) >= 3:
				k := filepath.Clean(fields[1])
				cfg.pathMap[k] = append(cfg.pathMap[k], filepath.Clean(fields[2]))
			}
		}
		return cfg, true
	}
	return cfg, false
}

// dedupe drops repeated directories, keeping the first spelling. Two
// spellings of one directory (/usr/man → share/man) count as the same.
// With mustExist, directories that do not exist are dropped too.
func dedupe(dirs []string, mustExist bool) []string {
	var out []string
	seen := map[string]bool{}
	for _, d := range dirs {
		key := d
		if real, err := filepath.EvalSymlinks(d); err == nil {
			key = real
		} else if mustExist {
			continue
		}
		if mustExist && !isDir(d) {
			continue
		}
		if seen[key] {
			continue
		}
		seen[key] = true
		out = append(out, d)
	}
	return out
}

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}
