// Package paths says where cmdai keeps its files: the cache (models,
// Chroma data, downloaded indexes) and the configuration, XDG-aware, with
// CMDAI_HOME overriding the root.
package paths

import (
	"errors"
	"os"
	"path/filepath"
)

// Env reads environment variables; os.Getenv in production.
type Env func(string) string

// CacheRoot is where cmdai's cache lives: $CMDAI_HOME, else
// $XDG_CACHE_HOME/cmdai, else ~/.cache/cmdai.
func CacheRoot(getenv Env) (string, error) {
	if h := getenv("CMDAI_HOME"); h != "" {
		return filepath.Abs(h)
	}
	if x := getenv("XDG_CACHE_HOME"); x != "" && filepath.IsAbs(x) {
		return filepath.Join(x, "cmdai"), nil
	}
	home, err := homeDir(getenv)
	if err != nil {
		return "", err
	}
	return filepath.Join(home, ".cache", "cmdai"), nil
}

// ConfigRoot is where the user's configuration lives: $CMDAI_HOME/config,
// else $XDG_CONFIG_HOME/cmdai, else ~/.config/cmdai.
func ConfigRoot(getenv Env) (string, error) {
	if h := getenv("CMDAI_HOME"); h != "" {
		h, err := filepath.Abs(h)
		return filepath.Join(h, "config"), err
	}
	if x := getenv("XDG_CONFIG_HOME"); x != "" && filepath.IsAbs(x) {
		return filepath.Join(x, "cmdai"), nil
	}
	home, err := homeDir(getenv)
	if err != nil {
		return "", err
	}
	return filepath.Join(home, ".config", "cmdai"), nil
}

// ModelDir is where the named embedding model is installed.
func ModelDir(getenv Env, model string) (string, error) {
	root, err := CacheRoot(getenv)
	if err != nil {
		return "", err
	}
	return filepath.Join(root, "embeddings", model), nil
}

// EmbeddingCacheDir holds vectors already computed, per model.
func EmbeddingCacheDir(getenv Env) (string, error) {
	root, err := CacheRoot(getenv)
	if err != nil {
		return "", err
	}
	return filepath.Join(root, "embeddings", "cache"), nil
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

// ChromaDir holds the data of the private Chroma server cmdai starts when
// no --chroma-url is given.
func ChromaDir(getenv Env) (string, error) {
	root, err := CacheRoot(getenv)
	if err != nil {
		return "", err
	}
	return filepath.Join(root, "chroma"), nil
}

// DownloadDir holds index tarballs fetched by `cmdai index download`,
// partial ones included, so that a cut download resumes.
func DownloadDir(getenv Env) (string, error) {
	root, err := CacheRoot(getenv)
	if err != nil {
		return "", err
	}
	return filepath.Join(root, "downloads"), nil
}
