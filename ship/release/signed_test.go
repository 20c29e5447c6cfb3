package release

import (
	"context"
	"crypto/rand"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"aead.dev/minisign"

	"github.com/cmdai/cmdai/packaging"
)

// SignedChecksums over HTTP: the signed list is returned with what signed
// it; a release without a signature is ErrUnsigned; a changed list is
// ErrBadSignature.
func TestSignedChecksumsOverHTTP(t *testing.T) {
	pub, priv, err := minisign.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	keys := []packaging.PublicKey{{Key: pub, Source: "test"}}
	list := strings.Repeat("ab", 32) + "  chroma-index-debian-13.tar.gz\n"
	files := map[string]string{
		"/signed/checksums.txt":          list,
		"/signed/checksums.txt.minisig":  string(minisign.SignWithComments(priv, []byte(list), "cmdai v1 indexes", "")),
		"/unsigned/checksums.txt":        list,
		"/changed/checksums.txt":         strings.Repeat("cd", 32) + "  chroma-index-debian-13.tar.gz\n",
		"/changed/checksums.txt.minisig": string(minisign.SignWithComments(priv, []byte(list), "cmdai v1 indexes", "")),
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, ok := files[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Write([]byte(body))
	}))
	defer srv.Close()
	ctx := context.Background()

	got, err := Source{Base: srv.URL + "/signed"}.SignedChecksums(ctx, keys)
	if err != nil || got.Sums["chroma-index-debian-13.tar.gz"] != strings.Repeat("ab", 32) || got.Signed.TrustedComment != "cmdai v1 indexes" || got.Signed.KeyID != keys[0].ID() {
		t.Fatalf("signed: %+v, %v", got, err)
	}
	for dir, want := range map[string]error{"/unsigned": packaging.ErrUnsigned, "/empty": packaging.ErrUnsigned, "/changed": packaging.ErrBadSignature} {
		if _, err := (Source{Base: srv.URL + dir}).SignedChecksums(ctx, keys); !errors.Is(err, want) {
			t.Errorf("%s: %v, want %v", dir, err, want)
		}
	}
}
