// Package config says where cmdai keeps its files and how a setting
// resolves: command-line flag, then CMDAI_* environment variable, then
// the configuration file (config.yaml in the config root, or the file
// CMDAI_CONFIG names), then the default. Directories are
// XDG-aware: what the user built or installed (the index, the model)
// under the data root, what can be fetched or computed again (vectors,
// downloads) under the cache root; CMDAI_HOME (or the file's home) is
// both roots at once.
package config

import (
	"errors"
	"os"
	"path/filepath"
)

// Env reads environment variables; os.Getenv in production.
type Env func(string) string

// The names of cmdai's directories under its roots: named once here so
// that no other package spells a path of its own.
const (
	appDir       = "cmdai"      // under XDG_DATA_HOME, XDG_CACHE_HOME and XDG_CONFIG_HOME
	homeConfig   = "config"     // the config root under CMDAI_HOME
	embeddings   = "embeddings" // models, and the cache of their vectors
	vectorCache  = "cache"      // under embeddings
	chromaData   = "chroma"
	downloads    = "downloads"
	keywords     = "keywords"
	indexCopies  = "copies"
	userCommands = "commands"
	userHints    = "hints"
)

// CacheRoot is where cmdai's caches live (vectors already computed,
// downloads): $CMDAI_HOME, else the configuration file's home, else
// $XDG_CACHE_HOME/cmdai, else ~/.cache/cmdai. A configuration file that
// does not load is an error here too: its home might have said otherwise.
func CacheRoot(getenv Env) (string, error) {
	if h, ok, err := movedHome(getenv); ok || err != nil {
		return h, err
	}
	return xdgCacheRoot(getenv)
}

// DataRoot is where cmdai keeps what a cache cleaner must not delete:
// the index (the private Chroma server's data, the keyword indexes) and
// the installed model. $CMDAI_HOME, else the configuration file's home,
// else $XDG_DATA_HOME/cmdai, else ~/.local/share/cmdai. They used to
// live in the cache root: OldHome says what to bring over from there.
func DataRoot(getenv Env) (string, error) {
	if h, ok, err := movedHome(getenv); ok || err != nil {
		return h, err
	}
	return xdgDataRoot(getenv)
}

// movedHome is $CMDAI_HOME, else the configuration file's home: the one
// directory that then holds the data and the caches (ok false: neither
// is set).
func movedHome(getenv Env) (string, bool, error) {
	if h := getenv(EnvHome); h != "" {
		h, err := filepath.Abs(h)
		return h, true, err
	}
	f, err := Load(getenv)
	if err != nil {
		return "", false, err
	}
	if h, ok := f.Value(KeyHome); ok {
		return h.(string), true, nil
	}
	return "", false, nil
}

// xdgDataRoot is the data root by the XDG rules alone:
// $XDG_DATA_HOME/cmdai (absolute only, as the spec says), else
// ~/.local/share/cmdai.
func xdgDataRoot(getenv Env) (string, error) {
	if x := getenv("XDG_DATA_HOME"); x != "" && filepath.IsAbs(x) {
		return filepath.Join(x, appDir), nil
	}
	home, err := homeDir(getenv)
	if err != nil {
		return "", err
	}
	return filepath.Join(home, ".local", "share", appDir), nil
}

// xdgCacheRoot is the cache root by the XDG rules alone:
// $XDG_CACHE_HOME/cmdai, else ~/.cache/cmdai.
func xdgCacheRoot(getenv Env) (string, error) {
	if x := getenv("XDG_CACHE_HOME"); x != "" && filepath.IsAbs(x) {
		return filepath.Join(x, appDir), nil
	}
	home, err := homeDir(getenv)
	if err != nil {
		return "", err
	}
	return filepath.Join(home, ".cache", appDir), nil
}

