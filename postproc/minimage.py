#!/usr/bin/python3
"""minimage.py -- an independent check of a periodic run's snapshot (tests/test_periodic.sh).

    /usr/bin/python3 postproc/minimage.py RUN.h5 [FRAME]

Reads one frame of an H5MD snapshot file written by throng and prints, computed by brute
force over every pair with the minimum-image convention of the box's periodic axes (the
H5MD box's boundary attribute) -- not through throng's cells and halo images.  A sheared
(Lees-Edwards) box has a 2 x 2 edges matrix, rows (L_x, 0) and (tilt, L_y): the image one
period up is shifted by the tilt along x (read the last frame: the edges are its own):

    overlap  the largest overlap r_i + r_j - |q_i - q_j| of any pair, or r_i - (distance
             to a box wall) along the axes that are not periodic (the box walls of the
             default -wall_box; 0 if none)
    pairs    the number of overlapping pairs that only touch across a periodic side
    inside   the fraction of disks whose centre lies within one cell of the box
"""
import sys
import h5py
import numpy as np


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    frame = int(sys.argv[2]) if len(sys.argv) > 2 else -1
    with h5py.File(sys.argv[1], "r") as f:
        box = f["particles/disks/box"]
        per = [b.decode() == "periodic" for b in box.attrs["boundary"]]
        E = np.array(box["edges"][()], dtype=float)
        tilt = 0.0
        if E.ndim == 2:
            L, tilt = np.array([E[0, 0], E[1, 1]]), E[1, 0]
        else:
            L = E
        lo = np.array(box.attrs["offset"], dtype=float)
        q = f["particles/disks/position/value"][frame]
        r = f["particles/disks/radius/value"][frame]
    keep = np.isfinite(r)
    q, r = q[keep], r[keep]
    worst, across = 0.0, 0
    for i in range(len(r) - 1):
        d = q[i + 1:] - q[i]
        raw = np.hypot(d[:, 0], d[:, 1])
        if per[1]:
            k = np.round(d[:, 1] / L[1])
            d[:, 1] -= k * L[1]
            d[:, 0] -= k * tilt
        if per[0]:
            d[:, 0] -= L[0] * np.round(d[:, 0] / L[0])
        dist = np.hypot(d[:, 0], d[:, 1])
        ov = r[i] + r[i + 1:] - dist
        if ov.size:
            worst = max(worst, float(ov.max()))
            across += int(np.count_nonzero((ov > 0) & (raw > r[i] + r[i + 1:])))
    for a in range(2):
        if not per[a]:
            worst = max(worst, float(np.max(r - (q[:, a] - lo[a]))), float(np.max(r - (lo[a] + L[a] - q[:, a]))))
    cell = 2 * r.max()
    u = q.copy()
    u[:, 0] -= tilt * (q[:, 1] - lo[1]) / L[1]  # the sheared abscissa
    inside = np.mean(np.all((u >= lo - cell) & (u <= lo + L + cell), axis=1))
    print(f"overlap {worst:.9e}")
    print(f"pairs {across}")
    print(f"inside {inside:.6f}")


if __name__ == "__main__":
    main()
