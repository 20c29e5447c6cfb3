// Package firstuse lets code that builds something on its first use (a
// cache an older cmdai did not leave, the keyword index of an index
// written elsewhere) say what it is doing to whoever waits: the CLI shows
// it as a spinner on a terminal; without a Notifier nothing is said.
package firstuse

import "context"

// Notifier is told that what is being built, and returns the function
// that says it is done. It may be called from several goroutines at once.
type Notifier func(what string) (done func())

type key struct{}

// With returns ctx carrying n (nil: nothing is said).
func With(ctx context.Context, n Notifier) context.Context {
	return context.WithValue(ctx, key{}, n)
}

// Begin says, through ctx's Notifier, that what is being built now, and
// returns the function to call once it is built (a no-op without one).
func Begin(ctx context.Context, what string) (done func()) {
	if n, _ := ctx.Value(key{}).(Notifier); n != nil {
		return n(what)
	}
	return func() {}
}
