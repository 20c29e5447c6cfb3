// Package swap puts a freshly written collection in another's place in
// one step a kill cannot leave half done, and repairs what a killed
// import or build left: what `index import`, `index download` and
// `index init` share, so that builder and ship both stand on it.
package swap

import (
	"context"
	"errors"
	"fmt"

	"github.com/cmdai/cmdai/chroma"
)

// Suffixes of the collections an import works with next to its target
// (status shows them as temporary).
const (
	ImportSuffix = "__import"
	OldSuffix    = "__old"
)

// Swap puts the collection tmp in target's place: target is set aside as
// target+OldSuffix first, so a kill between the two renames is undone by
// Recover. Imports and builds swap their result in with it.
func Swap(ctx context.Context, store *chroma.Store, tmp, target string) error {
	old := target + OldSuffix
	hadOld := true
	if err := store.RenameCollection(ctx, target, old); errors.Is(err, chroma.ErrNoCollection) {
		hadOld = false
	} else if err != nil {
		return fmt.Errorf("set the previous index aside: %w", err)
	}
	if err := store.RenameCollection(ctx, tmp, target); err != nil {
		if hadOld {
			if err2 := store.RenameCollection(context.WithoutCancel(ctx), old, target); err2 != nil {
				return fmt.Errorf("put the new index in place: %w; and restoring the previous one failed: %v (run the import again: it repairs this)", err, err2)
			}
		}
		return fmt.Errorf("put the new index in place: %w (the previous index is unchanged)", err)
	}
	if hadOld {
		if err := store.DeleteCollection(ctx, old); err != nil {
			return fmt.Errorf("imported, but removing the previous index %s failed: %w", old, err)
		}
	}
	return nil
}

// Recover repairs what a killed import or build swap leaves behind: a half-loaded
// temporary collection is dropped, and if the kill fell between the two
// renames of the swap, the previous index goes back in place.
func Recover(ctx context.Context, store *chroma.Store, target string) error {
	names, err := store.ListCollections(ctx, target)
	if err != nil {
		return err
	}
	have := map[string]bool{}
	for _, c := range names {
		have[c.Name] = true
	}
	if have[target+ImportSuffix] {
		if err := store.DeleteCollection(ctx, target+ImportSuffix); err != nil {
			return fmt.Errorf("remove the leftover of an interrupted import: %w", err)
		}
	}
	if have[target+OldSuffix] {
		if have[target] {
			return store.DeleteCollection(ctx, target+OldSuffix)
		}
		if err := store.RenameCollection(ctx, target+OldSuffix, target); err != nil {
			return fmt.Errorf("restore the index an interrupted import set aside: %w", err)
		}
	}
	return nil
}
