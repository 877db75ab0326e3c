#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Drive `corral serve` for tests/integration/serve.sh.

Usage: serve-client.py SCENARIO CORRAL [ARG...]

Each scenario starts `CORRAL serve --stdio` (or --socket), sends requests, matches the responses
by "id", and prints one line per check: "PASS name" or "FAIL name: detail" (serve.sh turns them
into TAP). Diagnostics go to stderr."""

import base64
import json
import os
import select
import signal
import socket
import stat
import subprocess
import sys
import tempfile
import time

RESULTS = []


def check(name, cond, detail=""):
    RESULTS.append(cond)
    print(("PASS %s" % name) if cond else ("FAIL %s: %s" % (name, detail)), flush=True)
    return cond


class Server:
    def __init__(self, corral, args=("--stdio",), audit=None):
        ledger = ["--audit", audit] if audit else ["--no-audit"]
        self.p = subprocess.Popen([corral, "serve", *args, *ledger],
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        self.buf = b""
        self.pending = {}  # id -> [responses]
        self.next = 0

    def send(self, msg):
        self.next += 1
        msg.setdefault("id", self.next)
        self.p.stdin.write((json.dumps(msg) + "\n").encode())
        self.p.stdin.flush()
        return msg["id"]

    def _read_line(self, timeout):
        while b"\n" not in self.buf:
            r, _, _ = select.select([self.p.stdout], [], [], timeout)
            if not r:
                raise TimeoutError("no response within %ss" % timeout)
            chunk = os.read(self.p.stdout.fileno(), 1 << 20)
            if not chunk:
                raise EOFError("the server closed its output")
            self.buf += chunk
        line, self.buf = self.buf.split(b"\n", 1)
        return json.loads(line)

    def wait(self, rid, timeout=30):
        deadline = time.time() + timeout
        while not self.pending.get(rid):
            o = self._read_line(max(0.01, deadline - time.time()))
            self.pending.setdefault(o.get("id"), []).append(o)
        return self.pending[rid].pop(0)

    def call(self, msg, timeout=30):
        return self.wait(self.send(msg), timeout)

    def open(self, sid, **kw):
        r = self.call(dict(type="open_session", session=sid, **kw), 60)
        if r["type"] != "open_session_result":
            raise RuntimeError("open_session %s: %s" % (sid, r))
        return r

    def sh(self, session, line, **kw):
        return self.call(dict(type="exec", session=session, shell=line, **kw))

    def stop(self):
        try:
            self.p.stdin.close()
        except BrokenPipeError:
            pass
        try:
            self.p.wait(10)
        except subprocess.TimeoutExpired:
            self.p.kill()
            self.p.wait()


def descendants(pid):
    """pid and every descendant, from /proc/PID/task/TID/children."""
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        try:
            for t in os.listdir("/proc/%d/task" % p):
                with open("/proc/%d/task/%s/children" % (p, t)) as f:
                    todo += [int(c) for c in f.read().split()]
        except OSError:
            pass
    return out


def comm(pid):
    try:
        with open("/proc/%d/comm" % pid) as f:
            return f.read().strip()
    except OSError:
        return None


def alive(pid):
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().split(") ", 1)[1][0] != "Z"
    except OSError:
        return False


def scenario_seq(corral):
    s = Server(corral)
    s.open("seq")
    bad, t0 = [], time.time()
    for i in range(1000):
        r = s.sh("seq", "echo %d" % i)
        if r.get("stdout") != "%d\n" % i or r.get("exit_code") != 0:
            bad.append((i, r))
    dt = time.time() - t0
    check("1000 sequential execs give their outputs", not bad, str(bad[:2]))
    print("# 1000 execs in %.2fs" % dt, file=sys.stderr)
    st = s.call(dict(type="stats"))
    sess = st["sessions"][0]
    check("stats counts 1000 execs", sess["execs_total"] == 1000, str(sess))
    check("stats gives the warm session's memory", sess["memory_pss_bytes"] > 0, str(sess))
    print("# memory_pss_bytes of a warm session (pool 2): %d" % sess["memory_pss_bytes"],
          file=sys.stderr)
    # stdin, env, cwd, exit codes, non-UTF-8 output, a missing command.
    r = s.call(dict(type="exec", session="seq", argv=["cat"], stdin="in\u00e9"))
    check("stdin is fed", r.get("stdout") == "in\u00e9", str(r))
    r = s.call(dict(type="exec", session="seq", argv=["cat"], stdin_base64="AP8="))
    check("binary output comes base64-encoded", r.get("stdout_base64") == "AP8=" and
          "stdout" not in r, str(r))
    r = s.sh("seq", "echo $FOO; pwd; exit 3", env={"FOO": "bar"}, cwd="/tmp")
    check("env, cwd and the exit code", r.get("stdout") == "bar\n/tmp\n" and
          r.get("exit_code") == 3, str(r))
    r = s.sh("seq", "kill -9 $$")
    check("a signal gives 128+n and its name", r.get("exit_code") == 137 and
          r.get("signal") == 9 and r.get("signal_name") == "SIGKILL", str(r))
    r = s.sh("seq", "grep -E '^Sig(Ign|Blk)' /proc/self/status")
    check("commands start with no signal ignored or blocked",
          r.get("stdout") == "SigBlk:\t0000000000000000\nSigIgn:\t0000000000000000\n", str(r))
    r = s.call(dict(type="exec", session="seq", argv=["no-such-command-x"]))
    check("a missing command exits 127", r.get("exit_code") == 127, str(r))
    r = s.sh("seq", "echo kept > /tmp/f; echo ws > f")
    r = s.sh("seq", "cat /tmp/f f")
    check("the session keeps its /tmp and workspace", r.get("stdout") == "kept\nws\n", str(r))
    # Many execs in flight in one session: 6 sleeps of 0.4s with a pool of 2 take 3 turns.
    t0 = time.time()
    ids = [s.send(dict(type="exec", session="seq", shell="sleep 0.4; echo %d" % i)) for i in range(6)]
    res = [s.wait(i) for i in ids]
    dt = time.time() - t0
    check("6 concurrent execs in one session", all(r.get("stdout") == "%d\n" % i for i, r in
                                                    enumerate(res)) and dt < 2.0,
          "%.2fs %s" % (dt, [r.get("stdout") for r in res]))
    r = s.call(dict(type="open_session", session="seq"))
    check("a second open of an open id is session_exists", r.get("error") == "session_exists",
          str(r))
    r = s.call(dict(type="close_session", session="seq"))
    check("close_session", r.get("type") == "close_session_result", str(r))
    r = s.sh("seq", "true")
    check("a closed session is gone", r.get("error") == "no_such_session", str(r))
    s.stop()


def scenario_ledger(corral):
    ledger = os.path.join(os.environ.get("XDG_STATE_HOME", tempfile.gettempdir()), "serve-ledger.jsonl")
    s = Server(corral, audit=ledger)
    s.open("led")
    s.sh("led", "echo one")
    s.sh("led", "exit 4")
    s.stop()
    with open(ledger) as f:
        lines = [json.loads(x) for x in f]
    ok = len(lines) == 2 and all(x.get("via") == "serve" and x.get("session") == "led" and
                                 x.get("decision") == "allowed" and "tier" in x
                                 for x in lines) and lines[1].get("exit_code") == 4
    check("every exec is a ledger line with its decision and outcome", ok, str(lines))
    os.unlink(ledger)


def scenario_iso(corral):
    s = Server(corral)
    n = 8
    for i in range(n):
        s.open("iso%d" % i)
    ids = [s.send(dict(type="exec", session="iso%d" % i, shell="echo %d > /tmp/mark%d; sleep 0.3; ls /tmp" % (i, i)))
           for i in range(n)]
    res = [s.wait(i) for i in ids]
    # /tmp also holds the directories leading to the workspace's mount point.
    ok = all([m for m in r.get("stdout", "").split() if m.startswith("mark")] == ["mark%d" % i]
             for i, r in enumerate(res))
    check("8 concurrent sessions see only their own /tmp", ok, str([r.get("stdout") for r in res]))
    # A long command in session 0; session 1 sees no process of it and cannot signal it.
    long_id = s.send(dict(type="exec", session="iso0", shell="sleep 3; echo survived",
                          timeout_ms=20000))
    time.sleep(0.5)
    r = s.sh("iso1", "ls /proc | grep -c '^[0-9]' ; kill -9 -1; pkill sleep; true")
    res0 = s.wait(long_id)
    check("another session's kill -9 -1 does not reach it", res0.get("stdout") == "survived\n",
          str(res0))
    r = s.sh("iso1", "for p in /proc/[0-9]*; do cat $p/comm; done")
    check("no process of another session is visible", "sleep" not in r.get("stdout", "x"),
          str(r))
    s.stop()


def scenario_procs(corral):
    """Two commands of one session at once: the second, acting as an attacker, looks for the
    first's command line through /proc (listing it and trying every pid up to 2000); each lists
    its own processes with ps."""
    s = Server(corral)
    s.open("procs")
    mark = "crprocs%d" % os.getpid()
    first = s.send(dict(type="exec", session="procs", timeout_ms=20000,
                        shell="sh -c 'sleep 5; : %s' & sleep 2; ps -eo pid,args; wait" % mark))
    time.sleep(1.0)
    # The attacker's own command line must not contain the mark: it is put together at run time.
    half = len(mark) // 2
    r = s.sh("procs", "m=%s; m=${m}%s; ps -eo pid,args; echo ---; "
             "for p in $(seq 1 2000); do c=$(tr '\\0' ' ' </proc/$p/cmdline 2>/dev/null) && "
             "case $c in *\"$m\"*) echo \"seen $p: $c\";; esac; done; "
             "for d in /proc/[0-9]*; do case $(tr '\\0' ' ' <$d/cmdline) in *\"$m\"*) "
             "echo \"listed $d\";; esac; done; echo ---; cat /proc/self/cmdline | tr '\\0' ' '; sleep 2"
             % (mark[:half], mark[half:]))
    out = r.get("stdout", "")
    mine, _, rest = out.partition("---\n")
    found, _, selfline = rest.partition("---\n")
    check("ps works in a command that runs beside another: it lists its own processes",
          r.get("exit_code") == 0 and "ps -eo pid,args" in mine, str(r))
    check("positive control: a command reads its own /proc/self/cmdline",
          selfline.startswith("cat /proc/self/cmdline"), repr(selfline))
    check("a command of the session sees no process of another command in /proc, nor reads "
          "its /proc/PID/cmdline (any pid up to 2000)",
          mark not in mine and "seen" not in found and "listed" not in found, repr(out))
    res = s.wait(first)
    check("the other command's ps lists its own processes (its sleep and shell)",
          res.get("exit_code") == 0 and mark in res.get("stdout", "") and
          "sleep 5" in res.get("stdout", ""), str(res))
    check("... and none of the other command's, which was running then",
          "seq 1 2000" not in res.get("stdout", ""), str(res))
    r = s.sh("procs", "ps -eo pid,args", request={"network": "all"})
    if r.get("type") == "needs_approval":
        s.call(dict(type="approve", request_id=r.get("request_id", "?"), scope="once"))
        r = s.wait(r["id"])
    check("ps works in a one-off sandbox of the session",
          r.get("sandbox") == "one-off" and r.get("exit_code") == 0 and
          "ps -eo pid,args" in r.get("stdout", ""), str(r))
    s.stop()


def scenario_caps(corral):
    s = Server(corral)
    s.open("cap")
    r = s.sh("cap", "head -c 3145728 /dev/zero | tr '\\0' a; echo e >&2",
             max_output_bytes=1048576)
    check("stdout is cut at half of max_output_bytes", len(r.get("stdout", "")) == 524288 and
          r.get("stdout_truncated") is True, "len %d %s" % (len(r.get("stdout", "")),
                                                             r.get("stdout_truncated")))
    check("stderr is kept and not truncated", r.get("stderr") == "e\n" and
          r.get("stderr_truncated") is False, str(r.get("stderr")))
    check("the command ran to its end", r.get("exit_code") == 0, str(r.get("exit_code")))
    r = s.sh("cap", "head -c 3000000 /dev/zero | tr '\\0' b >&2")
    check("stderr is cut at the default 512 KiB", len(r.get("stderr", "")) == 524288 and
          r.get("stderr_truncated") is True and r.get("stdout_truncated") is False, "")
    r = s.sh("cap", "echo hello", max_output_bytes=0)
    check("max_output_bytes 0 keeps nothing", r.get("stdout") == "" and
          r.get("stdout_truncated") is True, str(r))
    s.stop()


def scenario_timeout(corral):
    s = Server(corral)
    sid = s.open("to")
    pid1 = sid["pid"]
    t0 = time.time()
    r = s.sh("to", "sleep 100 & sleep 100", timeout_ms=500)
    dt = time.time() - t0
    check("a timeout ends the command", r.get("timed_out") is True and r.get("exit_code") == 124,
          str(r))
    check("within the timeout and its grace", dt < 3.5, "%.2fs" % dt)
    left = [p for p in descendants(pid1) if comm(p) == "sleep"]
    check("no process of the command is left (host /proc)", not left, str(left))
    r = s.sh("to", "echo after")
    check("the session still runs commands", r.get("stdout") == "after\n", str(r))
    s.stop()


def scenario_leftover(corral):
    """A command that ends at once but leaves detached processes behind (setsid, a double fork,
    SIGTERM and SIGHUP ignored, stdio on /dev/null so that its pipes end with it), which wait to
    overwrite, or keep overwriting, a file the next exec of the session writes and reads back.
    Nothing a command started may outlive its answer: the next exec sees its own file, and no
    process of the first is alive on the host when the answer comes. The positive control is the
    same writer inside one command that waits for it."""
    s = Server(corral)
    pid1 = s.open("lo")["pid"]
    bg = ("( setsid sh -c 'trap \"\" TERM HUP; %s' </dev/null >/dev/null 2>&1 & ) ; exit 0")
    r = s.sh("lo", bg % "sleep 0.4; echo tampered > /tmp/lo-late")
    left = [(p, comm(p)) for p in descendants(pid1) if comm(p) in ("sh", "setsid", "sleep")
            and alive(p)]
    check("a command that leaves a delayed writer is answered, and no process of it is alive "
          "then (host /proc)", r.get("exit_code") == 0 and not left, "%s %s" % (r, left))
    r = s.sh("lo", "echo clean > /tmp/lo-late; sleep 1; cat /tmp/lo-late")
    check("the next exec's file is not overwritten by what the last one left",
          r.get("stdout") == "clean\n", str(r))
    r = s.sh("lo", bg % "while :; do echo tampered > /tmp/lo-loop; done")
    r = s.sh("lo", "echo clean > /tmp/lo-loop; sleep 0.5; cat /tmp/lo-loop; ls /proc | grep -c '^[0-9]'")
    check("... nor by a writer left looping, and the next exec sees only its own processes",
          r.get("stdout", "").split("\n")[0] == "clean" and
          int((r.get("stdout", "").split("\n") + ["", ""])[1] or 99) <= 4, str(r))
    r = s.sh("lo", "( sleep 0.4; echo tampered > /tmp/lo-ctl ) </dev/null >/dev/null 2>&1 & "
             "echo clean > /tmp/lo-ctl; sleep 1.2; cat /tmp/lo-ctl")
    check("positive control: the same writer inside one command that waits does overwrite",
          r.get("stdout") == "tampered\n", str(r))
    s.stop()


def scenario_crash(corral):
    s = Server(corral)
    pid1 = s.open("cr")["pid"]
    os.kill(pid1, signal.SIGKILL)
    time.sleep(0.5)
    r = s.sh("cr", "echo again")
    check("after its sandbox was killed, the session runs commands", r.get("stdout") == "again\n",
          str(r))
    st = s.call(dict(type="stats"))["sessions"][0]
    check("stats counts the restart", st["sandbox_restarts"] == 1 and st["pid"] != pid1, str(st))
    s.stop()


def scenario_sigkill(corral):
    s = Server(corral)
    pids = []
    for i in range(2):
        pids.append(s.open("k%d" % i)["pid"])
        s.send(dict(type="exec", session="k%d" % i, shell="sleep 100 & sleep 100"))
    time.sleep(0.5)
    tree = [p for pid in pids for p in descendants(pid)]
    check("the sandboxes run", len(tree) >= 4, str(tree))
    s.p.kill()
    s.p.wait()
    deadline = time.time() + 5
    while time.time() < deadline and any(alive(p) for p in tree):
        time.sleep(0.05)
    left = [(p, comm(p)) for p in tree if alive(p)]
    check("SIGKILL to the server leaves no sandbox process", not left, str(left))


def scenario_ask(corral, command):
    s = Server(corral)
    s.open("ask", profile="serve-ask")
    r = s.sh("ask", command)
    check("a command the profile asks about needs approval", r.get("type") == "needs_approval" and
          r.get("request_id", "").startswith("r-") and "tier" in r, str(r))
    eid = r["id"]
    a = s.call(dict(type="approve", request_id=r["request_id"], scope="once"))
    check("approve once is acknowledged", a.get("type") == "approve_result", str(a))
    res = s.wait(eid)
    check("the approved command runs", res.get("type") == "exec_result" and
          res.get("exit_code") == 0 and res.get("approval") == "once", str(res))
    r = s.sh("ask", command)
    check("once is asked again", r.get("type") == "needs_approval", str(r))
    s.call(dict(type="approve", request_id=r["request_id"], scope="session"))
    s.wait(r["id"])
    r = s.sh("ask", command)
    check("a session approval covers the same command", r.get("type") == "exec_result" and
          r.get("approval") == "cached_session", str(r))
    r = s.sh("ask", command + " # other")
    d = s.call(dict(type="deny", request_id=r.get("request_id", "?")))
    res = s.wait(r["id"])
    check("deny answers denied", d.get("type") == "deny_result" and res.get("type") == "denied",
          "%s %s" % (d, res))
    r = s.call(dict(type="approve", request_id="r-999", scope="once"))
    check("an unknown request_id", r.get("error") == "no_such_request", str(r))
    r = s.sh("ask", "curl http://example.com | sh")
    check("a tier the profile denies is denied without asking", r.get("type") == "denied" and
          r.get("rule") == "deny" and r.get("tier") == "dangerous", str(r))
    r = s.sh("ask", "rm -f /tmp/allowed")
    check("an allowlisted command runs without asking", r.get("type") == "exec_result" and
          r.get("rule") == "allow", str(r))
    line = command + " # kept"
    r = s.sh("ask", line)
    s.call(dict(type="approve", request_id=r.get("request_id", "?"), scope="permanent"))
    s.wait(r["id"])
    s.stop()
    s = Server(corral)
    s.open("ask2", profile="serve-ask")
    r = s.sh("ask2", line)
    check("a permanent approval holds in another session after a restart",
          r.get("type") == "exec_result" and r.get("approval") == "cached_permanent", str(r))
    s.stop()


def scenario_events(corral):
    """A session with small limits (profile serve-limits: memory 32M, pids 16): an exec that
    hits a limit says so, and the next exec, which hits none, does not."""
    s = Server(corral)
    r = s.open("ev", profile="serve-limits")
    limits = r.get("enforced", {}).get("limits", {})
    hog = "awk 'BEGIN { s = \"x\"; while (1) s = s s }'"
    forks = "for i in $(seq 40); do sleep 0.3 & done 2>/dev/null; wait"
    plain = s.sh("ev", "echo plain")
    check("positive control: a plain exec hits no limit",
          plain.get("exit_code") == 0 and plain.get("oom_killed") is False and
          plain.get("pids_limit_hit") is False, str(plain))
    for key, line, what in (("memory", hog, "oom_killed"), ("pids", forks, "pids_limit_hit")):
        mode = limits.get(key) or {}
        mode = mode.get("mode") or "none" if isinstance(mode, dict) else mode
        if mode == "none":  # no limit at all: nothing to hit (and a hog would take the host)
            print("# %s: no limit in this session; not tried" % key, file=sys.stderr)
            continue
        hit = s.sh("ev", line, timeout_ms=20000)
        after = s.sh("ev", "echo after")
        if mode.startswith("cgroup"):
            check("%s limit (%s): the exec that hits it reports %s" % (key, mode, what),
                  hit.get(what) is True, str(hit))
        else:
            print("# %s limit in mode %s: no cgroup counts its events; %s stays false" %
                  (key, mode, what), file=sys.stderr)
            check("%s limit (%s): %s is false where nothing counts it" % (key, mode, what),
                  hit.get(what) is False, str(hit))
        check("%s limit: the next exec, which hits nothing, reports no %s" % (key, what),
              after.get("stdout") == "after\n" and after.get("oom_killed") is False and
              after.get("pids_limit_hit") is False, str(after))
    s.stop()


def scenario_cold(corral):
    s = Server(corral)
    s.open("cold")
    line = "cat /proc/net/dev | wc -l"
    warm = s.sh("cold", line)
    r = s.sh("cold", line, request={"network": "all"})
    check("a request beyond the profile needs approval, with what it needs",
          r.get("type") == "needs_approval" and r.get("capabilities") == {"network": "all"},
          str(r))
    s.call(dict(type="approve", request_id=r.get("request_id", "?"), scope="session"))
    res = s.wait(r["id"])
    check("approved, it runs in a one-off sandbox with the host's network",
          res.get("sandbox") == "one-off" and res.get("exit_code") == 0 and
          res.get("stdout") != warm.get("stdout"), "%s vs %s" % (res, warm.get("stdout")))
    r = s.sh("cold", line, request={"network": "all"})
    check("the session's grant covers the next one", r.get("type") == "exec_result" and
          r.get("approval") == "grant", str(r))
    r = s.sh("cold", "grep -E '^Sig(Ign|Blk)' /proc/self/status", request={"network": "all"})
    check("a one-off sandbox's command starts with no signal ignored or blocked",
          r.get("stdout") == "SigBlk:\t0000000000000000\nSigIgn:\t0000000000000000\n", str(r))
    # The server's stdin and stdout carry its client's requests and approvals: no process a
    # command can see, in a warm or a one-off sandbox, may hold them.
    server_fds = {os.readlink("/proc/%d/fd/%d" % (s.p.pid, fd)) for fd in (0, 1)}
    fds = "for f in /proc/[0-9]*/fd/*; do readlink $f; done 2>/dev/null | sort -u"
    for kind, req in (("warm", {}), ("one-off", {"request": {"network": "all"}})):
        r = s.sh("cold", fds, **req)
        seen = set((r.get("stdout") or "").split())
        check("no process a %s command sees holds the server's stdin or stdout" % kind,
              r.get("exit_code") == 0 and any(x.startswith("pipe:") for x in seen) and
              not seen & server_fds, "%s in %s" % (server_fds, sorted(seen)))
    r = s.sh("cold", "sleep 10", request={"network": "all"}, timeout_ms=300)
    check("a one-off sandbox's timeout", r.get("timed_out") is True and r.get("exit_code") == 124,
          str(r))
    r = s.sh("cold", "true", request={"fs_write": ["/usr"]})
    d = s.call(dict(type="deny", request_id=r.get("request_id", "?")))
    res = s.wait(r["id"])
    check("a denied request is not run", res.get("type") == "denied", str(res))
    s.stop()


def scenario_socket(corral, other_uid):
    d = tempfile.mkdtemp(prefix="corral-serve-")
    os.chmod(d, 0o755)
    path = os.path.join(d, "sock")
    p = subprocess.Popen([corral, "serve", "--socket", path, "--no-audit"])
    for _ in range(200):
        if os.path.exists(path):
            break
        time.sleep(0.02)
    check("the socket has mode 0600", stat.S_IMODE(os.lstat(path).st_mode) == 0o600,
          oct(os.lstat(path).st_mode))
    c = socket.socket(socket.AF_UNIX)
    c.connect(path)
    c.sendall(b'{"type":"stats","id":1}\n')
    line = c.makefile().readline()
    check("a peer of the same uid is served", json.loads(line).get("type") == "stats_result", line)
    c.close()
    # A client that goes away takes its running commands with it; its session stays.
    c = socket.socket(socket.AF_UNIX)
    c.connect(path)
    f = c.makefile("rw")
    ws = os.path.join(d, "ws")  # not the socket's directory: a session may not see the socket
    os.mkdir(ws)
    f.write('{"type":"open_session","id":1,"session":"sock","workspace":"%s"}\n' % ws)
    f.flush()
    pid1 = json.loads(f.readline()).get("pid", 0)
    f.write('{"type":"exec","id":2,"session":"sock","shell":"sleep 100"}\n')
    f.flush()
    time.sleep(0.5)
    before = [q for q in descendants(pid1) if comm(q) == "sleep"]
    f.close()
    c.close()
    deadline = time.time() + 5
    while time.time() < deadline and any(alive(q) for q in before):
        time.sleep(0.05)
    check("a client's disconnect kills its running commands",
          before and not any(alive(q) for q in before), str(before))
    c = socket.socket(socket.AF_UNIX)
    c.connect(path)
    f = c.makefile("rw")
    f.write('{"type":"exec","id":3,"session":"sock","shell":"echo still"}\n')
    f.flush()
    r = json.loads(f.readline())
    check("another client uses the session", r.get("stdout") == "still\n", str(r))
    f.close()
    c.close()
    if other_uid is not None:
        os.chmod(path, 0o666)  # as if misconfigured: SO_PEERCRED still refuses
        code = ("import socket,sys;c=socket.socket(socket.AF_UNIX);c.connect(sys.argv[1]);"
                "print(c.makefile().read())")
        out = subprocess.run(["setpriv", "--reuid=%d" % other_uid, "--regid=%d" % other_uid,
                              "--clear-groups", sys.executable, "-c", code, path],
                             capture_output=True, text=True, timeout=10).stdout
        lines = [json.loads(x) for x in out.splitlines() if x]
        check("a peer of another uid gets one error and is closed",
              len(lines) == 1 and lines[0].get("error") == "forbidden", out)
    p.send_signal(signal.SIGTERM)
    rc = p.wait(10)
    plain = os.path.join(d, "plain")
    with open(plain, "w") as f:
        f.write("keep")
    rc2 = subprocess.run([corral, "serve", "--socket", plain, "--no-audit"],
                         capture_output=True, timeout=10).returncode
    with open(plain) as f:
        check("a file that is not a socket is not replaced", rc2 == 125 and f.read() == "keep",
              "rc %d" % rc2)
    os.unlink(plain)
    os.rmdir(ws)
    sysock = "/usr/../usr/corral-test-%d.sock" % os.getpid()  # /usr: every sandbox sees it
    q = subprocess.Popen([corral, "serve", "--socket", sysock, "--no-audit"],
                         stderr=subprocess.PIPE, text=True)
    try:
        _, err = q.communicate(timeout=5)
    except subprocess.TimeoutExpired:  # it serves there: stop it, and let it remove the socket
        q.terminate()
        _, err = q.communicate()
        err += " (it served)"
    check("a socket in a directory every sandbox sees is refused at start-up",
          q.returncode == 125 and "every sandbox sees" in err and not os.path.exists(sysock),
          "rc %d: %s" % (q.returncode, err))
    check("SIGTERM stops the server with 0 and removes the socket", rc == 0 and
          not os.path.exists(path), "rc %s" % rc)
    os.rmdir(d)

# What a command inside a sandbox runs against a server's socket: it says whether it sees the
# socket, whether it can talk over a unix socket of its own (the positive control), and what the
# server answered to an open_session, an approve and a stats.
ATTACK = r"""
import json, os, socket, stat, sys, threading
path, out = sys.argv[1], {}
try:
    out["visible"] = stat.S_ISSOCK(os.stat(path).st_mode)
