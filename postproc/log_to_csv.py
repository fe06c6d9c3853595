#!/usr/bin/python3
"""Turn the progress lines of a throng run into CSV (and, optionally, a PNG plot).

    build/throng ... | tee run.log
    /usr/bin/python3 postproc/log_to_csv.py run.log > run.csv
    /usr/bin/python3 postproc/log_to_csv.py run.log --plot run.png   # needs python3-matplotlib

Columns: step, time, n, max_overlap, disp_over_skin, particle_steps_per_s, rms_speed
(the RMS speed over the step before the line; empty on the first line and in logs from
before issue 46).
The summary's state digest, wall time and memory are written as '#' comment lines.
Uses only the standard library (matplotlib for --plot); run it with Debian's
/usr/bin/python3, which sees Debian's python3-matplotlib.
"""
import argparse
import re
import sys

PROGRESS = re.compile(
    r"^step\s+(\d+)\s+t\s+(\S+)\s+N\s+(\d+)\s+max_overlap\s+(\S+)\s+disp/skin\s+(\S+)\s+(\S+)\s+particle-steps/s"
    r"(?:.*\srms_speed\s+(\S+))?")


def parse(lines):
    rows, notes = [], []
    for line in lines:
        m = PROGRESS.match(line)
        if m:
            step, t, n, ovl, disp, rate, speed = m.groups()
            rows.append((int(step), float(t), int(n), float(ovl), float(disp), float(rate),
                         "" if speed is None else float(speed)))
        elif line.startswith("summary:") or line.startswith("state-digest:"):
            notes.append(line.rstrip("\n"))
    return rows, notes


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("log", help="a file with throng's standard output ('-' for stdin)")
    ap.add_argument("--plot", metavar="PNG", help="also plot max overlap and throughput against time")
    args = ap.parse_args()
    try:
        src = sys.stdin if args.log == "-" else open(args.log, encoding="utf-8", errors="replace")
    except OSError as e:
        sys.exit(f"log_to_csv: cannot read {args.log}: {e.strerror}")
    with src:
        rows, notes = parse(src)
    if not rows:
        sys.exit(f"log_to_csv: no progress lines in {args.log} (was the run -quiet?)")
    for note in notes:
        print("# " + note)
    print("step,time,n,max_overlap,disp_over_skin,particle_steps_per_s,rms_speed")
    for r in rows:
        print(",".join(str(v) for v in r))
    if args.plot:
        try:
            import matplotlib
            matplotlib.use("Agg")
            import matplotlib.pyplot as plt
        except ImportError:
            sys.exit("log_to_csv: --plot needs matplotlib: apt-get install python3-matplotlib, and run /usr/bin/python3")
        t = [r[1] for r in rows]
        fig, (a, b) = plt.subplots(2, 1, sharex=True, figsize=(6, 5))
        a.plot(t, [r[3] for r in rows], "o-")
        a.set_ylabel("max overlap")
        b.plot(t[1:], [r[5] for r in rows[1:]], "o-")
        b.set_ylabel("particle-steps/s")
        b.set_xlabel("time")
        fig.tight_layout()
        fig.savefig(args.plot, dpi=120)


if __name__ == "__main__":
    main()
