package evaluate

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"strings"
)

// ReadEvalQueries reads an evaluation file: JSON Lines of {"query": ...,
// "command": ...} (or "request" for "query"); blank lines are skipped. A
// line without both is an error naming the line.
func ReadEvalQueries(path string) ([]EvalQuery, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var qs []EvalQuery
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for n := 1; sc.Scan(); n++ {
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		var q EvalQuery
		if err := json.Unmarshal(sc.Bytes(), &q); err != nil || q.Text() == "" || q.Command == "" {
			return nil, fmt.Errorf("%s line %d: want {\"query\": \"...\", \"command\": \"...\"}", path, n)
		}
		qs = append(qs, q)
	}
	return qs, sc.Err()
}
