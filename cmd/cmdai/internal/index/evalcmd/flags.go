package evalcmd

import (
	"context"
	"errors"
	"slices"

	"github.com/cmdai/cmdai/explain"
	"github.com/cmdai/cmdai/explain/judge"
	"github.com/cmdai/cmdai/index"
	"github.com/cmdai/cmdai/search"
	"github.com/cmdai/cmdai/search/evaluate"
	"github.com/cmdai/cmdai/search/optrank"
	"github.com/cmdai/cmdai/search/shown"
)

// needOf gives a request's needed option records from the index: its
// Options looked up among the command's option records by spelling, or
// the options explain finds for the command in its Line. Each command's
// records are read once.
func needOf(s search.Searcher) evaluate.NeedFunc {
	docs := map[string][]shown.Match{}
	optionsOf := func(ctx context.Context, command string) ([]shown.Match, error) {
		if recs, ok := docs[command]; ok {
			return recs, nil
		}
		doc, err := s.Docs(ctx, command)
		if err != nil && !errors.Is(err, search.ErrUnknownCommand) {
			return nil, err
		}
		var recs []shown.Match
		for _, r := range doc.Records {
			if r.Kind == index.KindOption {
				recs = append(recs, r)
			}
		}
		docs[command] = recs
		return recs, nil
	}
	return func(ctx context.Context, q evaluate.EvalQuery, command string) ([]evaluate.Needed, bool, error) {
		recs, err := optionsOf(ctx, command)
		if err != nil {
			return nil, false, err
		}
		var out []evaluate.Needed
		add := func(r shown.Match) {
			for _, n := range out {
				if n.ID == r.ID {
					return
				}
			}
			label := optionLabel(r)
			out = append(out, evaluate.Needed{ID: r.ID, Spellings: optrank.Spellings(label)})
		}
		for _, want := range q.Options {
			for _, r := range recs {
				label := optionLabel(r)
				if slices.Contains(optrank.Spellings(label), want) {
					add(r)
					break
				}
			}
		}
		if q.Line == "" {
			return out, len(q.Options) > 0, nil
		}
		res, err := explain.Explain(ctx, q.Line, s.Docs, explain.Options{})
		if err != nil {
			if errors.Is(err, explain.ErrBadLine) || errors.Is(err, explain.ErrTooBig) {
				return out, len(q.Options) > 0, nil // a line explain cannot read names no option
			}
			return nil, false, err
		}
		any := len(q.Options) > 0
		byID := map[string]shown.Match{}
		for _, r := range recs {
			byID[r.ID] = r
		}
		for _, c := range res.Commands {
			if c.Name != command {
				continue
			}
			for _, w := range c.Words {
				// an option the page does not document is needed too
				// (the index cannot show it: the ceiling says so)
				any = any || w.Verdict == judge.UnknownOption || w.OptionID != ""
				for _, f := range append([]judge.Word{w}, w.Flags...) {
					any = any || f.OptionID != ""
					if r, ok := byID[f.OptionID]; ok {
						add(r)
					}
				}
			}
			break
		}
		return out, any, nil
	}
}

// optionLabel is an option record's spellings and argument.
func optionLabel(m shown.Match) string {
	return optrank.Record{Kind: index.KindOption, Text: m.Text}.Label()
}
