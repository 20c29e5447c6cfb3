package config

import (
	"path/filepath"
	"strings"
	"testing"
)

func env(m map[string]string) Env { return func(k string) string { return m[k] } }

func TestRoots(t *testing.T) {
	cases := []struct {
		env                 map[string]string
		data, cache, config string
	}{
		{map[string]string{"HOME": "/home/u"}, "/home/u/.local/share/cmdai", "/home/u/.cache/cmdai", "/home/u/.config/cmdai"},
		{map[string]string{"HOME": "/home/u", "XDG_DATA_HOME": "/xd", "XDG_CACHE_HOME": "/xc", "XDG_CONFIG_HOME": "/xg"}, "/xd/cmdai", "/xc/cmdai", "/xg/cmdai"},
		// relative XDG values are invalid per the spec and ignored
		{map[string]string{"HOME": "/home/u", "XDG_DATA_HOME": "rel", "XDG_CACHE_HOME": "rel"}, "/home/u/.local/share/cmdai", "/home/u/.cache/cmdai", "/home/u/.config/cmdai"},
		{map[string]string{"HOME": "/home/u", "XDG_DATA_HOME": "/xd", "XDG_CACHE_HOME": "/xc", "CMDAI_HOME": "/opt/cmdai"}, "/opt/cmdai", "/opt/cmdai", "/opt/cmdai/config"},
	}
	for _, c := range cases {
		data, err := DataRoot(env(c.env))
		if err != nil || data != c.data {
			t.Errorf("DataRoot(%v) = %q, %v; want %q", c.env, data, err, c.data)
		}
		cache, err := CacheRoot(env(c.env))
		if err != nil || cache != c.cache {
			t.Errorf("CacheRoot(%v) = %q, %v; want %q", c.env, cache, err, c.cache)
		}
		config, err := ConfigRoot(env(c.env))
		if err != nil || config != c.config {
			t.Errorf("ConfigRoot(%v) = %q, %v; want %q", c.env, config, err, c.config)
		}
	}
	for _, c := range []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"HOME": "/home/u"}, "/home/u/.local/state/cmdai/serve.log"},
		{map[string]string{"HOME": "/home/u", "XDG_STATE_HOME": "/xs"}, "/xs/cmdai/serve.log"},
		{map[string]string{"HOME": "/home/u", "XDG_STATE_HOME": "rel"}, "/home/u/.local/state/cmdai/serve.log"},
		{map[string]string{"HOME": "/home/u", "XDG_STATE_HOME": "/xs", "CMDAI_HOME": "/opt/cmdai"}, "/opt/cmdai/serve.log"},
	} {
		if got, err := ServeLogFile(env(c.env)); err != nil || got != c.want {
			t.Errorf("ServeLogFile(%v) = %q, %v; want %q", c.env, got, err, c.want)
		}
	}
	d, _ := ModelDir(env(map[string]string{"HOME": "/h"}), "all-MiniLM-L6-v2")
	if d != filepath.FromSlash("/h/.local/share/cmdai/embeddings/all-MiniLM-L6-v2") {
		t.Errorf("ModelDir = %q", d)
	}
}

// The data root: CMDAI_HOME > the configuration file's home > XDG > HOME.
// The file's home moves the cache, not the config root it is found in.
func TestHomeFromFile(t *testing.T) {
	getenv, dir := home(t, map[string]string{YAMLName: "home: /srv/cmdai\n"})
	cache, err := CacheRoot(getenv)
	if err != nil || cache != "/srv/cmdai" {
		t.Errorf("file home: CacheRoot = %q, %v", cache, err)
	}
	if d, _ := ChromaDir(getenv); d != "/srv/cmdai/chroma" {
		t.Errorf("file home: ChromaDir = %q", d)
	}
	if d, _ := DataRoot(getenv); d != "/srv/cmdai" {
		t.Errorf("file home: DataRoot = %q", d)
	}
	if c, _ := CommandsDir(getenv); c != filepath.Join(dir, "commands") {
		t.Errorf("file home: CommandsDir = %q; want it beside the file", c)
	}
	withEnv := func(k string) string {
		if k == EnvHome {
			return "/opt/cmdai"
		}
		return getenv(k)
	}
	if cache, _ := CacheRoot(withEnv); cache != "/opt/cmdai" {
		t.Errorf("CMDAI_HOME and file home: CacheRoot = %q; want the environment's", cache)
	}
	// A file that does not load is an error, not a silent default.
	bad, _ := home(t, map[string]string{YAMLName: "home: relative\n"})
	if _, err := CacheRoot(bad); err == nil || !strings.Contains(err.Error(), "absolute") {
		t.Errorf("bad file: CacheRoot error = %v", err)
	}
}

// Every directory under its root, by name.
func TestDirs(t *testing.T) {
	getenv := env(map[string]string{"HOME": "/h"})
	for _, c := range []struct {
		f    func(Env) (string, error)
		want string
	}{
		{EmbeddingCacheDir, "/h/.cache/cmdai/embeddings/cache"},
		{ChromaDir, "/h/.local/share/cmdai/chroma"},
		{DownloadDir, "/h/.cache/cmdai/downloads"},
		{KeywordDir, "/h/.local/share/cmdai/keywords"},
		{CommandsDir, "/h/.config/cmdai/commands"},
	} {
		if got, err := c.f(getenv); err != nil || got != filepath.FromSlash(c.want) {
			t.Errorf("got %q, %v; want %s", got, err, c.want)
		}
	}
	docs, err := DocDirs(getenv)
	if err != nil || len(docs) != 2 || docs[0] != filepath.FromSlash("/h/.config/cmdai/commands") || docs[1] != filepath.FromSlash("/h/.config/cmdai/hints") {
		t.Errorf("DocDirs = %q, %v", docs, err)
	}
}
