#!/usr/bin/python3
"""The time per step of a crowd on P ranks, from the compute cost measured on one rank
(docs/performance.md, "The time-gap law at scale").

    /usr/bin/python3 postproc/crowd_model.py --c NS [--rho 2.04] [--send 3.13] [--cell 0.476]
                                            [--alpha 1.5e-6] [--beta 1e10] [--n N] [--per-rank n]

A rank owns a square block of n = N/P agents (or --per-rank n, weak scaling) at density
rho (/m^2), side s = sqrt(n/rho).  Per step it computes c n (c: ns per agent-step of a
whole step on one rank, bench_crowd.sh; the law runs for the ring's ghosts as well), does
the sweep's 8 halo exchanges of its one-cell ring (16 bytes per entry: 2 alpha + bytes/beta
each), one refresh of the law's far ghosts (the agents
within `send` = R + sqrt(2) cell + skin of the block: ((s + 2 send)^2 - s^2) rho entries of
16 bytes, to up to 8 partners at once) and one allreduce (2 alpha log2 P).
"""
import argparse
import math


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--c", type=float, required=True, help="ns per agent-step (whole step, 1 rank)")
    ap.add_argument("--rho", type=float, default=2.04, help="agents per m^2 (10^6 in 700 m x 700 m)")
    ap.add_argument("--send", type=float, default=3.13, help="reach distance of the far ghosts (m)")
    ap.add_argument("--cell", type=float, default=0.476, help="cell edge (m)")
    ap.add_argument("--alpha", type=float, default=1.5e-6, help="latency (s)")
    ap.add_argument("--beta", type=float, default=1e10, help="bandwidth (bytes/s)")
    ap.add_argument("--n", type=float, default=1e6, help="agents (strong scaling)")
    ap.add_argument("--per-rank", type=float, help="agents per rank (weak scaling)")
    ap.add_argument("--ranks", default="2,64,1024,4096")
    a = ap.parse_args()
    print("| P | agents per rank | compute | halo (8 exchanges) | far ghosts | allreduce | efficiency |")
    print("|---|---|---|---|---|---|---|")
    for p in [int(x) for x in a.ranks.split(",")]:
        n = a.per_rank if a.per_rank else a.n / p
        s = math.sqrt(n / a.rho)
        comp = a.c * 1e-9 * (n + 4 * s * a.cell * a.rho)  # the law runs for the ring's ghosts too
        halo = 8 * (2 * a.alpha + 16 * 4 * s * a.cell * a.rho / a.beta)
        far = 2 * a.alpha + 16 * ((s + 2 * a.send) ** 2 - s * s) * a.rho / a.beta
        red = 2 * a.alpha * math.log2(p)
        t = comp + halo + far + red
        eff = a.c * 1e-9 * n / t
        print(f"| {p} | {n:.4g} | {comp * 1e3:.3g} ms | {halo * 1e6:.3g} µs | {far * 1e6:.3g} µs | "
              f"{red * 1e6:.3g} µs | {eff:.3f} |")


if __name__ == "__main__":
    main()
