#!/usr/bin/env python3
"""oci-console.py SOCKET OUT: what conmon does with --console-socket: listen on SOCKET, take
the terminal master a runtime sends (SCM_RIGHTS), write "name: NAME" then everything read from
it to OUT until the terminal closes."""
import array
import fcntl
import os
import socket
import sys


def main():
    path, out = sys.argv[1], sys.argv[2]
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.bind(path)
    s.listen(1)
    c, _ = s.accept()
    fds = array.array("i")
    msg, anc, _, _ = c.recvmsg(256, socket.CMSG_LEN(fds.itemsize))
    for level, kind, data in anc:
        if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
            fds.frombytes(data[: fds.itemsize])
    with open(out, "wb") as f:
        f.write(b"name: " + msg + b"\n")
        # the terminal's peer (TIOCGPTPEER) lives in the devpts the master is of
        peer = fcntl.ioctl(fds[0], 0x5441, os.O_RDWR | os.O_NOCTTY)
        host = os.fstat(peer).st_dev == os.stat("/dev/pts/ptmx").st_dev
        os.close(peer)
        f.write(b"devpts: host\n" if host else b"devpts: other\n")
        f.flush()
        while True:
            try:
                b = os.read(fds[0], 4096)
            except OSError:
                break
            if not b:
                break
            f.write(b)
            f.flush()


main()
