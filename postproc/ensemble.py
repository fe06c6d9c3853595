#!/usr/bin/python3
"""The statistics of an ensemble (jobs/ensemble.py): DIR/report.md, DIR/ensemble-*.png
and DIR/summary.csv, per case (sweep point) and across the sweep.

  /usr/bin/python3 postproc/ensemble.py DIR [--tol-mean 0.01] [--tol-curve 0.01]
        [--bootstrap 2000] [--scalar NAME]...

Per member (done members only; failed ones are listed, not counted):
  - the evacuation time T: the last exit time of its exit records (run.exits.csv), and
    whether every agent left (the summary's "N of M agents left"); a member whose
    agents did not all leave is censored and reported, its T a lower bound;
  - its egress curve: agents out against time; its exits' shares; the time of the last
    crossing of each sensor (run.sensors.csv): when that sensor's flow ended;
  - any scalar of its summary lines ("summary: ... NAME VALUE"), e.g. max_overlap, for
    granular ensembles (--scalar NAME; the summary's names are listed in the report).

Per case: the mean, standard deviation, median, 95th percentile and maximum of T, each
with a 95 % percentile-bootstrap interval (B resamples of the members, a fixed
generator seed, so the report is reproducible); the histogram and ECDF of T; the mean
egress curve with the 5-95 % band of the members' curves; the exits' mean shares.

Across the sweep: each statistic against the swept value, and the ratio of each
case's mean T to the first case's, with a paired bootstrap interval (the same seeds
are resampled in both: the members of a seed share their random draws' keys).

Convergence (after Grandison 2020, Fire Technology 56:2137, "Determining confidence
intervals, and convergence, for parameters in stochastic evacuation models": converged
means precise, judged by confidence-interval widths of the mean total evacuation time
and of the average egress curve).  Here, simplified: (1) the 95 % bootstrap interval of
the mean T has a half-width of at most tol-mean (default 1 %) of the mean; (2) the
average egress curve AC (the members' sorted exit times averaged rank by rank, as
Grandison defines it) is within tol-curve (default 1 %) of its bootstrap replicates in
95 % of them, measured by the Euclidean relative distance ERD(AC*, AC) = |AC* - AC| /
|AC|.  Interval widths shrink as 1/sqrt(n), so when a criterion fails the members
needed are estimated as n (width / tolerance)^2.  Grandison's own intervals (BCa,
a bisection for the FAM-based intervals) are tighter constructions of the same idea.
"""
import argparse
import csv
import json
import math
import os
import re
import sys

import numpy as np


def read_csv(path):
    if not os.path.isfile(path):
        return []
    with open(path) as f:
        return list(csv.DictReader(f))


def member_data(d, x):
    p = os.path.join(d, "members", f"{x['index']:04d}")
    log = open(os.path.join(p, "log")).read() if os.path.isfile(os.path.join(p, "log")) else ""
    ex = read_csv(os.path.join(p, "run.exits.csv"))
    out = {"index": x["index"], "seed": x["seed"], "set": x["set"]}
    out["exit_t"] = np.sort(np.array([float(r["time"]) for r in ex])) if ex else np.zeros(0)
    out["exit_id"] = [int(r["exit"]) for r in ex]
    m = re.search(r"^summary: crowd: (\d+) of (\d+) agents left(?:, evacuation time ([0-9.eE+-]+) s)?", log, re.M)
    out["left"], out["total"] = (int(m.group(1)), int(m.group(2))) if m else (len(ex), len(ex))
    out["crowd"] = m is not None
    out["T"] = float(out["exit_t"][-1]) if len(out["exit_t"]) else float("nan")
    sens = read_csv(os.path.join(p, "run.sensors.csv"))
    ends = {}
    for r in sens:
        if int(r["direction"]) > 0:
            ends[int(r["sensor"])] = max(ends.get(int(r["sensor"]), 0.0), float(r["time"]))
    out["sensor_end"] = ends
    scal = {}
    for line in re.findall(r"^summary: (.*)$", log, re.M):
        if line.startswith(("crowd:", "memory:", "halo:", "program")):
            continue  # tables and prose; the scalars are the run's "NAME VALUE" pairs
        for k, v in re.findall(r"([A-Za-z_][A-Za-z_/]*) (-?[0-9][0-9.]*(?:e[-+]?[0-9]+)?)\b", line):
            if k in ("of", "every", "at", "the", "ranks", "per"):
                continue
            try:
                scal.setdefault(k, float(v))
            except ValueError:  # a version number, not a scalar
                pass
    out["scalars"] = scal
    return out


