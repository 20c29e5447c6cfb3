// Package errmark marks an error as also being a sentinel (errors.Is),
// its text unchanged: where a failure's cause is known but its message
// must stay as the step that failed wrote it.
package errmark

import "errors"

// As returns err, marked so that errors.Is(err, sentinel) holds; nil
// stays nil, and an err that already is sentinel is returned as it is.
func As(err, sentinel error) error {
	if err == nil || errors.Is(err, sentinel) {
		return err
	}
	return &marked{err: err, sentinel: sentinel}
}

type marked struct {
	err      error
	sentinel error
}

func (m *marked) Error() string        { return m.err.Error() }
func (m *marked) Unwrap() error        { return m.err }
func (m *marked) Is(target error) bool { return target == m.sentinel }
