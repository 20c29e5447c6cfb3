#!/usr/bin/env python3
"""Option recall and example completeness of the native man page parser,
measured against groff's own rendering (issue 43, item 4: "the page gives
all it has").

For every page `cmdai index scan --json` indexes on this machine (status
parsed, each man_page once: aliases and subcommand pages share or have
their own), the page is rendered as man does

    LC_ALL=C.UTF-8 MANWIDTH=120 man -l -P cat PAGE | col -b -x

and the option spellings groff shows at the head of an indented paragraph
are collected: a line whose first text is "-x" or "--word" (or several
such lines in a row: .TQ, DocBook's one spelling a line) and whose
paragraph body is indented deeper, either on the lines below or on the
same line at the column the body lines use (a short tag: "-a     text";
for a one-line paragraph, at a body offset other heads of the page use,
after two blanks at least). A line that continues a paragraph of prose
(previous or next line at the same indentation and not a tag) is not a
head. A tag line is cut where a description set on it after a gap of two
blanks starts (help2man's "--arch=<string>     - Target arch"). Heads
are taken at any indentation: nested lists count (as's "-ac" under
"-a"; every option of ss after the .RS its page leaves open), and so
do values set like options (ssh-keygen's "-4w:+4w"): the misses list
shows them. Spellings are the words of a tag that start with "-" or
"--" (an en dash before a word reads as "--": docutils' typography),
cut at "=", "[", "<", "{", "(", and "/" splits. Sections whose tags are not
options are left out, as the parser leaves them out: NAME, SYNOPSIS,
SEE ALSO, AUTHOR(S), COPYRIGHT, HISTORY and any *EXAMPLE* section.

Option recall = spellings groff shows that some option record of that
page carries (its label, the first line after "option ") / all of them.

Example completeness: each example record (its pieces joined) is
  - "marker": its last line is a lone list marker (a bullet, "1.") where
    the command should have been;
  - "complete": a description and a command line (a prompt "$ ", "# "; or
    a line whose first word is a command on $PATH, a path, or the page's
    command, that is not a sentence);
  - "command-only": a command line and no description (no line of prose:
    four words or more, or ending in "." or ":", that is not a command);
  - "split": a description without a command line, beside (just before or
    after) a command-only record: one example cut in two;
  - "prose-only": any other description without a command line (an intro
    to the section, a note after an example, a command set inline in a
    sentence: heuristic, not necessarily a loss);
  - "neither": no command line and no prose (a program's output alone).
An example lost its command line when it is "marker" or "split". The
samples printed let a reader tell parser misses from heuristic noise.

Usage (a pure-Go build is enough: the scan embeds nothing):
  CGO_ENABLED=0 go build -o /tmp/cmdai-pure ./cmd/cmdai
  option-recall.py [--bin /tmp/cmdai-pure | --scan scan.jsonl]
                   [--cache DIR] [--worst N] [--sample N] [--page CMD]
                   [--json OUT]

--page CMD prints, for that command's page, every head groff shows and
whether a record carries it (scripts/research/manparse-dump shows the
parser's blocks and records of one page file). Renderings are cached in --cache (default
/tmp/option-recall-cache), keyed by the page's path and mtime.
"""
import argparse
import collections
import hashlib
import json
import os
import re
import subprocess
import sys

EXCLUDED = {"NAME", "SYNOPSIS", "SEE ALSO", "AUTHOR", "AUTHORS", "COPYRIGHT", "HISTORY"}
FLAG = re.compile(r"^--?[A-Za-z0-9?#@][A-Za-z0-9_.:+?#@-]*$")
HEAD = re.compile(r"^(?:--?|\u2013)[A-Za-z0-9?#@]")
# groff's hyphen and minus are the ASCII hyphen here; an en dash before a
# word is "--" that docutils' smart quotes turned into one (rst2man pages:
# llvm-config's "\u2013version")
DASHES = str.maketrans({"\u2010": "-", "\u2011": "-", "\u2212": "-", "\u00ad": ""})
MARKERS = re.compile(r"^(?:[\u2022\u00b7\u25e6\u2023*o+-]|\(?[0-9]{1,2}[.)]|\(?[a-z][.)])$")


def spellings(tag):
    """The spellings in a tag or record label: "-e PATTERNS, --regexp=PATTERNS"
    gives -e and --regexp."""
    out = []
    for tok in re.split(r"[\s,|/]+", tag.translate(DASHES)):
        if tok.startswith("\u2013"):
            tok = "--" + tok[1:]
        tok = re.split(r"[=\[<{(]", tok, maxsplit=1)[0].rstrip(".;:)]'\"")
        if FLAG.match(tok) and tok not in out:
            out.append(tok)
    return out


