#!/usr/bin/env python3
"""The architecture of src/, checked (tests/lint.sh; docs/contributing.md):

  1. layers: a file includes headers of its own folder and of the folders below it, never
     of a folder above it.  The order, bottom up, is CMakeLists.txt's THRONG_LAYERS;
     include/throng/<folder>/ mirrors src/<folder>/.
  2. no circles: a module is a name NAME with NAME.c and/or NAME.h anywhere under src/ or
     include/; module A depends on module B when A's .c or .h includes B.h.  No module
     may depend on itself through others (a strongly connected component of more than one
     module is a circle).  Layers alone allow circles inside one folder; this forbids them.
  3. size: no source file (.c, .h) over 900 lines.

Prints what breaks a rule, then one line per rule, and exits 1 if any is broken.

    python3 tests/architecture.py [REPO_ROOT]
"""
import os
import re
import sys

root = sys.argv[1] if len(sys.argv) > 1 else "."
MAX_LINES = 900
cm = open(os.path.join(root, "CMakeLists.txt")).read()
layers = re.search(r"set\(THRONG_LAYERS ([a-z ]+)\)", cm).group(1).split()
rank = {name: k for k, name in enumerate(layers)}
project = re.compile(r'^\s*#\s*include\s+<throng/(?:([a-z_]+)/)?(\w+)\.h>', re.M)
include = re.compile(r'^\s*#\s*include\s+[<"](?:[\w./]*/)?(\w+)\.h[>"]', re.M)

sources = []  # (path, folder or None)
for top in ("src", "include"):
    for d, _, names in os.walk(os.path.join(root, top)):
        for f in sorted(names):
            if f.endswith((".c", ".h")):
                p = os.path.join(d, f)
                parts = os.path.relpath(p, os.path.join(root, top)).split(os.sep)
                if top == "include" and parts[0] == "throng":
                    parts = parts[1:]
                sources.append((p, parts[0] if len(parts) > 1 else None))

# 1. layers
up = []
for p, folder in sources:
    text = open(p, errors="replace").read()
    for m in project.finditer(text):
        to = m.group(1)
        if folder is None or to is None:
            continue
        if to not in rank or folder not in rank:
            up.append(f"{p}: {folder}/ or {to}/ is no layer of THRONG_LAYERS")
        elif rank[to] > rank[folder]:
            up.append(f"{p}: {folder}/ includes {to}/{m.group(2)}.h, a layer above it")

# 2. circles (Tarjan's strongly connected components, iteratively)
files = {}
for p, _ in sources:
    files.setdefault(os.path.basename(p)[:-2], []).append(p)
deps = {}
for mod, paths in files.items():
    d = set()
    for p in paths:
        d |= set(include.findall(open(p, errors="replace").read()))
    deps[mod] = sorted(x for x in d if x != mod and x in files)
index, low, onstack, stack, comps, n = {}, {}, set(), [], [], 0
for start in sorted(deps):
    if start in index:
        continue
    work = [(start, 0)]
    while work:
        v, i = work.pop()
        if i == 0:
            index[v] = low[v] = n
            n += 1
            stack.append(v)
            onstack.add(v)
        if i < len(deps[v]):
            work.append((v, i + 1))
            w = deps[v][i]
            if w not in index:
                work.append((w, 0))
            elif w in onstack:
                low[v] = min(low[v], index[w])
            continue
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                onstack.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                comps.append(sorted(comp))
        if work:
            parent = work[-1][0]
            low[parent] = min(low[parent], low[v])
circled = sum(len(c) for c in comps)
for c in comps:
    print(f"circle of {len(c)}: " + ", ".join(f"{m} -> {'/'.join(x for x in deps[m] if x in c)}" for m in c))

# 3. size
long_files = []
for p, _ in sources:
    k = sum(1 for _ in open(p, errors="replace"))
    if k > MAX_LINES:
        long_files.append(f"{p}: {k} lines")

for line in up + long_files:
    print(line)
print(f"layers: {len(up)} includes go up ({' < '.join(layers)})")
print(f"circles: {circled} of {len(deps)} modules in circles")
print(f"size: {len(long_files)} files over {MAX_LINES} lines")
sys.exit(1 if up or circled or long_files else 0)
