#!/usr/bin/python3
"""Crowd validation: initial positions, measurements, criteria and the report.

Called by jobs/validate_crowd.sh, which runs throng; this file only writes initial
conditions and reads what the runs wrote (exit records, -trajectory files):

    validate_crowd.py init  OUT N X0 Y0 X1 Y1 SEED        N agents on a jittered grid
    validate_crowd.py line  OUT N X0 X1 Y                 N agents evenly on a line
    validate_crowd.py report DIR MODE                     measurements, criteria, report

The data and the criteria (docs/validation.md lists the sources):
  - bottleneck flows of Liddle et al. (2011), Seyfried et al. (2009), Kretz et al. (2006)
    and Liao et al. (2014), as JuPedSim's former validation test 13 lists them (DATA);
  - Weidmann's (1993) fundamental diagram, v(rho) = 1.34 (1 - exp(-1.913 (1/rho - 1/5.4)));
  - the single-file headway law of Seyfried et al. (2005), d = 0.36 + 1.06 v (metres, m/s);
  - the RiMEA 3.0 tests 1-7, 9, 12, 13 and 15 (geometries as in JuPedSim's RiMEA system
    tests, PedestrianDynamics/jupedsim Utest/rimea_tests; configs/rimea*.yaml).
Needs Debian's python3-numpy, python3-h5py and python3-matplotlib: /usr/bin/python3.
"""
import csv
import glob
import os
import re
import sys

import numpy as np

# Bottleneck flows J (persons/s) against width w (m), as JuPedSim's former validation
# test 13 lists them (PedestrianDynamics/jupedsim, commit 948623203 of 2015,
# Utest/test_13/experiments/*.txt, and jpscore's Utest "lid_w", "lid_f" for Liddle):
# - Liddle, Seyfried, Steffen, Klingsch, Rupprecht, Winkens, Boltes (2011), "Microscopic
#   insights into pedestrian motion through a bottleneck, resolving spatial and temporal
#   variations", arXiv:1105.1532: 150 persons, J = 150 / (t_last - t_first);
# - Seyfried, Passon, Steffen, Boltes, Rupprecht, Klingsch (2009), "New insights into
#   pedestrian flow through bottlenecks", Transportation Science 43(3) 395-406 ("2009Seyfried");
# - Kretz, Grünebohm, Schreckenberg (2006), "Experimental study of pedestrian flow through a
#   bottleneck", J. Stat. Mech. P10014 ("2006Kretz": several runs per width);
# - Liao, Seyfried, Zhang, Chraibi, Zhu, Song (2014), "Experimental study on pedestrian flow
#   through wide bottleneck", Transportation Research Procedia 2, 26-33 (the 2009 Düsseldorf
#   runs, "2009AO").
DATA = {
    "Liddle et al. 2011": ([0.9, 1.0, 1.1, 1.2, 1.4, 1.6, 1.8, 2.0, 2.2, 2.5],
                           [1.710, 2.025, 2.194, 2.532, 2.911, 3.115, 3.906, 3.910, 4.524, 5.547]),
    "Seyfried et al. 2009": ([0.8, 0.9, 1.0, 1.1, 1.2], [1.288, 1.674, 1.900, 2.123, 2.364]),
    "Kretz et al. 2006": ([0.4, 0.4, 0.5, 0.5, 0.6, 0.7, 0.7, 0.8, 0.8, 0.8, 0.9, 0.9, 0.9, 1.0, 1.0, 1.0, 1.0, 1.2, 1.2, 1.2],
                          [0.879, 0.899, 1.007, 1.036, 1.124, 1.222, 1.251, 1.388, 1.417, 1.456, 1.534, 1.583, 1.632,
                           1.710, 1.808, 1.876, 2.023, 2.033, 2.111, 2.287]),
    "Liao et al. 2014": ([2.4, 3.0, 3.6, 4.4, 5.0], [5.803, 6.700, 8.435, 9.534, 11.576]),
}


def data_flow(w):
    """The data's flow at width w: the mean over the series that cover w (each series
    averaged over its runs at a width, then interpolated linearly between its widths);
    NaN where none does."""
    vals = []
    for ws, js in DATA.values():
        ws, js = np.array(ws), np.array(js)
        u = np.unique(ws)
        m = np.array([js[ws == x].mean() for x in u])
        if u[0] - 1e-9 <= w <= u[-1] + 1e-9:
            vals.append(np.interp(w, u, m))
    return float(np.mean(vals)) if vals else float("nan")

def weidmann(rho, v0=1.34, gamma=1.913, rho_max=5.4):
    return v0 * (1 - np.exp(-gamma * (1 / rho - 1 / rho_max)))


