#!/usr/bin/python3
"""Scaling series of throng runs: per-phase timings to CSV/JSON, speedup and efficiency plots.

    /usr/bin/python3 postproc/scaling.py --kind strong|weak --csv S.csv [--json S.json]
                                         [--png S.png] LOG [LOG ...]

Each LOG is the output of one throng run with -log_view.  From it: the ranks, N and
steps (summary line), the run loop's wall time, and for every PETSc log event of the Run
stage its maximum time over the ranks and the ratio max/min (the load imbalance of that
phase).  Strong series: speedup = T(p0) / T(p) and efficiency = speedup / (p / p0) with
p0 the smallest rank count; weak series: efficiency = T(p0) / T(p).
Needs Debian's python3-matplotlib for --png: run it with /usr/bin/python3.
"""
import argparse
import csv
import json
import re
import sys


def parse(path):
    run = {"log": path, "events": {}}
    stage = None
    in_table = False
    for line in open(path, errors="replace"):
        m = re.match(r"summary: steps (\d+)\s+t \S+\s+N (\d+)\s+ranks (\d+)\s+wall ([0-9.]+) s", line)
        if m:
            run.update(steps=int(m[1]), N=int(m[2]), ranks=int(m[3]), wall=float(m[4]))
        if line.startswith("Event                Count"):
            in_table = True
        m = re.match(r"--- Event Stage \d+: (\S+)", line)
        if m:
            if stage == "Run" and m[1] != "Run":
                in_table = False  # the first table's Run stage is over
            stage = m[1]
            continue
        if in_table and stage == "Run" and line.startswith("Thr"):
            f = line.split()
            run["events"][f[0]] = {"count": int(f[1]), "time": float(f[3]), "ratio": float(f[4])}
    if "ranks" not in run:
        sys.exit(f"scaling.py: {path}: no 'summary: steps' line (did the run finish?)")
    if not run["events"]:
        sys.exit(f"scaling.py: {path}: no Run-stage log events (run throng with -log_view)")
    return run


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--kind", choices=["strong", "weak"], required=True)
    ap.add_argument("--csv", required=True)
    ap.add_argument("--json")
    ap.add_argument("--png")
    ap.add_argument("logs", nargs="+")
    a = ap.parse_args()
    runs = sorted((parse(p) for p in a.logs), key=lambda r: r["ranks"])
    p0, t0 = runs[0]["ranks"], runs[0]["wall"]
    events = sorted({e for r in runs for e in r["events"]})
    for r in runs:
        if a.kind == "strong":
            r["speedup"] = t0 / r["wall"]
            r["efficiency"] = r["speedup"] / (r["ranks"] / p0)
        else:
            r["speedup"] = t0 / r["wall"] * r["ranks"] / p0
            r["efficiency"] = t0 / r["wall"]
    with open(a.csv, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["ranks", "N", "steps", "wall", "speedup", "efficiency"] + [f"{e}_time" for e in events] + [f"{e}_imbalance" for e in events])
        for r in runs:
            w.writerow([r["ranks"], r["N"], r["steps"], r["wall"], "%.4f" % r["speedup"], "%.4f" % r["efficiency"]]
                       + [r["events"].get(e, {}).get("time", 0) for e in events] + [r["events"].get(e, {}).get("ratio", 0) for e in events])
    if a.json:
        json.dump({"kind": a.kind, "runs": runs}, open(a.json, "w"), indent=1)
    for r in runs:
        print(f"scaling ({a.kind}): {r['ranks']:4d} ranks  N {r['N']:9d}  wall {r['wall']:8.3f} s  speedup {r['speedup']:6.3f}  efficiency {r['efficiency']:6.3f}")
    if a.png:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        p = [r["ranks"] for r in runs]
        fig, ax = plt.subplots(1, 3, figsize=(15, 4))
        ax[0].plot(p, [r["speedup"] for r in runs], "o-", label="measured")
        ax[0].plot(p, [x / p0 for x in p], "k--", label="ideal")
        ax[0].set_ylabel("speedup" if a.kind == "strong" else "scaled speedup")
        ax[1].plot(p, [r["efficiency"] for r in runs], "o-")
        ax[1].axhline(1, color="k", ls="--")
        ax[1].set_ylabel("parallel efficiency")
        ax[1].set_ylim(0, 1.1)
        bottom = [0.0] * len(runs)
        for e in events:
            v = [r["events"].get(e, {}).get("time", 0) for r in runs]
            ax[2].bar([str(x) for x in p], v, bottom=bottom, label=e)
            bottom = [b + x for b, x in zip(bottom, v)]
        ax[2].set_ylabel("time per phase, max over ranks [s]")
        ax[2].legend(fontsize=7)
        for x in ax[:2]:
            x.set_xlabel("ranks")
            x.grid(True, alpha=0.3)
            x.set_xscale("log", base=2)
        ax[0].legend()
        ax[2].set_xlabel("ranks")
        fig.suptitle(f"{a.kind} scaling, N = {runs[0]['N']}" + ("" if a.kind == "strong" else " on the fewest ranks"))
        fig.tight_layout()
        fig.savefig(a.png, dpi=110)
        print(f"scaling.py: wrote {a.png}")


if __name__ == "__main__":
    main()
