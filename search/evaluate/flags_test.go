package evaluate

import (
	"context"
	"testing"
)

// The flag figures: a request counts when its expected command's block,
// within the first FlagTop, shows a needed option record or an example
// using one; flag@1 wants the command first too.
func TestEvaluateFlags(t *testing.T) {
	queries := []EvalQuery{
		{Query: "extract into a dir", Command: "tar", Options: []string{"-C"}},      // first, -C shown
		{Query: "extract here", Command: "tar", Line: "tar -xf a.tar"},              // second, an example uses -x
		{Query: "list long", Command: "ls", Options: []string{"-l"}},                // first, -l not shown
		{Query: "count lines", Command: "wc"},                                       // no options: not in the flag figures
		{Query: "an option the page lacks", Command: "ls", Options: []string{"-Q"}}, // not held
	}
	need := func(_ context.Context, q EvalQuery, cmd string) ([]Needed, bool, error) {
		switch {
		case q.Query == "extract into a dir":
			return []Needed{{ID: "tar#-C", Spellings: []string{"-C", "--directory"}}}, true, nil
		case q.Line != "":
			return []Needed{{ID: "tar#-x", Spellings: []string{"-x", "--extract"}}}, true, nil
		case q.Query == "list long":
			return []Needed{{ID: "ls#-l", Spellings: []string{"-l"}}}, true, nil
		}
		return nil, len(q.Options) > 0, nil
	}
	answers := map[string][]Ranked{
		"extract into a dir":       {{Command: "tar", Shown: []Shown{{ID: "tar#-x", Kind: "option"}, {ID: "tar#-C", Kind: "option"}}}},
		"extract here":             {{Command: "gzip"}, {Command: "tar", Shown: []Shown{{ID: "tar#EXAMPLES#1", Kind: "example", Text: "tar(1) example\nUnpack.\n\ntar -xvf a.tar"}}}},
		"list long":                {{Command: "ls", Shown: []Shown{{ID: "ls#-a", Kind: "option"}}}},
		"count lines":              {{Command: "wc"}},
		"an option the page lacks": {{Command: "ls"}},
	}
	rank := func(_ context.Context, q string, _ int) ([]Ranked, error) { return answers[q], nil }
	resolve := func(c string) (string, bool) { return c, true }
	res, err := EvaluateFlags(context.Background(), "m", queries, 10, resolve, nil, need, rank)
	if err != nil {
		t.Fatal(err)
	}
	f := res.Flags
	if f == nil || f.Queries != 4 || f.Ceiling != 0.75 || f.At1 != 0.25 || f.GivenQueries != 4 || f.GivenCmd != 0.5 {
		t.Fatalf("flag figures %+v, want 4 queries, ceiling 0.75, flag@1 0.25, given cmd 2/4", f)
	}
	if o := res.Outcomes[3]; o.Need != -1 || o.Flag {
		t.Errorf("a request without options: %+v, want need -1", o)
	}
	if res, _ := Evaluate(context.Background(), "m", queries, 10, resolve, nil, rank); res.Flags != nil {
		t.Errorf("Evaluate without a NeedFunc has flag figures %+v", res.Flags)
	}
}
