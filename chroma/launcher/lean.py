# The Chroma server, started straight from its Rust bindings: the one
# program both launchers run. chroma/launcher (Go) runs it with `python -c`
# under the Python of pip's chroma entry point; the launcher `make install`
# writes (scripts/install/chroma-launcher.sh) runs this file, installed as
# lib/cmdai/chroma/lean.py, with `python -I -S`. Arguments: a directory to
# add with site.addsitedir ("" for none), then chroma's own.
import sys

# Python put the current directory (-c) or this file's (a script path) first
# on the import path unless it runs isolated (-I) or with safe paths (-P,
# PYTHONSAFEPATH): drop it, so that no file there can stand in for the
# bindings.
if not (sys.flags.isolated or getattr(sys.flags, "safe_path", False)):
    del sys.path[0]
site_dir = sys.argv.pop(1)
if site_dir:
    import site

    site.addsitedir(site_dir)
sys.argv[0] = "chroma"
# chromadb 1.x's own entry point imports the whole Python package (numpy,
# gRPC, pydantic: about a second and 70 MiB) only to hand these arguments
# to the same Rust server; a chromadb without the bindings falls back to it.
try:
    import chromadb_rust_bindings
except ImportError:
    from chromadb.cli.cli import app

    sys.exit(app())
try:
    chromadb_rust_bindings.cli(sys.argv)
except KeyboardInterrupt:
    pass
