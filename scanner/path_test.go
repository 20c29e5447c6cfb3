package scanner

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestSplitPath(t *testing.T) {
	got := SplitPath("/usr/bin::/bin:relative/bin:./x:/usr/bin/:/usr//local/bin:")
	want := []string{"/usr/bin", "/bin", "/usr/local/bin"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("SplitPath = %q, want %q", got, want)
	}
	if got := SplitPath(""); len(got) != 0 {
		t.Errorf("SplitPath(\"\") = %q, want none", got)
	}
}

func hasProblem(ps []Problem, path, substr string) bool {
	for _, p := range ps {
		if p.Path == path && strings.Contains(p.Err, substr) {
			return true
		}
	}
	return false
}

func TestScanPath(t *testing.T) {
	tmp := t.TempDir()
	d1, d2 := filepath.Join(tmp, "d1"), filepath.Join(tmp, "d2")
	exe := []byte("#!/bin/sh\n")
	write(t, filepath.Join(d1, "tool"), exe, 0o755)
	write(t, filepath.Join(d1, "shared"), exe, 0o700)
	write(t, filepath.Join(d1, "groupexec"), exe, 0o610) // any x bit counts
	write(t, filepath.Join(d1, "noexec"), exe, 0o644)
	write(t, filepath.Join(d2, "shared"), exe, 0o755)
	write(t, filepath.Join(d2, "only2"), exe, 0o755)
	write(t, filepath.Join(d2, "data"), exe, 0o644)
	if err := os.Mkdir(filepath.Join(d1, "subdir"), 0o755); err != nil { // x bit, but a dir
		t.Fatal(err)
	}
	symlink(t, filepath.Join(d2, "only2"), filepath.Join(d1, "goodlink"))
	symlink(t, filepath.Join(d2, "data"), filepath.Join(d1, "linktonoexec"))
	symlink(t, filepath.Join(d1, "subdir"), filepath.Join(d1, "linktodir"))
	symlink(t, filepath.Join(tmp, "nowhere"), filepath.Join(d1, "dangling"))
	symlink(t, "loopb", filepath.Join(d1, "loopa"))
	symlink(t, "loopa", filepath.Join(d1, "loopb"))
	d1link := filepath.Join(tmp, "d1link") // like /bin → usr/bin
	symlink(t, "d1", d1link)
	missing := filepath.Join(tmp, "missing")
	notDir := filepath.Join(d2, "data")

	// Unreadable directory: chmod 000 stops everyone but root, who reads
	// it anyway; the not-a-directory entry above gives a read error for
	// root too.
	locked := filepath.Join(tmp, "locked")
	write(t, filepath.Join(locked, "hidden"), exe, 0o755)
	if err := os.Chmod(locked, 0); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(locked, 0o755) })

	dirs := []string{d1, missing, d1link, notDir, locked, d2}
	cmds, problems, err := ScanPath(context.Background(), dirs, 3)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	var names []string
	for _, c := range cmds {
		got[c.Name] = c.Path
		names = append(names, c.Name)
	}
	want := map[string]string{
		"tool":      filepath.Join(d1, "tool"),
		"shared":    filepath.Join(d1, "shared"), // first on PATH wins
		"groupexec": filepath.Join(d1, "groupexec"),
		"goodlink":  filepath.Join(d1, "goodlink"), // symlink path, not its target
		"only2":     filepath.Join(d2, "only2"),
	}
	if os.Geteuid() == 0 { // root reads the locked directory anyway
		want["hidden"] = filepath.Join(locked, "hidden")
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("commands = %v\nwant %v", got, want)
	}
	for i := 1; i < len(names); i++ {
		if names[i-1] >= names[i] {
			t.Errorf("commands not sorted by name: %q", names)
		}
	}
	for _, c := range cmds {
		if strings.HasPrefix(c.Path, d1link) {
			t.Errorf("%s found again through the symlinked directory %s", c.Path, d1link)
		}
	}

	for _, w := range []struct{ path, substr string }{
		{filepath.Join(d1, "dangling"), "dangling"},
		{filepath.Join(d1, "loopa"), "loop"},
		{filepath.Join(d1, "loopb"), "loop"},
		{missing, "does not exist"},
		{notDir, "not a directory"},
	} {
		if !hasProblem(problems, w.path, w.substr) {
			t.Errorf("no problem %q reported for %s; problems: %v", w.substr, w.path, problems)
		}
	}
	if os.Geteuid() != 0 && !hasProblem(problems, locked, "permission") {
		t.Errorf("unreadable %s not reported; problems: %v", locked, problems)
	}
	if len(problems) > 6 {
		t.Errorf("unexpected problems: %v", problems)
	}
}

func TestScanPathCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, err := ScanPath(ctx, []string{t.TempDir()}, 1); err == nil {
		t.Fatal("ScanPath with a cancelled context succeeded")
	}
}
