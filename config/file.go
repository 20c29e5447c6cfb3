package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// YAMLName is the configuration file's name in the config root;
// CMDAI_CONFIG may name any file ending in .yaml or .yml.
const YAMLName = "config.yaml"

// TOMLName is the file cmdai also read, as TOML, until one format was
// kept (issue #34: one file, one syntax, one parser to bound). It is
// still looked for, never read: its owner is told to convert it rather
// than have their settings silently ignored.
const TOMLName = "config.toml"

// formats maps a file extension to its parser.
var formats = map[string]func(data []byte) (map[string]rawValue, error){
	".yaml": parseYAML,
	".yml":  parseYAML,
}

// tomlExample is the conversion a TOML file needs, in one line: TOML's
// double-quoted strings, numbers and booleans read the same in YAML.
const tomlExample = `each "key = value" line becomes "key: value", e.g. chroma-url = "http://chroma.internal:8000" becomes chroma-url: "http://chroma.internal:8000"`

// rawValue is a parsed value before it is checked against its setting:
// what the format said, and where (line 0 when the format does not say).
type rawValue struct {
	text   string // a scalar as written
	isBool bool   // a boolean literal
	isNum  bool   // a number literal
	// other names what is not a scalar ("a list", "a table", "nothing");
	// "" for a scalar.
	other string
	line  int
}

// File is a loaded configuration file: checked values, by key.
type File struct {
	Path   string
	values map[string]any
}

// Find says which configuration file applies: the one CMDAI_CONFIG names,
// else config.yaml in the config root. It is "" when there is none (or
// no config root can be told: nothing to read then, as before files
// existed). A TOML file, named or in the root, is an error saying how to
// convert it: skipping it would drop its settings without a word.
func Find(getenv Env) (string, error) {
	if p := getenv(EnvConfig); p != "" {
		if err := checkFormat(p); err != nil {
			return "", fmt.Errorf("%s=%s: %w and point %s at it", EnvConfig, p, err, EnvConfig)
		}
		return p, nil
	}
	root, err := ConfigRoot(getenv)
	if err != nil {
		return "", nil
	}
	yamlPath, tomlPath := filepath.Join(root, YAMLName), filepath.Join(root, TOMLName)
	hasYAML, err := exists(yamlPath)
	if err != nil {
		return "", err
	}
	hasTOML, err := exists(tomlPath)
	switch {
	case err != nil:
		return "", err
	case hasTOML && hasYAML:
		return "", fmt.Errorf("configuration file %s: cmdai reads its settings from %s only, in YAML; move any setting %s holds into %s (%s) and remove %s", tomlPath, yamlPath, TOMLName, YAMLName, tomlExample, tomlPath)
	case hasTOML:
		return "", fmt.Errorf("configuration file %s: %w", tomlPath, checkFormat(tomlPath))
	case hasYAML:
		return yamlPath, nil
	}
	return "", nil
}

// exists says whether something is at path; an error other than "not
// there" (a permission, a dead mount) is the configuration's error.
func exists(path string) (bool, error) {
	_, err := os.Stat(path)
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, fs.ErrNotExist):
		return false, nil
	}
	return false, fmt.Errorf("configuration file %s: %w", path, err)
}

// checkFormat says what to do with a file cmdai cannot read by its
// extension; nil for YAML.
func checkFormat(path string) error {
	ext := filepath.Ext(path)
	if _, ok := formats[ext]; ok {
		return nil
	}
	if ext == ".toml" {
		yamlName := strings.TrimSuffix(filepath.Base(path), ext) + ".yaml"
		return fmt.Errorf("cmdai reads its settings from YAML only; rename it to %s with YAML syntax (%s)", yamlName, tomlExample)
	}
	return errors.New("a configuration file is YAML (.yaml, .yml); rename it")
}

