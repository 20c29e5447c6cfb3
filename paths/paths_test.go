package paths

import (
	"path/filepath"
	"testing"
)

func env(m map[string]string) Env { return func(k string) string { return m[k] } }

func TestRoots(t *testing.T) {
	cases := []struct {
		env           map[string]string
		cache, config string
	}{
		{map[string]string{"HOME": "/home/u"}, "/home/u/.cache/cmdai", "/home/u/.config/cmdai"},
		{map[string]string{"HOME": "/home/u", "XDG_CACHE_HOME": "/xc", "XDG_CONFIG_HOME": "/xg"}, "/xc/cmdai", "/xg/cmdai"},
		// relative XDG values are invalid per the spec and ignored
		{map[string]string{"HOME": "/home/u", "XDG_CACHE_HOME": "rel"}, "/home/u/.cache/cmdai", "/home/u/.config/cmdai"},
		{map[string]string{"HOME": "/home/u", "XDG_CACHE_HOME": "/xc", "CMDAI_HOME": "/opt/cmdai"}, "/opt/cmdai", "/opt/cmdai/config"},
	}
	for _, c := range cases {
		cache, err := CacheRoot(env(c.env))
		if err != nil || cache != c.cache {
			t.Errorf("CacheRoot(%v) = %q, %v; want %q", c.env, cache, err, c.cache)
		}
		config, err := ConfigRoot(env(c.env))
		if err != nil || config != c.config {
			t.Errorf("ConfigRoot(%v) = %q, %v; want %q", c.env, config, err, c.config)
		}
	}
	d, _ := ModelDir(env(map[string]string{"HOME": "/h"}), "all-MiniLM-L6-v2")
	if d != filepath.FromSlash("/h/.cache/cmdai/embeddings/all-MiniLM-L6-v2") {
		t.Errorf("ModelDir = %q", d)
	}
}
