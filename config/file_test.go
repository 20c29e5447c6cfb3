package config

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// home makes a HOME with the given files under ~/.config/cmdai.
func home(t *testing.T, files map[string]string) (Env, string) {
	t.Helper()
	h := t.TempDir()
	dir := filepath.Join(h, ".config", "cmdai")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return env(map[string]string{"HOME": h}), dir
}

func TestFind(t *testing.T) {
	getenv, _ := home(t, nil)
	if p, err := Find(getenv); p != "" || err != nil {
		t.Errorf("no file: Find = %q, %v; want none", p, err)
	}
	getenv, dir := home(t, map[string]string{YAMLName: ""})
	if p, err := Find(getenv); p != filepath.Join(dir, YAMLName) || err != nil {
		t.Errorf("Find = %q, %v; want %s", p, err, YAMLName)
	}
	// No home at all: nothing to read, as before configuration files
	// existed, rather than an error for commands that need no directory.
	t.Setenv("HOME", "")
	if p, err := Find(env(nil)); p != "" || err != nil {
		t.Errorf("no config root: Find = %q, %v; want none", p, err)
	}
}

// TestFindRefusesTOML: a config.toml (read until cmdai kept one format)
// is never skipped in silence: alone, it is an error naming it and the
// conversion; beside a config.yaml, one saying to merge and remove it.
func TestFindRefusesTOML(t *testing.T) {
	getenv, dir := home(t, map[string]string{TOMLName: "json = true\n"})
	_, err := Find(getenv)
	for _, want := range []string{filepath.Join(dir, TOMLName), "YAML only", "rename it to config.yaml with YAML syntax",
		`chroma-url = "http://chroma.internal:8000" becomes chroma-url: "http://chroma.internal:8000"`} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("only config.toml: Find error = %v; want one with %q", err, want)
		}
	}
	if _, err := Load(getenv); err == nil {
		t.Error("only config.toml: Load read it or skipped it")
	}
	getenv, dir = home(t, map[string]string{YAMLName: "json: true\n", TOMLName: "json = true\n"})
	_, err = Find(getenv)
	for _, want := range []string{filepath.Join(dir, TOMLName), filepath.Join(dir, YAMLName), "move any setting", "remove " + filepath.Join(dir, TOMLName), "becomes"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("config.yaml and config.toml: Find error = %v; want one with %q", err, want)
		}
	}
}

