package explain

import (
	"context"
	"errors"
	"sync"

	"github.com/cmdai/cmdai/search"
)

// CachedLookup memoises l per command name, answers and unknown
// commands alike (an error wrapping search.ErrUnknownCommand), so that a
// long-lived server or a benchmark asks the index once per command.
// Other errors (the index unreachable, a cancelled context) are not kept:
// the next call asks again. Safe for concurrent use.
func CachedLookup(l Lookup) Lookup {
	type entry struct {
		once sync.Once
		doc  search.CommandDoc
		err  error
	}
	var mu sync.Mutex
	m := map[string]*entry{}
	return func(ctx context.Context, command string) (search.CommandDoc, error) {
		mu.Lock()
		e := m[command]
		if e == nil {
			e = &entry{}
			m[command] = e
		}
		mu.Unlock()
		e.once.Do(func() { e.doc, e.err = l(ctx, command) })
		if e.err != nil && !errors.Is(e.err, search.ErrUnknownCommand) {
			// A passing failure: forget it so the next call retries.
			err := e.err
			mu.Lock()
			if m[command] == e {
				delete(m, command)
			}
			mu.Unlock()
			return search.CommandDoc{}, err
		}
		return e.doc, e.err
	}
}
