// Package jsonout writes cmdai's JSON outputs (the CLI's --json, serve's
// HTTP answers) with their schema version: every object starts with
// "schema_version", each line of a JSON Lines output included, so that a
// consumer can tell a format it knows from a later one. Fields are only
// ever added within a version; a field that changes its type or meaning,
// or goes, makes the next version.
package jsonout

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
)

// SchemaVersion is the version of the JSON outputs' format.
const SchemaVersion = 1

var versionKey = []byte(`{"schema_version":`)

// Marshal is json.Marshal with "schema_version" first in an object (an
// object that has one already is left as it is; other values are
// returned as they are), and <, > and & as they are: the output is read
// by scripts and people, never put in HTML. Control characters are
// escaped as always.
func Marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	b := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
	if len(b) < 2 || b[0] != '{' || bytes.HasPrefix(b, versionKey) {
		return b, nil
	}
	head := fmt.Sprintf(`{"schema_version":%d`, SchemaVersion)
	if string(b) == "{}" {
		return []byte(head + "}"), nil
	}
	return append([]byte(head+","), b[1:]...), nil
}

// Encode writes v as Marshal does, and a newline: one line.
func Encode(w io.Writer, v any) error {
	b, err := Marshal(v)
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// EncodeIndent is Encode indented, for outputs people read too.
func EncodeIndent(w io.Writer, v any, indent string) error {
	b, err := Marshal(v)
	if err != nil {
		return err
	}
	var out bytes.Buffer
	if err := json.Indent(&out, b, "", indent); err != nil {
		return err
	}
	out.WriteByte('\n')
	_, err = w.Write(out.Bytes())
	return err
}

// Error is the object an error is under --json (on stdout), and serve's
// error answer: the message, and the exit code the CLI exits with.
type Error struct {
	Error    string `json:"error"`
	ExitCode int    `json:"exit_code"`
}
