# The Chroma server, started straight from its Rust bindings: the one
# program both launchers run. chroma/launcher (Go) runs it with `python -c`
# under the Python of pip's chroma entry point; the launcher `make install`
# writes (scripts/install/chroma-launcher.sh) runs this file, installed as
# lib/cmdai/chroma/lean.py, with `python -I -S`. Arguments: a directory to
# add with site.addsitedir ("" for none), optionally --cmdai-socket-fd=N
# (see jail below; =check: only whether the jail can be made), then
# chroma's own.
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

# Exit status that tells cmdai this kernel gives no private network
# namespace (user namespaces disabled or restricted): cmdai then starts
# the server on a loopback port, as before, and says it is not isolated.
NO_JAIL = 75


def jail(listen_fd, port):
    """Isolate the server's network from every other user of the machine.

    Chroma's server listens on TCP only and its own auth does nothing, so a
    loopback port is open to every local user. Here the process moves into
    a user and network namespace of its own (an unprivileged user may: the
    user namespace grants the network rights inside it), whose loopback no
    other process can reach; the server listens there, and the only way in
    is the unix socket cmdai made in the private (0700) data directory and
    passed as listen_fd, on which a forked copy of this process hands each
    client a connection to the server's port (relay). The user namespace maps this user to itself, so files
    are written as before. Called before any thread starts, as unshare
    requires.
    """
    import ctypes
    import fcntl
    import os
    import socket
    import struct

    libc = ctypes.CDLL(None, use_errno=True)
    clone_newuser, clone_newnet = 0x10000000, 0x40000000
    uid, gid = os.getuid(), os.getgid()
    # Any step may be refused: user namespaces disabled (sysctl), or
    # granted without rights (Ubuntu's AppArmor restriction), and the
    # loopback then cannot be brought up.
    try:
        if libc.unshare(clone_newuser | clone_newnet) != 0:
            err = ctypes.get_errno()
            raise OSError(err, "unshare: " + os.strerror(err))
        for name, text in (("setgroups", "deny"), ("uid_map", "%d %d 1" % (uid, uid)), ("gid_map", "%d %d 1" % (gid, gid))):
            with open("/proc/self/" + name, "w") as f:
                f.write(text)
        # A new network namespace's loopback is down: bring it up
        # (SIOCGIFFLAGS, SIOCSIFFLAGS with IFF_UP), with the rights the
        # new namespace gives.
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            ifreq = struct.pack("16sH14s", b"lo", 0, b"")
            flags = struct.unpack("16sH", fcntl.ioctl(s, 0x8913, ifreq)[:18])[1]
            fcntl.ioctl(s, 0x8914, struct.pack("16sH14s", b"lo", flags | 1, b""))
    except OSError as e:
        sys.stderr.write("cmdai: no private network namespace for the Chroma server: %s\n" % e)
        sys.exit(NO_JAIL)
    if listen_fd is None:
        return
    listener = socket.socket(fileno=listen_fd)
    if os.fork() != 0:
        listener.close()  # the relay's alone
        return
    # The relay: a child that dies with the server (PR_SET_PDEATHSIG).
    libc.prctl(1, 9)
    if os.getppid() == 1:
        os._exit(0)
    relay(listener, port)
    os._exit(0)


def relay(listener, port):
    """Hand each client on listener a connection to the server's port.

    For each connection on the unix socket, this connects to the server
    inside the namespace and passes that TCP socket to the client
    (SCM_RIGHTS), which then speaks to the server directly: the relay is
    in no request's path (a copying relay cost a millisecond a query on a
    busy machine). A client that gets nothing (the server still starting)
    tries again.
    """
    import socket

    while True:
        try:
            client, _ = listener.accept()
        except InterruptedError:
            continue
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=5) as server:
                socket.send_fds(client, [b"chroma"], [server.fileno()])
        except OSError:
            pass
        finally:
            client.close()


if sys.argv[1:] and sys.argv[1].startswith("--cmdai-socket-fd="):
    fd = sys.argv.pop(1).split("=", 1)[1]
    if fd == "check":
        # `cmdai doctor`: whether the jail can be made here, nothing run
        jail(None, None)
        sys.exit(0)
    jail(int(fd), int(sys.argv[sys.argv.index("--port") + 1]))

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
