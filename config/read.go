package config

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/cmdai/cmdai/internal/safefile"
)

// A configuration file is a few lines of settings. What cmdai reads
// before any command runs must end, and soon, whatever the path names:
// these bound it.
const (
	// MaxFileSize is the largest configuration file read (1 MiB: a
	// thousand times the largest real one).
	MaxFileSize = 1 << 20
	// MaxDepth is the deepest nesting of lists, tables and indented
	// blocks a file may have. The settings are flat (depth 1); the
	// parsers recurse per level, and a few MB of "[[[[" overflows the
	// stack, which no recover catches.
	MaxDepth = 64
)

// ReadTimeout bounds finding and reading the file (a hung network
// mount). A variable for tests.
var ReadTimeout = 10 * time.Second

// readFile reads a configuration file (a variable for tests).
var readFile = readRegular

// readRegular reads path if it is a regular file of at most MaxFileSize
// bytes (safefile.ReadRegular: a FIFO, a device or a growing file is refused
// before it can block or fill memory), saying so in a configuration
// file's words.
func readRegular(path string) ([]byte, error) {
	data, _, err := safefile.ReadRegular(path, MaxFileSize)
	var notRegular *safefile.NotRegularError
	var tooLarge *safefile.TooLargeError
	switch {
	case errors.As(err, &notRegular):
		return nil, fmt.Errorf("%v: cmdai reads its settings only from a regular file", notRegular)
	case errors.As(err, &tooLarge) && tooLarge.Size < 0:
		return nil, fmt.Errorf("grew past the %d bytes a configuration file may have while it was read", MaxFileSize)
	case errors.As(err, &tooLarge):
		return nil, fmt.Errorf("is %d bytes, over the %d a configuration file may have", tooLarge.Size, MaxFileSize)
	}
	return data, err
}

// LoadContext is Load bounded in time: it gives up when ctx ends (a
// signal: the caller exits 130 or 143 at once) or after ReadTimeout,
// whatever the file system does. A read that never returns is left
// behind; the command fails and the process exits with it.
func LoadContext(ctx context.Context, getenv Env) (*File, error) {
	type result struct {
		file *File
		err  error
	}
	done := make(chan result, 1)
	go func() {
		f, err := Load(getenv)
		done <- result{f, err}
	}()
	timer := time.NewTimer(ReadTimeout)
	defer timer.Stop()
	select {
	case r := <-done:
		return r.file, r.err
	case <-ctx.Done():
		return nil, fmt.Errorf("reading the configuration file: %w", context.Cause(ctx))
	case <-timer.C:
		what := "the configuration file"
		if p := getenv(EnvConfig); p != "" {
			what = EnvConfig + "=" + p
		}
		return nil, fmt.Errorf("%s: not read within %s (a hung network mount?); move it to a local disk, or unset %s", what, ReadTimeout, EnvConfig)
	}
}

// nestingDepth is the deepest nesting in data, counted before a parser
// sees it and so never recursing: brackets and braces anywhere (quoted
// ones too: a real file has a handful), plus the indented blocks and
// "- " items open on a line. Lines whose first non-blank is "#" are
// comments.
func nestingDepth(data []byte) int {
	max, flow := 0, 0
	var indents []int
	for len(data) > 0 {
		line := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			data = nil
		}
		body := bytes.TrimLeft(line, " \t")
		if len(body) == 0 || body[0] == '#' {
			continue
		}
		block := 0
		if flow == 0 {
			indent := len(line) - len(body)
			for len(indents) > 0 && indents[len(indents)-1] >= indent {
				indents = indents[:len(indents)-1]
			}
			indents = append(indents, indent)
			block = len(indents)
			for len(body) > 1 && body[0] == '-' && (body[1] == ' ' || body[1] == '\t') {
				block++
				body = bytes.TrimLeft(body[1:], " \t")
			}
		}
		max = maxInt(max, block+flow)
		for _, c := range body {
			switch c {
			case '[', '{':
				flow++
				max = maxInt(max, block+flow)
			case ']', '}':
				if flow > 0 {
					flow--
				}
			}
		}
	}
	return max
}

func maxInt(a, b int) int {
	if a > b {
		return a
	}
	return b
}
