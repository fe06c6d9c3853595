#!/usr/bin/env python3
"""What the travel-time fields of a district cost per rank (issue 47; docs/performance.md).

From two measured inputs, per node of the eikonal grid:
  --march-ns   the fast march's time per grid node (default 128 ns: 13.37 s for the
               1.04e8 nodes of configs/district.yaml at -eikonal_h 0.1, nearest exit, one
               rank: the ThrEikMarch line of `build/throng -options_file_yaml
               configs/district.yaml -route_choice nearest -eikonal_h 0.1 -steps 2 -log_view`)
  --bytes      bytes per node and field (default 8: phi; src/crowd/eikonal.c), plus 1 per
               node for the walkable mask, which a run's fields share
it prints memory and set-up time per rank for a square district of side L (default
3000 m) at grid spacing h (0.1 m) with E exits (50), on P ranks (16, 128, 1024), for:
  - replicated: every rank holds every field (throng today); with -route_choice
    quickest the E exit fields are marched by the ranks in turn (EikonalSolveMany), so
    set-up is ceil((E + 1) / P) marches of the whole grid when P <= E + 1;
  - distributed (not built): each rank holds 1/P of each field plus a halo of --halo
    metres (default 4 m: the law's reach and the interpolation stencil) round its square
    part; set-up then is at least one march of a part per field, times --sweeps (default
    sqrt(P): a fast-sweeping or iterated-march solver carries information across about
    sqrt(P) parts in a square layout; a lower bound to be measured once built).
Agent memory (about 1 kB per agent: 286 MB on one rank at h = 0.25 m with nearest routing,
of which the field is 150 MB, for 10^5 agents) is added to both.

    /usr/bin/python3 jobs/district_model.py            # the table of docs/performance.md
"""
import argparse
import math


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--side", type=float, default=3000.0)
    ap.add_argument("--h", type=float, default=0.1)
    ap.add_argument("--exits", type=int, default=50)
    ap.add_argument("--agents", type=float, default=1e6)
    ap.add_argument("--ranks", default="16,128,1024")
    ap.add_argument("--march-ns", type=float, default=128.0)
    ap.add_argument("--bytes", type=float, default=8.0)
    ap.add_argument("--agent-bytes", type=float, default=1000.0)
    ap.add_argument("--halo", type=float, default=4.0)
    ap.add_argument("--sweeps", type=float, default=-1, help="passes over a part per field (default sqrt(P))")
    a = ap.parse_args()
    n1 = a.side / a.h + 1
    nodes = n1 * n1
    fields = a.exits + 1  # the nearest-exit field and one per exit (-route_choice quickest)
    t_field = nodes * a.march_ns * 1e-9
    print(f"district {a.side:g} m x {a.side:g} m at h = {a.h:g} m: {nodes:.3g} nodes; {fields} fields "
          f"(quickest: nearest + {a.exits} exits); {a.agents:.3g} agents; march {a.march_ns:g} ns per node, "
          f"{a.bytes:g} + 1 bytes per node")
    print(f"{'ranks':>6} | {'replicated: GB/rank':>20} {'set-up/s':>10} | {'distributed: GB/rank':>21} "
          f"{'set-up/s (>=)':>14}")
    for P in (int(p) for p in a.ranks.split(",")):
        agents_gb = a.agents / P * a.agent_bytes / 1e9
        rep_gb = (fields * a.bytes + 1) * nodes / 1e9 + agents_gb
        rep_t = math.ceil(fields / P) * t_field
        part = a.side / math.sqrt(P)  # a square part's side, m
        part_nodes = (part + 2 * a.halo) ** 2 / (a.h * a.h)
        dist_gb = (fields * a.bytes + 1) * part_nodes / 1e9 + agents_gb
        sweeps = math.sqrt(P) if a.sweeps < 0 else a.sweeps
        dist_t = fields * part_nodes * a.march_ns * 1e-9 * sweeps
        print(f"{P:>6} | {rep_gb:>20.1f} {rep_t:>10.0f} | {dist_gb:>21.2f} {dist_t:>14.0f}")


if __name__ == "__main__":
    main()
