package embcache

import (
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/cmdai/cmdai/embed"
)

const testSHA = "0123456789abcdef0123456789abcdef"

func vec(x float32) []float32 {
	v := make([]float32, embed.Dims)
	for i := range v {
		v[i] = x + float32(i)
	}
	return v
}

func TestCacheRoundTrip(t *testing.T) {
	dir := t.TempDir()
	c, err := OpenCache(dir, testSHA, embed.Dims)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Put([]string{"a", "b"}, [][]float32{vec(1), vec(2)}); err != nil {
		t.Fatal(err)
	}
	c.Close()
	c, err = OpenCache(dir, testSHA, embed.Dims)
	if err != nil {
		t.Fatal(err)
	}
	if v, ok := c.Get("b"); !ok || !reflect.DeepEqual(v, vec(2)) || c.Len() != 2 {
		t.Errorf("reopened cache: len %d, b=%v", c.Len(), ok)
	}
	c.Close()

	// a torn last record (a crash mid-write) is dropped, the rest kept
	path := dir + "/" + testSHA[:16] + ".vec"
	fi, _ := os.Stat(path)
	os.Truncate(path, fi.Size()-10)
	c, err = OpenCache(dir, testSHA, embed.Dims)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := c.Get("a"); !ok || c.Len() != 1 {
		t.Errorf("after a torn write: len %d", c.Len())
	}
	if err := c.Put([]string{"c"}, [][]float32{vec(3)}); err != nil {
		t.Fatal(err)
	}
	c.Close()
	c, _ = OpenCache(dir, testSHA, embed.Dims)
	if v, ok := c.Get("c"); !ok || !reflect.DeepEqual(v, vec(3)) {
		t.Error("a record written after the repair is not readable")
	}
	c.Close()

	// a different model has its own cache
	other, _ := OpenCache(dir, "fedcba9876543210fedcba9876543210", embed.Dims)
	if other.Len() != 0 {
		t.Error("caches of two models are shared")
	}
	other.Close()

	os.WriteFile(dir+"/bad0000000000000.vec", []byte("garbage"), 0o644)
	if _, err := OpenCache(dir, "bad0000000000000ffff", embed.Dims); err == nil || !strings.Contains(err.Error(), "delete it") {
		t.Errorf("garbage cache file: %v", err)
	}
}
