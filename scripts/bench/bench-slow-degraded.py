#!/usr/bin/env python3
"""Finding 6 figure: ten concurrent /v1/docs whose man pages sit on a slow
disk (FIFOs fed 2 s after each reader arrives) plus one /v1/query sent
meanwhile, against a degraded `cmdai serve` (its --chroma-url a closed port).

usage: scripts/bench/bench-slow-degraded.py CMDAI_BINARY   (prints each request's seconds)
needs CMDAI_MODEL_DIR (or the default model) and the ORT library on the path.
"""
import http.client, json, os, socket, subprocess, sys, tempfile, threading, time

binary = sys.argv[1]
slow, delay = int(os.environ.get("SLOW", "10")), 2.0
root = tempfile.mkdtemp()
home, bindir, man1 = (os.path.join(root, d) for d in ("home", "bin", "man/man1"))
for d in (home, bindir, man1):
    os.makedirs(d)
fifos = []
for i in range(slow):
    name = "slow%d" % i
    p = os.path.join(bindir, name)
    open(p, "w").write("#!/bin/sh\nexit 0\n")
    os.chmod(p, 0o755)
    f = os.path.join(man1, name + ".1")
    os.mkfifo(f)
    fifos.append((name, f))
open(os.path.join(bindir, "frob"), "w").write("#!/bin/sh\nexit 0\n")
os.chmod(os.path.join(bindir, "frob"), 0o755)
page = ".TH {N} 1\n.SH NAME\n{n} \\- twiddle the bits of files\n.SH OPTIONS\n.TP\n\\fB\\-q\\fR, \\fB\\-\\-quiet\\fR\nsay nothing\n"
open(os.path.join(man1, "frob.1"), "w").write(page.format(N="FROB", n="frob"))

s = socket.socket(); s.bind(("127.0.0.1", 0)); port = s.getsockname()[1]; s.close()
sock = os.path.join(home, "cmdai.sock")
env = dict(os.environ, CMDAI_HOME=home, CMDAI_SOCKET=sock, PATH=bindir + ":" + os.environ["PATH"],
           MANPATH=os.path.join(root, "man"))
srv = subprocess.Popen([binary, "serve", "--chroma-url", "http://127.0.0.1:%d" % port, "--distro", "debian-12"],
                       env=env, stderr=subprocess.PIPE, text=True)
for line in srv.stderr:
    if " on " + sock in line:
        break

class UConn(http.client.HTTPConnection):
    def connect(self):
        self.sock = socket.socket(socket.AF_UNIX); self.sock.connect(sock)

def ask(method, path, body=None):
    c = UConn("cmdai", timeout=300)
    t = time.time()
    c.request(method, path, body=body, headers={"Content-Type": "application/json"})
    r = c.getresponse(); r.read()
    return r.status, time.time() - t

def feeder(name, fifo):
    # wait for a reader, hold it "slow" for delay seconds, then give the page
    while True:
        try:
            fd = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK); break
        except OSError:
            time.sleep(0.005)
    time.sleep(delay)
    os.write(fd, page.format(N=name.upper(), n=name).encode()); os.close(fd)

results = {}
def docs(name):
    results[name] = ask("GET", "/v1/docs?command=" + name)
threads = [threading.Thread(target=feeder, args=f) for f in fifos]
threads += [threading.Thread(target=docs, args=(f[0],)) for f in fifos]
for t in threads: t.start()
time.sleep(0.3)
q = ask("POST", "/v1/query", json.dumps({"request": "twiddle the bits of files with frob", "k": 1}))
for t in threads: t.join()
srv.terminate(); srv.wait()
ts = sorted(results[f[0]][1] for f in fifos)
codes = sorted(set(results[f[0]][0] for f in fifos))
print("docs: %d requests, status %s, seconds min %.1f median %.1f max %.1f" % (len(ts), codes, ts[0], ts[len(ts)//2], ts[-1]))
if len(fifos) <= 10:
    print("docs (status, seconds):", " ".join("%d/%.1f" % results[f[0]] for f in fifos))
print("query sent meanwhile: status %d, %.3f s" % q)
