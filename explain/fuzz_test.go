package explain

import (
	"context"
	"errors"
	"testing"
)

// seedLines are our own lines: every construct Explain walks.
var seedLines = []string{
	"tar -xzvf a.tgz -C /tmp | grep -c foo",
	"tar xzvf a.tgz",
	"find . -name '*.go' -mtime -1 -exec rm {} \\;",
	"find / \\( -type f -o -type l \\) -newermt 2024-01-01 -exec cp -t /x {} +",
	"xargs -0 -I{} cp {} /tmp",
	"sudo -u root env A=1 nice -n 5 timeout 10 grep -r x .",
	"git -C /src commit -am 'msg' -- a.go",
	"LC_ALL=C sort -k2,2n -t: f > out 2>&1",
	"for f in *.txt; do wc -l \"$f\"; done",
	"cat <<EOF | grep x\nbody -v\nEOF",
	"alias ll='ls -l'; ll",
	"f() { echo $1; }; f x",
	"echo $(head -n 1 f) `cat g` <(ls)",
	"grep --reg x --colour=always -- -v -",
	"ps aux | awk '{print $2}'",
	"sh -c 'grep -c x f'",
	"time grep -c x f",
	"[[ -f x ]] && test -d y",
	"grep 'unbalanced",
	"",
	"ls\x00",
	"((i++)); let x=1; declare -a a=(1 2)",
	"case $x in a) ls;; esac",
	"coproc cat; select x in a b; do break; done",
	"ls -lah --color=auto /tmp | sort -k5,5n | tail -n 3",
	"grep -rn --include='*.go' -e TODO . | wc -l",
	"find . -type f -size +1M -print0 | xargs -0 -P 4 -n 1 gzip -9",
	"tar -cf - dir | (cd /dst && tar -xpf -)",
	"env -u HOME LANG=C.UTF-8 sort -t, -k2 data.csv > sorted.csv",
	"timeout -s KILL 30 curl -sSL -o out.html https://example.org",
	"nice -n 19 ionice -c 3 tar --zstd -cf backup.tar.zst /home",
	"head -c 100 /dev/urandom | od -An -tx1",
	"cut -d: -f1,3 /etc/passwd | sort -t: -k2n | head -5",
	"du -sh * 2>/dev/null | sort -rh | head",
	"chmod -R u+rwX,go-w dir && chown -R user:group dir",
	"kill -9 $(pgrep -f runaway) || true",
	"while read -r line; do echo \"$line\"; done < input.txt",
	"if [ -d /tmp/x ]; then rm -rf /tmp/x; fi",
	"git log --oneline --graph -20 | cat",
	"sed -i.bak -e 's/foo/bar/g' -e '/^#/d' conf",
	"awk -F: '$3 >= 1000 {print $1}' /etc/passwd",
	"watch -n 5 'df -h | grep sda'",
	"ssh -p 2222 -L 8080:localhost:80 user@host uptime",
	"printf '%s\\n' a b c | sort -u",
}

func FuzzExplain(f *testing.F) {
	for _, s := range seedLines {
		f.Add(s)
	}
	l := CachedLookup(fixtureLookup(nil))
	f.Fuzz(func(t *testing.T, line string) {
		r, err := Explain(context.Background(), line, l, Options{})
		if err != nil {
			if !errors.Is(err, ErrBadLine) {
				t.Fatalf("%q: %v is not ErrBadLine", line, err)
			}
			return
		}
		for _, c := range r.Commands {
			if c.Start < 0 || c.End > len(line) || c.Start > c.End {
				t.Fatalf("%q: command %s at %d-%d", line, c.Name, c.Start, c.End)
			}
			for _, w := range c.Words {
				if w.Start < 0 || w.End > len(line) || w.Start > w.End {
					t.Fatalf("%q: word %q at %d-%d", line, w.Text, w.Start, w.End)
				}
			}
		}
	})
}

// BenchmarkExplain: warm, with a cached lookup, over our seed lines.
func BenchmarkExplain(b *testing.B) {
	l := CachedLookup(fixtureLookup(nil))
	var lines []string
	for _, s := range seedLines {
		if checkLine(s) == nil {
			if _, err := parseLine(s); err == nil {
				lines = append(lines, s)
			}
		}
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		line := lines[i%len(lines)]
		if _, err := Explain(context.Background(), line, l, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}