// StateRoot is where cmdai keeps what it writes about itself (the log of
// a serve started in the background): $CMDAI_HOME, else the
// configuration file's home, else $XDG_STATE_HOME/cmdai, else
// ~/.local/state/cmdai.
func StateRoot(getenv Env) (string, error) {
	if h, ok, err := movedHome(getenv); ok || err != nil {
		return h, err
	}
	if x := getenv("XDG_STATE_HOME"); x != "" && filepath.IsAbs(x) {
		return filepath.Join(x, appDir), nil
	}
	home, err := homeDir(getenv)
	if err != nil {
		return "", err
	}
	return filepath.Join(home, ".local", "state", appDir), nil
}

// ConfigRoot is where the user's configuration lives: $CMDAI_HOME/config,
// else $XDG_CONFIG_HOME/cmdai, else ~/.config/cmdai. The configuration
// file's home does not move it: the file is found here.
func ConfigRoot(getenv Env) (string, error) {
	if h := getenv(EnvHome); h != "" {
		h, err := filepath.Abs(h)
		return filepath.Join(h, homeConfig), err
	}
	if x := getenv("XDG_CONFIG_HOME"); x != "" && filepath.IsAbs(x) {
		return filepath.Join(x, appDir), nil
	}
	home, err := homeDir(getenv)
	if err != nil {
		return "", err
	}
	return filepath.Join(home, ".config", appDir), nil
}

// ModelDir is where the named embedding model is installed (`cmdai model
// import` and `pull` write it there).
func ModelDir(getenv Env, model string) (string, error) {
	return underData(getenv, embeddings, model)
}

// EmbeddingCacheDir holds vectors already computed, per model.
func EmbeddingCacheDir(getenv Env) (string, error) {
	return underCache(getenv, embeddings, vectorCache)
}

// ChromaDir holds the data of the private Chroma server cmdai starts when
// no --chroma-url is given.
func ChromaDir(getenv Env) (string, error) {
	return underData(getenv, chromaData)
}

// DownloadDir holds index tarballs fetched by `cmdai index download`,
// partial ones included, so that a cut download resumes.
func DownloadDir(getenv Env) (string, error) {
	return underCache(getenv, downloads)
}

// KeywordDir holds the keyword (BM25) indexes built from collections,
// rebuilt when a collection changes.
func KeywordDir(getenv Env) (string, error) {
	return underData(getenv, keywords)
}

// CopyDir holds the sealed local copies of indexes kept while the
// private Chroma can be reached by other local users (ship.KeepCopy), from
// which an index deleted through it is put back (ship.Restore).
func CopyDir(getenv Env) (string, error) {
	return underData(getenv, indexCopies)
}

// CommandsDir holds the user's own Markdown command docs.
func CommandsDir(getenv Env) (string, error) {
	return underConfig(getenv, userCommands)
}

// DocDirs are the directories of the user's docs every build reads: the
// command docs (CommandsDir), then the hints.
func DocDirs(getenv Env) ([]string, error) {
	commands, err := CommandsDir(getenv)
	if err != nil {
		return nil, err
	}
	return []string{commands, filepath.Join(filepath.Dir(commands), userHints)}, nil
}

func underCache(getenv Env, elem ...string) (string, error) {
	root, err := CacheRoot(getenv)
	if err != nil {
		return "", err
	}
	return filepath.Join(append([]string{root}, elem...)...), nil
}

func underData(getenv Env, elem ...string) (string, error) {
	root, err := DataRoot(getenv)
	if err != nil {
		return "", err
	}
	return filepath.Join(append([]string{root}, elem...)...), nil
}

func underConfig(getenv Env, elem string) (string, error) {
	root, err := ConfigRoot(getenv)
	if err != nil {
		return "", err
	}
	return filepath.Join(root, elem), nil
}

func homeDir(getenv Env) (string, error) {
	if h := getenv("HOME"); h != "" {
		return h, nil
	}
	h, err := os.UserHomeDir()
	if err != nil || h == "" {
		return "", errors.New("cannot tell where to keep cmdai's files: set HOME or CMDAI_HOME")
	}
	return h, nil
}
