#!/usr/bin/env python3
"""A district of city blocks for crowd evacuations at district scale (issue 47).

A square street grid: B x B blocks of side L (the holes of the walkable polygon, buildings
nobody walks through), streets of width S between them and round them, so the district is
B L + (B + 1) S on a side.  Some blocks are left out: squares, open areas where the crowd
can spread.  Exits are E openings of width X on each side of the border, at the mouths of
the streets that reach the border (spread evenly over them), so 4 E exits in all.

    python3 configs/geometry/make_district.py > configs/geometry/district.wkt   # the default:
    # 10 x 10 blocks of 80 m, 20 m streets (1020 m x 1020 m), 4 squares, 16 exits of 10 m

Options: --blocks B --block L --street S --exits-per-side E --exit-width X
--squares "i,j i,j ..." (block indices from 0 at the south-west corner; "" for none).
Every line of the output is the WKT that throng reads (src/core/wkt.c): one `walkable`
polygon with the blocks as holes, one `exit` line per exit.
"""
import argparse


def district(B, L, S, E, X, squares):
    side = B * L + (B + 1) * S
    holes = []
    for j in range(B):
        for i in range(B):
            if (i, j) in squares:
                continue
            x0, y0 = S + i * (L + S), S + j * (L + S)
            x1, y1 = x0 + L, y0 + L
            holes.append(f"({x0:g} {y0:g}, {x1:g} {y0:g}, {x1:g} {y1:g}, {x0:g} {y1:g}, {x0:g} {y0:g})")
    outer = f"(0 0, {side:g} 0, {side:g} {side:g}, 0 {side:g}, 0 0)"
    # street mouths on the border: the centre lines of the B + 1 streets; E of them, spread
    mouths = [S / 2 + k * (L + S) for k in range(B + 1)]
    if E > len(mouths):
        raise SystemExit(f"--exits-per-side {E}: only {len(mouths)} streets reach each side")
    pick = [mouths[round((k + 0.5) * len(mouths) / E - 0.5)] for k in range(E)]
    exits = []
    for c in pick:
        a, b = c - X / 2, c + X / 2
        exits += [f"LINESTRING ({a:g} 0, {b:g} 0)", f"LINESTRING ({side:g} {a:g}, {side:g} {b:g})",
                  f"LINESTRING ({b:g} {side:g}, {a:g} {side:g})", f"LINESTRING (0 {b:g}, 0 {a:g})"]
    return side, "POLYGON (" + ", ".join([outer] + holes) + ")", exits, B * B - len(holes)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--blocks", type=int, default=10)
    ap.add_argument("--block", type=float, default=80)
    ap.add_argument("--street", type=float, default=20)
    ap.add_argument("--exits-per-side", type=int, default=4)
    ap.add_argument("--exit-width", type=float, default=10)
    ap.add_argument("--squares", default="2,2 7,2 2,7 7,7")
    a = ap.parse_args()
    squares = {tuple(int(v) for v in s.split(",")) for s in a.squares.split()}
    for i, j in squares:
        if not (0 <= i < a.blocks and 0 <= j < a.blocks):
            raise SystemExit(f"--squares: block {i},{j} is outside the {a.blocks} x {a.blocks} grid")
    side, walk, exits, nsq = district(a.blocks, a.block, a.street, a.exits_per_side, a.exit_width, squares)
    print(f"# A district of {a.blocks} x {a.blocks} blocks of {a.block:g} m with {a.street:g} m streets "
          f"({side:g} m x {side:g} m), {nsq} blocks left open as squares, {len(exits)} exits of "
          f"{a.exit_width:g} m at street mouths on the border (issue 47).")
    print(f"# Made by: python3 configs/geometry/make_district.py --blocks {a.blocks} --block {a.block:g} "
          f"--street {a.street:g} --exits-per-side {a.exits_per_side} --exit-width {a.exit_width:g} "
          f"--squares \"{a.squares}\"")
    print("walkable " + walk)
    for e in exits:
        print("exit     " + e)


if __name__ == "__main__":
    main()
