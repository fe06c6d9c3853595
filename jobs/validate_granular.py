#!/usr/bin/python3
"""validate_granular.py -- throng's granular validation (issue 29), run by jobs/validate_granular.sh.

Experiments, each against data that nobody here produced:

1. Jamming by compression.  N bidisperse disks (50:50, diameter ratio 1.4) in a periodic
   box start from a random state at phi = 0.5 and are compressed at a rate e
   (-deform_rate) to a target phi, then left to relax in the fixed box.  Below jamming
   the relaxation removes every overlap and the pressure decays to zero; above it the
   packing cannot be made free of overlaps and the pressure stays.  For each seed and
   rate phi_J is found by bisection on the target: jammed when the pressure at the end
   of the relaxation is more than half the pressure halfway through it.  Compared with
   O'Hern, Silbert, Liu and Nagel (2003, Phys. Rev. E 68, 011306): phi_J = 0.842 for
   this mixture in 2-D as N grows; for smaller systems their distribution of phi_J is
   wider and its mean lower.
2. Pressure near jamming.  During a compression at rate e the dimensionless pressure
   p/|e| of overdamped hard disks grows as (phi_J - phi)^-beta.  beta is fitted on
   0.01 <= phi_J - phi <= 0.1 (phi_J of the same seed and rate) and compared with the
   divergence of the viscosity of overdamped frictionless disks, beta = 2.77 +- 0.20
   (Olsson and Teitel 2011, Phys. Rev. E 83, 030302(R)) and 2.0-2.8 (Lerner, During
   and Wyart 2012, PNAS 109, 4798, who argue for a value near 2.8 at the smallest
   distances).  A constant-rate compression is not a steady shear: the comparison is of
   the order of magnitude of the exponent.
3. Simple shear (--part shear).  The packing is compressed to phi (rate -0.5) and sheared
   at rate g by Lees-Edwards images (-shear_rate) to a strain of 4; the viscosity
   eta = -sigma_xy / g and p / g are averaged over strains 1 to 4, at three rates.  Hard
   disks have no time scale but 1/g, so eta must not depend on g: the two slowest rates
   must agree within 25 % (the hard-disk limit of the one-sweep stepper), and it diverges as (phi_J - phi)^-beta: beta = 2.77 +- 0.20
   with phi_J = 0.8433 for this mixture under shear (Olsson and Teitel 2011, Phys. Rev.
   E 83, 030302(R), with corrections to scaling; the divergence was first shown by
   Olsson and Teitel 2007, Phys. Rev. Lett. 99, 178001).  Reported: beta fitted with
   phi_J = 0.8433 on phi_J - phi >= 0.02, and phi_J and beta fitted together.
5. Jamming at a controlled pressure (--part barostat).  The same random packings at
   phi = 0.5 are compressed by the pressure-controlled box (-barostat p, pbdw): the box
   shrinks while the packing pushes less than p.  Hard disks carry a pressure only once
   they are jammed, so at any p > 0 the box ends at phi_J, reached ever more slowly as the
   packing stiffens; a larger p gets closer in a given time, at the price of a larger
   overlap (the stepper's error under the load).  Reported per seed and target: the
   final phi, the mean pressure over the second half, the largest overlap.  Criteria: the
   mean pressure within 2 % of the target, and at the largest target phi within 0.01 of
   O'Hern et al.'s 0.842 with overlaps below 1 % of a diameter.
4. A pile's pressure against depth.  A settled hexagonal pile (pbd and pbdw, 40 layers): the
   stress sigma_yy of the contacts in horizontal bands against the weight of the disks
   above (hydrostatics, from the same snapshot).

    jobs/validate_granular.py [--quick] [--out DIR] [--docs] [--part all|jamming|shear|barostat]

--quick: N = 400, one seed, one rate (what ctest runs).  --docs: write docs/validation-granular.md
(jamming and piles) or docs/validation-shear.md (shear) and their plots.  --part: which
experiments (all: the jamming and shear documents; barostat: docs/validation-barostat.md).  THRONG (environment) names the program, NPROC the parallel runs (2).
"""
import argparse
import math
import os
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
THRONG = os.environ.get("THRONG", os.path.join(ROOT, "build", "throng"))
NPROC = int(os.environ.get("NPROC", "2"))
PHI0 = 0.5
RADIUS, RATIO = 0.5, 1.4
H = 0.001
RELAX = 20000  # steps in the fixed box after the compression
STRESS = re.compile(r"^stress: step (\d+)\s+p (\S+)\s+sxx \S+\s+syy \S+\s+sxy \S+\s+phi (\S+)\s+z (\S+)")