def boot(vals, stat, B, rng):
    """(value, lo, hi): the statistic and its 95 % percentile-bootstrap interval."""
    vals = np.asarray(vals, float)
    v = stat(vals)
    if len(vals) < 2:
        return v, float("nan"), float("nan")
    idx = rng.integers(0, len(vals), size=(B, len(vals)))
    s = np.array([stat(vals[i]) for i in idx])
    return v, float(np.percentile(s, 2.5)), float(np.percentile(s, 97.5))


STATS = [("mean", np.mean), ("sd", lambda a: float(np.std(a, ddof=1)) if len(a) > 1 else float("nan")),
         ("median", np.median), ("p95", lambda a: float(np.percentile(a, 95))), ("max", np.max)]


def fmt(v, lo=None, hi=None, digits=1):
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "-"
    s = f"{v:.{digits}f}"
    if lo is not None and not math.isnan(lo):
        s += f" [{lo:.{digits}f}, {hi:.{digits}f}]"
    return s


def case_label(st):
    return ", ".join(f"{k}={os.path.basename(v)}" for k, v in st.items()) or "the case"


def average_curve(ms):
    """Grandison's average egress curve: the sorted exit times averaged rank by rank
    (members of equal counts only; else None)."""
    n = {len(m["exit_t"]) for m in ms}
    if len(n) != 1 or 0 in n:
        return None
    return np.mean(np.array([m["exit_t"] for m in ms]), axis=0)


