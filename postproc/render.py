"""Render a throng run's XDMF with ParaView: disks drawn to scale, coloured by a field.

    xvfb-run -a pvbatch postproc/render.py run.xdmf --png frame.png [--frame K]
            [--color radius|id|velocity] [--expect-n N] [--size 1200x800] [--region x0,x1,y0,y1]
    xvfb-run -a pvbatch postproc/render.py run.xdmf --movie frames/   # one PNG per frame
    xvfb-run -a pvbatch postproc/render.py run.xdmf --png floors.png --oblique --color floor

Checks that the frame has --expect-n points (exit status 1 otherwise), then glyphs every
point with a sphere of diameter 2 r (radius array), seen from +z: the disks to scale.
--oblique looks from the south-east and above instead, in perspective: a building of
several floors (src/crowd/floors.c) shows its floors stacked, each at z = level x storey height.
Run it with pvbatch or pvpython (ParaView's Python), never the python3 first on PATH.
"""
import argparse
import os
import sys

from paraview.simple import (ColorBy, GetActiveViewOrCreate, GetAnimationScene, Glyph, ResetCamera,
                             SaveScreenshot, Show, UpdatePipeline, XDMFReader)
from paraview import servermanager


def fit_view(view, bounds, width, height):
    """Look at the rectangle bounds = (x0, x1, y0, y1) from +z, in parallel projection."""
    ResetCamera(view)  # the clipping range
    cx, cy, w, h = (bounds[0] + bounds[1]) / 2, (bounds[2] + bounds[3]) / 2, bounds[1] - bounds[0], bounds[3] - bounds[2]
    view.CameraPosition = [cx, cy, 10 * max(w, h) + 1]
    view.CameraFocalPoint = [cx, cy, 0]
    view.CameraViewUp = [0, 1, 0]
    view.CameraParallelProjection = 1
    view.CameraParallelScale = 0.52 * max(h, w * height / width)


def oblique_view(view, b):
    """Look at the box b = (x0, x1, y0, y1, z0, z1) from the south-east and above."""
    ResetCamera(view)
    cx, cy, cz = (b[0] + b[1]) / 2, (b[2] + b[3]) / 2, (b[4] + b[5]) / 2
    d = max(b[1] - b[0], b[3] - b[2], b[5] - b[4], 1.0)
    view.CameraPosition = [cx + 0.6 * d, cy - 1.0 * d, cz + 0.3 * d]
    view.CameraFocalPoint = [cx, cy, cz]
    view.CameraViewUp = [0, 0, 1]
    view.CameraParallelProjection = 0
    view.CameraViewAngle = 30
    ResetCamera(view)  # keeps the direction, fits the distance to the disks


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("xdmf")
    ap.add_argument("--png", help="output PNG (default: XDMF name with .png)")
    ap.add_argument("--movie", metavar="DIR", help="render every frame into DIR/frame_NNNN.png")
    ap.add_argument("--frame", type=int, default=-1, help="frame index (default: the last)")
    ap.add_argument("--color", default="radius", help="point array to colour by")
    ap.add_argument("--expect-n", type=int, help="fail unless the frame has this many disks")
    ap.add_argument("--size", default="1200x800")
    ap.add_argument("--region", help="x0,x1,y0,y1: show this part of the plane (default: all disks)")
    ap.add_argument("--oblique", action="store_true", help="a perspective view from above, floors stacked by z")
    args = ap.parse_args()
    if not os.path.exists(args.xdmf):
        sys.exit(f"render.py: no such file {args.xdmf}")
    # ParaView 5.11's XDMF 3 reader crashes on Polyvertex grids; throng writes XDMF 2.
    reader = XDMFReader(FileNames=[args.xdmf])
    reader.UpdatePipelineInformation()
    scene = GetAnimationScene()
    scene.UpdateAnimationUsingDataTimeSteps()
    times = list(reader.TimestepValues) if hasattr(reader, "TimestepValues") and reader.TimestepValues else [0.0]
    width, height = (int(v) for v in args.size.split("x"))
    view = GetActiveViewOrCreate("RenderView")
    view.ViewSize = [width, height]
    view.OrientationAxesVisibility = 0
    glyph = Glyph(Input=reader, GlyphType="Sphere")
    glyph.ScaleArray = ["POINTS", "radius"]
    glyph.ScaleFactor = 2.0  # the sphere source has radius 0.5: diameter 2 r
    glyph.GlyphMode = "All Points"
    glyph.GlyphType.ThetaResolution = 16
    glyph.GlyphType.PhiResolution = 8
    display = Show(glyph, view)
    ColorBy(display, ("POINTS", args.color))
    display.SetScalarBarVisibility(view, True)
    view.InteractionMode = "3D" if args.oblique else "2D"

    def render(t, png):
        view.ViewTime = t
        UpdatePipeline(time=t, proxy=reader)
        data = servermanager.Fetch(reader)
        n = data.GetNumberOfPoints()
        # fit the view to the disks (or --region), not to their bounding sphere
        if args.oblique:
            oblique_view(view, list(data.GetBounds()))
            display.RescaleTransferFunctionToDataRange(False, True)
        else:
            fit_view(view, [float(v) for v in args.region.split(",")] if args.region else list(data.GetBounds())[:4],
                     width, height)
        SaveScreenshot(png, view, ImageResolution=[width, height])
        return n

    if args.movie:
        os.makedirs(args.movie, exist_ok=True)
        frames = []
        for k, t in enumerate(times):
            frames.append(os.path.join(args.movie, f"frame_{k:04d}.png"))
            render(t, frames[-1])
        print(f"render.py: {len(times)} frames in {args.movie}/")
        try:  # an animated GIF beside the frames (Pillow comes with python3-matplotlib)
            from PIL import Image
            images = [Image.open(p).convert("P", palette=Image.ADAPTIVE) for p in frames]
            gif = os.path.join(args.movie, "movie.gif")
            images[0].save(gif, save_all=True, append_images=images[1:], duration=200, loop=0)
            print(f"render.py: movie {gif}")
        except ImportError:
            print("render.py: no Pillow (apt-get install python3-pil): frames only; "
                  f"or: ffmpeg -i {args.movie}/frame_%04d.png movie.mp4")
        return
    t = times[args.frame]
    png = args.png or os.path.splitext(args.xdmf)[0] + ".png"
    n = render(t, png)
    print(f"render.py: frame at t = {t:g} has {n} disks -> {png}")
    if args.expect_n is not None and n != args.expect_n:
        print(f"render.py: expected {args.expect_n} disks, found {n}", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
