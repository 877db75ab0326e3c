#!/usr/bin/env python3
"""corral's layout check (docs/architecture.md, "Layers"): run from the top of the tree, or with
the tree as the first argument. Fails (exit 1) on
  - an #include that points up the layers (a lower layer including a higher one),
  - an include cycle between modules (a module is a .c/.h pair: foo.c and foo.h) or between
    folders,
  - a file in a folder the layer table does not know (a new folder gets a row below),
  - a .c file over MAX_LINES lines that is not on the allow-list.
python3 only, no dependency: the `layout` test suite (tests/meson.build) runs it."""
import collections
import os
import re
import sys

MAX_LINES = 1000

# The layers, lowest first: a file may include its own layer's headers and lower layers' only.
# Within a layer, folders may use each other as long as no cycle forms (ns uses landlock,
# seccomp and cgroup). Keys are folders; 'launcher/driver' and the like are single modules at
# the top of launcher/. The longest matching key wins.
LAYERS = [
    # helpers every layer may use
    ('base', ['launcher/base']),
    # the wsl backend's portable half (command lines, paths, "are we under WSL?"): pure, it uses
    # base only, and the policy asks it whether an environment variable opens the way to Windows
    ('host', ['wsl']),
    # the shell parser and the risk tiers; under the policy, because a profile names a rule
    # for each tier
    ('risk', ['launcher/risk']),
    # a request (the options) and profiles turned into one struct cr_policy
    ('policy', ['launcher/policy']),
    # sessions, the audit ledger, the gate
    ('session', ['launcher/session']),
    # the seam between doors and engines
    ('seam', ['launcher/driver']),
    # the engines: Linux (ns and what it drives), macOS
    ('engine', ['ns', 'ns/net', 'landlock', 'seccomp', 'seccomp/gen', 'cgroup', 'macos']),
    # what a run's outcome means, and the JSON status: the report a door writes
    ('report', ['launcher/outcome', 'launcher/status']),
    # the doors: corral serve, corral.exe (windows/ is its own product: its front end and its
    # driver; nothing includes it), then the command line, whose main.c dispatches to them all
    ('serve', ['launcher/serve', 'windows']),
    # the OCI runtime door (corral oci): config.json to a struct, the runtime's state files
    ('oci', ['launcher/oci']),
    # the bwrap personality: bwrap's command line, `corral bwrap` and the `bwrap` executable
    ('bwrap', ['launcher/bwrap']),
    ('cmd', ['launcher/cmd']),
    # measurement, on top of everything
    ('bench', ['bench']),
]

# .c files over MAX_LINES lines, each to be split along its section markers (issue 17, phase 2).
# Empty it as they are split; nothing new goes on it.
SIZE_ALLOW = set()  # all split: ns/zygote.c was the last


def tracked_files(top):
    out = []
    for dirpath, dirnames, filenames in os.walk(top):
        rel = os.path.relpath(dirpath, top)
        dirnames[:] = [d for d in dirnames if not d.startswith(('.', 'build'))]
        if rel == '.':
            rel = ''
        parts = rel.split(os.sep) if rel else []
        # tests (tests/, windows/tests/) may include anything: they test every layer
        if 'tests' in parts:
            continue
        for f in filenames:
            if f.endswith(('.c', '.h')):
                out.append(os.path.join(rel, f) if rel else f)
    return sorted(out)


def module(path):
    return os.path.splitext(path)[0]


def layer_of(path):
    m = module(path)
    best = None
    for rank, (_, keys) in enumerate(LAYERS):
        for k in keys:
            if (m == k or m.startswith(k + '/')) and (best is None or len(k) > len(best[1])):
                best = (rank, k)
    return best


def folder(path):
    return os.path.dirname(path)


def includes(top, path, known):
    """(line number, resolved path) for each #include "..." that names a file of the tree: the
    including file's folder first, then the top of the tree, as the compiler searches them."""
    for n, line in enumerate(open(os.path.join(top, path), errors='replace'), 1):
        m = re.match(r'\s*#\s*include\s+"([^"]+)"', line)
        if not m:
            continue
        inc = m.group(1)
        for c in (os.path.normpath(os.path.join(folder(path), inc)), os.path.normpath(inc)):
            if c in known:
                yield n, c
                break


def cycles(edges):
    """Strongly connected components of more than one node (iterative Tarjan)."""
    index, low, on, stack, out, counter = {}, {}, set(), [], [], [0]
    for root in sorted(edges):
        if root in index:
            continue
        index[root] = low[root] = counter[0]
        counter[0] += 1
        stack.append(root)
        on.add(root)
        work = [(root, iter(sorted(edges.get(root, ()))))]
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = counter[0]
                    counter[0] += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(edges.get(w, ())))))
                elif w in on:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    out.append(sorted(comp))
    return out


def main():
    top = sys.argv[1] if len(sys.argv) > 1 else '.'
    files = tracked_files(top)
    known = set(files)
    errors, notes = [], []
    medges = collections.defaultdict(set)
    fedges = collections.defaultdict(set)
    for f in files:
        lf = layer_of(f)
        if lf is None:
            errors.append(f'{f}: in no layer: give its folder a row in LAYERS (tools/check-layout.py)')
            continue
        for n, inc in includes(top, f, known):
            li = layer_of(inc)
            if li is None:
                continue  # reported once, for the file itself
            if li[0] > lf[0]:
                errors.append(f'{f}:{n}: includes {inc}: up from {LAYERS[lf[0]][0]} to '
                              f'{LAYERS[li[0]][0]}')
            same_dir = folder(inc) == folder(f)
            header_only = lambda g: module(g) + '.c' not in known
            # a header with no .c of its own (x-internal.h) belongs to its folder's modules
            if module(inc) != module(f) and not (same_dir and (header_only(inc) or header_only(f))):
                medges[module(f)].add(module(inc))
            if not same_dir:
                fedges[folder(f) or '.'].add(folder(inc) or '.')
    for c in cycles(medges):
        errors.append('module cycle: ' + ' <-> '.join(c))
    for c in cycles(fedges):
        errors.append('folder cycle: ' + ' <-> '.join(c))
    for f in files:
        if not f.endswith('.c'):
            continue
        n = sum(1 for _ in open(os.path.join(top, f), errors='replace'))
        if n > MAX_LINES:
            (notes if f in SIZE_ALLOW else errors).append(
                f'{f}: {n} lines, over {MAX_LINES}' + (' (allowed for now: SIZE_ALLOW)'
                                                       if f in SIZE_ALLOW else ''))
        elif f in SIZE_ALLOW:
            notes.append(f'{f}: {n} lines now: take it off SIZE_ALLOW')
    for line in notes:
        print('note:', line)
    for line in errors:
        print('error:', line)
    print(f'check-layout: {len(files)} files, {sum(map(len, medges.values()))} module includes, '
          f'{len(errors)} errors')
    return 1 if errors else 0


if __name__ == '__main__':
    sys.exit(main())
