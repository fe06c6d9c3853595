#!/usr/bin/env python3
"""Write the RiMEA test 8 building: configs/geometry/rimea8.wkt and configs/rimea8-agents.txt.

RiMEA test 8 (RiMEA guideline 4.1.1; JuPedSim's transcription: Utest/rimea_tests/test_8 of
PedestrianDynamics/jupedsim): an office building of three storeys, rooms of 2 m x 3 m with
4 persons each, 9, 8, 8 and 11 rooms in the four rows of the ground floor and 11, 8, 8
and 11 upstairs (36 + 38 + 38 = 112 rooms, 448 persons), stairs between the storeys and
one exit.  RiMEA fixes the rooms and their counts; the rest of the layout here is ours:

  - each storey is 22 m x 16 m: a row of rooms (y 0-3), a corridor (y 3-5), two rows of
    rooms back to back (y 5-8 and 8-11), a corridor (y 11-13) and a row of rooms
    (y 13-16); walls 0.3 m thick, each room a door 1 m wide onto its corridor;
  - the middle rows stop at x = 16: a stair hall (x 16-22, y 3-13) joins the two
    corridors, with the stairwell, a hole of 3 m x 2 m (x 17.5-20.5, y 7-9), in its
    middle; the links use 2 m of its north and south sides (x 18-20);
  - on the ground floor the first row stops at x = 18: the entrance hall (x 18-22,
    y 0-3) holds the exit, 2 m wide, in the south wall;
  - each flight of stairs, 2 m wide, 6 m in plan and 3 m high, is a floor of its own
    drawn east of the building; links join its foot to the north side of the stairwell
    below (people come down into the stair hall) and its head to the south side of the
    stairwell above (people step into the well from the hall's south part);
  - the storeys are drawn 4 m apart along y (level 0 at y 0-16, 1 at y 20-36, 2 at
    y 40-56), each with its `shift` (0, 20 level): the snapshots stack them, one above
    the other, with the flights beside them.

Run it from the repository root:  /usr/bin/python3 configs/geometry/make_rimea8.py
"""

W = 0.3  # wall thickness (m): more than r_max + skin (walls.c)
H = 20.0  # storeys drawn this far apart along y


def rect(x0, y0, x1, y1):
    return f"(({x0:g} {y0:g}, {x1:g} {y0:g}, {x1:g} {y1:g}, {x0:g} {y1:g}, {x0:g} {y0:g}))"


def storey(level, rows):
    """The parts of a storey (rectangles) and its agents; rows: rooms in rows A, B, C, D."""
    y0, w2 = level * H, W / 2
    parts, agents = [], []
    # rows: (y range of the cells, the side of the corridor: door at the top or the bottom)
    spec = [(0, 3, "top"), (5, 8, "bottom"), (8, 11, "top"), (13, 16, "bottom")]
    for (ya, yb, door), n in zip(spec, rows):
        for i in range(n):
            xa, xb = 2 * i, 2 * i + 2
            x0 = xa + (w2 if i > 0 else 0)
            x1 = xb - w2
            r0 = ya + (w2 if ya > 0 else 0)
            r1 = yb - (w2 if yb < 16 else 0)
            parts.append(rect(x0, y0 + r0, x1, y0 + r1))
            if door == "top":
                parts.append(rect(xa + 0.5, y0 + r1 - 0.01, xa + 1.5, y0 + yb + w2 + 0.01))
            else:
                parts.append(rect(xa + 0.5, y0 + ya - w2 - 0.01, xa + 1.5, y0 + r0 + 0.01))
            for dx in (0.55, 1.45):  # four persons, 0.9 m apart across and 1.4 m along
                for fy in (0.27, 0.73):
                    agents.append((xa + dx, y0 + r0 + fy * (r1 - r0)))
    parts.append(rect(0, y0 + 3 + w2, 22, y0 + 5 - w2))  # corridors
    parts.append(rect(0, y0 + 11 + w2, 22, y0 + 13 - w2))
    hx0 = 16 + w2  # the stair hall round the stairwell (x 17.5-20.5, y 7-9)
    parts.append(rect(hx0, y0 + 3 + w2, 17.5, y0 + 13 - w2))
    parts.append(rect(20.5, y0 + 3 + w2, 22, y0 + 13 - w2))
    parts.append(rect(17.5, y0 + 3 + w2, 20.5, y0 + 7))
    parts.append(rect(17.5, y0 + 9, 20.5, y0 + 13 - w2))
    if rows[0] < 11:  # the ground floor's entrance hall
        parts.append(rect(2 * rows[0] + w2, y0, 22, y0 + 3 + w2 + 0.01))
    return parts, agents


def main():
    names, levels = ["ground", "first", "second"], [0, 1, 2]
    rows = [(9, 8, 8, 11), (11, 8, 8, 11), (11, 8, 8, 11)]
    out, agents = [], []
    out.append(__doc__.split("\n\n")[0].replace("Write the", "# The").rstrip(".") + ", written by")
    out.append("# configs/geometry/make_rimea8.py (its docstring describes the layout).")
    for name, lv, r in zip(names, levels, rows):
        parts, ag = storey(lv, r)
        out.append(f"floor {name} {lv} shift 0,{lv * H:g} GEOMETRYCOLLECTION ({', '.join('POLYGON ' + p for p in parts)})")
        agents += ag
    for k in range(2):  # flights k -> k + 1, east of the building at x 26-28
        ya = k * H + 2
        poly = rect(26, ya, 28, ya + 6)
        out.append(f"floor flight{k}{k + 1} {k + 0.5} shift 0,{k * H:g} POLYGON {poly}")
        out.append(f"stair 3 LINESTRING (27 {ya:g}, 27 {ya + 6:g}) POLYGON {poly}")
        # foot -> the north side of the stairwell below; head -> its south side above; each
        # pair of lines in the order that keeps left and right (a turn, not a mirror)
        out.append(f"link foot{k} LINESTRING (26 {ya:g}, 28 {ya:g}) LINESTRING (20 {k * H + 9:g}, 18 {k * H + 9:g})")
        out.append(
            f"link head{k} LINESTRING (28 {ya + 6:g}, 26 {ya + 6:g}) "
            f"LINESTRING (18 {(k + 1) * H + 7:g}, 20 {(k + 1) * H + 7:g})"
        )
    out.append("exit main LINESTRING (19 0, 21 0)")
    with open("configs/geometry/rimea8.wkt", "w") as f:
        f.write("\n".join(out) + "\n")
    with open("configs/rimea8-agents.txt", "w") as f:
        f.write("# RiMEA test 8: 4 persons in each of the 112 rooms of configs/geometry/rimea8.wkt\n")
        f.write("# (configs/geometry/make_rimea8.py), ground floor first\n")
        for x, y in agents:
            f.write(f"{x:.3f} {y:.3f}\n")
    print(f"rimea8: {len(agents)} persons")


main()