def box_for(n):
    area = n / 2 * math.pi * (RADIUS ** 2 + (RATIO * RADIUS) ** 2)
    return math.sqrt(area / PHI0)


def run(args, log=None):
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    out = subprocess.run([THRONG] + args, capture_output=True, text=True, env=env)
    if log:
        with open(log, "w") as f:
            f.write(out.stdout + out.stderr)
    if out.returncode:
        sys.exit(f"validate_granular: throng {' '.join(args)} failed:\n{out.stderr[-2000:]}")
    return [(int(m.group(1)), float(m.group(2)), float(m.group(3)), float(m.group(4)))
            for m in map(STRESS.match, out.stdout.splitlines()) if m]


def compress(n, seed, rate, target, relax=RELAX, progress=1000):
    L = box_for(n)
    steps = math.ceil(math.log(target / PHI0) / (-2 * math.log1p(rate * H)))
    steps = (steps // progress + 1) * progress + relax
    return run([f"-n", str(n), "-bidisperse", str(RATIO), "-radius", str(RADIUS), "-periodic", "xy",
                "-box", f"0,0,{L:.12g},{L:.12g}", "-init", "uniform", "-gravity", "0,0", "-dt", str(H),
                "-deform_rate", str(rate), "-deform_phi", str(target), "-seed", str(seed), "-tile", "2",
                "-stress", "-progress", str(progress), "-steps", str(steps), "-output", "none", "-map", "false"])


def jammed(n, seed, rate, target):
    rows = compress(n, seed, rate, target)
    end = rows[-1]
    mid = [r for r in rows if r[0] == end[0] - RELAX // 2][0]
    return end[1] > 0.5 * mid[1] and end[1] > 1e-9, end


def phi_j(n, seed, rate, lo=0.78, hi=0.90, tol=0.001):
    """Bisection on the target: lo unjams, hi jams."""
    while hi - lo > tol:
        mid = 0.5 * (lo + hi)
        if jammed(n, seed, rate, mid)[0]:
            hi = mid
        else:
            lo = mid
    return 0.5 * (lo + hi)


def exponent(n, seed, rate, pj):
    rows = compress(n, seed, rate, 0.90, relax=0, progress=50)
    pts = [(pj - phi, p / abs(rate)) for _, p, phi, _ in rows if 0.01 <= pj - phi <= 0.1 and p > 0]
    if len(pts) < 5:
        return float("nan"), pts
    xs = [math.log(d) for d, _ in pts]
    ys = [math.log(p) for _, p in pts]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)
    return -slope, pts


BARO = re.compile(r"^summary: barostat p (\S+)\s+phi (\S+)")
BARO_LINE = re.compile(r"^barostat: step (\d+)\s+p (\S+) .*phi (\S+)\s+rate (\S+)")
OVERLAP = re.compile(r"^summary: max_overlap \S+ \((\S+) of the mean diameter")


def barostat_run(n, seed, target, steps, out):
    """One pressure-controlled compression: (final phi, mean p, largest overlap / d, the series)."""
    L = box_for(n)
    args = ["-n", str(n), "-bidisperse", str(RATIO), "-radius", str(RADIUS), "-periodic", "xy",
            "-box", f"0,0,{L:.6f},{L:.6f}", "-init", "uniform", "-gravity", "0,0", "-dt", str(H),
            "-solver", "pbdw", "-barostat", str(target), "-barostat_tau", "10", "-steps", str(steps),
            "-progress", str(steps // 30), "-map", "false", "-output", "none", "-seed", str(seed)]
    log = os.path.join(out, f"barostat_n{n}_s{seed}_p{target}.log")
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    res = subprocess.run([THRONG] + args, capture_output=True, text=True, env=env)
    open(log, "w").write(res.stdout + res.stderr)
    if res.returncode:
        sys.exit(f"validate_granular: throng {' '.join(args)} failed:\n{res.stderr[-2000:]}")
    lines = res.stdout.splitlines()
    mean = [m for m in map(BARO.match, lines) if m]
    ovl = [m for m in map(OVERLAP.match, lines) if m]
    series = [(int(m.group(1)) * H, float(m.group(2)), float(m.group(3)))
              for m in map(BARO_LINE.match, lines) if m]
    if not mean or not ovl or not series:
        sys.exit(f"validate_granular: no barostat summary in {log}")
    return series[-1][2], float(mean[0].group(1)), float(ovl[0].group(1)), series, "throng " + " ".join(args)


def barostat_part(a):
    if a.quick:
        n, seeds, targets, steps = 400, [1], [1.0, 10.0], 12000
    else:
        n, seeds, targets, steps = int(os.environ.get("N", "10000")), [1, 2, 3], [1.0, 10.0], 30000
    cases = [(s, t) for t in targets for s in seeds]
    with ThreadPoolExecutor(NPROC) as ex:
        res = list(ex.map(lambda c: barostat_run(n, c[0], c[1], steps, a.out), cases))
    print("seed,target,phi_end,p_mean,max_overlap_over_d")
    for (s, t), (phi, pm, ov, _, _) in zip(cases, res):
        print(f"{s},{t:g},{phi:.4f},{pm:.5g},{ov:.3g}")
    top = max(targets)
    ptol = 0.05 if a.quick else 0.02
    okp = all(abs(pm / t - 1) <= ptol for (_, t), (_, pm, _, _, _) in zip(cases, res))
    phis = [phi for (_, t), (phi, *_) in zip(cases, res) if t == top]
    ovs = [ov for (_, t), (_, _, ov, _, _) in zip(cases, res) if t == top]
    mean = sum(phis) / len(phis)
    okphi = abs(mean - 0.842) <= 0.01 and max(ovs) < 0.01
    print(f"barostat: at p = {top:g} phi = {mean:.4f} (O'Hern et al. 0.842), largest overlap {max(ovs):.3g} d; "
          f"mean pressures within {100 * ptol:g} % of the targets: {'yes' if okp else 'NO'}")
    if a.docs:
        write_barostat_docs(n, seeds, targets, steps, cases, res, mean, okp, okphi)
    return okp and okphi


def write_barostat_docs(n, seeds, targets, steps, cases, res, mean, okp, okphi):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(1, 2, figsize=(10, 4))
    for k, ((s, t), (_, _, _, ser, _)) in enumerate(zip(cases, res)):
        c = f"C{targets.index(t)}"
        ax[0].plot([x for x, _, _ in ser], [f for _, _, f in ser], color=c, lw=1,
                   label=f"p = {t:g}" if s == seeds[0] else None)
        ax[1].semilogy([x for x, _, _ in ser], [p for _, p, _ in ser], color=c, lw=1)
        ax[1].axhline(t, color=c, ls=":", lw=0.8)
    ax[0].axhline(0.842, color="k", ls="--", lw=0.8, label="O'Hern et al. 0.842")
    ax[0].set_xlabel("t")
    ax[0].set_ylabel("phi")
    ax[0].set_ylim(0.5, 0.86)
    ax[0].legend(fontsize=7)
    ax[1].set_xlabel("t")
    ax[1].set_ylabel("pressure (mean over each progress interval)")
    fig.tight_layout()
    fig.savefig(os.path.join(ROOT, "docs", "img", "validation-barostat.png"), dpi=110)
    md = ["# Jamming at a controlled pressure", "",
          f"Written by `bash jobs/validate_granular.sh --part barostat --docs` (N = {n}, seeds "
          f"{', '.join(map(str, seeds))}, targets {', '.join(f'{t:g}' for t in targets)}, {steps} steps of "
          f"h = {H}; about 6 minutes on 2 cores).  jobs/validate_granular.py (experiment 5) says what it does; "
          "docs/granular.md explains the barostat.", "",
          "Bidisperse disks (50:50, 1:1.4) start at random at phi = 0.5 in a periodic box, and the box "
          "follows the pressure: its edges change at the rate (P - p) / (p tau), tau = 10, with pbdw.  Hard "
          "disks carry a pressure only when jammed, so the box ends at phi_J whatever p is; a larger p gets "
          "there faster, with larger overlaps.", "",
          "| seed | target p | phi at the end | mean p (second half) | largest overlap / d |",
          "|---|---|---|---|---|"]
    md += [f"| {s} | {t:g} | {phi:.4f} | {pm:.5g} | {ov:.2e} |"
           for (s, t), (phi, pm, ov, _, _) in zip(cases, res)]
    md += ["", f"At p = {max(targets):g}: **phi = {mean:.4f}**, against 0.842 (O'Hern, Silbert, Liu and Nagel "
           "2003, Phys. Rev. E 68, 011306, for this mixture as N grows) and the compression protocol's "
           "0.8384 (validation-granular.md).  Criteria: every mean pressure within 2 % of its target "
           f"({'met' if okp else 'MISSED'}); at the largest target phi within 0.01 of 0.842 with overlaps "
           f"below 1 % of a diameter ({'met' if okphi else 'MISSED'}).", "",
           "At p = 1 the packing is still creeping towards phi_J at the end: below jamming the pressure of "
           "hard disks is viscous, P ~ F(phi) |e| with F growing as phi approaches phi_J, so the box's rate "
           "e = -1 / (tau + F / p) falls as the packing stiffens.", "",
           "One run:", "", "    " + res[-1][4], "",
           "![barostat](img/validation-barostat.png)", ""]
    open(os.path.join(ROOT, "docs", "validation-barostat.md"), "w").write("\n".join(md))


def pile(out, solver):
    import h5py
    import numpy as np
    prefix = os.path.join(out, "pile-" + solver)
    opts = ["-n", "800", "-box", "0,0,20.5,45", "-steps", "6000", "-tile", "4", "-solver", solver, "-stress",
            "-stress_bands", "9"]
    run(["-options_file_yaml", os.path.join(ROOT, "configs", "bench-dense.yaml")] + opts +
        ["-output", prefix, "-output_every", "6000", "-quiet"], log=prefix + ".log")
    bands = [tuple(float(v) for v in re.findall(r"(?:y0|y1|syy) (\S+)", line))
             for line in open(prefix + ".log") if line.startswith("stress-band:")]
    with h5py.File(prefix + ".h5") as f:
        y = f["particles/disks/position/value"][-1][:, 1]
        W = f["particles/disks/box/edges"][()][0]
    rows = []
    for y0, y1, syy in bands:
        ys = np.linspace(y0, y1, 2001)
        want = float(np.mean([np.count_nonzero(y > v) / W for v in ys]))
        rows.append((y0, y1, syy, want))
    worst = max(abs(syy / want - 1) for _, _, syy, want in rows if want > 0.05 * rows[0][3])
    return rows, worst, "build/throng -options_file_yaml configs/bench-dense.yaml " + " ".join(opts)


REUSE = False  # --reuse: read the shear logs of an earlier run in --out instead of running again
SHEAR_PHI = [0.70, 0.74, 0.77, 0.79, 0.80, 0.81, 0.82, 0.825, 0.83]
SHEAR_RATES = [0.5, 0.1, 0.02]
PHI_J_SHEAR, BETA_OT = 0.8433, 2.77
PHI_CONVERGED = 0.81  # eta must not depend on the rate up to here


def shear_eta(n, seed, phi, rate, strain, log=None):
    """eta = -sigma_xy / rate and p / rate averaged over strains 1 .. strain."""
    L = box_for(n)
    cs = math.ceil(math.log(phi / PHI0) / (-2 * math.log1p(-0.5 * H)))
    per = max(1, round(0.02 / (rate * H)))
    cs = (cs // per + 1) * per
    steps = cs + round(strain / (rate * H))
    args = ["-n", str(n), "-bidisperse", str(RATIO), "-radius", str(RADIUS), "-periodic", "xy",
            "-box", f"0,0,{L:.12g},{L:.12g}", "-init", "uniform", "-gravity", "0,0", "-dt", str(H),
            "-deform_rate", "-0.5", "-deform_phi", str(phi), "-shear_rate", str(rate), "-seed", str(seed),
            "-tile", "2", "-stress", "-progress", str(per), "-steps", str(steps), "-output", "none", "-map", "false"]
    if REUSE and log and os.path.exists(log) and "state-digest" in open(log).read():
        rows = [(int(m.group(1)), float(m.group(2)), float(m.group(3)), float(m.group(4)))
                for m in map(STRESS.match, open(log).read().splitlines()) if m]
    else:
        rows = run(args, log=log)
    t0 = cs + 1 / (rate * H)
    sxy = [float(m.group(2)) for m in map(re.compile(r"^stress: step (\d+).*sxy (\S+)").match, open(log).read().splitlines())
           if m and int(m.group(1)) >= t0] if log else []
    ps = [p for st, p, _, _ in rows if st >= t0]
    return -sum(sxy) / len(sxy) / rate, sum(ps) / len(ps) / rate


def fit_beta(pts, pj, dmin=0.02):
    xs = [math.log(pj - f) for f, _ in pts if pj - f >= dmin]
    ys = [math.log(e) for f, e in pts if pj - f >= dmin]
    if len(xs) < 3:
        return float("nan"), float("inf")
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    sl = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)
    res = sum((y - my - sl * (x - mx)) ** 2 for x, y in zip(xs, ys)) / len(xs)
    return -sl, res


def shear_part(a):
    if a.quick:
        n, seeds, phis, rates, strain = 400, [1], [0.70, 0.80], [0.5], 3
    else:
        n, seeds, phis, rates, strain = int(os.environ.get("N_SHEAR", "4000")), [1, 2, 3], SHEAR_PHI, SHEAR_RATES, 4
    cases = [(s, f, r) for r in rates for f in phis for s in seeds]
    with ThreadPoolExecutor(NPROC) as ex:
        res = list(ex.map(lambda c: shear_eta(n, c[0], c[1], c[2], strain,
                                              log=os.path.join(a.out, f"shear-{c[0]}-{c[1]}-{c[2]}.log")), cases))
    mean = {}
    for (s, f, r), (e, pe) in zip(cases, res):
        mean.setdefault((f, r), []).append((e, pe))
    lines = ["phi,rate,eta,p_over_rate,runs"]
    for (f, r), v in sorted(mean.items()):
        lines.append(f"{f},{r},{sum(e for e, _ in v) / len(v):.6g},{sum(p for _, p in v) / len(v):.6g},{len(v)}")
    open(os.path.join(a.out, "shear.csv"), "w").write("\n".join(lines) + "\n")
    print("\n".join(lines))
    eta = {k: sum(e for e, _ in v) / len(v) for k, v in mean.items()}
    fits = {}
    for r in rates:
        pts = [(f, eta[(f, r)]) for f in phis]
        b, _ = fit_beta(pts, PHI_J_SHEAR)
        grid = [0.831 + 0.0005 * i for i in range(0, 61)]
        best = min(((fit_beta(pts, pj, 0.005)[1], pj) for pj in grid if pj > max(phis) + 0.005), default=(0, float("nan")))
        bf, _ = fit_beta(pts, best[1], 0.005)
        fits[r] = (b, best[1], bf)
        print(f"rate {r}: beta {b:.3f} with phi_J {PHI_J_SHEAR} (Olsson-Teitel {BETA_OT} +- 0.20); "
              f"fitted together: phi_J {best[1]:.4f}, beta {bf:.3f}")
    # the hard-disk limit: the two slowest rates agree up to phi = 0.81 (closer to phi_J one sweep
    # per step cannot follow the relaxation, which slows down: there eta still grows as the rate falls)
    conv = [f for f in phis if f <= PHI_CONVERGED]
    spread = max(abs(eta[(f, rates[-2])] / eta[(f, rates[-1])] - 1) for f in conv) if len(rates) > 1 else 0.0
    if len(rates) > 1:
        print(f"rate independence: largest relative difference of eta between rates {rates[-2]} and {rates[-1]} "
              f"for phi <= {PHI_CONVERGED}: {spread:.3f}; " + ", ".join(
                  f"{f}: {eta[(f, rates[-2])] / eta[(f, rates[-1])] - 1:+.3f}" for f in phis if f > PHI_CONVERGED))
    grows = all(eta[(phis[i + 1], r)] > eta[(phis[i], r)] for r in rates for i in range(len(phis) - 1))
    ok = grows and spread <= 0.10
    print("verdict (shear): " + (f"eta grows towards jamming and does not depend on the rate up to phi = {PHI_CONVERGED}"
                                 if ok else "a criterion is missed") + "; beta is reported against Olsson-Teitel")
    if a.docs:
        write_shear_docs(n, seeds, phis, rates, strain, eta, mean, fits, spread)
    return ok


def write_shear_docs(n, seeds, phis, rates, strain, eta, mean, fits, spread):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    img = os.path.join(ROOT, "docs", "img", "validation-shear.png")
    fig, ax = plt.subplots(1, 2, figsize=(10, 4))
    for r, c in zip(rates, ["C0", "C1", "C2"]):
        ax[0].plot(phis, [eta[(f, r)] for f in phis], "o-", color=c, label=f"rate {r}")
        ax[1].loglog([PHI_J_SHEAR - f for f in phis], [eta[(f, r)] for f in phis], "o", color=c, label=f"rate {r}")
    d = [0.013, 0.14]
    e0 = eta[(phis[0], rates[-1])] * (PHI_J_SHEAR - phis[0]) ** BETA_OT
    ax[1].loglog(d, [e0 * x ** -BETA_OT for x in d], "k--", label=f"slope -{BETA_OT} (Olsson-Teitel 2011)")
    ax[0].set_xlabel("phi")
    ax[0].set_ylabel("eta = -sigma_xy / rate")
    ax[0].set_yscale("log")
    ax[0].legend(fontsize=7)
    ax[1].set_xlabel(f"{PHI_J_SHEAR} - phi")
    ax[1].set_ylabel("eta")
    ax[1].legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(img, dpi=110)
    L = box_for(n)
    md = ["# Granular validation: simple shear", "",
          f"Written by `bash jobs/validate_granular.sh --part shear --docs` (N = {n}, seeds "
          f"{', '.join(map(str, seeds))}; about 20 minutes on 2 cores).  `ctest -R shear` runs a reduced version "
          "(tests/test_shear.sh).  The jamming and pile experiments are in "
          "[validation-granular.md](validation-granular.md).", "",
          "Each run compresses a random bidisperse packing (50:50, diameter ratio 1.4) from phi = 0.5 to phi at "
          f"rate -0.5, then shears it by Lees-Edwards images to a strain of {strain} with the one-sweep stepper "
          "(pbd, h = 0.001).  eta = -sigma_xy / rate and p / rate are averaged over strains 1 to "
          f"{strain} and over the seeds.  A run, for example:", "",
          f"    build/throng -n {n} -bidisperse 1.4 -radius 0.5 -periodic xy -box 0,0,{L:.6g},{L:.6g} -init uniform \\",
          "      -gravity 0,0 -dt 0.001 -deform_rate -0.5 -deform_phi 0.8 -shear_rate 0.1 -stress -progress 200 \\",
          f"      -steps {math.ceil(math.log(0.8 / PHI0) / (-2 * math.log1p(-0.5 * H))) + round(strain / (0.1 * H))} -tile 2", "",
          "| phi | " + " | ".join(f"eta, rate {r}" for r in rates) + " | " +
          " | ".join(f"p/rate, rate {r}" for r in rates) + " |",
          "|---|" + "---|" * (2 * len(rates))]
    for f in phis:
        md.append(f"| {f} | " + " | ".join(f"{eta[(f, r)]:.4g}" for r in rates) + " | " +
                  " | ".join(f"{sum(p for _, p in mean[(f, r)]) / len(mean[(f, r)]):.4g}" for r in rates) + " |")
    md += ["", "![shear](img/validation-shear.png)", "",
           f"**The hard-disk limit.**  Overdamped hard disks have no time scale but 1/rate, so eta must not "
           f"depend on the rate.  Up to phi = {PHI_CONVERGED} the largest relative difference between the two "
           f"slowest rates, {rates[-2]} and {rates[-1]}, is {100 * spread:.1f} % (criterion: 10 %: "
           f"{'met' if spread <= 0.10 else 'MISSED'}).  Closer to phi_J it is not converged: "
           + ", ".join(f"{100 * (eta[(f, rates[-1])] / eta[(f, rates[-2])] - 1):.0f} % more at phi = {f}"
                       for f in phis if f > PHI_CONVERGED) +
           f" at rate {rates[-1]} than at {rates[-2]}.  This is the error of the time step, not of the one "
           "sweep: each step shears the packing by rate x h, and near phi_J the gaps between disks shrink below "
           "that.  A converged stepper at the same step gives the same viscosity: at phi = 0.80, N = 1000, rate "
           "0.1, pngs (about 480 iterations per step, 10 minutes) gave eta = 1.072 and pbd 1.065 (the command "
           "above with -n 1000 -box 0,0,48.2159,48.2159 -steps 30470, and -solver pngs; eta averaged from strain "
           "1).  So near phi_J the viscosity at a given rate x h is a lower bound, and equal accuracy needs a "
           "smaller strain per step.", "",
           "**The divergence.**  eta grows monotonically towards jamming.  Olsson and Teitel (2011, Phys. Rev. E "
           "83, 030302(R); the divergence was first shown in 2007, Phys. Rev. Lett. 99, 178001) find "
           f"eta ~ (phi_J - phi)^-beta with beta = {BETA_OT} +- 0.20 and phi_J = {PHI_J_SHEAR} for this mixture, "
           "from a scaling analysis with corrections to scaling close to phi_J.  A plain power-law fit here "
           "gives the following (reported, not claimed: the points closest to phi_J are lower bounds):", "",
           "| rate | beta, phi_J = 0.8433, phi_J - phi >= 0.02 | phi_J, beta fitted together |", "|---|---|---|"]
    md += [f"| {r} | {b:.2f} | {pj:.4f}, {bf:.2f} |" for r, (b, pj, bf) in fits.items()]
    md += ["", "The effective exponent over this range is below 2.77: far from phi_J (phi_J - phi up to 0.14) "
           "the correction-to-scaling term that Olsson and Teitel fit dominates, and N = "
           f"{n} limits how close to phi_J a steady state can be sampled.  The exponent is therefore "
           "reported, not claimed; closer points need larger N and longer strains "
           "(`N_SHEAR=16000 bash jobs/validate_granular.sh --part shear`).", ""]
    open(os.path.join(ROOT, "docs", "validation-shear.md"), "w").write("\n".join(md))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--out", default="validation-granular.out")
    ap.add_argument("--docs", action="store_true")
    ap.add_argument("--part", choices=["all", "jamming", "shear", "barostat"], default="all")
    ap.add_argument("--reuse", action="store_true", help="shear: read the complete logs already in --out")
    a = ap.parse_args()
    global REUSE
    REUSE = a.reuse
    os.makedirs(a.out, exist_ok=True)
    if a.part == "barostat":
        sys.exit(0 if barostat_part(a) else 1)
    sok = shear_part(a) if a.part in ("all", "shear") else True
    if a.part == "shear":
        sys.exit(0 if sok else 1)
    if a.quick:
        n, seeds, rates = 400, [1], [-0.05]
    else:
        n, seeds, rates = int(os.environ.get("N", "10000")), [1, 2, 3, 4, 5], [-0.1, -0.05, -0.02]
    cases = [(s, r) for r in rates for s in seeds]
    with ThreadPoolExecutor(NPROC) as ex:
        pjs = list(ex.map(lambda c: phi_j(n, c[0], c[1]), cases))
        exps = list(ex.map(lambda c: exponent(n, c[0][0], c[0][1], c[1]), zip(cases, pjs)))
    table = [(s, r, pj, b) for (s, r), pj, (b, _) in zip(cases, pjs, exps)]
    lines = ["seed,rate,phi_J,beta"] + [f"{s},{r},{pj:.4f},{b:.3f}" for s, r, pj, b in table]
    open(os.path.join(a.out, "jamming.csv"), "w").write("\n".join(lines) + "\n")
    print("\n".join(lines))
    allpj = [pj for _, _, pj, _ in table]
    mean = sum(allpj) / len(allpj)
    betas = [b for *_, b in table if b == b]
    print(f"phi_J mean {mean:.4f} over {len(allpj)} runs (min {min(allpj):.4f}, max {max(allpj):.4f}); "
          f"O'Hern et al. 0.842")
    if betas:
        print(f"beta mean {sum(betas) / len(betas):.3f} (min {min(betas):.3f}, max {max(betas):.3f}); "
              f"Olsson-Teitel 2.77 +- 0.20")
    piles = {}
    for solver in ("pbd", "pbdw"):
        rows, worst, cmd = pile(a.out, solver)
        piles[solver] = (rows, worst, cmd)
        for y0, y1, syy, want in rows:
            print(f"pile ({solver}) band [{y0:g}, {y1:g}]: sigma_yy {syy:.4f}, weight above {want:.4f}")
        print(f"pile ({solver}): largest relative deviation below the top layers {worst:.4f}")
    with open(os.path.join(a.out, "pressure.csv"), "w") as f:
        f.write("seed,rate,phi_J_minus_phi,p_over_rate\n")
        for (s_, r, _, _), (_, pts) in zip(table, exps):
            for d, p in pts:
                f.write(f"{s_},{r},{d:.6g},{p:.6g}\n")
    ok = all(0.82 <= pj <= 0.86 for pj in allpj) and abs(mean - 0.842) <= 0.01 and \
        all(w <= 0.05 for _, w, _ in piles.values())
    print("verdict: " + ("phi_J and the piles meet their criteria" if ok else "a criterion is missed") +
          "; the pressure exponent is reported, not a criterion (docs/validation-granular.md)")
    if a.docs:
        write_docs(n, table, exps, mean, piles)
    sys.exit(0 if ok and sok else 1)


def write_docs(n, table, exps, mean, piles):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    img = os.path.join(ROOT, "docs", "img", "validation-jamming.png")
    rates = sorted({r for _, r, _, _ in table})
    colours = dict(zip(rates, ["C0", "C1", "C2", "C3"]))
    fig, ax = plt.subplots(1, 2, figsize=(10, 4))
    top = 1.0
    for (s, r, pj, b), (_, pts) in zip(table, exps):
        if pts:
            ax[0].loglog([d for d, _ in pts], [p for _, p in pts], ".", ms=3, color=colours[r],
                         label=f"rate {r}" if s == 1 else None)
            top = max(top, max(p for d, p in pts if d >= 0.09))
    d = [0.01, 0.1]
    ax[0].loglog(d, [top * (x / 0.1) ** -2.77 for x in d], "k--", label="slope -2.77 (Olsson-Teitel)")
    ax[0].loglog(d, [top * (x / 0.1) ** -1 for x in d], "k:", label="slope -1")
    ax[0].set_xlabel("phi_J - phi")
    ax[0].set_ylabel("p / |rate|")
    ax[0].legend(fontsize=7)
    for r in rates:
        v = [pj for _, rr, pj, _ in table if rr == r]
        ax[1].plot([abs(r)] * len(v), v, "o", color=colours[r], alpha=0.6)
    ax[1].axhline(0.842, color="k", ls="--", label="O'Hern et al. 0.842")
    ax[1].set_xscale("log")
    ax[1].set_ylim(0.82, 0.86)
    ax[1].set_xlabel("|rate|")
    ax[1].set_ylabel("phi_J (bisection, +- 0.0005)")
    ax[1].legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(img, dpi=110)
    pjs = [pj for _, _, pj, _ in table]
    md = ["# Granular validation", "",
          "Written by `bash jobs/validate_granular.sh --docs` (about 30 minutes on 2 cores); "
          "jobs/validate_granular.py says what each experiment does.  `ctest -R granular` runs a reduced "
          "version (400 disks, one seed and rate).", "",
          f"## Jamming by compression (N = {n}, bidisperse 1:1.4, periodic, from phi = 0.5, pbd)", "",
          "Each run compresses a random packing at the rate to a target phi and relaxes it for 20 time units "
          "in the fixed box; it is jammed when the pressure does not halve over the second half of the "
          "relaxation.  phi_J is bisected on the target to 0.001.", "",
          "| seed | rate | phi_J | beta |", "|---|---|---|---|"]
    md += [f"| {s} | {r} | {pj:.4f} | {b:.2f} |" for s, r, pj, b in table]
    md += ["", f"**phi_J = {mean:.4f}** over the {len(pjs)} runs ({min(pjs):.4f} to {max(pjs):.4f}), against "
           "0.842 (O'Hern, Silbert, Liu and Nagel 2003, Phys. Rev. E 68, 011306, for this mixture as N grows; "
           "smaller systems jam over a wider and lower range).  Criterion: every run in [0.82, 0.86] and the "
           f"mean within 0.01 of 0.842: {'met' if abs(mean - 0.842) <= 0.01 and all(0.82 <= p <= 0.86 for p in pjs) else 'MISSED'}.",
           "",
           "**The pressure near jamming is not yet the literature's.**  beta is the slope of log(p/|rate|) "
           "against log(phi_J - phi) on 0.01 <= phi_J - phi <= 0.1 during the compression.  The fitted "
           "exponents, " + ", ".join(
               f"{sum(b for _, rr, _, b in table if rr == r) / sum(1 for _, rr, _, _ in table if rr == r):.2f} "
               f"at rate {r}" for r in rates) +
           ", are well below the 2.77 +- 0.20 of the viscosity of sheared overdamped disks (Olsson and "
           "Teitel 2011, Phys. Rev. E 83, 030302(R); Lerner, During and Wyart 2012, PNAS 109, 4798).  They "
           "grow as the rate falls, and the curves flatten near phi_J: at these rates the compression is "
           "not quasi-static, and a constant-rate compression is not the steady shear those exponents "
           "describe.  The comparison is made in steady shear at fixed phi: validation-shear.md "
           "(`bash jobs/validate_granular.sh --part shear --docs`).", "",
           "![jamming](img/validation-jamming.png)", "",
           "## A pile's pressure against depth", "",
           "A 40-layer hexagonal pile (800 disks, g = 1) settled for 6000 steps; sigma_yy from the contacts "
           "(-stress -stress_bands 9) in each band against the weight of the disks above, per unit width, "
           "averaged over the band (from the same snapshot).", ""]
    for solver, (rows, worst, cmd) in piles.items():
        md += [f"### {solver}", "", f"    {cmd}", "",
               "| band | sigma_yy (contacts) | weight above | ratio |", "|---|---|---|---|"]
        md += [f"| [{y0:g}, {y1:g}] | {syy:.4f} | {w:.4f} | {syy / w:.4f} |" for y0, y1, syy, w in rows if w > 0]
        md += ["", f"Largest deviation below the top layers: {100 * worst:.2f} % (criterion: 5 %).", ""]
    open(os.path.join(ROOT, "docs", "validation-granular.md"), "w").write("\n".join(md))


if __name__ == "__main__":
    main()
