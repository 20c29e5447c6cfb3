package config

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// loadWithin runs Load with CMDAI_CONFIG=path and fails the test if it
// has not returned within a few seconds (it is left running then).
func loadWithin(t *testing.T, path string) error {
	t.Helper()
	done := make(chan error, 1)
	go func() {
		_, err := Load(env(map[string]string{EnvConfig: path, "HOME": t.TempDir()}))
		done <- err
	}()
	select {
	case err := <-done:
		return err
	case <-time.After(15 * time.Second):
		t.Fatalf("Load(%s) has not returned in 15 s", path)
		return nil
	}
}

// TestLoadRefusesAFIFO: a named pipe is refused at once, not waited on
// for a writer that never comes.
func TestLoadRefusesAFIFO(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config.yaml")
	if err := syscall.Mkfifo(path, 0o644); err != nil {
		t.Fatal(err)
	}
	err := loadWithin(t, path)
	if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "named pipe") || !strings.Contains(err.Error(), "unset "+EnvConfig) {
		t.Errorf("a FIFO: %v, want a refusal naming it, what it is and the way out", err)
	}
}

// TestLoadRefusesADevice: a symlink to /dev/zero is a character device,
// refused before a byte is read (it was read until the OOM killer came).
func TestLoadRefusesADevice(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config.yml")
	if err := os.Symlink("/dev/zero", path); err != nil {
		t.Fatal(err)
	}
	err := loadWithin(t, path)
	if err == nil || !strings.Contains(err.Error(), "character device") {
		t.Errorf("a symlink to /dev/zero: %v, want a refusal", err)
	}
}

// TestLoadRefusesALargeFile: a file over the cap is refused, even one
// that would parse (comments only).
func TestLoadRefusesALargeFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config.yaml")
	body := strings.Repeat("# a comment line of some length to fill the file\n", 2<<20/50)
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	err := loadWithin(t, path)
	if err == nil || !strings.Contains(err.Error(), "bytes, over the") {
		t.Errorf("a %d-byte file: %v, want a refusal", len(body), err)
	}
}

// TestParseRefusesDeepNesting: nesting past the cap, in each way YAML
// nests, is refused before the parser recurses into it; the 6 MB
// file nested 3M deep (TOML then) was a fatal stack overflow.
func TestParseRefusesDeepNesting(t *testing.T) {
	const n = 200_000
	yamlBlock := new(strings.Builder)
	for i := 0; i < 1000; i++ {
		yamlBlock.WriteString(strings.Repeat(" ", i) + "a:\n")
	}
	for name, tc := range map[string]struct{ file, body string }{
		"yaml flow":          {"c.yaml", "a: " + strings.Repeat("[", n) + strings.Repeat("]", n) + "\n"},
		"yaml flow mappings": {"c.yml", "a: " + strings.Repeat("{b: ", n) + "1" + strings.Repeat("}", n) + "\n"},
		"yaml blocks":        {"c.yaml", yamlBlock.String()},
		"yaml sequences":     {"c.yaml", "a:\n" + strings.Repeat("- ", n) + "x\n"},
		"the issue's probe":  {"c.yaml", "a: " + strings.Repeat("[", 3_000_000) + strings.Repeat("]", 3_000_000) + "\n"},
	} {
		_, err := Parse("/etc/cmdai/"+tc.file, []byte(tc.body))
		if err == nil || !strings.Contains(err.Error(), "levels deep") || !strings.Contains(err.Error(), "/etc/cmdai/"+tc.file) {
			t.Errorf("%s: %.300v, want a refusal of the nesting", name, err)
		}
	}
	// A TOML file is refused by its name, before a byte is looked at.
	deep := "a = " + strings.Repeat("[", 3_000_000) + strings.Repeat("]", 3_000_000) + "\n"
	if _, err := Parse("/etc/cmdai/c.toml", []byte(deep)); err == nil || !strings.Contains(err.Error(), "rename it to c.yaml") {
		t.Errorf("a deep TOML file: %.300v, want the way to convert it", err)
	}
	// A real file is far from the cap.
	if _, err := Parse("c.yaml", []byte("# settings\nchroma-url: http://chroma.internal:8000\nparallel: 4\n")); err != nil {
		t.Errorf("a plain file: %v", err)
	}
}
