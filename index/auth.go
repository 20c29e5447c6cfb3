package index

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/cmdai/cmdai/internal/safefile"
)

// KeyFileName is the record key's file in cmdai's data directory.
const KeyFileName = "record.key"

// keyLen is the key's length in bytes: SHA-256's block is 64, its
// output 32; 32 random bytes are HMAC-SHA256's full strength.
const keyLen = 32

// Errors a record's check gives.
var (
	// ErrUnauthenticated: the record has no authenticator (written by a
	// cmdai before they were kept, or by someone else).
	ErrUnauthenticated = errors.New("record has no authenticator")
	// ErrTampered: its authenticator does not match what it holds.
	ErrTampered = errors.New("record's authenticator does not match its content")
)

// RebuildHint is what to do about records that failed their check.
const RebuildHint = "rebuild the index with `cmdai index init --force` (or import it again)"

// RecordKey authenticates the records cmdai writes (Seal) and checks
// those it reads (Open), with a secret kept in the data directory (mode
// 0600), made from crypto/rand on the first write. A process keeps one
// per key file (KeyFor): it counts the records that fail and says so on
// Warn once.
type RecordKey struct {
	path string
	// Warn is told once per process that records failed their check.
	Warn io.Writer

	mu  sync.Mutex
	key []byte

	failed atomic.Int64
	warned atomic.Bool
}

var (
	keysMu sync.Mutex
	keys   = map[string]*RecordKey{}
)

// KeyFor is the process's RecordKey of the key file at path (made on
// first use), telling warn of failures once.
func KeyFor(path string, warn io.Writer) *RecordKey {
	keysMu.Lock()
	defer keysMu.Unlock()
	k := keys[path]
	if k == nil {
		k = &RecordKey{path: path, Warn: warn}
		keys[path] = k
	}
	return k
}

// NewRecordKey is a RecordKey of the key file at path, of its own (tests).
func NewRecordKey(path string) *RecordKey { return &RecordKey{path: path} }

// Path is the key file.
func (k *RecordKey) Path() string { return k.path }

// Failed is how many records this process read that failed their check.
func (k *RecordKey) Failed() int64 { return k.failed.Load() }

// load reads the key, making it first when create (a write) and there
// is none. Two processes making it at once agree: the new key is linked
// into place, which fails when one exists, and then that one is read.
func (k *RecordKey) load(create bool) ([]byte, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.key != nil {
		return k.key, nil
	}
	key, err := readKey(k.path)
	if errors.Is(err, os.ErrNotExist) && create {
		key, err = makeKey(k.path)
	}
	if err != nil {
		return nil, err
	}
	k.key = key
	return key, nil
}

func readKey(path string) ([]byte, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read the index's record key: %w", err)
	}
	if len(b) != keyLen {
		return nil, fmt.Errorf("the index's record key %s holds %d bytes, not %d: remove it and %s", path, len(b), keyLen, RebuildHint)
	}
	return b, nil
}

