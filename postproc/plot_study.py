#!/usr/bin/python3
"""Seed 000 Figures 8 and 10 from the CSV of tests/study_solvers (jobs/study_solvers.sh).

    /usr/bin/python3 postproc/plot_study.py study.csv --out docs/img/study

For each case (sliding, disks40) one PNG with three panels: error against h, error
against work (single-constraint evaluations over the run), error against wall time.
One curve per solver (penalty: one per gamma); runs that blew up (error inf) are left
out.  Needs Debian's python3-matplotlib: run it with /usr/bin/python3.
"""
import argparse
import csv
import math
import sys

try:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
except ImportError as e:
    sys.exit(f"plot_study.py: {e.name} missing: apt-get install python3-matplotlib, and use /usr/bin/python3")

TITLES = {"sliding": "sliding case (seed 000 §4.2, C = 10, d = 3, α = π/16)",
          "disks40": "40 disks (seed 000 §4.3, R = 0.1, γ = 1, T = 4)"}
STYLE = {"pbd": ("k", "o"), "pngs": ("tab:blue", "s"), "pgs": ("tab:green", "^")}


def read(path):
    with open(path) as f:
        rows = list(csv.DictReader(f))
    if not rows:
        sys.exit(f"plot_study.py: {path} has no runs")
    curves = {}
    for r in rows:
        key = (r["case"], r["solver"], float(r["gamma"]))
        curves.setdefault(key, []).append({k: (r[k] if k in ("case", "solver") else float(r[k])) for k in r})
    return curves


def label(solver, gamma):
    return f"penalty γ = {gamma:g}" if solver == "penalty" else solver.upper()


def work_to_reach(pts, target):
    """Work from which a curve stays at error <= target (log-log interpolation), or None."""
    pts = sorted((p for p in pts if math.isfinite(p["error"]) and p["error"] > 0), key=lambda p: p["work"])
    if not pts or pts[-1]["error"] > target:
        return None
    k = max((i for i, p in enumerate(pts) if p["error"] > target), default=-1)
    if k < 0:
        return pts[0]["work"]
    a, b = pts[k], pts[k + 1]
    t = (math.log(target) - math.log(a["error"])) / (math.log(b["error"]) - math.log(a["error"]))
    return math.exp(math.log(a["work"]) + t * (math.log(b["work"]) - math.log(a["work"])))


def table(curves):
    """Work each solver needs for a given error, and its ratio to PBD's."""
    for case in sorted({k[0] for k in curves}):
        print(f"work to reach an error (single-constraint evaluations; ratio to pbd), {case}:")
        targets = (1e-2, 1e-3, 1e-4)
        print("  %-18s" % "solver" + "".join("%24s" % f"error {e:g}" for e in targets))
        ref = {e: work_to_reach(curves.get((case, "pbd", 0.0), []), e) for e in targets}
        for (c, solver, gamma), pts in sorted(curves.items()):
            if c != case:
                continue
            cells = []
            for e in targets:
                w = work_to_reach(pts, e)
                cells.append("not reached" if w is None else (f"{w:.3g}" + (f" ({w / ref[e]:.3g}x)" if ref[e] else "")))
            print("  %-18s" % label(solver, gamma) + "".join("%24s" % s for s in cells))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("csv")
    ap.add_argument("--out", default="study", help="prefix of the PNGs (PREFIX-sliding.png, PREFIX-disks40.png)")
    a = ap.parse_args()
    curves = read(a.csv)
    table(curves)
    pen = ["tab:orange", "tab:red", "tab:purple", "tab:brown"]
    for case in sorted({k[0] for k in curves}):
        fig, ax = plt.subplots(1, 3, figsize=(16, 5))
        ip = 0
        for (c, solver, gamma), pts in sorted(curves.items()):
            if c != case:
                continue
            pts = [p for p in pts if math.isfinite(p["error"]) and p["error"] > 0]
            if not pts:
                continue
            if solver == "penalty":
                col, mk = pen[ip % len(pen)], "v"
                ip += 1
            else:
                col, mk = STYLE[solver]
            for axis, xkey in zip(ax, ("h", "work", "wall")):
                axis.loglog([p[xkey] for p in pts], [p["error"] for p in pts], marker=mk, color=col, label=label(solver, gamma))
        for axis, xl in zip(ax, ("time step h", "work: single-constraint evaluations", "wall time [s]")):
            axis.set_xlabel(xl)
            axis.set_ylabel("error")
            axis.grid(True, which="both", alpha=0.3)
        ax[0].legend(fontsize=8)
        fig.suptitle(TITLES.get(case, case))
        fig.tight_layout()
        out = f"{a.out}-{case}.png"
        fig.savefig(out, dpi=110)
        print(f"plot_study.py: wrote {out}")


if __name__ == "__main__":
    main()
