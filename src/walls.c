/* walls — constraints on one disk: half-planes  n·q_i >= b + r_i  (|n| = 1).
 *
 * The box walls (-wall_box, on by default) are the four half-planes of the decomposed
 * box; -halfplanes adds more (normals are normalised here).  Segments and polygons
 * (crowd geometry) will join as further single-disk constraints of the same sweep.
 * In the sweep a disk's walls are projected when its cell is processed, before its
 * pairs, in the order listed here.  Cells that no wall can reach — every point of the
 * cell, widened by the skin, is further than r_max inside every half-plane — skip the
 * wall projections: those would be identities, so the result is the same, faster.     */
#include <throng/walls.h>

PetscErrorCode WallsSetUp(const Params *prm, Walls *wl)
{
  PetscFunctionBeginUser;
  wl->n = 0;
  if (prm->wallBox) {
    const PetscReal b[4][3] = {
      {1,  0,  prm->box[0] },
      {-1, 0,  -prm->box[2]},
      {0,  1,  prm->box[1] },
      {0,  -1, -prm->box[3]}
    };
    for (int k = 0; k < 4; k++, wl->n++)
      for (int j = 0; j < 3; j++) wl->w[3 * wl->n + j] = b[k][j];
  }
  for (PetscInt k = 0; k < prm->nhalf; k++, wl->n++) {
    const PetscReal *h = &prm->half[3 * k], nn = PetscSqrtReal(h[0] * h[0] + h[1] * h[1]);
    wl->w[3 * wl->n]     = h[0] / nn;
    wl->w[3 * wl->n + 1] = h[1] / nn;
    wl->w[3 * wl->n + 2] = h[2] / nn;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscReal WallsViolation(const Walls *wl, PetscReal x, PetscReal y, PetscReal r)
{
  PetscReal v = 0;
  for (PetscInt k = 0; k < wl->n; k++) {
    const PetscReal *w = &wl->w[3 * k], g = w[0] * x + w[1] * y - w[2] - r;
    if (-g > v) v = -g;
  }
  return v;
}

PetscErrorCode WallsCellMask(const Walls *wl, const Domain *d, PetscReal rmax, PetscReal margin, char *mask)
{
  PetscFunctionBeginUser;
  for (PetscInt k = 0; k < d->ncell; k++) {
    const PetscInt  ix = k % d->ln[0], iy = k / d->ln[0];
    const PetscReal x0 = d->lo[0] + (PetscReal)(d->c0[0] + ix - 1) * d->w[0] - margin, x1 = x0 + d->w[0] + 2 * margin;
    const PetscReal y0 = d->lo[1] + (PetscReal)(d->c0[1] + iy - 1) * d->w[1] - margin, y1 = y0 + d->w[1] + 2 * margin;
    mask[k] = 0;
    for (PetscInt j = 0; j < wl->n; j++) {
      const PetscReal *w = &wl->w[3 * j];
      const PetscReal  lo = w[0] * (w[0] > 0 ? x0 : x1) + w[1] * (w[1] > 0 ? y0 : y1);
      if (lo - w[2] < rmax) mask[k] = 1;
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