func makeKey(path string) ([]byte, error) {
	key := make([]byte, keyLen)
	if _, err := rand.Read(key); err != nil {
		return nil, fmt.Errorf("make the index's record key: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("make the index's record key: %w", err)
	}
	var tag [8]byte
	if _, err := rand.Read(tag[:]); err != nil {
		return nil, fmt.Errorf("make the index's record key: %w", err)
	}
	tmp := fmt.Sprintf("%s.new-%d-%x", path, os.Getpid(), tag)
	if err := safefile.WriteBytes(tmp, key, 0o600); err != nil {
		return nil, fmt.Errorf("make the index's record key: %w", err)
	}
	defer os.Remove(tmp)
	if err := os.Link(tmp, path); err != nil {
		if errors.Is(err, os.ErrExist) {
			return readKey(path) // another process made it first
		}
		return nil, fmt.Errorf("make the index's record key: %w", err)
	}
	if err := safefile.SyncDir(filepath.Dir(path)); err != nil {
		return nil, fmt.Errorf("make the index's record key: %w", err)
	}
	return key, nil
}

// Seal sets the authenticators of a record about to be written: id, its
// text, vec, its vector, and md, its metadata as Chroma will store it
// (scalar values). The vector's own authenticator (VectorAuth: its exact
// bytes, bound to id) goes into md first, so the record's covers it:
// a reader without the vector still checks everything else, and one
// with it checks the vector too. A vector that is not of unit length
// (what the collection's inner-product ranking assumes) is refused.
func (k *RecordKey) Seal(id, document string, vec []float32, md map[string]any) error {
	if err := UnitVector(vec); err != nil {
		return err
	}
	key, err := k.load(true)
	if err != nil {
		return err
	}
	delete(md, keyAuth)
	md[keyVectorAuth] = vectorMAC(key, id, vec)
	md[keyAuth] = recordMAC(key, id, document, md)
	return nil
}

// Open checks a record read back and removes its authenticators from md
// (no consumer reads them): nil, ErrUnauthenticated or ErrTampered. vec
// is its vector when it was read (nil: it was not, and only the rest is
// checked). A failure is counted, and the first one this process meets
// is told to Warn.
func (k *RecordKey) Open(id, document string, vec []float32, md map[string]any) error {
	err := k.open(id, document, vec, md)
	if err != nil {
		k.Refused(err)
	}
	return err
}

// Refused counts a record refused for err (by Open, or by a reader that
// found its vector changed on the server since it was checked) and tells
// Warn of the first.
func (k *RecordKey) Refused(err error) {
	k.failed.Add(1)
	if k.Warn != nil && k.warned.CompareAndSwap(false, true) {
		fmt.Fprintf(k.Warn, "cmdai: warning: records of the index failed verification (%v) and are not shown: the index was tampered with or predates record authenticators; %s\n", err, RebuildHint)
	}
}

// Check is Open without counting or warning: what status and doctor use
// to count the failures of a whole index.
func (k *RecordKey) Check(id, document string, vec []float32, md map[string]any) error {
	return k.open(id, document, vec, md)
}

func (k *RecordKey) open(id, document string, vec []float32, md map[string]any) error {
	tag, _ := md[keyVectorAuth].(string)
	err := k.check(md, func(key []byte) string { return recordMAC(key, id, document, md) })
	delete(md, keyVectorAuth)
	if err != nil || vec == nil {
		return err
	}
	if tag == "" {
		return fmt.Errorf("%w: its vector has none (sealed by a cmdai before vectors were)", ErrUnauthenticated)
	}
	if err := UnitVector(vec); err != nil {
		return fmt.Errorf("%w: %v", ErrTampered, err)
	}
	key, err := k.load(false)
	if err != nil {
		return fmt.Errorf("%w (%v)", ErrTampered, err)
	}
	if !hmac.Equal([]byte(tag), []byte(vectorMAC(key, id, vec))) {
		return fmt.Errorf("%w: its vector is not the one sealed", ErrTampered)
	}
	return nil
}

// check compares md's authenticator with mac's, removing it from md.
func (k *RecordKey) check(md map[string]any, mac func(key []byte) string) error {
	got, ok := md[keyAuth].(string)
	delete(md, keyAuth)
	if !ok || got == "" {
		return ErrUnauthenticated
	}
	key, err := k.load(false)
	if err != nil {
		// an authenticator but no key to check it
		return fmt.Errorf("%w (%v)", ErrTampered, err)
	}
	if !hmac.Equal([]byte(got), []byte(mac(key))) {
		return ErrTampered
	}
	return nil
}

// UnitTolerance is how far a vector's length may be from 1: the model's
// vectors are normalised in float32 (within about 1e-6), and int8's
// are too, after pooling.
const UnitTolerance = 1e-3

// UnitVector says why vec is not a vector an index holds: empty, not of
// unit length, or holding a NaN or infinity. Chroma ranks by inner
// product, so one record of a huge vector would come first for every
// request.
func UnitVector(vec []float32) error {
	if len(vec) == 0 {
		return errors.New("the record has no vector")
	}
	var sum float64
	for _, x := range vec {
		sum += float64(x) * float64(x)
	}
	if n := math.Sqrt(sum); math.IsNaN(n) || math.IsInf(n, 0) || math.Abs(n-1) > UnitTolerance {
		return fmt.Errorf("its vector's length is %g, not 1 (the model's vectors are of unit length)", n)
	}
	return nil
}

// vectorPurpose names what a vector's authenticator is made for: its key
// is derived from the record key, so no record's or metadata's
// authenticator is ever a vector's.
const vectorPurpose = "cmdai record vector v1"

// vectorMAC is HMAC-SHA256 over id and vec's exact bytes (float32,
// little-endian), length-prefixed.
func vectorMAC(key []byte, id string, vec []float32) string {
	m := hmac.New(sha256.New, derivedKey(key, vectorPurpose))
	buf := appendPart(make([]byte, 0, 16+len(id)+4*len(vec)), id)
	buf = binary.BigEndian.AppendUint64(buf, uint64(len(vec)))
	for _, x := range vec {
		buf = binary.LittleEndian.AppendUint32(buf, math.Float32bits(x))
	}
	m.Write(buf)
	return base64.RawStdEncoding.EncodeToString(m.Sum(nil))
}

// metaPurpose names what a collection's metadata is sealed as. Its seal
// is made with a key of its own, derived from the record key, so that no
// record's authenticator (whatever its id) is ever a collection's; and
// bound to no collection name, which build's and import's swap change.
const metaPurpose = "cmdai collection metadata v1"

func metaKey(key []byte) []byte { return derivedKey(key, metaPurpose) }

// derivedKey is key's key for one purpose.
func derivedKey(key []byte, purpose string) []byte {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(purpose))
	return m.Sum(nil)
}

