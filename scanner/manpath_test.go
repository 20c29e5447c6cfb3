package scanner

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// manPathFixture makes a config file and the directories it names.
func manPathFixture(t *testing.T) (tmp, cfg string, pathDirs []string) {
	tmp = t.TempDir()
	for _, d := range []string{"sys1", "sys2", "sys3", "usr/share/man", "opt/man", "opt/share/man", "a", "b"} {
		if err := os.MkdirAll(filepath.Join(tmp, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, d := range []string{"usr/bin", "opt/bin", "nomans/bin"} {
		if err := os.MkdirAll(filepath.Join(tmp, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	cfg = filepath.Join(tmp, "manpath.config")
	write(t, cfg, []byte(
		"# comment\n"+
			"MANDATORY_MANPATH\t"+tmp+"/sys1\n"+
			"MANDATORY_MANPATH\t"+tmp+"/missing\n"+
			"MANDATORY_MANPATH\t"+tmp+"/sys2\n"+
			"MANPATH_MAP\t"+tmp+"/usr/bin\t"+tmp+"/sys3\n"+
			"MANPATH_MAP\t"+tmp+"/usr/bin\t"+tmp+"/sys1\n"+
			"MANDB_MAP\t"+tmp+"/sys1\t/var/cache/man\n"+
			"SECTION 1 n l 8 3 0 2 5 4 9 6 7\n"), 0o644)
	pathDirs = []string{tmp + "/usr/bin", tmp + "/opt/bin", tmp + "/nomans/bin"}
	return tmp, cfg, pathDirs
}

func TestManPathFromConfig(t *testing.T) {
	tmp, cfg, pathDirs := manPathFixture(t)
	env := func(string) string { return "" }
	got := ManPath(env, pathDirs, cfg)
	want := []string{
		tmp + "/sys3", tmp + "/sys1", // MANPATH_MAP for usr/bin, in file order
		tmp + "/opt/man", tmp + "/opt/share/man", // guessed next to opt/bin
		tmp + "/sys2", // mandatory; sys1 already listed, missing dropped
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("ManPath = %q\nwant %q", got, want)
	}
}

func TestManPathNoConfig(t *testing.T) {
	tmp, _, pathDirs := manPathFixture(t)
	got := ManPath(func(string) string { return "" }, pathDirs, filepath.Join(tmp, "no-such.conf"))
	// usr/bin is unmapped now, so its sibling ../share/man is guessed;
	// then whichever of the built-in defaults exist here.
	if len(got) < 3 || got[0] != tmp+"/usr/share/man" || got[1] != tmp+"/opt/man" || got[2] != tmp+"/opt/share/man" {
		t.Fatalf("ManPath without config = %q", got)
	}
	for _, d := range got[3:] {
		if !isDir(d) {
			t.Errorf("nonexistent default %s kept", d)
		}
		found := false
		for _, def := range defaultManPath {
			if filepath.Clean(def) == d {
				found = true
			}
		}
		if !found {
			t.Errorf("%s is neither guessed nor a default", d)
		}
	}
}

func TestManPathEnv(t *testing.T) {
	tmp, cfg, pathDirs := manPathFixture(t)
	sys := []string{tmp + "/sys3", tmp + "/sys1", tmp + "/opt/man", tmp + "/opt/share/man", tmp + "/sys2"}
	a, b := tmp+"/a", tmp+"/b"
	cat := func(parts ...[]string) []string {
		var out []string
		for _, p := range parts {
			out = append(out, p...)
		}
		return out
	}
	for _, tc := range []struct {
		manpath string
		want    []string
	}{
		{a + ":" + b, []string{a, b}},                      // replaces the system path
		{":" + a, cat(sys, []string{a})},                   // leading colon: system first
		{a + ":", cat([]string{a}, sys)},                   // trailing colon: system last
		{a + "::" + b, cat([]string{a}, sys, []string{b})}, // inserted in the middle
		{a + ":" + a + "/:" + b, []string{a, b}},           // duplicates dropped
		{tmp + "/sys1::" + a, cat([]string{tmp + "/sys1", tmp + "/sys3"}, sys[2:], []string{a})},
		{tmp + "/typo:" + a, []string{tmp + "/typo", a}}, // kept so the index reports it
	} {
		env := func(k string) string {
			if k == "MANPATH" {
				return tc.manpath
			}
			return ""
		}
		if got := ManPath(env, pathDirs, cfg); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("MANPATH=%s: got %q\nwant %q", tc.manpath, got, tc.want)
		}
	}
}
