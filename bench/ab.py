#!/usr/bin/env python3
# Before and after one change to `corral run`: two corral binaries, the new one also with
# --no-audit, and /bin/true, spawned in shuffled interleaved rounds (20 unrecorded first); wall
# time per spawn as the parent sees it. The corral state goes to a temporary directory.
#   bench/ab.py OLD_CORRAL NEW_CORRAL [ROUNDS]
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time

old, new = sys.argv[1], sys.argv[2]
rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 300
cmds = {
    'before': [old, 'run', '--', '/bin/true'],
    'after': [new, 'run', '--', '/bin/true'],
    'after --no-audit': [new, 'run', '--no-audit', '--', '/bin/true'],
    '/bin/true': ['/bin/true'],
}
state = tempfile.mkdtemp(prefix='corral-ab.')
env = dict(os.environ, XDG_STATE_HOME=state + '/state', XDG_CONFIG_HOME=state + '/config')
times = {k: [] for k in cmds}
with open(os.devnull, 'w') as null:
    for i in range(rounds + 20):
        order = list(cmds)
        random.shuffle(order)
        for k in order:
            t = time.perf_counter()
            subprocess.run(cmds[k], stdout=null, stderr=null, cwd=state, env=env, check=False)
            if i >= 20:
                times[k].append((time.perf_counter() - t) * 1e3)
base = statistics.median(times['before'])
for k, v in times.items():
    v.sort()
    print(f"{k:18s} median {statistics.median(v):7.3f} ms  p90 {v[int(len(v) * .9)]:7.3f}"
          f"  p99 {v[int(len(v) * .99)]:7.3f}  x before {statistics.median(v) / base:5.2f}")
