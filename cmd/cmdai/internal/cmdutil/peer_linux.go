//go:build linux

package cmdutil

import (
	"fmt"
	"net"
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// SocketPeer is the pid of the process listening on socket, as the
// kernel tells it (SO_PEERCRED), not as that process says: --stop (and a
// door replacing a serve of another build, StopServe) sends its signal
// only to a serve of this user. A socket someone else made
// (the /tmp fallback is shared) cannot name a pid for us to kill.
func SocketPeer(socket string) (int, error) {
	c, err := net.DialTimeout("unix", socket, 2*time.Second)
	if err != nil {
		return 0, err
	}
	defer c.Close()
	raw, err := c.(*net.UnixConn).SyscallConn()
	if err != nil {
		return 0, err
	}
	var cred *unix.Ucred
	var cerr error
	if err := raw.Control(func(fd uintptr) { cred, cerr = unix.GetsockoptUcred(int(fd), unix.SOL_SOCKET, unix.SO_PEERCRED) }); err != nil {
		return 0, err
	}
	if cerr != nil {
		return 0, cerr
	}
	if int(cred.Uid) != os.Getuid() {
		return 0, fmt.Errorf("the process on %s (pid %d) belongs to user %d, not to you: not stopped", socket, cred.Pid, cred.Uid)
	}
	return int(cred.Pid), nil
}
