#!/usr/bin/python3
"""Evacuation results of a throng crowd run: plots, density map, PeTrack trajectories.

    /usr/bin/python3 postproc/crowd.py PREFIX [--png PREFIX-evacuation.png]
                                              [--density PREFIX-density.png] [--petrack PREFIX.petrack.txt]

PREFIX is the run's -output prefix.  It reads
  PREFIX.evacuation.csv   time, agents remaining, walking -> evacuation curve N(t), and
                                                          the agents walking (pre-movement)
  PREFIX.exits.csv        id, time, exit, start       -> cumulative count per exit (flow)
  PREFIX.sensors.csv      id, time, sensor, direction -> net crossings per line sensor
  PREFIX.floors.csv       time, agents on each floor  -> occupancy of each floor and flight
                                                          of stairs (NAME:stair), src/crowd/floors.c
  PREFIX.h5               /crowd/density (the run's map), H5MD snapshots -> PeTrack export
and writes
  --png      N(t), the cumulative count through each exit with the mean flows, (with
             sensors) the net count across each sensor line with its flow, and (with
             floors) the occupancy of each floor and flight over time;
  --density  the run's mean density map (/crowd/density: agents / m^2, sampled every
             -density_dt); for runs without one, the mean over the snapshots (0.5 m grid);
  --petrack  the trajectories in PeTrack's text layout, one line per agent and frame:
             "id frame x y" (id from 1, frame from 0, metres), with the frame rate in
             the header, as PedPy's load_trajectory_from_txt reads them.
Needs Debian's python3-h5py and python3-matplotlib: run it with /usr/bin/python3.
"""
import argparse
import csv
import sys

try:
    import numpy as np
except ImportError as e:
    sys.exit(f"crowd.py: {e.name} missing: apt-get install python3-numpy, and use /usr/bin/python3")


def read_csv(path):
    with open(path) as f:
        return list(csv.DictReader(f))


def door_capacity(prefix):
    """(total door width, laboratory specific flow) from PREFIX.h5's /crowd, or None."""
    try:
        import h5py
        with h5py.File(f"{prefix}.h5", "r") as f:
            g = f["crowd"]
            return float(g.attrs["door_width"]), float(g.attrs["lab_specific_flow"])
    except Exception:
        return None


def plot_evacuation(prefix, out):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    curve = read_csv(f"{prefix}.evacuation.csv")
    exits = read_csv(f"{prefix}.exits.csv")
    t = [float(r["time"]) for r in curve]
    n = [int(r["remaining"]) for r in curve]
    import os
    sensors = read_csv(f"{prefix}.sensors.csv") if os.path.exists(f"{prefix}.sensors.csv") else []
    floors = read_csv(f"{prefix}.floors.csv") if os.path.exists(f"{prefix}.floors.csv") else []
    npanel = 2 + (1 if sensors else 0) + (1 if floors else 0)
    fig, ax = plt.subplots(1, npanel, figsize=(5.4 * npanel, 4))
    ax[0].step(t, n, where="post", label="simulated: inside")
    moving = [int(r["moving"]) for r in curve] if curve and "moving" in curve[0] else n
    if moving != n:  # pre-movement: those inside who have started to walk
        ax[0].step(t, moving, where="post", label="of them walking (pre-movement over)")
        ax[0].legend(fontsize=8)
    cap = door_capacity(prefix)
    if cap and len(t) > 1:  # what the doors pass at the flow of laboratory bottlenecks
        W, js = cap
        t1 = t[1]
        te = t1 + n[0] / (js * W)
        ax[0].plot([0, t1, te], [n[0], n[0], 0], "k--", lw=1,
                   label=f"door capacity: {js:g} /(m s) x {W:.3g} m from the first passage, {te:.0f} s")
        ax[0].legend(fontsize=8)
    ax[0].set_xlabel("time [s]")
    ax[0].set_ylabel("agents inside")
    ax[0].set_title(f"evacuation: {max(n)} agents at most, last left at {t[-1]:.2f} s")
    for e in sorted({int(r["exit"]) for r in exits}):
        te = sorted(float(r["time"]) for r in exits if int(r["exit"]) == e)
        flow = (len(te) - 1) / (te[-1] - te[0]) if len(te) > 1 and te[-1] > te[0] else 0.0
        ax[1].step(te, range(1, len(te) + 1), where="post", label=f"exit {e}: {len(te)} agents, {flow:.3g} /s")
    ax[1].set_xlabel("time [s]")
    ax[1].set_ylabel("agents through the exit")
    ax[1].legend(fontsize=8)
    asens = ax[2] if sensors else None
    for k in sorted({int(r["sensor"]) for r in sensors}):
        rows = [r for r in sensors if int(r["sensor"]) == k]
        t = [float(r["time"]) for r in rows]
        net = np.cumsum([int(r["direction"]) for r in rows])
        fwd = [float(r["time"]) for r in rows if int(r["direction"]) > 0]
        flow = (len(fwd) - 1) / (fwd[-1] - fwd[0]) if len(fwd) > 1 and fwd[-1] > fwd[0] else 0.0
        asens.step(t, net, where="post", label=f"sensor {k}: net {net[-1]}, forward flow {flow:.3g} /s")
    if sensors:
        asens.set_xlabel("time [s]")
        asens.set_ylabel("net crossings")
        asens.legend(fontsize=8)
    if floors:  # the occupancy of each floor (solid) and flight of stairs (dashed)
        af = ax[-1]
        tf = [float(r["time"]) for r in floors]
        for col in list(floors[0].keys())[1:]:
            name, stair = col.split(":")[0], col.endswith(":stair")
            occ = [int(r[col]) for r in floors]
            empty = next((tf[i] for i in range(len(occ)) if all(v == 0 for v in occ[i:])), None)
            label = f"{'stair' if stair else 'floor'} {name}: at most {max(occ)}" + (f", empty at {empty:.0f} s" if empty is not None else "")
            af.step(tf, occ, where="post", ls="--" if stair else "-", label=label)
        af.set_xlabel("time [s]")
        af.set_ylabel("agents on it")
        af.set_title("occupancy of each floor and flight of stairs")
        af.legend(fontsize=8)
    for a in ax:
        a.grid(True, alpha=0.3)
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    print(f"crowd.py: wrote {out}")


