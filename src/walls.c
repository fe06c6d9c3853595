/* walls — constraints on one disk: half-planes  n·q_i >= b + r_i  (|n| = 1).
 *
 * The box walls (-wall_box, on by default) are the four half-planes of the decomposed
 * box; -halfplanes adds more (normals are normalised here).  Segments and polygons
 * (crowd geometry) will join as further single-disk constraints of the same sweep.
 * In the sweep a disk's walls are projected when its cell is processed, before its
 * pairs, in the order listed here.                                                     */
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
