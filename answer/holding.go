package answer

// Holding says what a long-lived Answerer (serve's warm index) holds:
// its collection and the Chroma it answers from, or, while it runs
// without Chroma, why (Degraded). serve builds its health answer and a
// writer's lease from it; what is serve's own (its pid, a writer holding
// the lease) serve adds.
type Holding struct {
	Collection string
	// ChromaURL is the server answering (the one asked for while there is
	// none); DataDir is its private server's data directory ("" with
	// --chroma-url, and while there is no Chroma: writers then reach or
	// start it themselves).
	ChromaURL string
	DataDir   string
	// Degraded: no Chroma (it could not be reached or started, or it
	// stopped answering); answers come from disk. DegradedReason is why.
	Degraded       bool
	DegradedReason string
}
