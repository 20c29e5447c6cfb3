// Package chroma stores cmdai's records in a Chroma server and reads them
// back: it starts a private server on loopback when no URL is configured
// (locking its data directory), or connects to a remote one.
//
// Size: one room, the store: its reads and writes, the checks of what it
// reads back against the authenticators of what it wrote (records, their
// vectors, the collection's metadata) and the private server's life.
// The checks sit with the reads they guard, so none can be skipped.
package chroma
