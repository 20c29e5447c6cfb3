package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cmdai/cmdai/builder"
	"github.com/cmdai/cmdai/cmd/cmdai/internal/cmdutil"
	"github.com/cmdai/cmdai/cmd/cmdai/internal/index/initcmd"
	"github.com/cmdai/cmdai/cmd/cmdai/internal/index/scancmd"
	"github.com/cmdai/cmdai/cmd/cmdai/internal/index/statuscmd"
)

// badPages adds to fakeMachine's two commands a page of pages we have
// never seen: twodesc, whose DESCRIPTION comes twice (it used to panic the
// chunker and take init and scan down, leaving the index INCOMPLETE), and
// broken, whose page is not roff at all.
func badPages(t *testing.T) (bin, man string) {
	t.Helper()
	bin, man, _ = fakeMachine(t)
	src, err := os.ReadFile(repoFile("manparse/testdata/twodesc.1"))
	if err != nil {
		t.Fatal(err)
	}
	for name, page := range map[string][]byte{"twodesc": src, "broken": []byte("just some text, no roff at all\n")} {
		if err := os.WriteFile(filepath.Join(bin, name), []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(man, "man1", name+".1"), page, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return bin, man
}

func TestScanGoesOnPastBadPages(t *testing.T) {
	bin, man := badPages(t)
	io, out, _ := testIO()
	opts := &scancmd.ScanOptions{Factory: cmdutil.NewFactory(io, nil, ""), PathDirs: []string{bin}, ManPath: []string{man}, Distro: "debian-12", BatchMode: true, JSON: true, Stats: true}
	if err := scancmd.RunScan(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	objs := decodeLines(t, out.String())
	byName := map[string]map[string]any{}
	for _, o := range objs {
		if o["type"] == "command" {
			byName[o["command"].(string)] = o
		}
	}
	if o := byName["twodesc"]; o["status"] != "parsed" || len(o["chunks"].([]any)) == 0 {
		t.Errorf("twodesc: %v", o)
	}
	if o := byName["broken"]; o["status"] != "failed" || !strings.Contains(o["error"].(string), "not a man page") {
		t.Errorf("broken: the failed result with its error: %v", o)
	}
	if byName["frob"]["status"] != "parsed" {
		t.Errorf("frob: %v", byName["frob"])
	}
	st := objs[len(objs)-1]
	if st["type"] != "stats" || st["failed_count"].(float64) != 1 || st["parsed"].(float64) != 2 {
		t.Errorf("stats: %v", st)
	}

	// the table says which failed, and a line says why
	io, out, _ = testIO()
	opts.IO, opts.JSON, opts.Stats = io, false, false
	if err := scancmd.RunScan(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "failed: broken (") || !strings.Contains(out.String(), "): parse: not a man page") {
		t.Errorf("scan table:\n%s", out)
	}
}

// TestInitGoesOnPastBadPages: init completes with the other commands,
// says which page failed and why, and status --detailed lists it, from
// the collection's metadata.
func TestInitGoesOnPastBadPages(t *testing.T) {
	realEnv(t)
	bin, man := badPages(t)
	io, out, errOut := testIO()
	opts := &initcmd.InitOptions{Factory: cmdutil.NewFactory(io, os.Getenv, ""), Distro: "debian-12", PathDirs: []string{bin}, ManPath: []string{man},
		ProseBudget: builder.DefaultProseBudget, Model: cmdutil.ModelOptions{Dir: os.Getenv("CMDAI_MODEL_DIR")}}
	if err := initcmd.RunInit(context.Background(), opts); err != nil {
		t.Fatalf("init: %v\n%s", err, errOut)
	}
	for _, want := range []string{"indexed 2 commands (+1 aliases)", "  failed:   1 pages, indexed without them:", "broken: parse: not a man page"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("init summary lacks %q:\n%s", want, out)
		}
	}

	status := func(detailed, asJSON bool) string {
		io, out, _ := testIO()
		err := statuscmd.RunStatus(context.Background(), &statuscmd.StatusOptions{Factory: cmdutil.NewFactory(io, os.Getenv, ""), Distro: "debian-12", Detailed: detailed, JSON: asJSON,
			PathDirs: []string{bin}, ManPath: []string{man}})
		if err != nil {
			t.Fatal(err)
		}
		return out.String()
	}
	var st statuscmd.IndexStatus
	if err := json.Unmarshal([]byte(status(false, true)), &st); err != nil {
		t.Fatal(err)
	}
	cur := currentCollection(st)
	if cur == nil || !cur.Meta.Complete || cur.Meta.Commands != 2 || !strings.Contains(cur.Meta.Failed["broken"], "not a man page") || len(cur.Meta.Failed) != 1 {
		t.Errorf("status: %+v", cur)
	}
	if text := status(true, false); !strings.Contains(text, "complete") ||
		!strings.Contains(text, "  failed:   1 pages could not be indexed") || !strings.Contains(text, "    broken: parse: not a man page") {
		t.Errorf("status --detailed:\n%s", text)
	}
	if text := status(false, false); !strings.Contains(text, "1 pages could not be indexed (--detailed lists them)") {
		t.Errorf("status:\n%s", text)
	}
}