func TestCMDAIConfigNamesTheFile(t *testing.T) {
	getenv, dir := home(t, map[string]string{YAMLName: "json: true\n", TOMLName: "json = true\n"})
	other := filepath.Join(t.TempDir(), "team.yml")
	if err := os.WriteFile(other, []byte("distro: debian-12\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	with := func(p string) Env {
		return func(k string) string {
			if k == EnvConfig {
				return p
			}
			return getenv(k)
		}
	}
	// Named, it is the only file read: the two in the root (an error
	// otherwise) are not looked at.
	f, err := Load(with(other))
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := f.Value("distro"); v != "debian-12" || f.Path != other {
		t.Errorf("CMDAI_CONFIG file: distro = %v from %s", v, f.Path)
	}
	if _, ok := f.Value("json"); ok {
		t.Error("CMDAI_CONFIG file: json read from the config root's file too")
	}
	missing := filepath.Join(dir, "nope.yaml")
	if _, err := Load(with(missing)); err == nil || !strings.Contains(err.Error(), "CMDAI_CONFIG="+missing) || !strings.Contains(err.Error(), "unset CMDAI_CONFIG") {
		t.Errorf("CMDAI_CONFIG naming no file: %v", err)
	}
	if _, err := Load(with(filepath.Join(dir, "config.json"))); err == nil || !strings.Contains(err.Error(), "YAML (.yaml, .yml); rename it and point CMDAI_CONFIG at it") {
		t.Errorf("CMDAI_CONFIG naming a .json: %v", err)
	}
	// A TOML file, which parses, is refused by its name with the way to
	// convert it, whether it exists or not.
	team := filepath.Join(t.TempDir(), "team.toml")
	if err := os.WriteFile(team, []byte("distro = \"debian-12\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{team, filepath.Join(dir, "gone.toml")} {
		_, err := Load(with(p))
		for _, want := range []string{"CMDAI_CONFIG=" + p, "rename it to " + strings.TrimSuffix(filepath.Base(p), ".toml") + ".yaml with YAML syntax", "becomes", "point CMDAI_CONFIG at it"} {
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("CMDAI_CONFIG naming %s: %v; want an error with %q", p, err, want)
			}
		}
	}
}

// The settings load to typed values, from .yaml and .yml alike; what the
// TOML conversion gives (quoted text, "key: value") reads the same.
func TestParseYAML(t *testing.T) {
	yamlDoc := `# team defaults
chroma-url: http://chroma.internal:8000
chroma-database: 2024   # a number is text where text is wanted
json: true
parallel: 4
idle-timeout: 90s
home: /srv/cmdai
`
	converted := `# team defaults, once TOML: each " = " became ": "
chroma-url: "http://chroma.internal:8000"
chroma-database: "2024"
json: true
parallel: 4
idle-timeout: "90s"
home: "/srv/cmdai"
`
	want := map[string]any{
		"chroma-url":      "http://chroma.internal:8000",
		"chroma-database": "2024",
		"json":            true,
		"parallel":        4,
		"idle-timeout":    90 * time.Second,
		"home":            "/srv/cmdai",
	}
	for name, doc := range map[string]string{"c.yaml": yamlDoc, "c.yml": yamlDoc, "converted.yaml": converted} {
		f, err := Parse(name, []byte(doc))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !reflect.DeepEqual(f.values, want) {
			t.Errorf("%s: %#v\nwant %#v", name, f.values, want)
		}
	}
	f, err := Parse("c.yaml", []byte("# nothing set yet\n"))
	if err != nil || len(f.values) != 0 {
		t.Errorf("a file with only a comment: %v, %v", f.values, err)
	}
	if _, err := Parse("c.toml", []byte("json = true\n")); err == nil || !strings.Contains(err.Error(), "rename it to c.yaml") {
		t.Errorf("Parse of a .toml: %v; want the way to convert it", err)
	}
}

// Every mistake is an error naming the file (and the line), the key and
// what to write instead.
func TestParseErrors(t *testing.T) {
	cases := []struct {
		name, doc string
		want      []string
	}{
		{"c.yaml", "chroma-ulr: http://x\n", []string{"c.yaml:1", `unknown key "chroma-ulr"`, "chroma-url"}},
		{"c.yml", "chroma_url: http://x\n", []string{"c.yml:1", `unknown key "chroma_url"`}},
		{"c.yaml", "json: yes\n", []string{"c.yaml:1", "json: wants true or false", `"yes"`}},
		{"c.yaml", "json: \"true\"\n", []string{"json: wants true or false"}},
		{"c.yaml", "\nparallel: four\n", []string{"c.yaml:2", "parallel: wants a whole number", `"four"`}},
		{"c.yaml", "parallel: 2.5\n", []string{"parallel: wants a whole number"}},
		{"c.yaml", "parallel: \"4\"\n", []string{"parallel: wants a whole number"}},
		{"c.yaml", "idle-timeout: 30\n", []string{"idle-timeout: wants a duration", `"30s"`}},
		{"c.yaml", "idle-timeout: soon\n", []string{"idle-timeout: wants a duration"}},
		{"c.yaml", "idle-timeout: 00:00:30\n", []string{"idle-timeout: wants a duration", `"00:00:30"`}},
		{"c.yaml", "distro: true\n", []string{"distro: wants text", "quote it"}},
		{"c.yaml", "distro: \"\"\n", []string{"distro: wants text, not an empty one", "remove the line"}},
		{"c.yaml", "distro:\n", []string{"distro: wants text, not nothing"}},
		{"c.yaml", "distro: [a, b]\n", []string{"distro: wants text, not a list"}},
		{"c.yaml", "distro:\n  id: x\n", []string{"distro: wants text, not a table"}},
		{"c.yaml", "chroma-data: data/chroma\n", []string{"chroma-data", `"data/chroma" is not an absolute path`}},
		{"c.yaml", "json: true\njson: false\n", []string{"c.yaml does not parse", "line 2: json is set twice"}},
		{"c.yaml", "- json\n", []string{"c.yaml does not parse", "key: value"}},
		{"c.yaml", "json: [true\n", []string{"c.yaml does not parse", "move it away to use the defaults"}},
		{"c.yaml", "json = true\n", []string{"c.yaml does not parse", "key: value"}},
	}
	for _, c := range cases {
		_, err := Parse(c.name, []byte(c.doc))
		if err == nil {
			t.Errorf("%s %q: no error", c.name, c.doc)
			continue
		}
		for _, w := range append(c.want, "configuration file "+c.name) {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s %q: error %q lacks %q", c.name, c.doc, err, w)
			}
		}
	}
}

// The order flag > CMDAI_* env > file > default: the file speaks only
// when the command line and the environment did not.
func TestFallback(t *testing.T) {
	f, err := Parse("c.yaml", []byte("chroma-url: http://file:1\n"))
	if err != nil {
		t.Fatal(err)
	}
	if v, ok := f.Fallback("CMDAI_CHROMA_URL", false); !ok || v != "http://file:1" {
		t.Errorf("unset: %v, %v; want the file's", v, ok)
	}
	if v, ok := f.Fallback("CMDAI_CHROMA_URL", true); ok {
		t.Errorf("set by flag or env: file gave %v", v)
	}
	if v, ok := f.Fallback("CMDAI_DISTRO", false); ok {
		t.Errorf("not in the file: %v", v)
	}
	var none *File
	if v, ok := none.Fallback("CMDAI_CHROMA_URL", false); ok {
		t.Errorf("no file: %v", v)
	}
}

func TestKeys(t *testing.T) {
	seen := map[string]bool{}
	for _, s := range Settings {
		if !strings.HasPrefix(s.Env, "CMDAI_") || seen[s.Key()] {
			t.Errorf("setting %s: not CMDAI_* or twice", s.Env)
		}
		seen[s.Key()] = true
	}
	if k := KeyFor("CMDAI_CHROMA_TOKEN_HEADER"); k != "chroma-token-header" {
		t.Errorf("KeyFor = %q", k)
	}
	if !seen[KeyHome] || KeyFor(EnvHome) != KeyHome {
		t.Errorf("home is not a key")
	}
}
