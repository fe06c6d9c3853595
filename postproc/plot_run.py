#!/usr/bin/python3
"""Plot run diagnostics from a throng H5MD snapshot file (matplotlib), and write them as CSV.

    /usr/bin/python3 postproc/plot_run.py throng.h5 [--png diag.png] [--csv diag.csv]

Per frame: number of disks, mean and largest speed |v| (v = (x_k - x_{k-1}) / h), centre of
mass, and the area fraction of the disks in their bounding box.  Needs Debian's
python3-h5py and python3-matplotlib: run it with /usr/bin/python3.
"""
import argparse
import math
import sys

try:
    import h5py
    import numpy as np
except ImportError as e:
    sys.exit(f"plot_run.py: {e.name} missing: apt-get install python3-h5py python3-numpy, and use /usr/bin/python3")


def diagnostics(path):
    with h5py.File(path, "r") as f:
        g = f["particles/disks"]
        pos, vel, rad = g["position/value"], g["velocity/value"], g["radius/value"]
        steps, times = g["position/step"][:], g["position/time"][:]
        counts = f["observables/particle_number/value"][:]
        rows = []
        for k in range(len(steps)):
            n = int(counts[k])
            x = pos[k, :n, :]
            v = vel[k, :n, :]
            r = rad[k, :n]
            speed = np.hypot(v[:, 0], v[:, 1])
            finite = np.isfinite(speed)
            lo, hi = x.min(axis=0), x.max(axis=0)
            area = float(np.prod(hi - lo + 2 * r.max())) if n else float("nan")
            rows.append(dict(step=int(steps[k]), time=float(times[k]), n=n,
                             mean_speed=float(speed[finite].mean()) if finite.any() else float("nan"),
                             max_speed=float(speed[finite].max()) if finite.any() else float("nan"),
                             com_x=float(x[:, 0].mean()), com_y=float(x[:, 1].mean()),
                             area_fraction=float(math.pi * np.sum(r * r) / area) if n else float("nan")))
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("h5")
    ap.add_argument("--png", help="plot (default: H5 name with -diag.png)")
    ap.add_argument("--csv", help="also write the table as CSV")
    args = ap.parse_args()
    try:
        rows = diagnostics(args.h5)
    except (OSError, KeyError) as e:
        sys.exit(f"plot_run.py: {args.h5} is not a readable throng H5MD file: {e}")
    if not rows:
        sys.exit(f"plot_run.py: {args.h5} has no frames")
    keys = list(rows[0])
    print(",".join(keys))
    for r in rows:
        print(",".join(f"{r[k]:.9g}" if isinstance(r[k], float) else str(r[k]) for k in keys))
    if args.csv:
        with open(args.csv, "w") as out:
            out.write(",".join(keys) + "\n")
            for r in rows:
                out.write(",".join(str(r[k]) for k in keys) + "\n")
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    t = [r["time"] for r in rows]
    fig, ax = plt.subplots(2, 2, figsize=(9, 6), sharex=True)
    for a, (k, label) in zip(ax.flat, [("n", "disks"), ("mean_speed", "mean |v|"), ("com_y", "centre of mass y"), ("area_fraction", "area fraction")]):
        a.plot(t, [r[k] for r in rows], "o-")
        a.set_ylabel(label)
    for a in ax[1]:
        a.set_xlabel("time")
    fig.suptitle(args.h5)
    fig.tight_layout()
    png = args.png or args.h5.rsplit(".", 1)[0] + "-diag.png"
    fig.savefig(png, dpi=110)
    print(f"plot_run.py: {png}", file=sys.stderr)


if __name__ == "__main__":
    main()
