// Package chroma stores cmdai's records in a Chroma server and reads them
// back: it starts a private server on loopback when no URL is configured
// (locking its data directory), or connects to a remote one.
package chroma
