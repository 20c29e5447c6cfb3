package scanner

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
)

// page renders a minimal page whose body names its file, so a test can
// tell which one ReadPage returned.
func page(id string) string { return ".TH X 1\n.SH NAME\n" + id + "\n" }

// manTree builds two hierarchies: root1 (with a German translation) and
// root2 later on the man path.
func manTree(t *testing.T) (root1, root2 string) {
	tmp := t.TempDir()
	root1, root2 = filepath.Join(tmp, "r1"), filepath.Join(tmp, "r2")
	pages := map[string]string{
		"man1/foo.1.gz":              page("foo.1.gz"),
		"man8/foo.8":                 page("foo.8"),
		"man1/openssl-x509.1ssl.bz2": bz2Text,
		"man1/bar.1.xz":              page("bar.1.xz"),
		"man1/baz.1.zst":             page("baz.1.zst"),
		"man1/python3.11.1.gz":       page("python3.11.1.gz"),
		"man1/printf.1.gz":           page("printf.1"),
		"man3/printf.3.gz":           page("printf.3"),
		"man8/only8.8.gz":            page("only8.8"),
		"man3/only8.3.gz":            page("only8.3"),
		"man1/dup.1ssl.gz":           page("dup.1ssl"),
		"man1/dup.1.gz":              page("dup.1"),
		"man3/x.3ssl.gz":             page("x.3ssl"),
		"man8/x.8.gz":                page("x.8"),
		"man3type/stat.3type.gz":     page("stat.3type"),
		"man1/README":                "not a page",
		"man1/junk.1.gz.dpkg-old":    page("junk"),
		"man1/wrong.8.gz":            page("wrong section for man1"),
		"man1/alias.1":               ".so man1/mid.1\n",
		"man1/mid.1.gz":              ".\\\" a comment first\n'\\\" another\n\n.so man8/target.8\n",
		"man8/target.8.gz":           page("target.8.gz"),
		"man1/local.1":               ".so local-target.1\n", // relative to the file's own dir
		"man1/local-target.1.gz":     page("local-target"),
		"man1/loopa.1":               ".so man1/loopb.1\n",
		"man1/loopb.1":               ".so man1/loopa.1\n",
		"man1/broken.1.gz":           ".so man1/nothere.1\n",
		"man1/hop0.1":                ".so man1/hop1.1\n",
		"man1/hop1.1":                ".so man1/hop2.1\n",
		"man1/hop2.1":                ".so man1/hop3.1\n",
		"man1/hop3.1":                ".so man1/hop4.1\n",
		"man1/hop4.1":                ".so man1/hop5.1\n",
		"man1/hop5.1":                ".so man1/hop6.1\n",
		"man1/hop6.1":                page("hop6"),
		"de/man1/foo.1.gz":           page("de/foo"),
		"de/man1/loc.1.gz":           page("de/loc"),
		"de_DE/man1/loc.1.gz":        page("de_DE/loc"),
		"fr/man1/foo.1.gz":           page("fr/foo"),
		"de/man8/onlyde.8.gz":        page("de/onlyde.8"),
		"man1/onlyde.1.gz":           page("onlyde.1"), // English section 1 beats German section 8
	}
	for p, text := range pages {
		writePage(t, filepath.Join(root1, p), text)
	}
	symlink(t, "foo.1.gz", filepath.Join(root1, "man1/link.1.gz"))
	symlink(t, "nope.1.gz", filepath.Join(root1, "man1/gone.1.gz"))
	if err := os.MkdirAll(filepath.Join(root1, "man1/subdir.1"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(root1, "cat1"), 0o755); err != nil {
		t.Fatal(err)
	}
	writePage(t, filepath.Join(root2, "man1/bar.1.gz"), page("r2 bar"))
	writePage(t, filepath.Join(root2, "man1/only2.1.gz"), page("only2"))
	writePage(t, filepath.Join(root2, "man1/foo.1.gz"), page("r2 foo"))
	return root1, root2
}

func buildIndex(t *testing.T, roots []string, opts IndexOptions) (*ManIndex, []Problem) {
	t.Helper()
	ix, problems, err := BuildManIndex(context.Background(), roots, opts)
	if err != nil {
		t.Fatal(err)
	}
	return ix, problems
}

func TestParsePageName(t *testing.T) {
	for _, tc := range []struct {
		file, dir, name, sec, comp string
		ok                         bool
	}{
		{"openssl-x509.1ssl.gz", "1", "openssl-x509", "1ssl", "gz", true},
		{"python3.11.1.gz", "1", "python3.11", "1", "gz", true},
		{"ls.1", "1", "ls", "1", "", true},
		{"tar.1.bz2", "1", "tar", "1", "bz2", true},
		{"x.8.xz", "8", "x", "8", "xz", true},
		{"x.8.zst", "8", "x", "8", "zst", true},
		{"old.1.Z", "1", "old", "1", "Z", true},
		{"stat.3type.gz", "3type", "stat", "3type", "gz", true},
		{"Algorithm::Diff.3pm.gz", "3", "Algorithm::Diff", "3pm", "gz", true},
		{"tcl.n.gz", "n", "tcl", "n", "gz", true},
		{"wrong.8.gz", "1", "", "", "", false},
		{"README", "1", "", "", "", false},
		{".1.gz", "1", "", "", "", false},
		{"foo..gz", "1", "", "", "", false},
		{"junk.1.gz.dpkg-old", "1", "", "", "", false},
	} {
		name, sec, comp, ok := ParsePageName(tc.file, tc.dir)
		if name != tc.name || sec != tc.sec || comp != tc.comp || ok != tc.ok {
			t.Errorf("ParsePageName(%q, %q) = %q %q %q %v, want %q %q %q %v",
				tc.file, tc.dir, name, sec, comp, ok, tc.name, tc.sec, tc.comp, tc.ok)
		}
	}
}

func TestLookup(t *testing.T) {
	root1, root2 := manTree(t)
	ix, problems := buildIndex(t, []string{root1, root2, root1 + "/"}, IndexOptions{})
	if len(problems) != 0 {
		t.Errorf("problems: %v", problems)
	}
	for _, tc := range []struct{ name, path, sec, comp string }{
		{"foo", root1 + "/man1/foo.1.gz", "1", "gz"}, // 1 before 8, root1 before root2
		{"openssl-x509", root1 + "/man1/openssl-x509.1ssl.bz2", "1ssl", "bz2"},
		{"bar", root1 + "/man1/bar.1.xz", "1", "xz"}, // earlier root wins
		{"baz", root1 + "/man1/baz.1.zst", "1", "zst"},
		{"python3.11", root1 + "/man1/python3.11.1.gz", "1", "gz"},
		{"printf", root1 + "/man1/printf.1.gz", "1", "gz"}, // 1 over 3
		{"only8", root1 + "/man8/only8.8.gz", "8", "gz"},   // 8 over 3
		{"dup", root1 + "/man1/dup.1.gz", "1", "gz"},       // exact over suffixed
		{"x", root1 + "/man8/x.8.gz", "8", "gz"},           // section order beats exactness
		{"stat", root1 + "/man3type/stat.3type.gz", "3type", "gz"},
		{"only2", root2 + "/man1/only2.1.gz", "1", "gz"},
		{"link", root1 + "/man1/link.1.gz", "1", "gz"},     // symlinks are pages too
		{"onlyde", root1 + "/man1/onlyde.1.gz", "1", "gz"}, // no translations without Lang
	} {
		mp := ix.Lookup(tc.name)
		if mp == nil {
			t.Errorf("Lookup(%q) = nil", tc.name)
			continue
		}
		if want := (ManPage{Path: tc.path, Section: tc.sec, Compression: tc.comp}); *mp != want {
			t.Errorf("Lookup(%q) = %+v, want %+v", tc.name, *mp, want)
		}
	}
	for _, name := range []string{"README", "junk", "wrong", "subdir", "nothing", "loc"} {
		if mp := ix.Lookup(name); mp != nil {
			t.Errorf("Lookup(%q) = %+v, want nil", name, *mp)
		}
	}
	// The result is a copy.
	ix.Lookup("foo").Path = "changed"
	if ix.Lookup("foo").Path == "changed" {
		t.Error("Lookup returned a pointer into the index")
	}

	all := ix.All()
	if len(all) != ix.Len() {
		t.Errorf("len(All()) = %d, Len() = %d", len(all), ix.Len())
	}
	if !sort.SliceIsSorted(all, func(a, b int) bool { return all[a].Path < all[b].Path }) {
		t.Error("All() not sorted by path")
	}
	// 33 English pages in root1 (incl. link, gone) + 3 in root2; the
	// duplicate root and the strays (README, wrong.8.gz, ...) don't count.
	if ix.Len() != 36 {
		var paths []string
		for _, p := range all {
			paths = append(paths, p.Path)
		}
		t.Errorf("Len() = %d, want 36:\n%s", ix.Len(), strings.Join(paths, "\n"))
	}
}

func TestLookupLang(t *testing.T) {
	root1, root2 := manTree(t)
	ix, _ := buildIndex(t, []string{root1, root2}, IndexOptions{Lang: "de_DE.UTF-8"})
	for _, tc := range []struct{ name, path, lang string }{
		{"foo", root1 + "/de/man1/foo.1.gz", "de"},
		{"loc", root1 + "/de_DE/man1/loc.1.gz", "de_DE"}, // more specific locale first
		{"bar", root1 + "/man1/bar.1.xz", ""},            // English fallback
		{"onlyde", root1 + "/man1/onlyde.1.gz", ""},      // section order before language
	} {
		mp := ix.Lookup(tc.name)
		if mp == nil || mp.Path != tc.path || mp.Lang != tc.lang {
			t.Errorf("Lookup(%q) = %+v, want %s (lang %q)", tc.name, mp, tc.path, tc.lang)
		}
	}
	for _, p := range ix.All() {
		if strings.Contains(p.Path, "/fr/") {
			t.Errorf("French page %s indexed for Lang de", p.Path)
		}
	}

	ix, _ = buildIndex(t, []string{root1}, IndexOptions{Lang: "C"})
	if mp := ix.Lookup("foo"); mp == nil || mp.Path != root1+"/man1/foo.1.gz" {
		t.Errorf("Lang C: Lookup(foo) = %+v", mp)
	}
}

func TestLocaleDirs(t *testing.T) {
	for lang, want := range map[string][]string{
		"":            nil,
		"C":           nil,
		"C.UTF-8":     nil,
		"en":          nil,
		"en_US.UTF-8": nil,
		"de":          {"de_DE.UTF-8", "de_DE", "de"},
		"de_DE.UTF-8": {"de_DE.UTF-8", "de_DE", "de"},
		"pt_BR":       {"pt_BR.UTF-8", "pt_BR", "pt"},
		"sr_RS@latin": {"sr_RS@latin", "sr_RS.UTF-8", "sr_RS", "sr"},
	} {
		if got := localeDirs(lang); !reflect.DeepEqual(got, want) {
			t.Errorf("localeDirs(%q) = %q, want %q", lang, got, want)
		}
	}
}

func TestLookupSections(t *testing.T) {
	root1, _ := manTree(t)
	ix, _ := buildIndex(t, []string{root1}, IndexOptions{Sections: []string{"3", "8"}})
	if mp := ix.Lookup("printf"); mp == nil || mp.Section != "3" {
		t.Errorf("Sections 3,8: Lookup(printf) = %+v, want section 3", mp)
	}
	if mp := ix.Lookup("foo"); mp == nil || mp.Section != "8" {
		t.Errorf("Sections 3,8: Lookup(foo) = %+v, want section 8", mp)
	}
	if mp := ix.Lookup("bar"); mp != nil {
		t.Errorf("Sections 3,8: Lookup(bar) = %+v, want nil", mp)
	}
	if ix.Len() != 33 {
		t.Errorf("All() should list every section's pages: Len() = %d", ix.Len())
	}
}

func TestBuildManIndexProblems(t *testing.T) {
	root1, _ := manTree(t)
	missing := filepath.Join(t.TempDir(), "nope")
	ix, problems := buildIndex(t, []string{missing, root1}, IndexOptions{Lang: "de"})
	if !hasProblem(problems, missing, "does not exist") || len(problems) != 1 {
		t.Errorf("problems = %v, want one for %s", problems, missing)
	}
	if ix.Lookup("foo") == nil {
		t.Error("a missing root stopped the index")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, err := BuildManIndex(ctx, []string{root1}, IndexOptions{}); err == nil {
		t.Error("BuildManIndex with a cancelled context succeeded")
	}
}

func TestAttach(t *testing.T) {
	root1, _ := manTree(t)
	ix, _ := buildIndex(t, []string{root1}, IndexOptions{})
	cmds := []Command{{Name: "foo", Path: "/bin/foo"}, {Name: "nothing", Path: "/bin/nothing"}}
	Attach(cmds, ix)
	if cmds[0].Man == nil || cmds[0].Man.Path != root1+"/man1/foo.1.gz" {
		t.Errorf("foo.Man = %+v", cmds[0].Man)
	}
	if cmds[1].Man != nil {
		t.Errorf("nothing.Man = %+v, want nil", cmds[1].Man)
	}
	Attach(cmds, nil) // no index: no pages, no panic
	if cmds[0].Man != nil {
		t.Error("Attach(nil) kept a page")
	}
}

func TestTrimCompression(t *testing.T) {
	for _, tc := range []struct{ file, base, comp string }{
		{"grep.1.gz", "grep.1", "gz"},
		{"/usr/share/man/man1/xz.1.xz", "/usr/share/man/man1/xz.1", "xz"},
		{"a.1.bz2", "a.1", "bz2"}, {"a.1.zst", "a.1", "zst"}, {"old.1.Z", "old.1", "Z"},
		{"plain.1", "plain.1", ""}, {"a.1.z", "a.1.z", ""}, {"a.1.gz.bak", "a.1.gz.bak", ""},
		{"a.1.xz.gz", "a.1.xz", "gz"}, // one suffix only
	} {
		base, comp := TrimCompression(tc.file)
		if base != tc.base || comp != tc.comp {
			t.Errorf("TrimCompression(%q) = %q, %q; want %q, %q", tc.file, base, comp, tc.base, tc.comp)
		}
		if got := compressionOf(tc.file); got != tc.comp {
			t.Errorf("compressionOf(%q) = %q, want %q", tc.file, got, tc.comp)
		}
	}
}
