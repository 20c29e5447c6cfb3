// Package requests holds cmdai's own evaluation request sets (data, not code):
// requests-own.jsonl is a test set written by hand, read by `cmdai index
// eval --queries`. Its tests check the file's shape, so that an edit that
// breaks a rule of the set (README.md here) fails `make unit`.
package requests
