#!/usr/bin/python3
"""RiMEA test 8 as the parameter study RiMEA asks for (no pass or fail).

    /usr/bin/python3 jobs/rimea8.py [--seeds 5] [--np 1] [--jobs 2] [--out rimea8.study] [--docs]

The three-storey office of configs/rimea8.yaml (448 persons, 4 in each of 112 rooms) is
evacuated with everyone at the same free speed, 0.5, 0.75 and 1.0 m/s, and at a mean of
1.0 m/s with a spread (normal, sd 0.1, 0.2 and 0.3 m/s, clipped to [0.5, 1.5]); each
case over --seeds seeds (the seed draws the stair speeds, and the free speeds where they
spread).  It prints a table of the evacuation time and of the time each floor is empty
(mean, sd, min, max over the seeds), writes OUT/rimea8.csv (one row per run) and
OUT/rimea8.md, and draws OUT/rimea8.png; --docs copies the table and the plot into
docs/rimea8.md and docs/img/rimea8.png (docs/validation.md links them).
Environment: THRONG (default build/throng), MPIEXEC (default mpiexec).
On Slurm, or with more seeds and the ensemble's statistics (intervals, convergence), the
same study is an ensemble with the speed swept (jobs/ensemble.py; `run` here, `submit` as
a job array):
    bash jobs/ensemble.sh submit rimea8.ens --seeds 50 --sweep speed 0.5,0,0.5,0.5 \
        0.75,0,0.75,0.75 1.0,0,1.0,1.0 1.0,0.3,0.5,1.5 -- -options_file_yaml configs/rimea8.yaml
"""
import argparse
import csv
import os
import re
import statistics
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

CASES = [  # (label, -speed mean,sd,min,max)
    ("all at 0.5 m/s", "0.5,0,0.5,0.5"),
    ("all at 0.75 m/s", "0.75,0,0.75,0.75"),
    ("all at 1.0 m/s", "1.0,0,1.0,1.0"),
    ("mean 1.0, sd 0.1", "1.0,0.1,0.5,1.5"),
    ("mean 1.0, sd 0.2", "1.0,0.2,0.5,1.5"),
    ("mean 1.0, sd 0.3", "1.0,0.3,0.5,1.5"),
]
FLOORS = ["ground", "first", "second"]


def run(args, case, speed, seed):
    out = os.path.join(args.out, f"c{case}-s{seed}")
    cmd = [os.environ.get("MPIEXEC", "mpiexec"), "-n", str(args.np), os.environ.get("THRONG", "build/throng"),
           "-options_file_yaml", "configs/rimea8.yaml", "-speed", speed, "-seed", str(seed), "-output", out,
           "-quiet"]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode:
        sys.exit(f"rimea8: {' '.join(cmd)} failed:\n{p.stdout[-2000:]}{p.stderr[-2000:]}")
    m = re.search(r"summary: crowd: (\d+) of (\d+) agents left, evacuation time ([0-9.]+) s", p.stdout)
    if not m or m.group(1) != m.group(2):
        sys.exit(f"rimea8: {' '.join(cmd)}: not everyone left")
    row = {"case": case, "label": CASES[case][0], "speed": speed, "seed": seed, "evacuation": float(m.group(3))}
    for f in FLOORS:
        e = re.search(rf"floors: floor {f} .* empty from t = ([0-9.]+) s", p.stdout)
        row[f] = float(e.group(1)) if e else float("nan")
    return row


def stats(v):
    return statistics.mean(v), statistics.stdev(v) if len(v) > 1 else 0.0, min(v), max(v)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--np", type=int, default=1, help="ranks per run")
    ap.add_argument("--jobs", type=int, default=max(1, (os.cpu_count() or 2)), help="runs at a time")
    ap.add_argument("--out", default="rimea8.study")
    ap.add_argument("--docs", action="store_true", help="copy the table and the plot into docs/")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    plan = [(c, s, seed) for c, (_, s) in enumerate(CASES) for seed in range(1, args.seeds + 1)]
    with ThreadPoolExecutor(args.jobs) as ex:
        rows = list(ex.map(lambda a: run(args, *a), plan))
    with open(os.path.join(args.out, "rimea8.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
        w.writeheader()
        w.writerows(rows)
    lines = [f"| case | free speeds (-speed) | evacuation time [s]: mean ± sd (min–max) over {args.seeds} seeds | "
             "ground floor empty [s] | first floor empty [s] | second floor empty [s] |", "|---|---|---|---|---|---|"]
    for c, (label, speed) in enumerate(CASES):
        r = [x for x in rows if x["case"] == c]
        m, sd, lo, hi = stats([x["evacuation"] for x in r])
        fl = [statistics.mean(x[f] for x in r) for f in FLOORS]
        lines.append(f"| {label} | `{speed}` | {m:.1f} ± {sd:.1f} ({lo:.1f}–{hi:.1f}) | "
                     + " | ".join(f"{v:.1f}" for v in fl) + " |")
    table = "\n".join(lines)
    print(table)
    with open(os.path.join(args.out, "rimea8.md"), "w") as f:
        f.write(table + "\n")
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(1, 2, figsize=(11, 4))
    for c, xs in ((0, 0.5), (1, 0.75), (2, 1.0)):
        v = [x["evacuation"] for x in rows if x["case"] == c]
        ax[0].plot([xs] * len(v), v, "o", color="C0", alpha=0.6)
    means = [statistics.mean(x["evacuation"] for x in rows if x["case"] == c) for c in range(3)]
    ax[0].plot([0.5, 0.75, 1.0], means, "-", color="C0", label="mean over the seeds")
    ax[0].plot([0.5, 0.75, 1.0], [means[2] * 1.0 / v for v in (0.5, 0.75, 1.0)], "k--", lw=1,
               label="1 / speed, from the 1.0 m/s mean")
    ax[0].set_xlabel("free speed of everyone [m/s]")
    ax[0].set_ylabel("evacuation time [s]")
    ax[0].legend(fontsize=8)
    for c, sd in ((2, 0.0), (3, 0.1), (4, 0.2), (5, 0.3)):
        v = [x["evacuation"] for x in rows if x["case"] == c]
        ax[1].plot([sd] * len(v), v, "o", color="C1", alpha=0.6)
    ax[1].plot([0, 0.1, 0.2, 0.3], [statistics.mean(x["evacuation"] for x in rows if x["case"] == c) for c in (2, 3, 4, 5)],
               "-", color="C1")
    ax[1].set_xlabel("sd of the free speeds at a mean of 1.0 m/s [m/s]")
    ax[1].set_ylabel("evacuation time [s]")
    for a in ax:
        a.grid(True, alpha=0.3)
    fig.suptitle(f"RiMEA test 8: 448 persons, three storeys (configs/rimea8.yaml), {args.seeds} seeds per case")
    fig.tight_layout()
    png = os.path.join(args.out, "rimea8.png")
    fig.savefig(png, dpi=110)
    print(f"rimea8: wrote {args.out}/rimea8.csv, rimea8.md, rimea8.png")
    if args.docs:
        os.makedirs("docs/img", exist_ok=True)
        import shutil
        shutil.copy(png, "docs/img/rimea8.png")
        with open("docs/rimea8.md", "w") as f:
            f.write("# RiMEA test 8: the parameter study\n\n"
                    f"Written by `/usr/bin/python3 jobs/rimea8.py --seeds {args.seeds} --docs` "
                    "(docs/validation.md says what it shows).\n\n" + table + "\n\n![RiMEA 8](img/rimea8.png)\n")
        print("rimea8: wrote docs/rimea8.md and docs/img/rimea8.png")


if __name__ == "__main__":
    main()
