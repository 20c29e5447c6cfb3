package manparse

import (
	"strings"
	"testing"
)

func chunkIDs(cs []Chunk) map[string]Chunk {
	m := map[string]Chunk{}
	for _, c := range cs {
		m[c.ID] = c
	}
	return m
}

func TestChunksOfPage(t *testing.T) {
	p := parseFile(t, "frob.1")
	cs := p.Chunks(ChunkOptions{})
	ids := chunkIDs(cs)
	if len(ids) != len(cs) {
		t.Fatalf("chunk ids are not unique: %d chunks, %d ids", len(cs), len(ids))
	}
	sum, ok := ids["frob.1#NAME"]
	if !ok || sum.Kind != KindSummary {
		t.Fatalf("no summary chunk; ids: %v", keys(ids))
	}
	for _, w := range []string{"frob(1) - twiddle the bits", "SYNOPSIS", "frob [OPTION]... FILE...", "twiddles every bit"} {
		if !strings.Contains(sum.Text, w) {
			t.Errorf("summary lacks %q:\n%s", w, sum.Text)
		}
	}
	rec, ok := ids["frob.1#OPTIONS#--recursive"]
	if !ok || rec.Kind != KindOption || rec.Option != "--recursive" || rec.Section != "OPTIONS" {
		t.Fatalf("recursive option chunk: %+v (ids %v)", rec, keys(ids))
	}
	if !strings.Contains(rec.Text, "-r, --recursive") || !strings.Contains(rec.Text, "Descend into directories") {
		t.Errorf("option chunk text: %q", rec.Text)
	}
	if c := ids["frob.1#OPTIONS#--output"]; !strings.Contains(c.Text, "--output FILE") {
		t.Errorf("option chunk keeps the argument: %q", c.Text)
	}
	ex, ok := ids["frob.1#EXAMPLES#1"]
	if !ok || ex.Kind != KindExample || !strings.Contains(ex.Text, "frob -r --dry-run src/") {
		t.Errorf("example chunk: %+v", ex)
	}
	if c, ok := ids["frob.1#EXIT_STATUS"]; !ok || !strings.Contains(c.Text, "all files frobbed") {
		t.Errorf("exit status chunk: %+v", c)
	}
	if _, ok := ids["frob.1#SEE_ALSO"]; ok {
		t.Errorf("SEE ALSO should not be embedded")
	}
	for _, c := range cs {
		if c.Command != "frob" || c.ManSection != "1" || c.Tokens <= 2 || c.Tokens > DefaultMaxTokens {
			t.Errorf("chunk %s: command=%q man_section=%q tokens=%d", c.ID, c.Command, c.ManSection, c.Tokens)
		}
	}
	// the option text is embedded once: not again in a DESCRIPTION/OPTIONS prose chunk
	n := 0
	for _, c := range cs {
		n += strings.Count(c.Text, "Descend into directories")
	}
	if n != 1 {
		t.Errorf("option description embedded %d times, want once", n)
	}
	// stable: the same page gives the same chunks
	again := p.Chunks(ChunkOptions{})
	for i := range cs {
		if cs[i] != again[i] {
			t.Fatalf("chunking is not deterministic at %d: %+v vs %+v", i, cs[i], again[i])
		}
	}
}

func keys(m map[string]Chunk) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// words counts whitespace-separated words plus the two special tokens: a
// tokenizer for tests whose counts are easy to reason about.
func words(s string) int { return len(strings.Fields(s)) + 2 }

func TestChunksSplitLongSections(t *testing.T) {
	var src strings.Builder
	src.WriteString(".TH LONG 1\n.SH NAME\nlong \\- a page with long text\n.SH DESCRIPTION\n")
	for para := 0; para < 12; para++ {
		src.WriteString(".PP\n")
		for s := 0; s < 8; s++ {
			src.WriteString("Paragraph word filler sentence number goes here now.\n")
		}
	}
	src.WriteString(".SH OPTIONS\n.TP\n.B \\-\\-huge\n")
	for s := 0; s < 200; s++ {
		src.WriteString("Huge option text sentence.\n")
	}
	src.WriteString(".SH NOTES\n")
	src.WriteString(strings.Repeat("x", 3000) + "\n")
	p, err := Parse([]byte(src.String()))
	if err != nil {
		t.Fatal(err)
	}
	const max = 100
	cs := p.Chunks(ChunkOptions{MaxTokens: max, CountTokens: words})
	ids := chunkIDs(cs)
	if len(ids) != len(cs) {
		t.Fatalf("duplicate ids")
	}
	var desc, huge int
	var total strings.Builder
	for _, c := range cs {
		if c.Tokens > max {
			t.Errorf("chunk %s has %d tokens > %d", c.ID, c.Tokens, max)
		}
		if c.Tokens != words(c.Text) {
			t.Errorf("chunk %s: Tokens=%d, counter says %d", c.ID, c.Tokens, words(c.Text))
		}
		switch {
		case strings.HasPrefix(c.ID, "long.1#DESCRIPTION"):
			desc++
			// split on paragraph boundaries: each chunk holds whole paragraphs
			body := strings.TrimPrefix(c.Text, "long(1) DESCRIPTION\n")
			for _, para := range strings.Split(body, "\n\n") {
				if strings.Count(para, "Paragraph") != 8 {
					t.Errorf("chunk %s cut a paragraph: %q", c.ID, para)
				}
			}
		case strings.HasPrefix(c.ID, "long.1#OPTIONS#--huge"):
			huge++
		}
		total.WriteString(c.Text)
	}
	if desc < 2 || huge < 2 {
		t.Errorf("long section and long option should be split: %d description chunks, %d option chunks", desc, huge)
	}
	if _, ok := ids["long.1#OPTIONS#--huge#2"]; !ok {
		t.Errorf("second part of a long option has id ...#2; ids %v", keys(ids))
	}
	// nothing lost: every sentence of the long option is in some chunk
	if got := strings.Count(total.String(), "Huge option text sentence."); got != 200 {
		t.Errorf("long option sentences in chunks = %d, want 200", got)
	}
	if got := strings.Count(total.String(), "x"); got < 3000 {
		t.Errorf("the single huge word was lost: %d of 3000 x's", got)
	}
}