def init_grid(out, n, x0, y0, x1, y1, seed):
    """n points on a jittered square grid that fills the rectangle (the grid's spacing
    makes exactly >= n sites; a seeded random subset of n sites is taken)."""
    n = int(n)
    x0, y0, x1, y1 = map(float, (x0, y0, x1, y1))
    a = np.sqrt((x1 - x0) * (y1 - y0) / n)
    while True:
        nx, ny = int((x1 - x0) / a), int((y1 - y0) / a)
        if nx * ny >= n:
            break
        a *= 0.99
    gx, gy = (x1 - x0) / nx, (y1 - y0) / ny
    rng = np.random.default_rng(int(seed))
    sites = rng.permutation(nx * ny)[:n]
    sites.sort()
    jit = 0.3 * min(gx, gy)
    with open(out, "w") as f:
        for s in sites:
            i, j = s % nx, s // nx
            x = x0 + (i + 0.5) * gx + rng.uniform(-jit, jit) / 2
            y = y0 + (j + 0.5) * gy + rng.uniform(-jit, jit) / 2
            f.write(f"{x:.6f} {y:.6f}\n")


def init_line(out, n, x0, x1, y):
    n = int(n)
    x0, x1, y = float(x0), float(x1), float(y)
    with open(out, "w") as f:
        for k in range(n):
            f.write(f"{x0 + (k + 0.5) * (x1 - x0) / n:.6f} {y:.6f}\n")


def exits(path):
    return np.array([float(r["time"]) for r in csv.DictReader(open(path))])


def steady_flow(times):
    """Flow between the 10 % and the 90 % passage (the steady part of the run)."""
    t = np.sort(times)
    i, j = int(0.1 * len(t)), int(0.9 * len(t)) - 1
    return (j - i) / (t[j] - t[i])


def trajectory(path):
    import h5py
    with h5py.File(path, "r") as f:
        d = f["trajectory"]
        return d[:], float(d.attrs["fps"])


def speeds(traj, fps, half=5):
    """Per row (id, frame): x, y and the speed from a central difference over 2 half
    frames; rows without both neighbours dropped."""
    out = []
    for i in np.unique(traj["id"]):
        r = traj[traj["id"] == i]
        r = r[np.argsort(r["frame"])]
        if len(r) <= 2 * half:
            continue
        dx = r["x"][2 * half:] - r["x"][:-2 * half]
        dy = r["y"][2 * half:] - r["y"][:-2 * half]
        v = np.hypot(dx, dy) * fps / (2 * half)
        m = r[half:-half]
        out.append(np.stack([m["frame"].astype(float), m["x"], m["y"], v, np.full(len(m), float(i))], axis=1))
    return np.concatenate(out) if out else np.zeros((0, 5))


def measure_area(traj, fps, area, t0, t1, width_area):
    """Mean density (agents / m^2 per frame) and mean speed in the area, frames in [t0, t1]."""
    s = speeds(traj, fps)
    x0, x1, y0, y1 = area
    sel = (s[:, 0] >= t0 * fps) & (s[:, 0] <= t1 * fps) & (s[:, 1] >= x0) & (s[:, 1] < x1) & (s[:, 2] >= y0) & (s[:, 2] < y1)
    frames = np.arange(int(t0 * fps), int(t1 * fps) + 1)
    counts = np.array([np.sum(s[sel, 0] == f) for f in frames])
    rho = counts.mean() / ((x1 - x0) * (y1 - y0))
    v = s[sel, 3].mean() if sel.any() else float("nan")
    return rho, v


def headways(traj, fps, xa, xb, t0, t1):
    """Single file: (headway to the agent ahead, speed) of every agent in [xa, xb) at
    every frame in [t0, t1]."""
    s = speeds(traj, fps)
    pairs = []
    for f in range(int(t0 * fps), int(t1 * fps) + 1):
        r = s[s[:, 0] == f]
        r = r[np.argsort(r[:, 1])]
        for k in range(len(r) - 1):
            if xa <= r[k, 1] < xb:
                pairs.append((r[k + 1, 1] - r[k, 1], r[k, 3]))
    return np.array(pairs)


# Criteria the model misses today (docs/validation.md says by how much and what was
# tried): the run still fails if one of them gets worse than the bound given here, so the
# misses are guarded against regressions; the verdict lists them apart.
KNOWN_MISSES = {
    "bottleneck data": ("mean abs(J - data) <= 0.85 /s", lambda v: v <= 0.85),
    "single file b": ("b <= 1.5 s", lambda v: v <= 1.5),
    "single file a": ("a >= 0.1 m", lambda v: v >= 0.1),
}


class Report:
    def __init__(self):
        self.lines, self.fails, self.known, self.checks = [], [], [], 0
        self.fd = None  # the fundamental diagram's summary, for RiMEA 4's row

    def add(self, text=""):
        self.lines.append(text)

    def crit(self, name, ok, detail, value=None):
        self.checks += 1
        if ok:
            return "**pass**"
        if name in KNOWN_MISSES and value is not None and KNOWN_MISSES[name][1](value):
            self.known.append(f"{name}: {detail} (known; guarded: {KNOWN_MISSES[name][0]})")
            return "**miss** (known)"
        self.fails.append(f"{name}: {detail}")
        return "**FAIL**"


