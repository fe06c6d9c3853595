"""Render the force chains of a throng run with ParaView: the contacts of -contact_output
as tubes coloured and sized by their normal force, over the disks drawn to scale.

    xvfb-run -a pvbatch postproc/forcechains.py RUN [--png chains.png] [--frame K]
            [--size 1200x900] [--expect-contacts N] [--region x0,x1,y0,y1]

RUN is the -output prefix: RUN.xdmf (the disks) and RUN_contacts.xdmf (the contacts) are
read.  The tube around a contact has a radius proportional to its normal force (the
largest gets --max-tube times the mean disk radius); the disks are pale grey.  With
--expect-contacts the frame must hold that many contacts (exit status 1 otherwise): the
test of the XDMF (ctest -R contacts).  Run it with pvbatch or pvpython, never the python3
first on PATH.
"""
import argparse
import os
import sys

from paraview.simple import (CellDatatoPointData, ColorBy, ExtractSurface, GetActiveViewOrCreate,
                             GetColorTransferFunction, GetScalarBar, Glyph, SaveScreenshot, Show, Transform, Tube,
                             UpdatePipeline, XDMFReader)
from paraview import servermanager

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from render import fit_view  # noqa: E402  (postproc/render.py: the same camera)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("run", help="the -output prefix (RUN.xdmf and RUN_contacts.xdmf)")
    ap.add_argument("--png", help="output PNG (default: RUN_chains.png)")
    ap.add_argument("--frame", type=int, default=-1, help="contact frame index (default: the last)")
    ap.add_argument("--size", default="1200x900")
    ap.add_argument("--max-tube", type=float, default=0.45, help="tube radius of the largest force, in mean radii")
    ap.add_argument("--expect-contacts", type=int, help="fail unless the frame has this many contacts")
    ap.add_argument("--region", help="x0,x1,y0,y1: show this part of the plane (default: all disks)")
    args = ap.parse_args()
    disks_x, chains_x = args.run + ".xdmf", args.run + "_contacts.xdmf"
    for f in (disks_x, chains_x):
        if not os.path.exists(f):
            sys.exit(f"forcechains.py: no such file {f} (run throng with -output {args.run} -contact_output)")
    chains = XDMFReader(FileNames=[chains_x])
    chains.UpdatePipelineInformation()
    times = list(chains.TimestepValues) if chains.TimestepValues else []
    if not times:
        sys.exit(f"forcechains.py: {chains_x} has no frame with contacts")
    t = times[args.frame]
    disks = XDMFReader(FileNames=[disks_x])
    disks.UpdatePipelineInformation()
    UpdatePipeline(time=t, proxy=chains)
    UpdatePipeline(time=t, proxy=disks)
    cdata, ddata = servermanager.Fetch(chains), servermanager.Fetch(disks)
    nc = cdata.GetNumberOfCells()
    fn = cdata.GetCellData().GetArray("normal_force")
    fmax = max(fn.GetRange()[1], 1e-300)
    rad = ddata.GetPointData().GetArray("radius")
    rmean = sum(rad.GetValue(k) for k in range(rad.GetNumberOfTuples())) / max(1, rad.GetNumberOfTuples())

    width, height = (int(v) for v in args.size.split("x"))
    view = GetActiveViewOrCreate("RenderView")
    view.ViewSize = [width, height]
    view.ViewTime = t
    view.OrientationAxesVisibility = 0
    if hasattr(view, "UseColorPaletteForBackground"):
        view.UseColorPaletteForBackground = 0
    view.Background = [1, 1, 1]
    glyph = Glyph(Input=disks, GlyphType="Sphere")
    glyph.ScaleArray = ["POINTS", "radius"]
    glyph.ScaleFactor = 2.0  # the sphere source has radius 0.5: diameter 2 r
    glyph.GlyphMode = "All Points"
    glyph.GlyphType.ThetaResolution = 16
    glyph.GlyphType.PhiResolution = 8
    gd = Show(glyph, view)
    ColorBy(gd, None)
    gd.AmbientColor = gd.DiffuseColor = [0.86, 0.86, 0.86]
    # the two ends of a contact are its own points: point data from the cell is its force
    pts = CellDatatoPointData(Input=chains)
    tube = Tube(Input=ExtractSurface(Input=pts))  # Tube takes polydata
    tube.Scalars = ["POINTS", "normal_force"]
    tube.VaryRadius = "By Scalar"
    tube.Radius = args.max_tube * rmean / 10.0
    tube.RadiusFactor = 10.0
    tube.NumberofSides = 8
    # radius = Radius (1 + (RadiusFactor - 1) (f - fmin) / (fmax - fmin)): a tenth to --max-tube
    lift = Transform(Input=tube)  # above the spheres that draw the disks
    lift.Transform.Translate = [0.0, 0.0, 4.0 * rmean]
    td = Show(lift, view)
    ColorBy(td, ("POINTS", "normal_force"))
    lut = GetColorTransferFunction("normal_force")
    lut.ApplyPreset("Inferno (matplotlib)", True)
    lut.InvertTransferFunction()
    lut.RescaleTransferFunction(0.0, fmax)
    td.SetScalarBarVisibility(view, True)
    bar = GetScalarBar(lut, view)
    bar.Title, bar.ComponentTitle = "normal force", ""
    bar.TitleColor = bar.LabelColor = [0.0, 0.0, 0.0]
    bar.WindowLocation = "Any Location"  # at the right edge, beside the disks
    bar.Orientation = "Vertical"
    bar.Position = [0.87, 0.08]
    view.InteractionMode = "2D"
    fit_view(view, [float(v) for v in args.region.split(",")] if args.region else list(ddata.GetBounds())[:4],
             width, height)
    png = args.png or args.run + "_chains.png"
    SaveScreenshot(png, view, ImageResolution=[width, height])
    print(f"forcechains.py: frame at t = {t:g}: {nc} contacts (largest normal force {fmax:.4g}) over "
          f"{ddata.GetNumberOfPoints()} disks -> {png}")
    if args.expect_contacts is not None and nc != args.expect_contacts:
        print(f"forcechains.py: expected {args.expect_contacts} contacts, found {nc}", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