func TestDuplicateOptionIDs(t *testing.T) {
	src := ".TH DUP 1\n.SH NAME\ndup \\- twice\n.SH OPTIONS\n.TP\n.B \\-x\nfirst\n.SH EXPRESSION\n.TP\n.B \\-x\nsecond\n"
	p, err := Parse([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	ids := chunkIDs(p.Chunks(ChunkOptions{}))
	a, b := ids["dup.1#OPTIONS#-x"], ids["dup.1#EXPRESSION#-x"]
	if !strings.Contains(a.Text, "first") || !strings.Contains(b.Text, "second") {
		t.Errorf("options in different sections: %v", keys(ids))
	}
	src = ".TH DUP 1\n.SH NAME\ndup \\- twice\n.SH OPTIONS\n.TP\n.B \\-x\nfirst\n.TP\n.B \\-x\nsecond\n"
	p, _ = Parse([]byte(src))
	ids = chunkIDs(p.Chunks(ChunkOptions{}))
	if !strings.Contains(ids["dup.1#OPTIONS#-x~2"].Text, "second") {
		t.Errorf("a repeated option gets a ~2 id: %v", keys(ids))
	}
}

func TestEstimateTokens(t *testing.T) {
	cases := []struct {
		s        string
		min, max int
	}{
		{"", 2, 2},
		{"list directory contents", 5, 5},
		{"-r, --recursive", 7, 9},
		{"0123456789", 5, 6},
		{"supercalifragilistic", 4, 8},
	}
	for _, c := range cases {
		if n := EstimateTokens(c.s); n < c.min || n > c.max {
			t.Errorf("EstimateTokens(%q) = %d, want %d..%d", c.s, n, c.min, c.max)
		}
	}
}

// testdata/twodesc.1 is a page whose DESCRIPTION comes twice, the second
// shorter than the part of the first the summary takes: it used to panic
// the chunker (slice bounds out of range) and with it the whole build.
func TestChunksRepeatedDescription(t *testing.T) {
	cs := parseFile(t, "twodesc.1").Chunks(ChunkOptions{})
	var all strings.Builder
	for _, c := range cs {
		all.WriteString(c.Text + "\n")
	}
	// nothing lost and nothing twice: the summary took the first
	// description's paragraphs, the second description is a chunk of
	// its own, whole.
	for _, w := range []string{"Alpha", "Bravo", "Charlie", "Delta"} {
		if n := strings.Count(all.String(), w+" paragraph"); n != 1 {
			t.Errorf("%q paragraph is in %d chunks, want 1:\n%s", w, n, all.String())
		}
	}
	if !strings.Contains(chunkIDs(cs)["twodesc.1#NAME"].Text, "Charlie") {
		t.Errorf("the summary takes the first description's paragraphs:\n%s", all.String())
	}
}

// Head cuts between words to the budget and leaves a text that fits, or
// a budget of 0, alone.
func TestHead(t *testing.T) {
	long := "grep(1) option -r, --recursive\n" + strings.Repeat("Read all files under each directory, recursively. ", 40)
	for _, budget := range []int{16, 64, 128} {
		h := Head(long, budget)
		if n := EstimateTokens(h); n > budget || n < budget-8 {
			t.Errorf("Head(%d) is %d pieces, want %d at most and close to it", budget, n, budget)
		}
		if !strings.HasPrefix(long, h) || strings.HasSuffix(h, " ") || long[len(h)] != ' ' {
			t.Errorf("Head(%d) = %q: not a start of the text cut before a blank", budget, h)
		}
	}
	if h := Head("list directory contents", 128); h != "list directory contents" {
		t.Errorf("a text that fits was cut: %q", h)
	}
	if h := Head(long, 0); h != long {
		t.Error("budget 0 cut the text")
	}
}
