package explain

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/cmdai/cmdai/builder/pages"
	"github.com/cmdai/cmdai/chroma"
	"github.com/cmdai/cmdai/explain/judge"
	"github.com/cmdai/cmdai/internal/testmode"
	"github.com/cmdai/cmdai/search"
)

// builtLookup is a Lookup over the records `cmdai index init --command
// NAME...` would write for names on this machine: the build's own page
// stages (pages.Run), so the subcommand pages (git-commit(1)) are
// exactly those an index holds.
func builtLookup(t *testing.T, names ...string) Lookup {
	t.Helper()
	testmode.Heavy(t, "man pages")
	byCmd := map[string][]chroma.Record{}
	_, err := pages.Run(context.Background(), pages.Options{Commands: names}, func(r pages.Result) error {
		for _, c := range r.Chunks {
			byCmd[r.Command] = append(byCmd[r.Command], chroma.Record{ID: c.ID, Document: c.Text, Metadata: c.Metadata.ToChroma()})
		}
		return nil
	})
	if err != nil {
		t.Fatalf("index %v: %v (git and openssl with their pages are needed: apt-get install git git-man openssl, or `make test-deps`)", names, err)
	}
	return CachedLookup(func(_ context.Context, name string) (search.CommandDoc, error) {
		if recs := byCmd[name]; len(recs) > 0 {
			return search.DocOf(recs, ""), nil
		}
		return search.CommandDoc{}, fmt.Errorf("%w %q", search.ErrUnknownCommand, name)
	})
}

// The "git commit -> git-commit(1)", on this machine's real
// pages as the build indexes them: a subcommand's options are judged by
// its own page, strictly.
func TestRealSubcommandPages(t *testing.T) {
	ex := explainWith(t, builtLookup(t, "git", "openssl"))
	for _, tc := range []struct{ line, page string }{
		{`git commit -a -m "fix the build"`, "git-commit(1)"},
		{"git -C repo log --oneline --graph -5", "git-log(1)"},
		{"git push --force-with-lease origin main", "git-push(1)"},
		{"openssl req -x509 -newkey rsa:4096 -nodes -keyout key.pem -out cert.pem -days 365", "openssl-req(1ssl)"},
		{"openssl dgst -sha256 -hex file", "openssl-dgst(1ssl)"},
	} {
		r := ex(tc.line)
		if !r.OK || len(r.Commands) != 1 || r.Commands[0].Page != tc.page {
			t.Errorf("%s: want every word known by %s\n%s", tc.line, tc.page, show(r))
		}
	}
	r := ex(`git commit --amnd -m x`)
	if r.UnknownCount != 1 || r.Commands[0].Page != "git-commit(1)" {
		t.Errorf("git commit --amnd: want the typo flagged by git-commit(1)\n%s", show(r))
	}
	for _, w := range r.Commands[0].Words {
		if w.Text == "-m" && (w.Verdict != judge.Known || !strings.Contains(w.Help, "git-commit(1) option")) {
			t.Errorf("git commit -m: %+v", w)
		}
	}
	r = ex("git-commit -a")
	if len(r.Commands) != 1 || r.Commands[0].Verdict != judge.NotInstalled || !strings.Contains(r.Commands[0].Note, "documents `git commit`") {
		t.Errorf("git-commit run by its page's name: want not installed, naming git commit\n%s", show(r))
	}
}
