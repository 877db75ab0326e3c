#!/usr/bin/env python3
"""oci-reaper.py PIDFILE RESULT -- CREATE-ARGV...: what conmon and containerd's shim do around
`corral oci create`: become a child subreaper, run create, then wait for the process whose pid
create wrote to PIDFILE (reparented to us when create exits) and write how it ended to RESULT:
"exited N" or "signaled N"; "create N" when create failed. The suite drives start, state,
kill and delete meanwhile."""
import ctypes
import os
import sys

PR_SET_CHILD_SUBREAPER = 36


def main():
    pidfile, result = sys.argv[1], sys.argv[2]
    argv = sys.argv[4:] if sys.argv[3] == "--" else sys.argv[3:]
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
        sys.exit("prctl: %s" % os.strerror(ctypes.get_errno()))
    create = os.spawnvp(os.P_NOWAIT, argv[0], argv)
    _, st = os.waitpid(create, 0)
    if os.waitstatus_to_exitcode(st) != 0:
        open(result, "w").write("create %d\n" % os.waitstatus_to_exitcode(st))
        return
    pid = int(open(pidfile).read())
    while True:
        got, st = os.waitpid(-1, 0)
        if got == pid:
            break
    how = "signaled %d" % os.WTERMSIG(st) if os.WIFSIGNALED(st) else "exited %d" % os.WEXITSTATUS(st)
    open(result + ".tmp", "w").write(how + "\n")
    os.rename(result + ".tmp", result)


main()