def curve_erd(ms, B, rng):
    """The 95th percentile of ERD(AC*, AC) over B bootstrap replicates."""
    A = np.array([m["exit_t"] for m in ms])
    ac = A.mean(axis=0)
    idx = rng.integers(0, len(ms), size=(B, len(ms)))
    erd = np.array([np.linalg.norm(A[i].mean(axis=0) - ac) / np.linalg.norm(ac) for i in idx])
    return float(np.percentile(erd, 95))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dir")
    ap.add_argument("--tol-mean", type=float, default=0.01, help="convergence: CI half-width / mean T [0.01]")
    ap.add_argument("--tol-curve", type=float, default=0.01, help="convergence: ERD of the average curve [0.01]")
    ap.add_argument("--bootstrap", type=int, default=2000, help="bootstrap resamples [2000]")
    ap.add_argument("--scalar", action="append", default=[], help="a summary scalar to report (repeatable)")
    a = ap.parse_args()
    d = a.dir
    try:
        man = json.load(open(os.path.join(d, "manifest.json")))
    except (OSError, ValueError) as e:
        sys.exit(f"ensemble.py: error: {d}/manifest.json cannot be read ({e})")
    rng = np.random.default_rng(20200304)
    B = a.bootstrap
    sweep = man["case"]["sweep"]
    names = [n for n, _ in sweep]
    done = [x for x in man["members"] if os.path.isfile(os.path.join(d, "members", f"{x['index']:04d}", "done.json"))]
    notdone = [x for x in man["members"] if x not in done]
    if not done:
        sys.exit(f"ensemble.py: error: no member of {d} is done yet (bash jobs/ensemble.sh status {d})")
    data = [member_data(d, x) for x in done]
    # the cases, in the order of the plan
    keys = []
    for x in man["members"]:
        k = json.dumps(x["set"], sort_keys=True)
        if k not in keys:
            keys.append(k)
    cases = [(json.loads(k), [m for m in data if json.dumps(m["set"], sort_keys=True) == k]) for k in keys]
    empty = [st for st, ms in cases if not ms]  # no member done: named, left out of the statistics
    cases = [(st, ms) for st, ms in cases if ms]
    crowd = any(m["crowd"] for m in data)
    L = []
    L.append(f"# Ensemble report: {d}")
    L.append("")
    L.append(f"Written by `/usr/bin/python3 postproc/ensemble.py {d}` from {len(done)} done members of "
             f"{len(man['members'])} ({man['program']['version']}; {man['case']['ranks']} rank(s) per member).  "
             f"Case: `throng {' '.join(man['case']['options'])}`" +
             (f"; swept: {', '.join(f'-{n} ' + ' '.join(v) for n, v in sweep)}" if sweep else "") +
             f"; seeds from {man['case']['seed0']}.  Intervals: 95 % percentile bootstrap, {B} resamples.")
    L.append("")
    if notdone:
        L.append(f"**{len(notdone)} members not done** (failed, killed or not yet run; "
                 f"`bash jobs/ensemble.sh status {d}`): {', '.join(str(x['index']) for x in notdone[:20])}"
                 + (" ..." if len(notdone) > 20 else "") + ".  The statistics below are of the done members.")
        L.append("")
    if empty:
        L.append(f"**{len(empty)} case{'s' if len(empty) > 1 else ''} without a finished member**, left out below: "
                 + "; ".join(case_label(st) for st in empty) + ".")
        L.append("")
    rows = []
    conv = []
    if crowd:
        L.append("## Evacuation time")
        L.append("")
        L.append("| case | members | censored | mean (s) | sd (s) | median (s) | 95th percentile (s) | max (s) |")
        L.append("|---|---|---|---|---|---|---|---|")
        for st, ms in cases:
            T = np.array([m["T"] for m in ms if not math.isnan(m["T"])])
            cens = sum(1 for m in ms if m["left"] < m["total"])
            r = {"case": case_label(st), "members": len(ms), "censored": cens}
            cells = []
            for nm, f in STATS:
                v, lo, hi = boot(T, f, B, rng) if len(T) else (float("nan"),) * 3
                r[nm], r[nm + "_lo"], r[nm + "_hi"] = v, lo, hi
                cells.append(fmt(v, lo, hi))
            rows.append((st, ms, r, T))
            L.append(f"| {r['case']} | {len(ms)} | {cens} | " + " | ".join(cells) + " |")
        L.append("")
        if any(r["censored"] for _, _, r, _ in rows):
            L.append("Censored: members whose agents did not all leave before -steps ended; their T is a lower "
                     "bound (raise -steps).")
            L.append("")
        if len(rows) > 1:
            L.append("### Ratios of the mean evacuation time to the first case's")
            L.append("")
            L.append("| case | ratio | 95 % interval (paired bootstrap over seeds) |")
            L.append("|---|---|---|")
            base = {m["seed"]: m["T"] for m in rows[0][1]}
            for st, ms, r, T in rows[1:]:
                pair = [(base[m["seed"]], m["T"]) for m in ms if m["seed"] in base]
                if len(pair) < 2:
                    L.append(f"| {r['case']} | - | fewer than 2 seeds in common |")
                    continue
                P = np.array(pair)
                ratio = P[:, 1].mean() / P[:, 0].mean()
                idx = rng.integers(0, len(P), size=(B, len(P)))
                rs = P[idx, 1].mean(axis=1) / P[idx, 0].mean(axis=1)
                lo, hi = np.percentile(rs, [2.5, 97.5])
                r["ratio"], r["ratio_lo"], r["ratio_hi"] = ratio, lo, hi
                L.append(f"| {r['case']} | {ratio:.3f} | [{lo:.3f}, {hi:.3f}] ({len(P)} seeds) |")
            L.append("")
        # exits' shares
        L.append("## Exits")
        L.append("")
        nexit = max((max(m["exit_id"]) + 1 for m in data if m["exit_id"]), default=0)
        L.append("| case | " + " | ".join(f"exit {e}" for e in range(nexit)) + " |")
        L.append("|---|" + "---|" * nexit)
        for st, ms, r, T in rows:
            cells = []
            for e in range(nexit):
                sh = [m["exit_id"].count(e) / max(1, len(m["exit_id"])) for m in ms]
                v, lo, hi = boot(sh, np.mean, B, rng)
                cells.append(f"{100 * v:.1f} % [{100 * lo:.1f}, {100 * hi:.1f}]" if not math.isnan(lo)
                             else f"{100 * v:.1f} %")
                r[f"exit{e}_share"] = v
            L.append(f"| {r['case']} | " + " | ".join(cells) + " |")
        L.append("")
        L.append("Mean share of the agents that left by each exit, with its interval.")
        L.append("")
        sensors = sorted({s for m in data for s in m["sensor_end"]})
        if sensors:
            L.append("## Sensors: when each flow ended")
            L.append("")
            L.append("| case | " + " | ".join(f"sensor {s} (s)" for s in sensors) + " |")
            L.append("|---|" + "---|" * len(sensors))
            for st, ms, r, T in rows:
                cells = []
                for s in sensors:
                    e = [m["sensor_end"][s] for m in ms if s in m["sensor_end"]]
                    cells.append(fmt(*boot(e, np.mean, B, rng)) if e else "-")
                L.append(f"| {r['case']} | " + " | ".join(cells) + " |")
            L.append("")
            L.append("The mean time of each sensor's last forward crossing, with its interval.")
            L.append("")
        # convergence
        L.append("## Convergence")
        L.append("")
        L.append(f"Criterion (after Grandison 2020; see postproc/ensemble.py): the 95 % interval of the mean "
                 f"evacuation time has a half-width of at most {100 * a.tol_mean:g} % of the mean, and the average "
                 f"egress curve's bootstrap ERD (95th percentile) is at most {100 * a.tol_curve:g} %.")
        L.append("")
        L.append("| case | members | CI half-width / mean | curve ERD (95 %) | verdict | members needed |")
        L.append("|---|---|---|---|---|---|")
        for st, ms, r, T in rows:
            n = len(T)
            hw = (r["mean_hi"] - r["mean_lo"]) / 2 / r["mean"] if n > 1 else float("inf")
            ok_m = hw <= a.tol_mean
            good = [m for m in ms if m["left"] == m["total"]]
            erd = curve_erd(good, B, rng) if len(good) > 1 and average_curve(good) is not None else float("nan")
            ok_c = not math.isnan(erd) and erd <= a.tol_curve
            need = n
            if n > 1:
                need = max(n, math.ceil(n * (hw / a.tol_mean) ** 2))
                if not math.isnan(erd):
                    need = max(need, math.ceil(n * (erd / a.tol_curve) ** 2))
            verdict = "**converged**" if ok_m and ok_c else "**not converged**"
            r.update(hw_rel=hw, erd=erd, converged=ok_m and ok_c, needed=need)
            conv.append((r["case"], ok_m and ok_c, need, n))
            L.append(f"| {r['case']} | {n} | {100 * hw:.2f} % | " + (f"{100 * erd:.2f} %" if not math.isnan(erd)
                     else "- (unequal agent counts)") + f" | {verdict} | {need}" +
                     ("" if ok_m and ok_c else f" ({need - n} more)") + " |")
        L.append("")
        if conv and all(c[1] for c in conv):
            L.append("Verdict: **enough members** for every case.")
        elif conv:
            more = max(c[2] - c[3] for c in conv)
            L.append(f"Verdict: **not enough members**: the criterion asks for about {more} more per case "
                     f"(plan again into the same folder with --seeds {max(c[2] for c in conv)}; done members are kept).")
        L.append("")
        plots(d, rows, sweep, L)
    # summary scalars (granular ensembles, or asked for)
    allnames = sorted({k for m in data for k in m["scalars"]})
    want = a.scalar or ([] if crowd else [k for k in ("max_overlap", "sampled_max_overlap", "t") if k in allnames])
    unknown = [w for w in want if w not in allnames]
    if unknown:
        sys.exit(f"ensemble.py: error: --scalar {unknown[0]}: no summary line has it; the summaries have: "
                 f"{', '.join(allnames)}")
    if want:
        L.append("## Summary scalars")
        L.append("")
        L.append("| case | scalar | members | mean | sd | median | 95th percentile | max |")
        L.append("|---|---|---|---|---|---|---|---|")
        for st, ms in cases:
            for w in want:
                v = [m["scalars"][w] for m in ms if w in m["scalars"]]
                cells = [fmt(*boot(v, f, B, rng), digits=4) for _, f in STATS]
                L.append(f"| {case_label(st)} | {w} | {len(v)} | " + " | ".join(cells) + " |")
        L.append("")
    L.append(f"Scalars of the summaries (--scalar NAME): {', '.join(allnames)}.")
    L.append("")
    open(os.path.join(d, "report.md"), "w").write("\n".join(L) + "\n")
    with open(os.path.join(d, "summary.csv"), "w") as f:
        w = csv.writer(f)
        w.writerow(["index", "seed"] + names + ["T", "left", "total"])
        for m in data:
            w.writerow([m["index"], m["seed"]] + [m["set"][n] for n in names] +
                       [f"{m['T']:.6g}", m["left"], m["total"]])
    print(f"ensemble.py: wrote {os.path.join(d, 'report.md')} ({len(done)} members, {len(cases)} case"
          f"{'s' if len(cases) > 1 else ''}" + (f"; {len(empty)} without a finished member: "
                                               + "; ".join(case_label(st) for st in empty) if empty else "") + ")")
    for c, ok, need, n in conv:
        print(f"ensemble.py: {c}: {'converged' if ok else 'not converged'} with {n} members"
              + ("" if ok else f" (about {need} needed)"))
    for st, ms, r, T in (rows if crowd else []):
        print(f"ensemble.py: {r['case']}: T mean {fmt(r['mean'], r['mean_lo'], r['mean_hi'])} s, "
              f"p95 {fmt(r['p95'], r['p95_lo'], r['p95_hi'])} s, max {r['max']:.1f} s"
              + (f"; ratio to the first case {r['ratio']:.3f} [{r['ratio_lo']:.3f}, {r['ratio_hi']:.3f}]"
                 if "ratio" in r else ""))


