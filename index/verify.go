package index

import (
	"errors"
	"fmt"
)

// Verification is how an index's records fare against their
// authenticators (RecordKey): a record that fails is never shown, and
// `index status` and doctor say so with the fix.
type Verification struct {
	Records int `json:"records_checked"`
	// Unauthenticated records have no authenticator: built by a cmdai
	// before they were kept, or added by someone else.
	Unauthenticated int `json:"unauthenticated_count"`
	// Tampered records have one that does not match their content.
	Tampered int `json:"tampered_count"`
	// Metadata is the check of the collection's own metadata: "verified",
	// "tampered" or "unauthenticated" (MetadataState).
	Metadata string `json:"metadata_check"`
	// Sampled: Records are a sample spread over the collection (a status
	// asked without --verify), not all of it.
	Sampled bool `json:"sampled,omitempty"`
	// SealedCount is the record count the sealed metadata of a complete
	// index gives (0: none, an index built before it was kept), Held the
	// collection's own: records deleted or added outside cmdai make them
	// differ, which no record's check can see.
	SealedCount int `json:"sealed_records_count,omitempty"`
	Held        int `json:"held_records_count,omitempty"`
}

// CountMismatch says the collection holds another number of records than
// its sealed metadata counts.
func (v *Verification) CountMismatch() bool {
	return v.SealedCount > 0 && v.Held != v.SealedCount
}

// MetadataState names the check of a collection's metadata (OpenMeta's
// answer) as Verification.Metadata holds it.
func MetadataState(err error) string {
	switch {
	case err == nil:
		return "verified"
	case errors.Is(err, ErrUnauthenticated):
		return "unauthenticated"
	}
	return "tampered"
}

// MetadataFailed says the collection's metadata failed its check.
func (v *Verification) MetadataFailed() bool {
	return v.Metadata != "" && v.Metadata != "verified"
}

// OK says nothing failed.
func (v *Verification) OK() bool { return v.Failed() == 0 && !v.MetadataFailed() && !v.CountMismatch() }

// MetadataFailure says in one line that a collection's metadata failed
// its check (OpenMeta's err), and how to rebuild.
func MetadataFailure(err error) string {
	if MetadataState(err) == "unauthenticated" {
		return "UNAUTHENTICATED: the index's metadata has no authenticator (built before cmdai authenticated it, or written by someone else), so it is not shown and the index answers nothing; " + RebuildHint
	}
	return fmt.Sprintf("TAMPERED: the index's metadata failed verification (the index was tampered with, or written by a cmdai with another %s), so it is not shown and the index answers nothing; %s", KeyFileName, RebuildHint)
}

// Add counts one record's check (RecordKey.Check's answer).
func (v *Verification) Add(err error) {
	v.Records++
	switch {
	case err == nil:
	case errors.Is(err, ErrUnauthenticated):
		v.Unauthenticated++
	default:
		v.Tampered++
	}
}

// Failed is how many records failed their check.
func (v *Verification) Failed() int { return v.Unauthenticated + v.Tampered }

// Legacy says every record lacks an authenticator and none is wrong: an
// index built before cmdai kept them, not one rewritten since.
func (v *Verification) Legacy() bool {
	return v.Records > 0 && v.Unauthenticated == v.Records && v.Tampered == 0
}

// Summary says in one line what failed and how to rebuild ("" when
// nothing did).
func (v *Verification) Summary() string {
	if v.MetadataFailed() {
		err := ErrTampered
		if v.Metadata == "unauthenticated" {
			err = ErrUnauthenticated
		}
		line := MetadataFailure(err)
		if v.Failed() > 0 {
			line += fmt.Sprintf(" (also %d of %d records failed verification)", v.Failed(), v.Records)
		}
		return line + v.sampleNote()
	}
	if line := v.records(); line != "" {
		return line + v.sampleNote()
	}
	if v.CountMismatch() {
		return fmt.Sprintf("TAMPERED: the sealed metadata counts %d records and the collection holds %d: records were deleted or added outside cmdai; %s", v.SealedCount, v.Held, RebuildHint)
	}
	return ""
}

// sampleNote says a failed check read a sample of the records (Sampled).
func (v *Verification) sampleNote() string {
	if !v.Sampled || v.Failed() == 0 {
		return ""
	}
	return fmt.Sprintf(" (%d records checked, a sample: `cmdai index status --verify` checks every one)", v.Records)
}

func (v *Verification) records() string {
	switch {
	case v.Failed() == 0:
		return ""
	case v.Legacy():
		return fmt.Sprintf("UNAUTHENTICATED: the index was built before cmdai authenticated its records (%d records failed verification) and answers nothing; %s", v.Failed(), RebuildHint)
	case v.Tampered == v.Records:
		// every one: more likely another key than every record rewritten
		return fmt.Sprintf("TAMPERED: all %d records failed verification and answer nothing: the index was tampered with, or written by a cmdai with another %s (an index shared through --chroma-url needs the writer's key copied, mode 0600, into this data directory); %s",
			v.Records, KeyFileName, RebuildHint)
	}
	return fmt.Sprintf("TAMPERED: the index was tampered with: %d of %d records failed verification (%d rewritten, %d without an authenticator) and are not shown; %s",
		v.Failed(), v.Records, v.Tampered, v.Unauthenticated, RebuildHint)
}
