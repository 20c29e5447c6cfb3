package packaging

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/cmdai/cmdai/internal/filehash"
	"github.com/cmdai/cmdai/internal/safefile"
)

func bytesReader(b []byte) io.Reader { return bytes.NewReader(b) }

// ChecksumSuffix names the checksums file beside a tarball.
const ChecksumSuffix = ".sha256"

// FileSHA256 hashes a file (filehash.SHA256).
var FileSHA256 = filehash.SHA256

// WriteChecksumFile writes path + ".sha256" in sha256sum format, so that
// `sha256sum -c` in its directory verifies the tarball.
func WriteChecksumFile(path string) (string, error) {
	sum, _, err := FileSHA256(path)
	if err != nil {
		return "", err
	}
	line := fmt.Sprintf("%s  %s\n", sum, filepath.Base(path))
	return sum, safefile.WriteBytes(path+ChecksumSuffix, []byte(line), 0o644)
}

// ParseChecksums reads sha256sum output: "<64 hex>  <name>" per line
// ("*<name>" in binary mode). It maps base names to sums.
func ParseChecksums(r io.Reader) (map[string]string, error) {
	out := map[string]string{}
	sc := bufio.NewScanner(r)
	n := 0
	for sc.Scan() {
		n++
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		sum, name, ok := strings.Cut(line, " ")
		name = strings.TrimPrefix(strings.TrimLeft(name, " "), "*")
		if !ok || len(sum) != 64 || name == "" {
			return nil, fmt.Errorf("line %d is not in sha256sum format (\"<sha256>  <file>\"): %q", n, line)
		}
		if _, err := hex.DecodeString(sum); err != nil {
			return nil, fmt.Errorf("line %d: %q is not a sha256", n, sum)
		}
		out[filepath.Base(name)] = strings.ToLower(sum)
	}
	return out, sc.Err()
}

// ErrChecksum means a file does not match its published sha256.
var ErrChecksum = fmt.Errorf("checksum mismatch")

// VerifyFile checks path against the sum listed for its base name in the
// checksums file sums.
func VerifyFile(path, sums string) error {
	f, err := os.Open(sums)
	if err != nil {
		return err
	}
	defer f.Close()
	list, err := ParseChecksums(f)
	if err != nil {
		return fmt.Errorf("%s: %w", sums, err)
	}
	want, ok := list[filepath.Base(path)]
	if !ok {
		return fmt.Errorf("%s lists no checksum for %s", sums, filepath.Base(path))
	}
	got, _, err := FileSHA256(path)
	if err != nil {
		return err
	}
	if got != want {
		return fmt.Errorf("%w: %s has sha256 %s, %s says %s: the file is damaged or not the one published; download it again", ErrChecksum, path, got, filepath.Base(sums), want)
	}
	return nil
}

// WriteFile writes a tarball to path atomically (safefile.WriteFile), so that
// a failure never leaves a half file under the final name; then the
// checksums file beside it. It returns the tarball's sha256.
func WriteFile(path string, write func(io.Writer) error) (string, error) {
	if err := safefile.WriteFile(path, 0o644, write); err != nil {
		return "", err
	}
	return WriteChecksumFile(path)
}
