package index

import (
	"strings"
	"testing"
)

// TestVerificationSummary: an index with no authenticator at all is told
// apart from one rewritten since (legacy: built before cmdai kept them);
// both name the rebuild, and a clean one says nothing.
func TestVerificationSummary(t *testing.T) {
	count := func(errs ...error) *Verification {
		v := &Verification{}
		for _, err := range errs {
			v.Add(err)
		}
		return v
	}
	if s := count(nil, nil).Summary(); s != "" {
		t.Errorf("clean index: %q", s)
	}
	legacy := count(ErrUnauthenticated, ErrUnauthenticated)
	if !legacy.Legacy() || !strings.HasPrefix(legacy.Summary(), "UNAUTHENTICATED") || !strings.Contains(legacy.Summary(), "2 records failed verification") {
		t.Errorf("legacy index: %+v %q", legacy, legacy.Summary())
	}
	for _, v := range []*Verification{count(nil, ErrTampered), count(nil, ErrUnauthenticated), count(ErrUnauthenticated, ErrTampered)} {
		if v.Legacy() || !strings.HasPrefix(v.Summary(), "TAMPERED") || !strings.Contains(v.Summary(), " of 2 records failed verification") {
			t.Errorf("%+v: %q", v, v.Summary())
		}
	}
	foreign := count(ErrTampered, ErrTampered)
	if !strings.HasPrefix(foreign.Summary(), "TAMPERED: all 2 records") || !strings.Contains(foreign.Summary(), "another record.key") {
		t.Errorf("every record failing: %q; want the other key named", foreign.Summary())
	}
	for _, v := range []*Verification{legacy, foreign, count(nil, ErrTampered)} {
		if !strings.Contains(v.Summary(), "cmdai index init --force") {
			t.Errorf("%q names no rebuild", v.Summary())
		}
	}
}

// TestVerificationMetadata: metadata that failed its check is said first,
// with the rebuild, whatever the records did; verified metadata changes
// nothing.
func TestVerificationMetadata(t *testing.T) {
	clean := &Verification{Records: 2, Metadata: MetadataState(nil)}
	if !clean.OK() || clean.Summary() != "" {
		t.Errorf("clean: %+v %q", clean, clean.Summary())
	}
	for _, err := range []error{ErrTampered, ErrUnauthenticated} {
		v := &Verification{Records: 2, Metadata: MetadataState(err)}
		want := "TAMPERED: the index's metadata"
		if err == ErrUnauthenticated {
			want = "UNAUTHENTICATED: the index's metadata"
		}
		if v.OK() || !strings.HasPrefix(v.Summary(), want) || !strings.Contains(v.Summary(), "cmdai index init --force") {
			t.Errorf("%v: %+v %q", err, v, v.Summary())
		}
		v.Add(ErrTampered)
		if !strings.Contains(v.Summary(), "also 1 of 3 records failed") {
			t.Errorf("%v with a record failing: %q", err, v.Summary())
		}
	}
}
