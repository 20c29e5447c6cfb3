package main

// Integration test of `index status` through a running serve whose
// environment differs from the caller's, with the real Chroma server and
// model.

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	answerlayer "github.com/cmdai/cmdai/answer"
	"github.com/cmdai/cmdai/config"
	"github.com/cmdai/cmdai/serve"
)

// TestStatusThroughServeUsesCallersPath: serve started with one $PATH
// (the index's commands), `index status` (plain, --json, --detailed)
// run with another (wobble installed, its page found through $MANPATH;
// frob and friends gone) prints through serve what --no-serve prints,
// and that differs from serve's own judgement; a caller without that
// $MANPATH gets its own answer too; concurrent requests with different
// environments each get theirs.
func TestStatusThroughServeUsesCallersPath(t *testing.T) {
	bin, _, _ := smallIndex(t)
	root := t.TempDir()
	otherBin, otherPages := filepath.Join(root, "bin"), filepath.Join(root, "pages")
	for _, d := range []string{otherBin, filepath.Join(otherPages, "man1")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	page, err := os.ReadFile(repoFile("manparse/testdata/wobble.1"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(otherBin, "wobble"), []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(otherPages, "man1", "wobble.1"), page, 0o644); err != nil {
		t.Fatal(err)
	}
	// serve's environment: the PATH the index was built from
	t.Setenv("PATH", bin)
	t.Setenv("MANPATH", "")
	childServe(t)
	socket, _ := config.ServeSocket(os.Getenv)
	c, err := serve.Dial(context.Background(), socket)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	servesOwn, err := c.StatusOf(context.Background(), answerlayer.StatusRequest{Detailed: true})
	if err != nil {
		t.Fatal(err)
	}

	// the caller's
	t.Setenv("PATH", otherBin)
	t.Setenv("MANPATH", ":"+otherPages)
	cmds := [][]string{
		{"index", "status", "--distro", "debian-12"},
		{"index", "status", "--distro", "debian-12", "--json"},
		{"index", "status", "--distro", "debian-12", "--detailed", "--json"},
		{"index", "status", "--distro", "debian-12", "--detailed"},
	}
	same := func(args []string) string {
		t.Helper()
		code, viaServe, errOut := runCLI(t, args...)
		code1, oneShot, errOut1 := runCLI(t, append(args, "--no-serve")...)
		viaServe, oneShot = chromaURL.ReplaceAllString(viaServe, "URL"), chromaURL.ReplaceAllString(oneShot, "URL")
		if code != 0 || code1 != 0 || viaServe != oneShot || errOut != errOut1 {
			t.Errorf("%q:\nvia serve exit %d\n%s%s\none-shot  exit %d\n%s%s", args, code, viaServe, errOut, code1, oneShot, errOut1)
		}
		return viaServe
	}
	for _, args := range cmds {
		same(args)
	}
	detailed := same(cmds[2])
	var st answerlayer.IndexStatus
	if err := json.Unmarshal([]byte(detailed), &st); err != nil {
		t.Fatalf("status --json: %v in %q", err, detailed)
	}
	names := staleNames(st)
	if !strings.Contains(names, "+wobble") || !strings.Contains(names, "-frob") {
		t.Errorf("the caller's staleness: %q; want +wobble (its page through $MANPATH) and -frob (not on its PATH)", names)
	}
	if own := staleNames(servesOwn); own == names || strings.Contains(own, "wobble") || strings.Contains(own, "-frob") {
		t.Errorf("serve's own staleness %q is the caller's %q: the test shows nothing", own, names)
	}

	// without that MANPATH wobble has no page: not counted, both ways
	t.Setenv("MANPATH", "")
	if out := same(cmds[2]); strings.Contains(out, "wobble") {
		t.Errorf("caller without MANPATH: %s; want no wobble", out)
	}

	// concurrent requests with different environments, each its own
	envs := []answerlayer.ScanEnv{{Path: otherBin, ManPath: ":" + otherPages}, {Path: bin}}
	want := make([]string, len(envs))
	for i := range envs {
		st, err := c.StatusOf(context.Background(), answerlayer.StatusRequest{Detailed: true, Env: &envs[i]})
		if err != nil {
			t.Fatal(err)
		}
		want[i] = staleNames(st)
	}
	if want[0] == want[1] {
		t.Fatalf("both environments give %q: the test shows nothing", want[0])
	}
	var wg sync.WaitGroup
	for n := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			i := n % len(envs)
			st, err := c.StatusOf(context.Background(), answerlayer.StatusRequest{Detailed: true, Env: &envs[i]})
			if got := staleNames(st); err != nil || !reflect.DeepEqual(got, want[i]) {
				t.Errorf("concurrent request %d (%+v): %q %v; want %q", n, envs[i], got, err, want[i])
			}
		}()
	}
	wg.Wait()
}

// staleNames lists the current index's stale commands ("+new -gone
// ~changed").
func staleNames(st answerlayer.IndexStatus) string {
	for _, c := range st.Collections {
		if c.Current && c.Stale != nil {
			return strings.Join(c.Stale.Names, " ")
		}
	}
	return ""
}
