#!/usr/bin/python3
"""RiMEA test 14 (route choice over floors): the share of each route.

    /usr/bin/python3 jobs/rimea14.py [--seeds 10] [--np 1] [--jobs 2] [--out rimea14.study] [--docs]

100 persons leave the start room of configs/rimea14.yaml either by the long level route
(a corridor of 20 m x 5 m: sensor 0) or by the short one through the basement (a stair
down, a corridor of 10 m, a stair up: sensor 1), to one exit.  Each seed places the crowd
anew and draws its speeds; each runs with -route_choice nearest (down the travel-time
field, which walks the stairs at their speeds) and -route_choice quickest (route.c: the
exit expected soonest, queues included).  Prints the shares (mean, min, max over the
seeds) and the evacuation times, and writes OUT/rimea14.csv (one row per run); --docs
writes the table to docs/rimea14.md (docs/validation.md includes it).
Environment: THRONG (default build/throng), MPIEXEC (default mpiexec).
"""
import argparse
import csv
import os
import re
import statistics
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

CHOICES = ["nearest", "quickest"]


def run(args, choice, seed):
    out = os.path.join(args.out, f"{choice}-s{seed}")
    cmd = [os.environ.get("MPIEXEC", "mpiexec"), "-n", str(args.np), os.environ.get("THRONG", "build/throng"),
           "-options_file_yaml", "configs/rimea14.yaml", "-route_choice", choice, "-seed", str(seed), "-output",
           out, "-output_every", "0", "-quiet"]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode:
        sys.exit(f"rimea14: {' '.join(cmd)} failed:\n{p.stdout[-2000:]}{p.stderr[-2000:]}")
    m = re.search(r"summary: crowd: (\d+) of (\d+) agents left, evacuation time ([0-9.]+) s", p.stdout)
    s = [re.search(rf"summary: crowd: sensor {k}: (\d+) crossings forward, (\d+) back", p.stdout) for k in (0, 1)]
    if not m or m.group(1) != m.group(2) or not all(s):
        sys.exit(f"rimea14: {' '.join(cmd)}: not everyone left, or no sensor counts")
    return {"choice": choice, "seed": seed, "long": int(s[0].group(1)) - int(s[0].group(2)),
            "short": int(s[1].group(1)) - int(s[1].group(2)), "evacuation": float(m.group(3))}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seeds", type=int, default=10)
    ap.add_argument("--np", type=int, default=1, help="ranks per run")
    ap.add_argument("--jobs", type=int, default=max(1, (os.cpu_count() or 2)), help="runs at a time")
    ap.add_argument("--out", default="rimea14.study")
    ap.add_argument("--docs", action="store_true", help="write the table to docs/rimea14.md")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    plan = [(c, s) for c in CHOICES for s in range(1, args.seeds + 1)]
    with ThreadPoolExecutor(args.jobs) as ex:
        rows = list(ex.map(lambda a: run(args, *a), plan))
    with open(os.path.join(args.out, "rimea14.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
        w.writeheader()
        w.writerows(rows)
    lines = [f"| route choice | long route (level corridor) | short route (basement, two stairs) | "
             f"evacuation time [s] |", "|---|---|---|---|"]
    for c in CHOICES:
        r = [x for x in rows if x["choice"] == c]
        lo = [x["long"] for x in r]
        sh = [x["short"] for x in r]
        ev = [x["evacuation"] for x in r]
        lines.append(f"| {c} | {statistics.mean(lo):.1f} % ({min(lo)}–{max(lo)}) | {statistics.mean(sh):.1f} % "
                     f"({min(sh)}–{max(sh)}) | {statistics.mean(ev):.1f} ({min(ev):.1f}–{max(ev):.1f}) |")
    table = "\n".join(lines)
    print(table)
    if args.docs:
        with open("docs/rimea14.md", "w") as f:
            f.write("# RiMEA test 14: route choice over floors\n\n"
                    f"Written by `/usr/bin/python3 jobs/rimea14.py --seeds {args.seeds} --docs`: the share of the 100 "
                    f"persons on each route, mean (min–max) over {args.seeds} seeds, and the evacuation time.\n\n"
                    + table + "\n")
        print("rimea14: wrote docs/rimea14.md")
    print(f"rimea14: wrote {args.out}/rimea14.csv")


if __name__ == "__main__":
    main()
