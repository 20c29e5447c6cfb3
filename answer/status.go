package answer

import (
	"context"
	"fmt"

	"github.com/cmdai/cmdai/builder"
	"github.com/cmdai/cmdai/builder/pages"
	"github.com/cmdai/cmdai/chroma"
	"github.com/cmdai/cmdai/distro"
	"github.com/cmdai/cmdai/internal/exitcode"
)

// CollectStatus is the status of the indexes on st's server (mode:
// "embedded" or "remote", as the connection was made), with the
// staleness of info's (against the commands po finds) and the check of
// its records (all of them when verify, else a sample: CheckIndex).
func CollectStatus(ctx context.Context, st *chroma.Store, mode string, info distro.Info, detailed, verify bool, po pages.Options) (IndexStatus, error) {
	var s IndexStatus
	var err error
	s.Server.URL, s.Server.Mode, s.Server.Version = st.URL, mode, st.Version
	s.Server.Healthy = st.Heartbeat(ctx) == nil
	s.Current = info.CollectionName()
	// an index deleted behind cmdai's back is put back from its local
	// copy, when one is kept, and reported as it then is
	if _, err := st.RestoreMissing(ctx, s.Current); err != nil {
		return s, exitcode.With(exitcode.NoIndex, fmt.Errorf("%w\n  build it again with `cmdai index init`", err))
	}
	if s.Collections, err = builder.Collections(ctx, st, s.Current); err != nil {
		return s, err
	}
	for i := range s.Collections {
		c := &s.Collections[i]
		if !c.Current {
			continue
		}
		coll, err := st.OpenCollection(ctx, c.Name)
		if err != nil {
			return s, err
		}
		if c.Stale, err = builder.Stale(ctx, coll, po, detailed); err != nil {
			return s, err
		}
		if c.Verification, err = CheckIndex(ctx, coll, verify); err != nil {
			return s, err
		}
	}
	return s, nil
}
