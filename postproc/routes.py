#!/usr/bin/python3
"""Compare the evacuation of runs of one scene with different exit choices.

    /usr/bin/python3 postproc/routes.py --png OUT.png [--md OUT.md] LABEL=PREFIX [LABEL=PREFIX ...]

Each PREFIX is a run's -output prefix; it reads PREFIX.evacuation.csv (time, agents
remaining) and PREFIX.exits.csv (id, time, exit).  It prints, per run, the evacuation
time, the number and share of agents through each exit and the time of each exit's last
passage (as a Markdown table with --md), and plots the evacuation curves N(t) together
and the agents through each exit over time, one panel per run.
Needs Debian's python3-matplotlib: run it with /usr/bin/python3.
"""
import argparse
import csv
import sys


def read(prefix):
    with open(prefix + ".evacuation.csv") as f:
        curve = [(float(r["time"]), int(r["remaining"])) for r in csv.DictReader(f)]
    with open(prefix + ".exits.csv") as f:
        exits = [(float(r["time"]), int(r["exit"])) for r in csv.DictReader(f)]
    return curve, exits


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[1])
    ap.add_argument("runs", nargs="+", help="LABEL=PREFIX")
    ap.add_argument("--png", required=True)
    ap.add_argument("--md", help="write the table as Markdown here")
    a = ap.parse_args()
    runs = []
    for spec in a.runs:
        if "=" not in spec:
            sys.exit(f"routes.py: '{spec}' is not LABEL=PREFIX")
        label, prefix = spec.split("=", 1)
        try:
            runs.append((label, *read(prefix)))
        except (OSError, KeyError, ValueError) as e:
            sys.exit(f"routes.py: cannot read the run '{prefix}': {e}")
    nexit = 1 + max(e for _, _, ex in runs for _, e in ex)
    head = "| run | evacuation time (s) | " + " | ".join(f"exit {e}: agents (share), last (s)" for e in range(nexit)) + " |"
    lines = [head, "|" + "---|" * (2 + nexit)]
    for label, curve, ex in runs:
        n = len(ex)
        cells = []
        for e in range(nexit):
            t = [tt for tt, ee in ex if ee == e]
            cells.append(f"{len(t)} ({100 * len(t) / max(n, 1):.1f} %), {max(t) if t else 0:.1f}")
        lines.append(f"| {label} | {curve[-1][0]:.1f} | " + " | ".join(cells) + " |")
    table = "\n".join(lines)
    print(table)
    if a.md:
        with open(a.md, "w") as f:
            f.write(table + "\n")
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        sys.exit("routes.py: matplotlib missing: apt-get install python3-matplotlib, and use /usr/bin/python3")
    fig, ax = plt.subplots(1, 1 + len(runs), figsize=(5 * (1 + len(runs)), 4))
    for label, curve, ex in runs:
        ax[0].step([t for t, _ in curve], [m for _, m in curve], where="post", label=f"{label} ({curve[-1][0]:.0f} s)")
    ax[0].set_xlabel("t (s)")
    ax[0].set_ylabel("agents inside")
    ax[0].set_title("evacuation curves")
    ax[0].legend()
    for k, (label, curve, ex) in enumerate(runs):
        for e in range(nexit):
            t = sorted(tt for tt, ee in ex if ee == e)
            ax[k + 1].step(t, range(1, len(t) + 1), where="post", label=f"exit {e}: {len(t)}")
        ax[k + 1].set_xlabel("t (s)")
        ax[k + 1].set_ylabel("agents through the exit")
        ax[k + 1].set_title(label)
        ax[k + 1].legend()
    fig.tight_layout()
    fig.savefig(a.png, dpi=100)
    print(f"routes.py: wrote {a.png}")


if __name__ == "__main__":
    main()
