#!/usr/bin/env python3
"""The layers of src/ (tests/lint.sh): a file may include headers of its own folder and of
the folders below it, never of a folder above it.  The order, bottom up, is CMakeLists.txt's
THRONG_LAYERS; include/throng/<folder>/ mirrors src/<folder>/.  Prints each include that
goes up, and exits 1 if there is one.

    python3 tests/layers.py [REPO_ROOT]
"""
import os
import re
import sys

root = sys.argv[1] if len(sys.argv) > 1 else "."
cm = open(os.path.join(root, "CMakeLists.txt")).read()
layers = re.search(r"set\(THRONG_LAYERS ([a-z ]+)\)", cm).group(1).split()
rank = {name: k for k, name in enumerate(layers)}
inc = re.compile(r'^\s*#\s*include\s+<throng/([a-z_]+)/[\w]+\.h>', re.M)
bad = 0
for top, sub in (("src", ""), ("include", "throng")):
    for layer in layers:
        d = os.path.join(root, top, sub, layer)
        if not os.path.isdir(d):
            continue
        for f in sorted(os.listdir(d)):
            if not f.endswith((".c", ".h")):
                continue
            p = os.path.join(d, f)
            for m in inc.finditer(open(p, errors="replace").read()):
                to = m.group(1)
                if to not in rank:
                    print(f"{p}: includes from {to}/, which is no layer of THRONG_LAYERS")
                    bad += 1
                elif rank[to] > rank[layer]:
                    print(f"{p}: {layer}/ includes {to}/{m.group(0).split('/')[-1]}: {to}/ lies above {layer}/")
                    bad += 1
print(f"{bad} includes go up the layers ({' < '.join(layers)})")
sys.exit(1 if bad else 0)