def figure(d, rep, name, title, xlabel, panels):
    """One PNG of side-by-side panels, linked from the report.  A panel: (ylabel, draw),
    where draw(ax) plots the series on the axes."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(1, len(panels), figsize=(5 * len(panels), 4), squeeze=False)
    for a, (ylabel, draw) in zip(ax[0], panels):
        draw(a)
        a.set_xlabel(xlabel)
        a.set_ylabel(ylabel)
        a.grid(alpha=0.3)
        a.legend()
    fig.tight_layout()
    fig.savefig(os.path.join(d, f"validation-{name}.png"), dpi=100)
    plt.close(fig)
    rep.add(f"![{title}](img/validation-{name}.png)")
    rep.add("")


def bottleneck(d, rep, plots):
    rows = [r for r in csv.DictReader(open(os.path.join(d, "bottleneck.csv")))]
    widths = sorted({float(r["width"]) for r in rows})
    J = {w: [steady_flow(exits(os.path.join(d, r["exits"]))) for r in rows if float(r["width"]) == w] for w in widths}
    mean = np.array([np.mean(J[w]) for w in widths])
    sd = np.array([np.std(J[w]) for w in widths])
    data = np.array([data_flow(w) for w in widths])
    A = np.vstack([widths, np.ones(len(widths))]).T
    coef, res, *_ = np.linalg.lstsq(A, mean, rcond=None)
    fit = A @ coef
    r2 = 1 - np.sum((mean - fit) ** 2) / np.sum((mean - mean.mean()) ** 2) if len(widths) > 2 else float("nan")
    spec = mean / np.array(widths)
    ok_spec = all(1.5 <= s <= 2.5 for w, s in zip(widths, spec) if w >= 0.9)
    have = ~np.isnan(data)
    dev = float(np.mean(np.abs(mean[have] - data[have]))) if have.any() else float("nan")
    nseed = len(next(iter(J.values())))
    rep.add("## Bottleneck flow against width")
    rep.add("")
    rep.add(f"A room of 10 m x 8 m, a bottleneck 2 m long, 200 agents, {nseed} seeds per width; the flow J is "
            "(number of passages between the 10 % and the 90 % passage) / (their time difference), the "
            "mean over the seeds (sd in brackets).  Data: the mean, at each width, of the laboratory series that "
            "cover it (Liddle et al. 2011, 0.9-2.5 m; Seyfried et al. 2009, 0.8-1.2 m; Kretz et al. 2006, 0.4-1.2 m; "
            "Liao et al. 2014, 2.4-5.0 m), each interpolated linearly between its widths.")
    rep.add("")
    rep.add("| width (m) | J (1/s) | J/w (1/(m s)) | data J (1/s) | data J/w |")
    rep.add("|---|---|---|---|---|")
    for w, m, s, dj in zip(widths, mean, sd, data):
        rep.add(f"| {w:.1f} | {m:.2f} ({s:.2f}) | {m / w:.2f} | {'-' if np.isnan(dj) else f'{dj:.2f}'} | {'-' if np.isnan(dj) else f'{dj / w:.2f}'} |")
    rep.add("")
    rep.add("| criterion | value | verdict |")
    rep.add("|---|---|---|")
    # a flow from runs where agents stayed stuck would pass unseen: every one must leave
    left = [len(exits(os.path.join(d, r["exits"]))) for r in rows]
    rep.add(f"| every run: all 200 agents leave | {min(left)} to {max(left)} left | {rep.crit('bottleneck all left', min(left) == 200, f'only {min(left)} of 200 left in a run')} |")
    rep.add(f"| J/w in [1.5, 2.5] /(m s) for w >= 0.9 m | {', '.join(f'{s:.2f}' for w, s in zip(widths, spec) if w >= 0.9)} | {rep.crit('bottleneck J/w', ok_spec, 'J/w out of [1.5, 2.5]')} |")
    if len(widths) > 2:
        rep.add(f"| J linear in w: R^2 >= 0.95 | R^2 = {r2:.4f} (J = {coef[0]:.3f} w {coef[1]:+.3f}) | {rep.crit('bottleneck linearity', r2 >= 0.95, f'R^2 = {r2:.4f}')} |")
    rep.add(f"| mean abs(J - data) <= 0.5 /s | {dev:.3f} /s | {rep.crit('bottleneck data', dev <= 0.5, f'{dev:.3f} /s', dev)} |")
    rep.add("")
    if plots:
        def flow(a):
            a.errorbar(widths, mean, yerr=sd, fmt="o-", label="throng (csm)")
            for (name, (ws, js)), mk in zip(DATA.items(), "Dsv^"):
                a.plot(ws, js, "k" + mk, mfc="none", label=name)
            a.set_xlim(0.3, 2.7)
            a.set_ylim(0, 6.5)

        def specific(a):
            a.plot(widths, spec, "o-", label="throng (csm)")
            for (name, (ws, js)), mk in zip(DATA.items(), "Dsv^"):
                a.plot(ws, np.array(js) / np.array(ws), "k" + mk, mfc="none", label=name)
            a.set_xlim(0.3, 2.7)
            a.axhspan(1.5, 2.5, color="g", alpha=0.1, label="criterion")
        figure(d, rep, "bottleneck", "bottleneck", "bottleneck width w [m]",
               [("flow J [1/s]", flow), ("specific flow J/w [1/(m s)]", specific)])


def fundamental(d, rep, plots):
    rows = [r for r in csv.DictReader(open(os.path.join(d, "fd.csv")))]
    pts = []
    for r in rows:
        traj, fps = trajectory(os.path.join(d, r["trajectory"]))
        rho, v = measure_area(traj, fps, (30, 50, 0, 4), 8, 20, 4)
        pts.append((float(r["density"]), rho, v))
    pts.sort()
    rho = np.array([p[1] for p in pts])
    v = np.array([p[2] for p in pts])
    vw = weidmann(rho)
    falls = all(np.diff(v) < 0)
    near = [abs(a - b) for r, a, b in zip(rho, v, vw) if r <= 3]
    peak = float(np.max(rho * v))
    rep.add("## Fundamental diagram (RiMEA test 4)")
    rep.add("")
    rep.add("A corridor 80 m long and 4 m wide, its exit at x = 80 m; the agents start on a jittered grid in "
            "x in [0, 60] m at the nominal density.  Measured in the area x in [30, 50] m over t in [8, 20] s "
            "(after the start, before the rarefaction from the front or the crowd's tail arrives): the density is "
            "the mean number of agents in the area over its 80 m^2, the speed the mean over agents and frames of a central "
            "difference over 1 s (trajectories at 10 fps).  Weidmann (1993): v0 = 1.34 m/s, gamma = 1.913, "
            "rho_max = 5.4 /m^2.")
    rep.add("")
    rep.add("| nominal rho (1/m^2) | measured rho | v (m/s) | Weidmann v(rho) | J_s = rho v (1/(m s)) |")
    rep.add("|---|---|---|---|---|")
    for (n, r, vv), w in zip(pts, vw):
        rep.add(f"| {n:g} | {r:.2f} | {vv:.3f} | {w:.3f} | {r * vv:.2f} |")
    rep.add("")
    rep.add("| criterion | value | verdict |")
    rep.add("|---|---|---|")
    rep.add(f"| v falls with density | {', '.join(f'{x:.2f}' for x in v)} | {rep.crit('FD monotone', falls, 'v does not fall with rho')} |")
    rep.add(f"| abs(v - Weidmann) <= 0.25 m/s for rho <= 3 | max {max(near):.3f} m/s | {rep.crit('FD Weidmann', max(near) <= 0.25, f'max deviation {max(near):.3f}')} |")
    rep.add(f"| peak specific flow in [1.2, 2.0] /(m s) | {peak:.2f} | {rep.crit('FD peak flow', 1.2 <= peak <= 2.0, f'{peak:.2f}')} |")
    rep.fd = (f"v from {v[0]:.2f} to {v[-1]:.2f} m/s, largest deviation from Weidmann {max(near):.3f} m/s, peak "
              f"specific flow {peak:.2f} /(m s)", falls and max(near) <= 0.25 and 1.2 <= peak <= 2.0)
    rep.add("")
    if plots:
        rr = np.linspace(0.3, 5.3, 100)

        def speed(a):
            a.plot(rr, weidmann(rr), "k--", label="Weidmann 1993")
            a.plot(rho, v, "o", label="throng (csm)")

        def flow(a):
            a.plot(rr, rr * weidmann(rr), "k--", label="Weidmann 1993")
            a.plot(rho, rho * v, "o", label="throng (csm)")
        figure(d, rep, "fd", "fundamental diagram", "density [1/m^2]",
               [("speed [m/s]", speed), ("specific flow [1/(m s)]", flow)])


def single_file(d, rep, plots):
    rows = [r for r in csv.DictReader(open(os.path.join(d, "sf.csv")))]
    allp = []
    for r in rows:
        traj, fps = trajectory(os.path.join(d, r["trajectory"]))
        p = headways(traj, fps, 40, 60, 10, 20)
        allp.append(p)
    p = np.concatenate(allp)
    free = p[p[:, 1] > 1.0]
    p = p[p[:, 1] <= 1.0]  # the interacting range of the data's fit (v <= 1 m/s)
    A = np.vstack([np.ones(len(p)), p[:, 1]]).T
    (a, b), *_ = np.linalg.lstsq(A, p[:, 0], rcond=None)
    rep.add("## Single file: headway against speed")
    rep.add("")
    rep.add(f"A corridor 0.5 m wide and 100 m long (no overtaking), {len(rows)} runs at line densities "
            f"{', '.join(r['density'] for r in rows)} /m; every agent in x in [40, 60] m over t in [10, 20] s "
            f"gives a pair (headway d to the one ahead, speed v); the {len(p)} pairs with v <= 1 m/s (the range "
            f"where the data's law was fitted; {len(free)} faster pairs left out: free walkers, whose headway does not "
            "limit them) are fitted by d = a + b v.  Data: Seyfried et al. (2005), d = 0.36 + 1.06 v.")
    rep.add("")
    rep.add("| criterion | value | verdict |")
    rep.add("|---|---|---|")
    rep.add(f"| b in [0.9, 1.2] s | {b:.3f} s | {rep.crit('single file b', 0.9 <= b <= 1.2, f'b = {b:.3f}', b)} |")
    rep.add(f"| a in [0.3, 0.45] m | {a:.3f} m | {rep.crit('single file a', 0.3 <= a <= 0.45, f'a = {a:.3f}', a)} |")
    rep.add("")
    if plots:
        def headway(ax):
            ax.plot(p[:, 1], p[:, 0], ".", ms=2, alpha=0.3, label="throng (csm)")
            vv = np.linspace(0, 1.6, 10)
            ax.plot(vv, a + b * vv, "b-", label=f"fit d = {a:.2f} + {b:.2f} v")
            ax.plot(vv, 0.36 + 1.06 * vv, "k--", label="Seyfried et al. 2005")
        figure(d, rep, "single-file", "single file", "speed [m/s]", [("headway [m]", headway)])


def rimea(d, rep, plots):
    rep.add("## RiMEA tests")
    rep.add("")
    rep.add("| test | what | value | criterion | verdict |")
    rep.add("|---|---|---|---|---|")
    t1 = exits(os.path.join(d, "rimea1.exits.csv"))
    ok = len(t1) == 1 and 26 <= t1[0] <= 34
    rep.add(f"| 1 | one person at 1.33 m/s, corridor 40 m x 2 m | {t1[0]:.2f} s | 26-34 s | {rep.crit('RiMEA 1', ok, f'{t1[0]:.2f} s')} |")
    traj, fps = trajectory(os.path.join(d, "rimea6.traj.h5"))
    inside = int(np.sum((traj["x"] < 10) & (traj["y"] > 2)))
    t6 = exits(os.path.join(d, "rimea6.exits.csv"))
    ok = inside == 0 and len(t6) == 20
    rep.add(f"| 6 | 20 persons round a left corner | {len(t6)} left; {inside} positions in the wall block | all leave, none cut the corner | {rep.crit('RiMEA 6', ok, f'{inside} positions in the wall, {len(t6)} left')} |")
    e4, e2 = exits(os.path.join(d, "rimea9-4.exits.csv")), exits(os.path.join(d, "rimea9-2.exits.csv"))
    T4, T2 = e4.max(), e2.max()
    ratio = T2 / T4
    ok = 1.6 <= ratio <= 2.4 and len(e4) == 1000 and len(e2) == 1000  # the times of all 1000, not of those who left
    rep.add(f"| 9 | 1000 persons, room 30 m x 20 m, four 1 m doors, then two | {len(e4)} and {len(e2)} left; {T4:.1f} s and {T2:.1f} s: ratio {ratio:.2f} | all leave; ratio in [1.6, 2.4] | {rep.crit('RiMEA 9', ok, f'ratio {ratio:.2f}, {len(e4)} and {len(e2)} of 1000 left')} |")
    traj, fps = trajectory(os.path.join(d, "rimea12.traj.h5"))
    frames = np.unique(traj["frame"])

    def peak(area):
        x0, x1, y0, y1 = area
        sel = (traj["x"] >= x0) & (traj["x"] < x1) & (traj["y"] >= y0) & (traj["y"] < y1)
        c = np.bincount(traj["frame"][sel].astype(int), minlength=int(frames.max()) + 1)
        # the density over 2 s windows (20 frames), the largest
        k = int(2 * fps)
        w = np.convolve(c, np.ones(k) / k, mode="valid") if len(c) >= k else c
        return float(w.max()) / ((x1 - x0) * (y1 - y0))
    before, exit_ = peak((8, 10, 3.5, 6.5)), peak((23, 25, 3.5, 6.5))
    left12 = len(exits(os.path.join(d, "rimea12.exits.csv")))
    ok = before >= 2 and exit_ < 2 and left12 == 150
    rep.add(f"| 12 | 150 persons, room, corridor 5 m x 1 m, room, 1 m exit | {left12} of 150 left; peak density before the corridor {before:.2f} /m^2, before the exit {exit_:.2f} /m^2 | all leave; congestion (>= 2 /m^2 over 2 s) only before the corridor | {rep.crit('RiMEA 12', ok, f'{left12} left; {before:.2f} and {exit_:.2f} /m^2')} |")
    rimea_more(d, rep, plots)
    if rep.fd:  # RiMEA 4 is the fundamental diagram, measured above (its criteria counted there)
        rep.add(f"| 4 | fundamental diagram, corridor 80 m x 4 m | {rep.fd[0]} | the criteria of the section above | "
                f"{'**pass**' if rep.fd[1] else '**FAIL** (above)'} |")
    # the rows in the order of the tests
    k = max(i for i, l in enumerate(rep.lines) if l.startswith("|---|---|---|---|---|")) + 1
    # rows first, in test order; anything else added meanwhile (figures) after the table
    tail = rep.lines[k:]
    rows = [l for l in tail if l.startswith("| ") and l.split("|")[1].strip().isdigit()]
    rest = [l for l in tail if l not in rows]
    while rest and not rest[-1]:
        rest.pop()
    rep.lines[k:] = sorted(rows, key=lambda l: int(l.split("|")[1])) + ([""] + rest if rest else [])
    rep.add("")
    study = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "docs", "study-rimea9.md")
    if os.path.isfile(study):  # RiMEA 9 over seeds (bash jobs/study_rimea9.sh): its ratio row
        m = re.search(r"^\| geometry=rimea9-2doors.wkt \| ([0-9.]+) \| \[([0-9.]+), ([0-9.]+)\] \(([0-9]+) seeds",
                      open(study).read(), re.M)
        if m:
            rep.add(f"RiMEA 9 as a study ([study-rimea9.md](study-rimea9.md), `bash jobs/study_rimea9.sh`): over "
                    f"{m.group(4)} seeds, each placing the 1000 persons anew, the mean time with two doors is "
                    f"{m.group(1)} times that with four (95 % interval {m.group(2)} to {m.group(3)}).")
            rep.add("")
    rep.add("Tests 10 and 11 (assigned exits, exit choice) are also checked, in more detail, by tests/test_routes.sh.")
    rep.add("")
    docs = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "docs")
    for name, head, text in (
            ("rimea8.md", "### RiMEA test 8: a three-storey office, as a parameter study",
             "RiMEA asks for no pass or fail here but for a study of how the evacuation time depends on a parameter. "
             "The building (configs/rimea8.yaml, written by configs/geometry/make_rimea8.py after RiMEA's description "
             "and JuPedSim's transcription) has 112 rooms of 2 m x 3 m with 4 persons each (9, 8, 8 and 11 per row on "
             "the ground floor, 11, 8, 8 and 11 upstairs: 448), a stairwell in the stair hall of each storey, two "
             "flights of stairs 2 m wide and one exit 2 m wide; it is run by `/usr/bin/python3 jobs/rimea8.py --docs` "
             "([rimea8.md](rimea8.md)), with everyone at 0.5, 0.75 and 1.0 m/s, and at a mean of 1.0 m/s with a "
             "spread. What it shows: the time does not scale with 1/speed (halving the speed does not double it): "
             "the stairs and the exit meter the flow, so the queues, not the walking, set much of the time; and at "
             "a fixed mean a wider spread of speeds empties the building later, the slowest walkers last. On the "
             "first floor's landing the arrivals from the flight above merge with the floor's own queue for the "
             "flight below; since issue 44 they wait on the landing for a gap instead of stepping back over the "
             "link line into the stairwell, which made the slow cases slower (at 0.5 m/s 417.3 s against 338.3 s "
             "before; at 1.0 m/s 251.0 against 249.7 s)."),
            ("rimea14.md", "### RiMEA test 14: route choice over floors",
             "100 persons leave a start room of 5 m x 20 m either by a level corridor of 20 m x 5 m or by the shorter "
             "way through the basement, down a stair 2 m wide (5 m plan), along a corridor of 10 m and up a stair "
             "(configs/rimea14.yaml, after JuPedSim's transcription; `/usr/bin/python3 jobs/rimea14.py --docs`, "
             "[rimea14.md](rimea14.md)). RiMEA asks for the shares, with no criterion. Nearest: down the travel-time "
             "field, which walks the stairs at their speeds, so only those starting near the stair door take it. "
             "Quickest (`-route_choice quickest`) chooses among exits; with one exit it gives what nearest gives "
             "(choice among routes to one exit is not built)."),
    ):
        path = os.path.join(docs, name)
        if not os.path.isfile(path):
            continue
        table = [l for l in open(path).read().splitlines() if l.startswith("|")]
        pic = [l for l in open(path).read().splitlines() if l.startswith("![")]
        rep.add(head)
        rep.add("")
        rep.add(text)
        rep.add("")
        for l in table:
            rep.add(l)
        rep.add("")
        for l in pic:
            rep.add(l)
            rep.add("")


def sensor_times(path, sensor):
    """Crossing times of one sensor, forward only."""
    return np.array([float(r["time"]) for r in csv.DictReader(open(path))
                     if int(r["sensor"]) == sensor and int(r["direction"]) > 0])


def flow(t):
    """(N - 1) / (t_last - t_first): the mean flow of N passages."""
    t = np.sort(t)
    return (len(t) - 1) / (t[-1] - t[0]) if len(t) > 1 and t[-1] > t[0] else 0.0


def first_moves(traj):
    """Per id, the time (frame / fps) of the last frame at which it still stood where it
    started: the start of the step that moved it."""
    out = {}
    for i in np.unique(traj["id"]):
        r = traj[traj["id"] == i]
        r = r[np.argsort(r["frame"])]
        moved = np.nonzero((r["x"] != r["x"][0]) | (r["y"] != r["y"][0]))[0]
        out[int(i)] = r["frame"][moved[0] - 1] if len(moved) else None
    return out


def crossing_speeds(traj, fps, xa, xb):
    """Per id, the mean speed between its crossings of x = xa and x = xb (interpolated
    between frames): (xb - xa) / (t_b - t_a)."""
    out = {}
    for i in np.unique(traj["id"]):
        r = traj[traj["id"] == i]
        r = r[np.argsort(r["frame"])]
        t = []
        for xc in (xa, xb):
            k = np.nonzero(r["x"] >= xc)[0]
            if not len(k) or k[0] == 0:
                break
            k = k[0]
            f = r["frame"][k - 1] + (xc - r["x"][k - 1]) / (r["x"][k] - r["x"][k - 1]) * (r["frame"][k] - r["frame"][k - 1])
            t.append(f / fps)
        if len(t) == 2:
            out[int(i)] = (xb - xa) / (t[1] - t[0])
    return out


# RiMEA 3.0 test 7's groups (configs/rimea7.yaml, population.c): ids 50 k .. 50 k + 49
RIMEA7 = [("under 30", 0.58, 1.61), ("30 to 50", 1.41, 1.54), ("over 50", 0.68, 1.41), ("limited mobility", 0.46, 0.76)]


def rimea_more(d, rep, plots):
    # 2 and 3: the time on the stair, between the crossings of its two sensors
    for k, v, way in ((2, 0.5, "up"), (3, 0.65, "down")):
        s0, s1 = sensor_times(os.path.join(d, f"rimea{k}.sensors.csv"), 0), sensor_times(os.path.join(d, f"rimea{k}.sensors.csv"), 1)
        t = s1[0] - s0[0] if len(s0) == 1 and len(s1) == 1 else float("nan")
        want = 10 / v
        ok = abs(t - want) <= 0.05 * want
        rep.add(f"| {k} | one person {way} a stair 10 m along its slope (8 m plan, 6 m rise) at {v} m/s | {t:.2f} s on the stair | "
                f"within 5 % of {want:.2f} s | {rep.crit(f'RiMEA {k}', ok, f'{t:.2f} s')} |")
    # 5: each starts within one step of its pre-movement time (ids 0..9: 10, 20, ..., 100 s)
    traj, fps = trajectory(os.path.join(d, "rimea5.traj.h5"))
    starts = first_moves(traj)
    err = [abs(starts[i] / fps - 10 * (i + 1)) if starts.get(i) is not None else float("inf") for i in range(10)]
    h = 1 / fps  # a frame every step
    ok = len(starts) == 10 and max(err) <= h + 1e-9
    rep.add(f"| 5 | 10 persons, pre-movement times 10, 20, ..., 100 s | largest start error {max(err):.3f} s | "
            f"each starts within one step ({h:.2f} s) of its time | {rep.crit('RiMEA 5', ok, f'{max(err):.3f} s')} |")
    # 7: every realised free speed in its group's range (measured between x = 15 and 45 m)
    traj, fps = trajectory(os.path.join(d, "rimea7.traj.h5"))
    v = crossing_speeds(traj, fps, 15.0, 45.0)
    out, lines = 0, []
    for g, (name, lo, hi) in enumerate(RIMEA7):
        vg = np.array([v[i] for i in range(50 * g, 50 * g + 50) if i in v])
        bad = int(np.sum((vg < lo * 0.99) | (vg > hi * 1.01))) + (50 - len(vg))
        out += bad
        lines.append(f"{name} {vg.min():.2f}-{vg.max():.2f}" if len(vg) else f"{name}: none")
    ok = out == 0
    rep.add(f"| 7 | 4 x 50 persons, speeds by RiMEA's age table | realised {'; '.join(lines)} m/s | each in its "
            f"group's range (1 % for the measurement) | {rep.crit('RiMEA 7', ok, f'{out} of 200 outside')} |")
    if plots:
        def hist(ax):
            for g, (name, lo, hi) in enumerate(RIMEA7):
                vg = [v[i] for i in range(50 * g, 50 * g + 50) if i in v]
                ax.hist(vg, bins=np.linspace(0.4, 1.7, 27), alpha=0.6, label=name)
                ax.axvspan(lo, hi, ymin=0.95 - 0.05 * g, ymax=1 - 0.05 * g, color=f"C{g}")
            ax.legend(fontsize=7)
        figure(d, rep, "rimea7", "RiMEA 7: realised free speeds (bars: RiMEA's ranges)", "speed [m/s]", [("persons", hist)])
    # 13: flow onto the stair lower than into the corridor; the jam in front of the stair
    Jc, Js, front, mid, left = [], [], [], [], []
    for f in sorted(glob.glob(os.path.join(d, "rimea13-*.sensors.csv"))):
        Jc.append(flow(sensor_times(f, 0)))
        Js.append(flow(sensor_times(f, 1)))
        pre = f[:-len(".sensors.csv")]
        left.append(len(exits(pre + ".exits.csv")))
        tr, fp = trajectory(pre + ".traj.h5")
        def mean_density(x0, x1):
            sel = (tr["x"] >= x0) & (tr["x"] < x1)
            fr = np.unique(tr["frame"])
            return np.sum(sel) / len(fr) / ((x1 - x0) * 2.0)
        front.append(mean_density(18, 20))
        mid.append(mean_density(12, 14))
    Jc, Js = np.array(Jc), np.array(Js)
    ok = len(Jc) >= 2 and Js.mean() < Jc.mean() - 0.05 and np.mean(front) > np.mean(mid) and all(n == 150 for n in left)
    rep.add(f"| 13 | 150 persons, room, corridor 12 m x 2 m, stair up (3 m plan, 3 m rise) at 0.675 +- 0.04 m/s, "
            f"{len(Jc)} seeds | flow into the corridor {Jc.mean():.2f} ({Jc.std():.2f}) /s, onto the stair {Js.mean():.2f} "
            f"({Js.std():.2f}) /s; mean density in front of the stair {np.mean(front):.2f} /m^2, mid-corridor "
            f"{np.mean(mid):.2f} /m^2 | all leave; stair flow lower by > 0.05 /s; denser in front of the stair | "
            f"{rep.crit('RiMEA 13', ok, f'J {Jc.mean():.2f} vs {Js.mean():.2f}')} |")
    # 10: each person leaves by the exit its route assigns (rooms 4, 5, 10, 11: ids 7-10
    # and 19-22, the secondary exit 1; the others the main exit 0; configs/rimea10.yaml)
    r10 = list(csv.DictReader(open(os.path.join(d, "rimea10.exits.csv"))))
    wrong = sum(int(r["exit"]) != (1 if (7 <= int(r["id"]) <= 10 or int(r["id"]) >= 19) else 0) for r in r10)
    ok = len(r10) == 23 and wrong == 0
    rep.add(f"| 10 | 23 persons in 12 rooms, exits assigned by route | {len(r10)} left, {wrong} by another exit | "
            f"all leave, each by its assigned exit | {rep.crit('RiMEA 10', ok, f'{wrong} by another exit')} |")
    # 11: 1000 persons, a near and a far exit: most by the near one, some by the far one
    r11 = np.array([int(r["exit"]) for r in csv.DictReader(open(os.path.join(d, "rimea11.exits.csv")))])
    near, far = int(np.sum(r11 == 0)), int(np.sum(r11 == 1))
    ok = len(r11) == 1000 and near > far > 0
    rep.add(f"| 11 | 1000 persons, a near and a far exit (nearest-exit routing) | {near} by the near exit, {far} by "
            f"the far one | all leave; most by the near exit, some by the far one | "
            f"{rep.crit('RiMEA 11', ok, f'{near} near, {far} far')} |")
    # 15: the corner's evacuation time between the straight corridors'
    T = {g: exits(os.path.join(d, f"rimea15-{g}.exits.csv")) for g in ("long", "corner", "short")}
    n = {g: len(t) for g, t in T.items()}
    tl, tc, ts = (T[g].max() for g in ("long", "corner", "short"))
    ok = ts < tc < tl and all(v == 500 for v in n.values())
    rep.add(f"| 15 | 500 persons, corridors 20 m wide: long (75.4 m), with a left corner, short (44 m) | {tl:.1f} s, "
            f"{tc:.1f} s, {ts:.1f} s | all leave; short < corner < long | "
            f"{rep.crit('RiMEA 15', ok, f'{tl:.1f}, {tc:.1f}, {ts:.1f} s')} |")


def report(d, mode):
    rep = Report()
    plots = mode == "full"
    rep.add("# Crowd validation")
    rep.add("")
    rep.add(f"Written by `bash jobs/validate_crowd.sh` ({'full' if plots else 'quick'} run) with the default crowd "
            "model (-crowd_model csm: T = 0.9 s, radius 0.15 m, a = 8, D = 0.1 m) at h = 0.02 s.  Each table puts "
            "the simulated values next to the data or the criterion.  Sources: docs/crowd.md.  The granular "
            "validation (jamming, a pile's stress) is in [validation-granular.md](validation-granular.md), written "
            "by `bash jobs/validate_granular.sh --docs`, and the viscosity in simple shear in "
            "[validation-shear.md](validation-shear.md).")
    rep.add("")
    for part in (bottleneck, fundamental, single_file, rimea):
        part(d, rep, plots)
    met = rep.checks - len(rep.fails) - len(rep.known)
    rep.add(f"## Verdict\n\n{met} of {rep.checks} criteria met.")
    if rep.known:
        rep.add("")
        rep.add("Known misses (open work; a run fails if one gets worse than its guard): " + "; ".join(rep.known) + ".")
    if rep.fails:
        rep.add("")
        rep.add("FAILED: " + "; ".join(rep.fails) + ".")
    open(os.path.join(d, "validation.md"), "w").write("\n".join(rep.lines) + "\n")
    print("\n".join(rep.lines))
    return 1 if rep.fails else 0


if __name__ == "__main__":
    cmd = sys.argv[1] if len(sys.argv) > 1 else ""
    if cmd == "init":
        init_grid(*sys.argv[2:9])
    elif cmd == "line":
        init_line(*sys.argv[2:7])
    elif cmd == "report":
        sys.exit(report(sys.argv[2], sys.argv[3]))
    else:
        sys.exit(__doc__)
