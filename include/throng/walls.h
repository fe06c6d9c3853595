/* walls — constraints that involve one disk: half-planes (the box is four of them). */
#pragma once
#include <throng/options.h>
#include <throng/domain.h>

typedef struct {
  PetscInt  n;
  PetscReal w[3 * (THRONG_MAX_HALFPLANES + 4)]; /* nx, ny, b with |n| = 1 */
} Walls;

PetscErrorCode WallsSetUp(const Params *prm, Walls *wl);
/* mask[k] = 1 for each local cell k from which a disk (radius <= rmax, within margin of
   its cell) may violate some wall; the sweep skips the walls of the other cells.       */
PetscErrorCode WallsCellMask(const Walls *wl, const Domain *d, PetscReal rmax, PetscReal margin, char *mask);
/* Largest violation max(0, b + r - n·q) of the walls by one disk. */
PetscReal WallsViolation(const Walls *wl, PetscReal x, PetscReal y, PetscReal r);