except OSError as e:
    out["visible"] = str(e)
own = os.path.join(os.environ.get("TMPDIR", "/tmp"), "own-%d.sock" % os.getpid())
srv = socket.socket(socket.AF_UNIX)
srv.bind(own)
srv.listen(1)
def echo():
    c, _ = srv.accept()
    c.sendall(c.recv(100))
threading.Thread(target=echo, daemon=True).start()
c = socket.socket(socket.AF_UNIX)
c.connect(own)
c.sendall(b"ping")
out["own_socket"] = c.recv(100) == b"ping"
answers = []
try:
    c = socket.socket(socket.AF_UNIX)
    c.settimeout(5)
    c.connect(path)
    c.sendall(b'{"type":"open_session","id":"a1","session":"evil","workspace":"/"}\n'
              b'{"type":"approve","id":"a2","request_id":"r-1","scope":"permanent"}\n'
              b'{"type":"stats","id":"a3"}\n')
    data = b""
    while data.count(b"\n") < 3:
        chunk = c.recv(65536)
        if not chunk:
            break
        data += chunk
    for line in data.splitlines():
        o = json.loads(line)
        answers.append(o.get("error") or o.get("type"))
except (OSError, ValueError) as e:
    answers.append("connect: %s" % e)
out["answers"] = answers
print(json.dumps(out))
"""


def attack_refused(r):
    """Did the server refuse the command that attacked it (every answer 'forbidden', or no
    connection at all), while the command saw the socket and could use a socket of its own?"""
    try:
        o = json.loads(r.get("stdout") or r.get("stdout_data", "") or "{}")
    except ValueError:
        return False, "no report: %s" % r
    refused = ("forbidden", "connect: [Errno 13]", "connect: [Errno 104]", "connect: [Errno 32]",
               "connect: [Errno 111]")  # refused, or the connection reset or closed under it
    served = [a for a in o.get("answers", []) if not a.startswith(refused)]
    return (o.get("visible") is True and o.get("own_socket") is True and not served
            and o.get("answers")), o


def start_socket_server(corral, path, *extra, env=None):
    err = tempfile.TemporaryFile()
    p = subprocess.Popen([corral, "serve", "--socket", path, "--no-audit", *extra], stderr=err,
                         env=env)
    p.errfile = err
    for _ in range(300):
        if os.path.exists(path) or p.poll() is not None:
            break
        time.sleep(0.02)
    return p


def stop_server(p):
    """Stop a server of start_socket_server(): SIGTERM, then SIGKILL after 10 s."""
    p.send_signal(signal.SIGTERM)
    try:
        p.wait(10)
    except subprocess.TimeoutExpired:
        p.kill()
        p.wait()


def server_stderr(p):
    """What a server of start_socket_server() wrote on stderr (a file: never a full pipe)."""
    f = p.errfile
    f.seek(0)
    return f.read().decode(errors="replace")


class SocketClient(Server):
    """A client on a server's socket, with Server's request helpers."""

    def __init__(self, path):
        self.c = socket.socket(socket.AF_UNIX)
        for _ in range(250):  # the server binds, then listens
            try:
                self.c.connect(path)
                break
            except ConnectionRefusedError:
                time.sleep(0.02)
        else:
            self.c.connect(path)
        self.buf = b""
        self.pending = {}
        self.next = 0

    def send(self, msg):
        self.next += 1
        msg.setdefault("id", self.next)
        self.c.sendall((json.dumps(msg) + "\n").encode())
        return msg["id"]

    def _read_line(self, timeout):
        parts = [self.buf]  # joined once: answers may be tens of MiB
        while b"\n" not in parts[-1]:
            r, _, _ = select.select([self.c], [], [], timeout)
            if not r:
                self.buf = b"".join(parts)
                raise TimeoutError("no response within %ss" % timeout)
            chunk = self.c.recv(1 << 20)
            if not chunk:
                raise EOFError("the server closed the connection")
            parts.append(chunk)
        line, self.buf = b"".join(parts).split(b"\n", 1)
        return json.loads(line)

    def stop(self):
        self.c.close()


def scenario_guard(corral, peer):
    """Commands inside corral sandboxes attack a corral server's socket: a served command on the
    socket of another server that lies in its workspace; a command of a one-off sandbox that an
    approval showed the socket's directory; a `corral run --ro DIR` sandbox; the same in degraded
    mode (no namespaces). Each must be refused, while it sees the socket and can talk over a
    socket of its own, and a client outside is served."""
    d = tempfile.mkdtemp(prefix="corral-guard-")
    os.chmod(d, 0o755)
    out, ws = os.path.join(d, "out"), os.path.join(d, "ws")
    os.mkdir(out, 0o755)
    os.mkdir(ws, 0o755)
    path1, path2 = os.path.join(out, "sock"), os.path.join(ws, "sock")
    s1 = start_socket_server(corral, path1)
    s2 = start_socket_server(corral, path2)
    try:
        a = SocketClient(path1)
        a.open("guard", workspace=ws)
        r = a.call(dict(type="exec", session="guard", argv=["python3", "-c", ATTACK, path2]))
        ok, o = attack_refused(r)
        check("a served command cannot talk to a server whose socket is in its workspace",
              ok, str(o))
        b = SocketClient(path2)
        r = b.call(dict(type="stats"))
        check("a client outside is served on that socket", r.get("type") == "stats_result",
              str(r))
        r = b.call(dict(type="open_session", session="own", workspace=ws), 60)
        check("a session whose workspace holds the server's socket is refused",
              r.get("error") == "bad_session" and "socket" in r.get("message", ""), str(r))
        b.stop()
        # An approval that would show the socket's directory to a one-off sandbox.
        rid = a.send(dict(type="exec", session="guard", argv=["python3", "-c", ATTACK, path1],
                          request={"fs_read": [out]}))
        r = a.wait(rid)
        if r.get("type") == "needs_approval":
            a.call(dict(type="approve", request_id=r["request_id"], scope="once"))
            r = a.wait(rid, 60)
        ok, o = (False, r) if r.get("type") == "exec_result" and not attack_refused(r)[0] \
            else (True, r)
        check("an approved request cannot show a sandbox the server's own socket",
              ok and r.get("type") in ("error", "exec_result"), str(r))
        a.stop()
        for name, pre, opts in (("a `corral run --ro DIR` sandbox", [], []),
                                ("a degraded sandbox (no namespaces)",
                                 [peer, "deny-userns", "--"], ["--allow-degraded"])):
            if pre and not peer:
                continue
            p = subprocess.run(pre + [corral, "run", "--grant", "once", *opts, "--workspace",
                                      ws, "--ro", out, "--", "python3", "-c", ATTACK, path1],
                               cwd=ws, capture_output=True, text=True, timeout=60)
            ok, o = attack_refused(dict(stdout=p.stdout))
            check("%s cannot talk to a server whose socket it sees" % name, ok,
                  "%s %s" % (o, p.stderr[-300:]))
        a = SocketClient(path1)
        r = a.call(dict(type="stats"))
        check("the legitimate client is still served", r.get("type") == "stats_result", str(r))
        a.stop()
    finally:
        for p in (s1, s2):
            stop_server(p)
        err = "".join(server_stderr(p) for p in (s1, s2))
        sys.stderr.write("".join("# server: %s\n" % x for x in err.splitlines()[:12]))
        subprocess.run(["rm", "-rf", d])


def vm_kib(pid, key):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith(key + ":"):
                return int(line.split()[1])
    return 0


def scenario_backlog(corral, source="/dev/urandom", mib="10", count="24"):
    """A client that sends COUNT execs of MIB MiB of output each (binary from /dev/urandom:
    base64, 4/3 of it; NULs from /dev/zero: "\\u0000", 6 times) and reads nothing: the
    server's memory stays bounded (peak RSS), another client's requests are answered at once
    meanwhile (median under 0.1 s; none slower than 5 s, which a loaded CI machine needs), and
    once the first client reads, it gets every byte of every answer."""
    n, size = int(count), int(mib) << 20
    d = tempfile.mkdtemp(prefix="corral-backlog-")
    os.chmod(d, 0o755)
    ws = os.path.join(d, "ws")
    os.mkdir(ws, 0o755)
    path = os.path.join(d, "sock")
    env = None
    with open(corral, "rb") as f:
        if b"libasan" in f.read():  # its quarantine keeps 256 MiB of freed memory
            env = dict(os.environ, ASAN_OPTIONS=os.environ.get("ASAN_OPTIONS", "") +
                       ":quarantine_size_mb=4:thread_local_quarantine_size_kb=64")
            sys.stderr.write("# an ASan build: the server's quarantine is kept to 4 MiB\n")
    p = start_socket_server(corral, path, env=env)
    try:
        hog, calm = SocketClient(path), SocketClient(path)
        hog.open("hog", workspace=ws)
        calm.open("calm", workspace=ws)
        calm.sh("calm", "true")
        rss0 = vm_kib(p.pid, "VmRSS")
        ids = [hog.send(dict(type="exec", session="hog", argv=["head", "-c", str(size), source],
                             max_output_bytes=2 * size, timeout_ms=120000))
               for _ in range(n)]
        worst, end, times = 0.0, time.time() + 6, []
        while time.time() < end:
            t = time.time()
            r = calm.wait(calm.send(dict(type="exec", session="calm", shell="true")), 30)
            times.append(time.time() - t)
            worst = max(worst, times[-1])
            if r.get("exit_code") != 0:
                sys.stderr.write("# the other client's exec: %s\n" % r)
                worst = 99
            time.sleep(0.2)
        hwm = vm_kib(p.pid, "VmHWM")
        sys.stderr.write("# server RSS %d KiB before, peak %d KiB; the other client's answers "
                         "in s: %s\n" % (rss0, hwm, " ".join("%.3f" % x for x in times)))
        median = sorted(times)[len(times) // 2]
        # The median is what the stalled client must not move (unbounded, it was 0.15-0.2 s and
        # one answer took over 10 s); a single slow answer on a loaded 2-core machine is not.
        check("another client is answered at once (median under 0.1 s, none over 5 s) while "
              "one reads nothing", worst < 5.0 and median < 0.1, "slowest %.3f s, median %.3f s" % (worst, median))
        check("the server's memory stays bounded (peak RSS up by less than 256 MiB)",
              hwm - rss0 < 256 * 1024, "%d KiB more" % (hwm - rss0))
        got = 0
        for rid in ids:
            r = hog.wait(rid, 120)
            out = r.get("stdout")
            out = out.encode() if out is not None else base64.b64decode(r.get("stdout_base64", ""))
            if len(out) == size:
                got += 1
            else:
                sys.stderr.write("# answer %s: %d bytes: %s\n" % (rid, len(out), {
                    k: v for k, v in r.items() if not k.startswith(("stdout", "enforced"))}))
        check("once it reads, the client gets every byte of every answer", got == n,
              "%d of %d whole" % (got, n))
        hog.stop()
        calm.stop()
    finally:
        stop_server(p)
        err = server_stderr(p)
        sys.stderr.write("".join("# server: %s\n" % x for x in err.splitlines()[:12]))
        subprocess.run(["rm", "-rf", d])


def scenario_anchors(corral, home):
    """A session whose workspace holds corral's own files (its profiles, its state): its
    commands cannot move them or the directories above them, and the next session reads the
    same profile."""
    os.environ.update(HOME=home, XDG_CONFIG_HOME=home + "/.config",
                      XDG_STATE_HOME=home + "/.local/state", XDG_CACHE_HOME=home + "/.cache")
    s = Server(corral)
    s.open("anchors", workspace=home)
    r = s.sh("anchors", "mv .config .config.x 2>/dev/null; echo mv=$?; "
             "mkdir -p .config/corral/profiles 2>/dev/null; "
             "printf '[network]\\nmode = all\\n' >.config/corral/profiles/workspace.ini 2>/dev/null; "
             "echo plant=$?; mv .local .local.x 2>/dev/null; echo mvl=$?; "
             "mkdir -p d/e && mv d d.x && echo control=0", cwd=home)
    out = r.get("stdout", "")
    check("a command cannot rename ~/.config or ~/.local, nor plant a profile",
          "mv=0" not in out and "plant=0" not in out and "mvl=0" not in out, str(r))
    check("positive control: it renames a directory of the workspace", "control=0" in out,
          str(r))
    s.call(dict(type="close_session", session="anchors"))
    r = s.open("anchors2", workspace=home)
    net = r.get("enforced", {}).get("network")
    check("the next session reads the same profile: no network", net == "none", str(r))
    r = s.sh("anchors2", "grep -c : /proc/net/dev")
    check("... only lo in /proc/net/dev", r.get("stdout") == "1\n", str(r))
    # A one-off sandbox (a request beyond the profile, approved) keeps them in place too.
    r = s.sh("anchors2", "mv .config .config.y 2>/dev/null; echo mv=$?; "
             "mkdir -p d2/e && mv d2 d2.x && echo control=0", cwd=home,
             request={"network": "all"})
    if r.get("type") == "needs_approval":
        s.call(dict(type="approve", request_id=r.get("request_id", "?"), scope="once"))
        r = s.wait(r["id"])
    out = r.get("stdout", "")
    check("a one-off sandbox's command cannot rename ~/.config either; control: it renames "
          "a directory of the workspace", r.get("sandbox") == "one-off" and
          "mv=0" not in out and "control=0" in out, str(r))
    s.stop()


def main():
    name, corral, args = sys.argv[1], sys.argv[2], sys.argv[3:]
    try:
        if name == "ask":
            scenario_ask(corral, args[0])
        elif name == "anchors":
            scenario_anchors(corral, args[0])
        elif name == "backlog":
            scenario_backlog(corral, *args)
        elif name == "guard":
            scenario_guard(corral, args[0] if args else None)
        elif name == "socket":
            scenario_socket(corral, int(args[0]) if args else None)
        else:
            globals()["scenario_" + name](corral)
    except Exception as e:  # a crash is one failed check, with the reason
        check("%s: scenario completes" % name, False, repr(e))
    return 0 if all(RESULTS) else 1


if __name__ == "__main__":
    sys.exit(main())
