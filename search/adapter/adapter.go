// Package adapter is a query adapter (Chroma's "embedding adapters"
// report, 2023): a linear map, W·v + b, of the request's embedding, then
// scaled back to unit length, toward the commands the train requests
// expected (`make adapter-train` fits W and b). The index keeps its
// vectors, and so does the search: learned mode takes the adapted
// request's cosine with each candidate's description as two more
// features (search.Candidates), beside the reranker's. It ships in the
// reranker's directory (FileName, listed in its manifest); Attach
// carries it with the reranker to the search.
//
// The file (little-endian):
//
//	"cmdai-adapter1\n"          15 bytes, the magic
//	dims      uint32            the embedding's width (384 here)
//	hasBias   uint32            0 or 1
//	W         dims*dims float32 row-major: out[i] = sum_j W[i*dims+j]*v[j]
//	b         dims float32      only when hasBias is 1
//	sha256    32 bytes          of every byte before it
//
// The checksum turns a cut or altered file into an error, not a silently
// worse ranking.
package adapter

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"math"
	"os"
)

// Magic opens every adapter file.
const Magic = "cmdai-adapter1\n"

// FileName is the adapter's file in the reranker's directory.
const FileName = "adapter.bin"

// maxDims bounds the width a file may claim (a corrupt header must not
// make Read allocate gigabytes).
const maxDims = 4096

// Adapter is a read, checked linear map of request vectors.
type Adapter struct {
	dims int
	w    []float32 // dims*dims, row-major
	b    []float32 // dims, or nil
	sha  string    // hex sha256 of the file's body, to name it in reports
}

// New makes an adapter of width dims from W (dims*dims, row-major) and b
// (dims, or nil for none).
func New(dims int, w, b []float32) (*Adapter, error) {
	if dims <= 0 || dims > maxDims {
		return nil, fmt.Errorf("adapter: width %d out of range 1..%d", dims, maxDims)
	}
	if len(w) != dims*dims {
		return nil, fmt.Errorf("adapter: matrix has %d values, want %d (%dx%d)", len(w), dims*dims, dims, dims)
	}
	if b != nil && len(b) != dims {
		return nil, fmt.Errorf("adapter: bias has %d values, want %d", len(b), dims)
	}
	if !finite(w) || !finite(b) {
		return nil, fmt.Errorf("adapter: holds NaN or Inf")
	}
	a := &Adapter{dims: dims, w: w, b: b}
	a.sha = fmt.Sprintf("%x", sha256.Sum256(a.body()))
	return a, nil
}

// Dims is the width of the vectors it maps.
func (a *Adapter) Dims() int { return a.dims }

// SHA256 is the hex sha256 of the file's body (what its last 32 bytes hold).
func (a *Adapter) SHA256() string { return a.sha }

// Encode is the adapter as a file (the format above).
func (a *Adapter) Encode() []byte {
	body := a.body()
	sum := sha256.Sum256(body)
	return append(body, sum[:]...)
}

func (a *Adapter) body() []byte {
	var buf bytes.Buffer
	buf.WriteString(Magic)
	hasBias := uint32(0)
	if a.b != nil {
		hasBias = 1
	}
	// writes to a bytes.Buffer cannot fail
	_ = binary.Write(&buf, binary.LittleEndian, [2]uint32{uint32(a.dims), hasBias})
	_ = binary.Write(&buf, binary.LittleEndian, a.w)
	if a.b != nil {
		_ = binary.Write(&buf, binary.LittleEndian, a.b)
	}
	return buf.Bytes()
}

// Read reads and checks an adapter file: its magic, its shape, its
// checksum. Every failure names the file and what to do.
func Read(path string) (*Adapter, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("adapter: %w", err)
	}
	a, err := Decode(data)
	if err != nil {
		return nil, fmt.Errorf("adapter %s: %w: rebuild it with `make reranker` (retrain: `make adapter-train`)", path, err)
	}
	return a, nil
}

// Decode reads an adapter from the bytes of its file.
func Decode(data []byte) (*Adapter, error) {
	head := len(Magic) + 8
	if len(data) < head+sha256.Size || string(data[:len(Magic)]) != Magic {
		return nil, fmt.Errorf("not an adapter file (no %q header)", Magic[:len(Magic)-1])
	}
	body, sum := data[:len(data)-sha256.Size], data[len(data)-sha256.Size:]
	if got := sha256.Sum256(body); !bytes.Equal(got[:], sum) {
		return nil, fmt.Errorf("checksum mismatch: the file is cut short or altered")
	}
	dims := int(binary.LittleEndian.Uint32(data[len(Magic):]))
	hasBias := binary.LittleEndian.Uint32(data[len(Magic)+4:])
	if dims <= 0 || dims > maxDims || hasBias > 1 {
		return nil, fmt.Errorf("bad header: width %d, bias flag %d", dims, hasBias)
	}
	n := dims * dims
	if hasBias == 1 {
		n += dims
	}
	if len(body)-head != 4*n {
		return nil, fmt.Errorf("%d bytes of values, want %d for width %d", len(body)-head, 4*n, dims)
	}
	vals := make([]float32, n)
	if err := binary.Read(bytes.NewReader(body[head:]), binary.LittleEndian, vals); err != nil {
		return nil, err
	}
	var b []float32
	if hasBias == 1 {
		b = vals[dims*dims:]
	}
	return New(dims, vals[:dims*dims], b)
}

// Apply maps a request vector: W·v + b, scaled to unit length (the index
// ranks by inner product of unit vectors). The input is left as it was.
// A nil Adapter gives the vector back unchanged.
func (a *Adapter) Apply(vec []float32) ([]float32, error) {
	if a == nil {
		return vec, nil // no adapter: the vector as the embedder gave it
	}
	if len(vec) != a.dims {
		return nil, fmt.Errorf("adapter of width %d cannot map a vector of %d: it was trained for another model", a.dims, len(vec))
	}
	out := make([]float32, a.dims)
	var norm float64
	for i := range out {
		s := dot(a.w[i*a.dims:(i+1)*a.dims], vec)
		if a.b != nil {
			s += a.b[i]
		}
		out[i] = s
		norm += float64(s) * float64(s)
	}
	if norm == 0 {
		return nil, fmt.Errorf("adapter maps this request to the zero vector")
	}
	inv := float32(1 / math.Sqrt(norm))
	for i := range out {
		out[i] *= inv
	}
	return out, nil
}

func finite(xs []float32) bool {
	for _, x := range xs {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return false
		}
	}
	return true
}

// dot is the inner product of two slices of the same length, with four
// running sums: the compiler does not vectorise, and one sum's chain of
// dependent additions more than halves the speed (a 384x384 Apply here, 2 busy cores: 135 -> 58 µs).
func dot(x, y []float32) float32 {
	y = y[:len(x)]
	var s0, s1, s2, s3 float32
	j := 0
	for ; j+4 <= len(x); j += 4 {
		s0 += x[j] * y[j]
		s1 += x[j+1] * y[j+1]
		s2 += x[j+2] * y[j+2]
		s3 += x[j+3] * y[j+3]
	}
	for ; j < len(x); j++ {
		s0 += x[j] * y[j]
	}
	return (s0 + s1) + (s2 + s3)
}