def cut_at_gap(tag):
    """A tag line's tag without a description set on it after a gap of
    two blanks or more (help2man's "--arch=<string>     - Target arch"),
    keeping gaps inside the tag (a justified "-a,  --all", "-D   --dry")."""
    segs = re.split(r"\s{2,}", tag.strip())
    out = segs[0]
    for seg in segs[1:]:
        if out.endswith((",", " or", "|")) or (seg.startswith("-") and not seg.startswith("- ")):
            out += " " + seg
            continue
        break
    return out


def indent(line):
    return len(line) - len(line.lstrip(" "))


def render(path, cache):
    st = os.stat(path)
    key = hashlib.sha1(f"{path}\0{st.st_mtime_ns}\0{st.st_size}".encode()).hexdigest()
    cf = os.path.join(cache, key + ".txt")
    if os.path.exists(cf):
        return open(cf, encoding="utf-8").read()
    env = dict(os.environ, LC_ALL="C.UTF-8", MANWIDTH="120", MAN_KEEP_FORMATTING="")
    env.pop("MAN_KEEP_FORMATTING")
    man = subprocess.run(["man", "-l", "-P", "cat", path], env=env, capture_output=True, timeout=120)
    col = subprocess.run(["col", "-b", "-x"], input=man.stdout, env=env, capture_output=True, timeout=60)
    text = col.stdout.decode("utf-8", "replace")
    with open(cf + ".tmp", "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(cf + ".tmp", cf)
    return text


def groff_heads(text):
    """[(section, line number, tag, [spellings])] of the option heads the
    rendering shows."""
    lines = [l.translate(DASHES).rstrip() for l in text.split("\n")]
    # drop the header and footer lines
    nonblank = [i for i, l in enumerate(lines) if l.strip()]
    if len(nonblank) >= 2:
        lines[nonblank[0]] = ""
        lines[nonblank[-1]] = ""
    section = ""
    excluded = True
    is_head = [False] * len(lines)
    # pass 1: heads whose body is on the lines below (these give the body
    # offsets a short tag's same-line body sits at)
    offsets = collections.Counter()
    heads = []
    i = 0
    while i < len(lines):
        l = lines[i]
        if l and not l.startswith(" "):
            section = l.strip().upper()
            excluded = section in EXCLUDED or "EXAMPLE" in section
            i += 1
            continue
        I = indent(l)
        s = l[I:]
        if excluded or not HEAD.match(s):
            i += 1
            continue
        prev = lines[i - 1] if i > 0 else ""
        if prev.strip() and indent(prev) == I and not is_head[i - 1]:
            i += 1  # prose that wraps onto a line starting with a flag
            continue
        # a run of tag lines at the same indentation (.TQ)
        k = i
        while k + 1 < len(lines) and lines[k + 1].strip() and indent(lines[k + 1]) == I and HEAD.match(lines[k + 1][I:]):
            k += 1
        nxt = lines[k + 1] if k + 1 < len(lines) else ""
        if nxt.strip() and indent(nxt) > I:
            J = indent(nxt)
            for m in range(i, k + 1):
                t = lines[m]
                tag = t[I:]
                if len(t) > J and t[J - 1] == " " and t[J] != " " and not HEAD.match(t[J:]):
                    tag = t[I:J].rstrip()
                tag = cut_at_gap(tag)
                offsets[J - I] += 1
                is_head[m] = True
                heads.append((section, m + 1, tag.strip(), spellings(tag)))
            i = k + 1
            continue
        if nxt.strip() and indent(nxt) == I:
            i = k + 1  # a paragraph of prose that starts with a flag
            continue
        # a one-line paragraph: a short tag with a one-line body, at an
        # offset other heads of the page use
        for m in range(i, k + 1):
            t = lines[m]
            for off, _ in offsets.most_common():
                J = I + off
                if len(t) > J and t[J - 2:J] == "  " and t[J] != " " and t[I:J].strip():
                    tag = t[I:J].rstrip()
                    is_head[m] = True
                    heads.append((section, m + 1, tag.strip(), spellings(tag)))
                    break
        i = k + 1
    # pass 2 for single-line short tags seen before any offset was known
    if not offsets:
        return heads
    seen = {h[1] for h in heads}
    section, excluded = "", True
    for i, l in enumerate(lines):
        if l and not l.startswith(" "):
            section = l.strip().upper()
            excluded = section in EXCLUDED or "EXAMPLE" in section
            continue
        if excluded or i + 1 in seen or is_head[i]:
            continue
        I = indent(l)
        s = l[I:]
        if not HEAD.match(s):
            continue
        prev = lines[i - 1] if i > 0 else ""
        nxt = lines[i + 1] if i + 1 < len(lines) else ""
        if (prev.strip() and indent(prev) == I and not is_head[i - 1]) or (nxt.strip() and indent(nxt) == I):
            continue
        if nxt.strip() and indent(nxt) > I:
            continue  # handled in pass 1
        for off, _ in offsets.most_common():
            J = I + off
            if len(l) > J and l[J - 2:J] == "  " and l[J] != " " and l[I:J].strip():
                tag = l[I:J].rstrip()
                is_head[i] = True
                heads.append((section, i + 1, tag.strip(), spellings(tag)))
                break
    heads.sort(key=lambda h: h[1])
    return heads


def record_spellings(chunks):
    out = set()
    for c in chunks:
        if c["metadata"].get("kind") != "option":
            continue
        first = c["text"].split("\n", 1)[0]
        k = first.find(" option ")
        label = first[k + len(" option "):] if k >= 0 else first
        out.update(spellings(label))
        if c["metadata"].get("option"):
            out.add(c["metadata"]["option"])
    return out


def examples(chunks):
    """Example records, their pieces (...#EXAMPLES#3.2) joined."""
    ex = collections.OrderedDict()
    for c in chunks:
        if c["metadata"].get("kind") != "example":
            continue
        base = c["id"].rsplit("#", 1)
        n = base[-1].split(".")[0]
        body = c["text"].split("\n", 1)[1] if "\n" in c["text"] else ""
        ex.setdefault(base[0] + "#" + n, []).append(body)
    return [(k, "\n\n".join(v)) for k, v in ex.items()]


def command_like(line, names, commands):
    s = line.strip()
    if not s:
        return False
    if re.match(r"^[$#%>] ?\S", s) and not re.match(r"^#\s*[A-Z][a-z]+ [a-z]+ [a-z]+", s):
        return True
    words = s.split()
    w = words[0]
    while "=" in w and len(words) > 1 and re.match(r"^[A-Za-z_][A-Za-z0-9_]*=", w):
        words = words[1:]
        w = words[0]
    if w in ("sudo", "env", "doas") and len(words) > 1:
        w = words[1]
    known = w in names or w in commands or w.startswith(("/", "./", "~/")) or os.path.basename(w) in commands
    if not known:
        return False
    sentence = len(words) > 20 or (s.endswith(".") and len(words) > 4 and not re.search(r"\s-\S|[|<>;]", s))
    return not sentence


def description_line(line, names, commands):
    s = line.strip()
    words = s.split()
    return not command_like(line, names, commands) and (len(words) >= 4 or s.endswith((".", ":")))


def classify(body, names, commands):
    """marker, complete, command-only, no-command or neither (output
    alone); classify_all splits no-command into split and prose-only."""
    lines = [l for l in body.split("\n") if l.strip()]
    if not lines:
        return "neither"
    if MARKERS.match(lines[-1].strip()):
        return "marker"
    has_cmd = any(command_like(l, names, commands) for l in lines)
    has_desc = any(description_line(l, names, commands) for l in lines)
    if has_cmd:
        return "complete" if has_desc else "command-only"
    return "no-command" if has_desc else "neither"


def classify_all(exs, names, commands):
    """Each example record's class; a description without a command next
    to a command without a description is "split": the two halves of one
    example cut apart. Other descriptions without a command (an intro to
    the section, a note after an example, a command set inline in prose)
    are "prose-only"."""
    cls = [classify(body, names, commands) for _, body in exs]
    out = []
    for i, c in enumerate(cls):
        if c == "no-command":
            near = (i > 0 and cls[i - 1] == "command-only") or (i + 1 < len(cls) and cls[i + 1] == "command-only")
            c = "split" if near else "prose-only"
        out.append(c)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", default="/tmp/cmdai-pure")
    ap.add_argument("--scan", help="read this `index scan --json` output instead of running --bin")
    ap.add_argument("--cache", default="/tmp/option-recall-cache")
    ap.add_argument("--worst", type=int, default=25)
    ap.add_argument("--sample", type=int, default=40)
    ap.add_argument("--page", help="show every head groff shows on this command's page")
    ap.add_argument("--json", help="write per-page figures here")
    a = ap.parse_args()
    os.makedirs(a.cache, exist_ok=True)
    if a.scan:
        raw = open(a.scan, encoding="utf-8").read()
    else:
        cmd = [a.bin, "index", "scan", "--json"]
        if a.page:
            cmd += ["--command", a.page]
        raw = subprocess.run(cmd, capture_output=True, check=True, text=True).stdout
    recs = [json.loads(l) for l in raw.splitlines() if l.strip()]
    commands = {r["command"] for r in recs if r.get("type") == "command"}
    pages = collections.OrderedDict()
    for r in recs:
        if r.get("type") != "command" or r.get("status") != "parsed" or not r.get("man_page"):
            continue
        if a.page and r["command"] != a.page:
            continue
        if r["man_page"] in pages:
            continue
        pages[r["man_page"]] = r

    tot_heads = tot_found = 0
    per_page = []
    misses = []
    ex_counts = collections.Counter()
    ex_bad = []
    by_section = collections.Counter()
    by_section_miss = collections.Counter()
    for path, r in pages.items():
        try:
            text = render(path, a.cache)
        except (subprocess.SubprocessError, OSError) as e:
            print(f"render failed: {path}: {e}", file=sys.stderr)
            continue
        have = record_spellings(r.get("chunks", []))
        heads = groff_heads(text)
        n = f = 0
        page_miss = []
        for sec, ln, tag, sp in heads:
            for s in sp:
                n += 1
                by_section[sec] += 1
                if s in have:
                    f += 1
                else:
                    by_section_miss[sec] += 1
                    page_miss.append((s, sec, ln, tag))
            if a.page:
                print(f"{ln:5d} {sec[:20]:20s} {'ok  ' if all(s in have for s in sp) else 'MISS'} {tag!r} {sp}")
        tot_heads += n
        tot_found += f
        name = r["command"]
        per_page.append({"command": name, "man_page": path, "spellings": n, "found": f, "records": r.get("options", 0),
                         "misses": [m[0] for m in page_miss]})
        misses.extend((name,) + m for m in page_miss)
        names = {r["command"], r.get("parent") or r["command"]} | set(r.get("aliases") or [])
        exs = examples(r.get("chunks", []))
        for (eid, body), c in zip(exs, classify_all(exs, names, commands)):
            ex_counts[c] += 1
            if c in ("marker", "split", "prose-only"):
                ex_bad.append((c, eid, body))

    print(f"pages: {len(pages)} (status parsed, each man page once)")
    print(f"option heads groff shows: {tot_heads} spellings on {sum(1 for p in per_page if p['spellings'])} pages")
    rec = tot_found / tot_heads if tot_heads else 1.0
    print(f"option recall: {tot_found}/{tot_heads} = {100 * rec:.2f} %  (misses {tot_heads - tot_found})")
    print("spellings by section (top 12): " + ", ".join(
        f"{s or '-'} {by_section_miss[s]}/{n}" for s, n in by_section.most_common(12)) + "  (missed/shown)")
    worst = sorted((p for p in per_page if p["spellings"] > p["found"]), key=lambda p: (-(p["spellings"] - p["found"]), p["command"]))
    print(f"\nworst pages ({len(worst)} pages miss something; top {a.worst} by misses):")
    for p in worst[:a.worst]:
        print(f"  {p['command']:28s} {p['found']:4d}/{p['spellings']:<4d} records {p['records']:4d}  missing {' '.join(p['misses'][:8])}{' ...' if len(p['misses']) > 8 else ''}")
    if misses:
        print(f"\nsample of misses (every {max(1, len(misses) // a.sample)}th; command, spelling, section, line, groff's tag):")
        step = max(1, len(misses) // a.sample)
        for m in misses[::step][:a.sample]:
            print(f"  {m[0]:20s} {m[1]:24s} {m[2][:22]:22s} {m[3]:5d}  {m[4][:70]!r}")
    tot_ex = sum(ex_counts.values())
    print(f"\nexample records: {tot_ex}: " + ", ".join(f"{k} {v}" for k, v in sorted(ex_counts.items())))
    print(f"  lost their command line: {ex_counts['marker'] + ex_counts['split']} "
          f"(ending in a lone list marker {ex_counts['marker']}; description cut from its command, "
          f"the record beside it a command alone: {ex_counts['split']})")
    print(f"  prose without a command line, not beside a lone command: {ex_counts['prose-only']} "
          "(intros, notes after an example, commands set inline; heuristic)")
    for kind in ("marker", "split", "prose-only"):
        bad = [x for x in ex_bad if x[0] == kind]
        if not bad:
            continue
        step = max(1, len(bad) // (a.sample // 2))
        print(f"sample of {kind} (every {step}th of {len(bad)}):")
        for c, eid, body in bad[::step][:a.sample // 2]:
            print(f"  {eid:34s} {body.replace(chr(10), ' / ')[:120]!r}")
    if a.json:
        with open(a.json, "w", encoding="utf-8") as f:
            json.dump({"pages": len(pages), "spellings": tot_heads, "found": tot_found, "per_page": per_page,
                       "examples": dict(ex_counts), "incomplete_examples": [list(x) for x in ex_bad]}, f, indent=1)


if __name__ == "__main__":
    main()
