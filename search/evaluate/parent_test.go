package evaluate

import (
	"context"
	"testing"
)

// A subcommand's page answers a request for its command: "undo my last
// commit" expecting git is a hit at rank 1 when git-reset(1) comes first.
func TestSubcommandPageAnswersItsParent(t *testing.T) {
	rank := func(_ context.Context, request string, _ int) ([]Ranked, error) {
		if request == "undo my last commit" {
			return []Ranked{{Command: "git-reset", Parent: "git"}, {Command: "git"}}, nil
		}
		return []Ranked{{Command: "git-mv", Parent: "git"}, {Command: "mv"}}, nil
	}
	resolve := func(c string) (string, bool) { return c, true }
	res, err := Evaluate(context.Background(), "learned", []EvalQuery{
		{Query: "undo my last commit", Command: "git"},
		{Query: "rename a file", Command: "mv"},
	}, 10, resolve, nil, rank)
	if err != nil {
		t.Fatal(err)
	}
	if got := []int{res.Outcomes[0].Rank, res.Outcomes[1].Rank}; got[0] != 1 || got[1] != 2 {
		t.Errorf("ranks %v, want [1 2]: git-reset answers git, git-mv does not answer mv", got)
	}
}