// Load finds the configuration file (see Find) and reads it. With no
// file it returns an empty File: every lookup falls through to the
// default. Every problem is an error naming the file and the fix: a
// setting silently ignored would be worse than none.
func Load(getenv Env) (*File, error) {
	p, err := Find(getenv)
	if err != nil || p == "" {
		return &File{}, err
	}
	data, err := readFile(p)
	if err != nil {
		if getenv(EnvConfig) != "" {
			return nil, fmt.Errorf("%s=%s: %w (fix the path, or unset %s)", EnvConfig, p, err, EnvConfig)
		}
		return nil, fmt.Errorf("configuration file %s: %w (make it a regular file of settings, or move it away to use the defaults)", p, err)
	}
	return Parse(p, data)
}

// Parse checks data, the content of configuration file path (its
// extension says the format), against Settings.
func Parse(path string, data []byte) (*File, error) {
	if err := checkFormat(path); err != nil {
		return nil, fmt.Errorf("configuration file %s: %w", path, err)
	}
	parse := formats[filepath.Ext(path)]
	// Bounded before the parser sees a byte: it recurses per level.
	if d := nestingDepth(data); d > MaxDepth {
		return nil, fmt.Errorf("configuration file %s nests %d levels deep, over the %d cmdai reads: its settings are flat \"key: value\" lines (fix it, or move it away to use the defaults)", path, d, MaxDepth)
	}
	if len(data) > MaxFileSize {
		return nil, fmt.Errorf("configuration file %s is %d bytes, over the %d a configuration file may have (its settings take a few lines)", path, len(data), MaxFileSize)
	}
	raw, err := parse(data)
	if err != nil {
		return nil, fmt.Errorf("configuration file %s does not parse: %w (fix it, or move it away to use the defaults)", path, err)
	}
	f := &File{Path: path, values: make(map[string]any, len(raw))}
	for key, rv := range raw {
		s, ok := lookupSetting(key)
		if !ok {
			return nil, fmt.Errorf("configuration file %s%s: unknown key %q (the keys are %s; see \"cmdai --help\")", path, at(rv.line), key, keyList())
		}
		v, err := s.check(rv)
		if err != nil {
			return nil, fmt.Errorf("configuration file %s%s: %s: %w", path, at(rv.line), key, err)
		}
		f.values[key] = v
	}
	return f, nil
}

func at(line int) string {
	if line == 0 {
		return ""
	}
	return fmt.Sprintf(":%d", line)
}

// check converts rv to the setting's kind.
func (s Setting) check(rv rawValue) (any, error) {
	if rv.other != "" {
		return nil, fmt.Errorf("wants %s, not %s", s.Kind, rv.other)
	}
	switch s.Kind {
	case Bool:
		b, err := strconv.ParseBool(strings.ToLower(rv.text))
		if err != nil || !rv.isBool {
			return nil, fmt.Errorf("wants %s, not %q", s.Kind, rv.text)
		}
		return b, nil
	case Int:
		n, err := strconv.Atoi(rv.text)
		if err != nil || !rv.isNum {
			return nil, fmt.Errorf("wants %s, not %q", s.Kind, rv.text)
		}
		return n, nil
	case Duration:
		d, err := time.ParseDuration(rv.text)
		if err != nil || rv.isNum || rv.isBool {
			return nil, fmt.Errorf("wants %s, not %q", s.Kind, rv.text)
		}
		return d, nil
	}
	if rv.isBool {
		return nil, fmt.Errorf("wants %s, not %s (quote it if you mean the text)", s.Kind, rv.text)
	}
	if strings.TrimSpace(rv.text) == "" {
		return nil, fmt.Errorf("wants %s, not an empty one (remove the line for the default)", s.Kind)
	}
	if s.Path && !filepath.IsAbs(rv.text) {
		return nil, fmt.Errorf("%q is not an absolute path: the file is read from any working directory", rv.text)
	}
	return rv.text, nil
}

// Value is the file's value for key, of the Go type its Kind says; ok is
// false when the file does not set it. A nil File sets nothing.
func (f *File) Value(key string) (v any, ok bool) {
	if f == nil {
		return nil, false
	}
	v, ok = f.values[key]
	return v, ok
}

// Fallback is the file's place in the order flag > CMDAI_* env > file >
// default: the value it gives the setting of environment variable env
// when neither the command line nor the environment set it (set false).
func (f *File) Fallback(env string, set bool) (v any, ok bool) {
	if set {
		return nil, false
	}
	return f.Value(KeyFor(env))
}
