#!/usr/bin/env python3
"""Job control of corral from an interactive shell, as a user at a terminal would do it.

Usage: pty-jobs.py COUNTER COMMAND-LINE -- SHELL...

Starts SHELL (e.g. `bash --norc --noprofile -i`, perhaps behind setpriv) on a new pseudo-terminal,
types COMMAND-LINE (a corral run whose command appends an ever growing number to the file COUNTER),
then Ctrl-Z, fg, Ctrl-Z, bg, fg and Ctrl-C, and prints what it saw as KEY=VALUE lines:
  started      the counter advanced before anything was typed
  shell_stopped the shell reported the job stopped after Ctrl-Z
  held         the counter did not move for 1 s after Ctrl-Z (the sandbox is stopped too)
  fg_runs      it moves again after fg
  bg_held      after the second Ctrl-Z it is held again
  bg_runs      it moves again after bg
  rc           corral's exit status after Ctrl-C (130)
"""
import os
import pty
import select
import sys
import time


def read_counter(path):
    try:
        with open(path) as f:
            return int(f.read().split()[-1])
    except (OSError, ValueError, IndexError):
        return -1


class Term:
    def __init__(self, argv):
        self.pid, self.fd = pty.fork()
        if self.pid == 0:
            os.environ["PS1"] = "$ "
            os.environ["TERM"] = "dumb"
            os.execvp(argv[0], argv)
        self.out = b""

    def pump(self, secs):
        end = time.monotonic() + secs
        while True:
            left = end - time.monotonic()
            if left <= 0:
                return
            r, _, _ = select.select([self.fd], [], [], left)
            if r:
                try:
                    data = os.read(self.fd, 4096)
                except OSError:
                    return
                if not data:
                    return
                self.out += data

    def send(self, data):
        os.write(self.fd, data)

    def wait_for(self, needle, secs):
        end = time.monotonic() + secs
        while needle not in self.out and time.monotonic() < end:
            self.pump(0.05)
        return needle in self.out


def advances(path, secs):
    """Whether the counter moves within @secs."""
    start = read_counter(path)
    end = time.monotonic() + secs
    while time.monotonic() < end:
        time.sleep(0.05)
        if read_counter(path) > start >= 0:
            return True
    return False


def held(term, path, secs):
    """Whether the counter stays still for @secs (after a moment for the stop to land)."""
    term.pump(0.3)
    start = read_counter(path)
    term.pump(secs)
    return start >= 0 and read_counter(path) == start


def main():
    sep = sys.argv.index("--")
    counter, line = sys.argv[1], sys.argv[2]
    shell = sys.argv[sep + 1:]
    res = {}
    term = Term(shell)
    term.pump(0.5)
    term.send(line.encode() + b"\n")
    end = time.monotonic() + 15
    while read_counter(counter) < 0 and time.monotonic() < end:
        term.pump(0.05)
    res["started"] = advances(counter, 5)

    term.out = b""
    term.send(b"\x1a")
    res["shell_stopped"] = term.wait_for(b"Stopped", 5)
    res["held"] = held(term, counter, 1.0)
    term.send(b"fg\n")
    term.pump(0.3)
    res["fg_runs"] = advances(counter, 3)

    term.out = b""
    term.send(b"\x1a")
    term.wait_for(b"Stopped", 5)
    res["bg_held"] = held(term, counter, 1.0)
    term.send(b"bg\n")
    term.pump(0.3)
    res["bg_runs"] = advances(counter, 3)

    term.send(b"fg\n")
    term.pump(0.5)
    term.out = b""
    term.send(b"\x03")
    term.pump(1.0)
    term.send(b"echo rc=$?\n")
    term.wait_for(b"rc=1", 5)
    text = term.out.decode(errors="replace")
    rc = [w[3:] for w in text.replace("\r", "\n").split() if w.startswith("rc=") and w[3:].isdigit()]
    res["rc"] = rc[-1] if rc else "none"
    term.send(b"exit\n")
    term.pump(0.5)
    try:
        os.kill(term.pid, 9)
    except OSError:
        pass
    os.waitpid(term.pid, 0)
    for k, v in res.items():
        print(f"{k}={int(v) if isinstance(v, bool) else v}")


if __name__ == "__main__":
    main()
