package evaluate

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestReadEvalQueries(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.jsonl")
	body := `{"query":"count lines","command":"wc"}` + "\n\n   \n" + `{"request":"list files","command":"ls"}` + "\n"
	if err := os.WriteFile(good, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	qs, err := ReadEvalQueries(good)
	want := []EvalQuery{{Query: "count lines", Command: "wc"}, {Request: "list files", Command: "ls"}}
	if err != nil || !reflect.DeepEqual(qs, want) {
		t.Errorf("ReadEvalQueries = %+v, %v; want %+v", qs, err, want)
	}
	for i, line := range []string{`not json`, `{"query":"no command"}`, `{"command":"no request"}`} {
		bad := filepath.Join(dir, "bad.jsonl")
		if err := os.WriteFile(bad, []byte(`{"query":"ok","command":"ok"}`+"\n"+line+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := ReadEvalQueries(bad); err == nil || !strings.Contains(err.Error(), "line 2") {
			t.Errorf("case %d %q: err %v, want one naming line 2", i, line, err)
		}
	}
	if _, err := ReadEvalQueries(filepath.Join(dir, "missing.jsonl")); err == nil {
		t.Error("a missing file read without error")
	}
}
