package pagestats

import (
	"testing"

	"github.com/cmdai/cmdai/index"
	"github.com/cmdai/cmdai/search/bm25"
)

// Whole pages are searched as one document each; sizes count chunks;
// referrers count the other commands whose page names a command or its
// alias, in any case, once per referring page and never itself.
func TestPagesSizesReferrers(t *testing.T) {
	doc := func(id, cmd, text string, refs ...string) bm25.Doc {
		return bm25.Doc{ID: id, Command: cmd, Text: text, Meta: index.Metadata{Command: cmd, References: refs}}
	}
	gzipMeta := index.Metadata{Command: "gzip", Aliases: []string{"gunzip"}}
	kw := bm25.Build([]bm25.Doc{
		doc("tar#NAME", "tar", "tar stores files in an archive", "gzip", "gunzip", "tar"),
		doc("tar#--gzip", "tar", "filter the archive through gzip"),
		{ID: "gzip#NAME", Command: "gzip", Aliases: []string{"gunzip"}, Text: "gzip compresses files", Meta: gzipMeta},
		doc("zip#NAME", "zip", "zip packages and compresses files", "GZIP", "tar"),
	})
	if hits := Pages(kw).Search("archive gzip", 3); len(hits) == 0 || hits[0].Command != "tar" {
		t.Errorf("pages: %+v, want tar first (its two chunks hold both words)", hits)
	}
	sizes, refs := Sizes(kw)
	if sizes["tar"] != 2 || sizes["gzip"] != 1 {
		t.Errorf("sizes %v", sizes)
	}
	if refs["gzip"] != 2 || refs["tar"] != 1 || refs["zip"] != 0 {
		t.Errorf("referrers %v, want gzip 2 (tar once for both names, zip), tar 1 (not itself)", refs)
	}
}

// A subcommand's page refers mostly to its siblings: it is not counted
// as a referrer, so that git's hundred pages do not make each other
// central, while git(1) naming git-commit(1) counts as before.
func TestSubcommandPagesDoNotRefer(t *testing.T) {
	kw := bm25.Build([]bm25.Doc{
		{ID: "git#NAME", Command: "git", Text: "git", Meta: index.Metadata{Command: "git", References: []string{"git-commit", "less"}}},
		{ID: "git-commit#NAME", Command: "git-commit", Text: "commit", Meta: index.Metadata{Command: "git-commit", Parent: "git", References: []string{"git-log", "less", "git"}}},
		{ID: "git-log#NAME", Command: "git-log", Text: "log", Meta: index.Metadata{Command: "git-log", Parent: "git", References: []string{"git-commit", "less"}}},
		{ID: "less#NAME", Command: "less", Text: "pager", Meta: index.Metadata{Command: "less"}},
	})
	_, refs := Sizes(kw)
	if refs["git-commit"] != 1 || refs["less"] != 1 || refs["git-log"] != 0 || refs["git"] != 0 {
		t.Errorf("referrers %v, want git-commit 1 and less 1 (from git(1) alone), git-log and git 0", refs)
	}
}

// Mentions count the other pages whose text names a command as a word,
// once per page: never the command's own page, a path, a flag, a longer
// word, or a name in another case; a sentence's final dot and a man
// page reference's "(1)" still end the word.
func TestMentions(t *testing.T) {
	doc := func(id, cmd, text string) bm25.Doc {
		return bm25.Doc{ID: id, Command: cmd, Text: text, Meta: index.Metadata{Command: cmd}}
	}
	kw := bm25.Build([]bm25.Doc{
		doc("cp#NAME", "cp", "cp copies files; see cp(1) and install."),
		doc("tar#NAME", "tar", "tar -cf a.tar dir && cp a.tar /backup"),
		doc("tar#EXAMPLES", "tar", "then cp it again, or use install"),
		doc("rsync#NAME", "rsync", "like “cp”"),
		doc("scp#NAME", "scp", "faster than cp."),
		doc("mv#NAME", "mv", "not /usr/bin/cp, --cp-mode, cpio, CP or git-cp"),
		doc("install#NAME", "install", "install copies files, as g++ and mkfs.ext4 do not"),
		doc("g++#NAME", "g++", "compiler"),
		doc("mkfs.ext4#NAME", "mkfs.ext4", "see g++ and mkfs.ext4"),
	})
	m := Mentions(kw)
	want := map[string]int{"cp": 3, "install": 2, "g++": 2, "mkfs.ext4": 1, "tar": 0, "rsync": 0, "mv": 0}
	for c, n := range want {
		if m[c] != n {
			t.Errorf("mentions of %s = %d, want %d (all: %v)", c, m[c], n, m)
		}
	}
}
