/* walls — constraints on one disk: half-planes  n·q_i >= b + r_i  (|n| = 1), and
 * segments  dist(q_i, segment) >= r_i.
 *
 * The box walls (-wall_box, on by default) are the four half-planes of the decomposed
 * box, less the sides of a periodic axis (-periodic); -halfplanes adds more (normals are normalised here).  A crowd geometry
 * (-geometry, geometry.c) adds the wall segments of its polygons, with the exits cut out:
 * the projection (project.h) moves a centre that is closer than r to the segment's
 * interior back along the segment's inward normal — also when a large step carried it
 * up to `depth` (r_max + skin) behind the wall, which a symmetric projection would
 * push out on the wrong side — and radially away from an end point (door jambs, convex
 * corners).  Obstacles must therefore be thicker than r_max + skin.  Each cell
 * keeps the list of segments that a disk binned in it can reach.
 * In the sweep a disk's walls are projected when its cell is processed, before its
 * pairs, in the order listed here: half-planes, then segments by index.  Cells that no wall can reach — every point of the
 * cell, widened by the skin, is further than r_max inside every half-plane — skip the
 * wall projections: those would be identities, so the result is the same, faster.     */
#include <throng/core/walls.h>
#include <throng/core/geometry.h>
#include <throng/core/init.h>
#include <throng/util/project.h>

PetscErrorCode WallsSetUp(const Params *prm, PetscInt nseg, const PetscReal *seg, const PetscReal *nrm, Walls *wl)
{
  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(wl, sizeof(*wl)));
  wl->nseg  = nseg;
  wl->depth = ParamsRadiusMax(prm) + prm->skin; /* further than any step can carry a disk */
  PetscCall(PetscMalloc2(4 * nseg + 1, &wl->seg, 2 * nseg + 1, &wl->nrm));
  if (nseg) PetscCall(PetscArraycpy(wl->seg, seg, 4 * nseg));
  if (nseg) PetscCall(PetscArraycpy(wl->nrm, nrm, 2 * nseg));
  if (prm->wallBox) {
    const PetscReal b[4][3] = {{1, 0, prm->box[0]}, {-1, 0, -prm->box[2]}, {0, 1, prm->box[1]}, {0, -1, -prm->box[3]}};
    for (int k = 0; k < 4; k++) {
      if (prm->pbc[k / 2]) continue; /* a periodic side has no wall (periodic.c) */
      for (int j = 0; j < 3; j++) wl->w[3 * wl->n + j] = b[k][j];
      wl->n++;
    }
  }
  for (PetscInt k = 0; k < prm->nhalf; k++, wl->n++) {
    const PetscReal *h = &prm->half[3 * k], nn = PetscSqrtReal(h[0] * h[0] + h[1] * h[1]);
    wl->w[3 * wl->n]     = h[0] / nn;
    wl->w[3 * wl->n + 1] = h[1] / nn;
    wl->w[3 * wl->n + 2] = h[2] / nn;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode WallsDestroy(Walls *wl)
{
  PetscFunctionBeginUser;
  PetscCall(PetscFree2(wl->seg, wl->nrm));
  PetscCall(PetscFree(wl->segBeg));
  PetscCall(PetscFree(wl->segIdx));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscReal WallsViolation(const Walls *wl, PetscInt c, PetscReal x, PetscReal y, PetscReal r)
{
  PetscReal v = 0;
  for (PetscInt k = 0; k < wl->n; k++) {
    const PetscReal *w = &wl->w[3 * k], g = w[0] * x + w[1] * y - w[2] - r;
    if (-g > v) v = -g;
  }
  if (wl->segBeg)
    for (PetscInt j = wl->segBeg[c]; j < wl->segBeg[c + 1]; j++) {
      const PetscInt  s = wl->segIdx[j];
      const PetscReal d = SegmentGap(&wl->seg[4 * s], &wl->nrm[2 * s], wl->depth, x, y);
      if (r - d > v) v = r - d;
    }
  return v;
}

/* Does segment s come within reach of the rectangle [x0, x1] x [y0, y1]?  (Liang-Barsky
   clip of the segment against the rectangle.) */
static PetscBool SegmentHitsBox(const PetscReal *s, PetscReal x0, PetscReal y0, PetscReal x1, PetscReal y1)
{
  const PetscReal dx = s[2] - s[0], dy = s[3] - s[1];
  const PetscReal p[4] = {-dx, dx, -dy, dy}, q[4] = {s[0] - x0, x1 - s[0], s[1] - y0, y1 - s[1]};
  PetscReal       t0 = 0, t1 = 1;
  for (int k = 0; k < 4; k++) {
    if (p[k] == 0) {
      if (q[k] < 0) return PETSC_FALSE;
    } else {
      const PetscReal t = q[k] / p[k];
      if (p[k] < 0) t0 = PetscMax(t0, t);
      else t1 = PetscMin(t1, t);
      if (t0 > t1) return PETSC_FALSE;
    }
  }
  return PETSC_TRUE;
}

PetscErrorCode WallsCellMask(Walls *wl, const Domain *d, PetscReal rmax, PetscReal margin, char *mask)
{
  PetscInt cap = 0, n = 0;
  PetscFunctionBeginUser;
  PetscCall(PetscFree(wl->segBeg));
  PetscCall(PetscFree(wl->segIdx));
  PetscCall(PetscMalloc1(d->ncell + 1, &wl->segBeg));
  for (PetscInt k = 0; k < d->ncell; k++) {
    const PetscInt  ix = k % d->ln[0], iy = k / d->ln[0];
    const PetscReal x0 = d->lo[0] + (PetscReal)(d->c0[0] + ix - 1) * d->w[0] - margin, x1 = x0 + d->w[0] + 2 * margin;
    const PetscReal y0 = d->lo[1] + (PetscReal)(d->c0[1] + iy - 1) * d->w[1] - margin, y1 = y0 + d->w[1] + 2 * margin;
    mask[k] = 0;
    for (PetscInt j = 0; j < wl->n; j++) {
      const PetscReal *w  = &wl->w[3 * j];
      const PetscReal  lo = w[0] * (w[0] > 0 ? x0 : x1) + w[1] * (w[1] > 0 ? y0 : y1);
      if (lo - w[2] < rmax) mask[k] = 1;
    }
    wl->segBeg[k] = n;
    for (PetscInt j = 0; j < wl->nseg; j++)
      if (SegmentHitsBox(&wl->seg[4 * j], x0 - rmax, y0 - rmax, x1 + rmax, y1 + rmax)) {
        PetscCall(ThrongGrow(&wl->segIdx, sizeof(PetscInt), n, &cap));
        wl->segIdx[n++] = j;
        mask[k]         = 1;
      }
  }
  wl->segBeg[d->ncell] = n;
  PetscFunctionReturn(PETSC_SUCCESS);
}