def plots(d, rows, sweep, L):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(1, 3, figsize=(16, 4.5))
    for st, ms, r, T in rows:
        lab = r["case"]
        if not len(T):  # no member with an evacuation time: nothing to draw
            continue
        ax[0].hist(T, bins=max(5, min(30, len(T) // 2)), alpha=0.5, label=lab)
        xs = np.sort(T)
        ax[1].step(xs, np.arange(1, len(xs) + 1) / len(xs), where="post", label=lab)
        tmax = max((m["exit_t"][-1] for m in ms if len(m["exit_t"])), default=0.0)
        grid = np.linspace(0, tmax, 400)
        C = np.array([np.searchsorted(m["exit_t"], grid, side="right") for m in ms])
        line, = ax[2].plot(grid, C.mean(axis=0), label=lab)
        ax[2].fill_between(grid, np.percentile(C, 5, axis=0), np.percentile(C, 95, axis=0), alpha=0.25,
                           color=line.get_color())
    ax[0].set_xlabel("evacuation time (s)"), ax[0].set_ylabel("members")
    ax[1].set_xlabel("evacuation time (s)"), ax[1].set_ylabel("ECDF")
    ax[2].set_xlabel("time (s)"), ax[2].set_ylabel("agents out (mean, 5-95 % band)")
    for x in ax:
        x.grid(alpha=0.3)
        x.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(os.path.join(d, "ensemble-time.png"), dpi=90)
    plt.close(fig)
    L.append("## Plots")
    L.append("")
    L.append("![evacuation time: histogram, ECDF, mean egress curve with its 5-95 % band](ensemble-time.png)")
    L.append("")
    if len(sweep) == 1 and len(rows) > 1:  # each statistic against the swept value
        vals = [st[sweep[0][0]] for st, _, _, _ in rows]
        try:
            x = [float(v) for v in vals]
            ticks = None
        except ValueError:
            x, ticks = list(range(len(vals))), [os.path.basename(v) for v in vals]
        fig, ax = plt.subplots(figsize=(6, 4.5))
        for nm in ("mean", "median", "p95", "max"):
            y = np.array([r[nm] for _, _, r, _ in rows])
            lo = np.array([r[nm + "_lo"] for _, _, r, _ in rows])
            hi = np.array([r[nm + "_hi"] for _, _, r, _ in rows])
            ax.errorbar(x, y, yerr=[y - lo, hi - y], marker="o", capsize=3, label=nm)
        if ticks:
            ax.set_xticks(x)
            ax.set_xticklabels(ticks, fontsize=8)
        ax.set_xlabel("-" + sweep[0][0])
        ax.set_ylabel("evacuation time (s)")
        ax.grid(alpha=0.3)
        ax.legend()
        fig.tight_layout()
        fig.savefig(os.path.join(d, "ensemble-sweep.png"), dpi=90)
        plt.close(fig)
        L.append(f"![each statistic against -{sweep[0][0]}, with its interval](ensemble-sweep.png)")
        L.append("")


if __name__ == "__main__":
    main()