// SealMeta sets the authenticator of a collection's metadata about to be
// written: md, cmdai's keys (not Chroma's own, which it may set itself).
// Its free text (distro, os, tool version, failure reasons) reaches the
// assistants through status: nobody else may write it.
func (k *RecordKey) SealMeta(md map[string]any) error {
	key, err := k.load(true)
	if err != nil {
		return err
	}
	delete(md, keyAuth)
	md[keyAuth] = recordMAC(metaKey(key), metaPurpose, "", md)
	return nil
}

// OpenMeta checks a collection's metadata read back (cmdai's keys) and
// removes its authenticator: nil, ErrUnauthenticated or ErrTampered.
func (k *RecordKey) OpenMeta(md map[string]any) error {
	return k.check(md, func(key []byte) string { return recordMAC(metaKey(key), metaPurpose, "", md) })
}

// recordMAC is HMAC-SHA256 over the canonical encoding of a record: its
// id, its text, then md's keys in sorted order, each with its value;
// every part length-prefixed, so that no two records encode alike.
// Numbers are written one way whatever their Go type (a 3 written as int
// reads back int64, and float64 from an export's JSON).
func recordMAC(key []byte, id, document string, md map[string]any) string {
	keys := make([]string, 0, len(md))
	size := len(id) + len(document) + 16
	for k, v := range md {
		keys = append(keys, k)
		if s, ok := v.(string); ok {
			size += len(s)
		}
		size += len(k) + 32
	}
	sort.Strings(keys)
	buf := make([]byte, 0, size)
	buf = appendPart(buf, id)
	buf = appendPart(buf, document)
	for _, k := range keys {
		buf = appendPart(buf, k)
		buf = appendValue(buf, md[k])
	}
	m := hmac.New(sha256.New, key)
	m.Write(buf)
	return base64.RawStdEncoding.EncodeToString(m.Sum(nil))
}

// appendPart appends s with its length before it.
func appendPart(buf []byte, s string) []byte {
	buf = binary.BigEndian.AppendUint64(buf, uint64(len(s)))
	return append(buf, s...)
}

// appendValue appends a metadata value with its type's tag.
func appendValue(buf []byte, v any) []byte {
	switch x := v.(type) {
	case string:
		return appendPart(append(buf, 's'), x)
	case bool:
		return appendPart(append(buf, 'b'), strconv.FormatBool(x))
	case int:
		return appendPart(append(buf, 'n'), number(float64(x)))
	case int64:
		return appendPart(append(buf, 'n'), number(float64(x)))
	case float32:
		return appendPart(append(buf, 'n'), number(float64(x)))
	case float64:
		return appendPart(append(buf, 'n'), number(x))
	}
	return appendPart(append(buf, '?'), fmt.Sprint(v))
}

func number(f float64) string {
	if f == math.Trunc(f) && math.Abs(f) < 1<<53 {
		return strconv.FormatInt(int64(f), 10)
	}
	return strconv.FormatFloat(f, 'g', -1, 64)
}

// copyPurpose names what a local copy of an index is sealed as (ship's
// KeepCopy): a key of its own, so that no record's or metadata's
// authenticator is ever a copy's.
const copyPurpose = "cmdai local copy v1"

// SealCopy is the authenticator of a local copy of an index, described
// by parts (its file's sha256, its collection, where it came from): only
// this machine's key makes it, so a copy put back (ship.Restore) is one
// this machine kept.
func (k *RecordKey) SealCopy(parts ...string) (string, error) {
	key, err := k.load(true)
	if err != nil {
		return "", err
	}
	return copyMAC(key, parts), nil
}

// CheckCopy checks mac, a copy's authenticator (SealCopy), against parts:
// nil, or ErrTampered.
func (k *RecordKey) CheckCopy(mac string, parts ...string) error {
	key, err := k.load(false)
	if err != nil {
		return err
	}
	if !hmac.Equal([]byte(mac), []byte(copyMAC(key, parts))) {
		return ErrTampered
	}
	return nil
}

func copyMAC(key []byte, parts []string) string {
	m := hmac.New(sha256.New, derivedKey(key, copyPurpose))
	var buf []byte
	for _, p := range parts {
		buf = appendPart(buf, p)
	}
	m.Write(buf)
	return base64.RawStdEncoding.EncodeToString(m.Sum(nil))
}
