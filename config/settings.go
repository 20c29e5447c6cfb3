package config

import (
	"slices"
	"strings"
)

// Kind is the type of a setting's value, which the configuration file
// must match.
type Kind int

// The kinds, and the Go type File.Value returns for each.
const (
	String   Kind = iota // string
	Bool                 // bool
	Int                  // int
	Duration             // time.Duration, written "30s", "2m"
)

func (k Kind) String() string {
	switch k {
	case Bool:
		return "true or false"
	case Int:
		return "a whole number"
	case Duration:
		return `a duration such as "30s" or "2m"`
	}
	return "text"
}

// Setting is one thing a user can set with a CMDAI_* environment
// variable and, under its key, in the configuration file.
type Setting struct {
	Env  string // CMDAI_CHROMA_URL
	Kind Kind
	// Path marks a file or directory: the configuration file must give it
	// absolute, as it is read from any working directory.
	Path bool
}

// Key is the setting's name in the configuration file: the variable's
// name without CMDAI_, lowercased, "_" -> "-" (chroma-url).
func (s Setting) Key() string { return KeyFor(s.Env) }

// KeyFor is the configuration key of environment variable env.
func KeyFor(env string) string {
	return strings.ReplaceAll(strings.ToLower(strings.TrimPrefix(env, envPrefix)), "_", "-")
}

const envPrefix = "CMDAI_"

// EnvHome moves every directory cmdai uses (KeyHome in the file moves the
// data and the caches only: the file itself is found in the config root).
const (
	EnvHome = "CMDAI_HOME"
	KeyHome = "home"
)

// EnvConfig names the configuration file to read instead of the config
// root's config.yaml.
const EnvConfig = "CMDAI_CONFIG"

// Settings are the keys the configuration file may hold: every CMDAI_*
// variable of a command-line flag, and the data root. A flag's variable
// missing here is caught by cmd/cmdai's tests.
var Settings = []Setting{
	{Env: EnvHome, Kind: String, Path: true},
	{Env: "CMDAI_BATCH_MODE", Kind: Bool},
	{Env: "CMDAI_JSON", Kind: Bool},
	{Env: "CMDAI_DISTRO", Kind: String},
	{Env: "CMDAI_LANG", Kind: String},
	{Env: "CMDAI_HELP_FALLBACK", Kind: Bool},
	{Env: "CMDAI_PARALLEL", Kind: Int},
	{Env: "CMDAI_EMBED_WORKERS", Kind: Int},
	{Env: "CMDAI_PROSE_BUDGET", Kind: Int},
	{Env: "CMDAI_EMBED_TOKENS", Kind: Int},
	{Env: "CMDAI_QUERY_MODE", Kind: String},
	{Env: "CMDAI_MODEL_DIR", Kind: String, Path: true},
	{Env: "CMDAI_MODEL_VARIANT", Kind: String},
	{Env: "CMDAI_EMBED_BACKEND", Kind: String},
	{Env: "CMDAI_RERANKER_DIR", Kind: String, Path: true},
	{Env: "CMDAI_NO_RERANK", Kind: Bool},
	{Env: "CMDAI_MODEL_URL", Kind: String},
	{Env: "CMDAI_RELEASE_URL", Kind: String},
	{Env: "CMDAI_STALL_TIMEOUT", Kind: Duration},
	{Env: "CMDAI_IDLE_TIMEOUT", Kind: Duration}, // deprecated: CMDAI_STALL_TIMEOUT
	{Env: "CMDAI_RELEASE_PUBLIC_KEY", Kind: String},
	{Env: "CMDAI_NO_SERVE", Kind: Bool},
	{Env: "CMDAI_AUTO_SERVE", Kind: Bool},
	{Env: "CMDAI_AUTO_SERVE_IDLE", Kind: Duration},
	{Env: "CMDAI_SOCKET", Kind: String, Path: true},
	{Env: "CMDAI_CHROMA_URL", Kind: String},
	{Env: "CMDAI_CHROMA_TENANT", Kind: String},
	{Env: "CMDAI_CHROMA_DATABASE", Kind: String},
	{Env: "CMDAI_CHROMA_TOKEN", Kind: String},
	{Env: "CMDAI_CHROMA_TOKEN_HEADER", Kind: String},
	{Env: "CMDAI_CHROMA_BIN", Kind: String, Path: true},
	{Env: "CMDAI_CHROMA_DATA", Kind: String, Path: true},
}

// lookupSetting finds the setting of a configuration key.
func lookupSetting(key string) (Setting, bool) {
	i := slices.IndexFunc(Settings, func(s Setting) bool { return s.Key() == key })
	if i < 0 {
		return Setting{}, false
	}
	return Settings[i], true
}

// keyList is every key, for an error naming an unknown one.
func keyList() string {
	keys := make([]string, len(Settings))
	for i, s := range Settings {
		keys[i] = s.Key()
	}
	slices.Sort(keys)
	return strings.Join(keys, ", ")
}
