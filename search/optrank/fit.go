package optrank

// AnswerBudget is how many bytes of `-k 5 --json` the answered commands
// may take by default (seed 004: an agent passes an answer under 4 KB
// through whole; the request and the envelope take the rest). The
// budget grows with the commands asked for: AnswerBudget/5 each.
const AnswerBudget = 3700

// Favor is how many more records an answer's first and second commands
// keep than the others when the budget runs short: the first command is
// the right one for most requests whose command is found at all, and
// the records it shows are the ones read (chosen on train:
// docs/benchmarks/retrieval.md, "Which flag" and "A leaner answer").
var Favor = []int{10, 4}

// Fit is how many of each command's records (best first, sizes[i][j]
// bytes each) an answer keeps within budget bytes. Every command keeps
// its first record; past that, a record is dropped from the end of the
// command keeping the most beyond its Favor (the later command on a
// tie) until the rest fit or every command is down to one.
func Fit(sizes [][]int, budget int) []int {
	keep := make([]int, len(sizes))
	total := 0
	for i, s := range sizes {
		keep[i] = len(s)
		for _, n := range s {
			total += n
		}
	}
	favor := func(i int) int {
		if i < len(Favor) {
			return Favor[i]
		}
		return 0
	}
	for total > budget {
		drop := -1
		for i := range keep {
			if keep[i] > 1 && (drop < 0 || keep[i]-favor(i) >= keep[drop]-favor(drop)) {
				drop = i
			}
		}
		if drop < 0 {
			break
		}
		keep[drop]--
		total -= sizes[drop][keep[drop]]
	}
	return keep
}