def frames(prefix):
    import h5py
    f = h5py.File(f"{prefix}.h5", "r")
    g = f["particles/disks"]
    return f, g["position/value"], g["id/value"], g["position/step"][:], g["position/time"][:], f["observables/particle_number/value"][:]


def density(prefix, out, cell=0.5):
    import h5py
    with h5py.File(f"{prefix}.h5", "r") as f:
        if "crowd/density" in f:
            d = f["crowd/density"]
            H = d[:].T
            h, (x0, y0), ns, dt = float(d.attrs["cell"]), d.attrs["origin"], int(d.attrs["samples"]), float(d.attrs["interval"])
            xe = x0 + h * np.arange(H.shape[0] + 1)
            ye = y0 + h * np.arange(H.shape[1] + 1)
            title = f"mean density, {ns} samples {dt:g} s apart ({h:g} m cells)"
            return draw_density(H, xe, ye, title, out)
    f, pos, ids, steps, times, counts = frames(prefix)
    xy = np.concatenate([pos[k, :int(counts[k]), :] for k in range(len(steps))]) if len(steps) else np.zeros((0, 2))
    if not len(xy):
        sys.exit("crowd.py: no agents in the snapshots")
    x0, y0 = xy.min(axis=0) - cell
    x1, y1 = xy.max(axis=0) + cell
    H, xe, ye = np.histogram2d(xy[:, 0], xy[:, 1], bins=[max(1, int((x1 - x0) / cell)), max(1, int((y1 - y0) / cell))], range=[[x0, x1], [y0, y1]])
    H = H / (len(steps) * (xe[1] - xe[0]) * (ye[1] - ye[0]))
    f.close()
    draw_density(H, xe, ye, f"mean density over {len(steps)} snapshots ({cell} m cells)", out)


def draw_density(H, xe, ye, title, out):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(7, 5))
    im = ax.imshow(H.T, origin="lower", extent=[xe[0], xe[-1], ye[0], ye[-1]], cmap="viridis", aspect="equal")
    fig.colorbar(im, ax=ax, label="mean density [1/m²]")
    ax.set_title(title)
    ax.set_xlabel("x [m]")
    ax.set_ylabel("y [m]")
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    print(f"crowd.py: wrote {out} (peak {H.max():.2f} /m²)")


def petrack(prefix, out):
    f, pos, ids, steps, times, counts = frames(prefix)
    if len(times) < 2:
        sys.exit("crowd.py: PeTrack export needs at least 2 snapshots")
    # PeTrack frames are equally spaced: keep the snapshots on the grid of the first
    # interval (a run's final snapshot, when the last agent leaves, usually is not)
    dt = times[1] - times[0]
    keep = [k for k in range(len(times)) if abs((times[k] - times[0]) / dt - round((times[k] - times[0]) / dt)) < 1e-6]
    fps = 1.0 / dt
    with open(out, "w") as o:
        o.write(f"# throng trajectories of {prefix}.h5\n# framerate: {fps:.10g} fps\n# id frame x/m y/m\n")
        for k in keep:
            n, frame = int(counts[k]), int(round((times[k] - times[0]) / dt))
            for i, (x, y) in zip(ids[k, :n], pos[k, :n, :]):
                o.write(f"{int(i) + 1} {frame} {x:.6f} {y:.6f}\n")
    f.close()
    print(f"crowd.py: wrote {out} ({len(keep)} of {len(steps)} snapshots as frames at {fps:.6g} fps)")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("prefix", help="the run's -output prefix")
    ap.add_argument("--png", help="evacuation curve and exit counts (default PREFIX-evacuation.png)")
    ap.add_argument("--density", help="mean density map PNG")
    ap.add_argument("--petrack", help="trajectories in PeTrack's text layout")
    a = ap.parse_args()
    plot_evacuation(a.prefix, a.png or f"{a.prefix}-evacuation.png")
    if a.density:
        density(a.prefix, a.density)
    if a.petrack:
        petrack(a.prefix, a.petrack)


if __name__ == "__main__":
    main()
