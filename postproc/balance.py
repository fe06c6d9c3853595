#!/usr/bin/python3
"""Load imbalance over time of throng runs on several ranks (PREFIX.balance.csv).

    /usr/bin/python3 postproc/balance.py PREFIX [PREFIX ...] [--labels L ...] [--png OUT.png]

Each run on more than one rank writes PREFIX.balance.csv: one line per load check (at
every rebinning) with the step, the time, and the max/mean over the ranks of the work
(owned disks + -balance_cell_weight x owned cells: what the balancer evens out), of the
owned disks and of the busy time (prediction and sweep, without the waits), and whether
the blocks were repartitioned there.  This prints, per run, the mean and largest
imbalances and the number of repartitions, and plots the work's and the busy time's
imbalance against time, one colour per run, repartitions marked by ticks.  Needs Debian's python3-matplotlib for --png: run it with
/usr/bin/python3.
"""
import argparse
import csv
import sys


def read(prefix):
    path = prefix + ".balance.csv"
    try:
        with open(path, newline="") as f:
            rows = list(csv.DictReader(f))
    except OSError as e:
        sys.exit(f"balance.py: cannot read {path}: {e.strerror}")
    need = {"step", "time", "work_max_over_mean", "disks_max_over_mean", "busy_max_over_mean", "repartitioned"}
    if not rows or not need <= set(rows[0]):
        sys.exit(f"balance.py: {path} has no balance records (columns {sorted(need)})")
    return {
        "time": [float(r["time"]) for r in rows],
        "work": [float(r["work_max_over_mean"]) for r in rows],
        "disks": [float(r["disks_max_over_mean"]) for r in rows],
        "busy": [float(r["busy_max_over_mean"]) for r in rows],
        "moved": [int(r["repartitioned"]) for r in rows],
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("prefix", nargs="+")
    ap.add_argument("--labels", nargs="+")
    ap.add_argument("--png")
    a = ap.parse_args()
    labels = a.labels or a.prefix
    if len(labels) != len(a.prefix):
        sys.exit("balance.py: give one label per PREFIX")
    runs = [read(p) for p in a.prefix]
    for lab, r in zip(labels, runs):
        n = len(r["disks"])
        print(f"{lab}: {n} checks, {sum(r['moved'])} repartitions; imbalance (mean, max) of the work "
              f"{sum(r['work']) / n:.3f} {max(r['work']):.3f}, of the disks {sum(r['disks']) / n:.3f} {max(r['disks']):.3f}, "
              f"of the busy time {sum(r['busy']) / n:.3f} {max(r['busy']):.3f}")
    if not a.png:
        return
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        sys.exit("balance.py: matplotlib missing: apt-get install python3-matplotlib, and use /usr/bin/python3")
    fig, ax = plt.subplots(2, 1, figsize=(8, 6), sharex=True)
    for k, (lab, r) in enumerate(zip(labels, runs)):
        c = f"C{k}"
        ax[0].plot(r["time"], r["work"], color=c, label=lab)
        ax[1].plot(r["time"], r["busy"], color=c, lw=0.6, label=lab)
        moved = [t for t, m in zip(r["time"], r["moved"]) if m]
        if moved:
            ax[0].plot(moved, [1.0] * len(moved), "|", color=c, ms=14, label=f"{lab}: repartitions")
    ax[0].set_ylabel("work per rank, max / mean")
    ax[1].set_ylabel("busy time, max / mean")
    ax[1].set_xlabel("time [s]")
    for x in ax:
        x.axhline(1, color="grey", lw=0.5)
        x.legend(fontsize=8)
    fig.suptitle("Load imbalance over the evacuation")
    fig.tight_layout()
    fig.savefig(a.png, dpi=120)
    print(f"balance.py: wrote {a.png}")


if __name__ == "__main__":
    main()
