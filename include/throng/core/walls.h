/* walls — constraints that involve one disk: half-planes (the box is four of them). */
#pragma once
#include <throng/util/params.h>
#include <throng/core/domain.h>

typedef struct {
  PetscInt   n;
  PetscReal  w[3 * (THRONG_MAX_HALFPLANES + 4)]; /* nx, ny, b with |n| = 1 */
  PetscInt   nseg;                               /* wall segments x0, y0, x1, y1 (crowd geometry): a disk keeps its  */
  PetscReal *seg;                                /* centre at least r away from every point of each                 */
  PetscReal *nrm;                                /* per segment: unit normal into the walkable side                 */
  PetscReal  depth;                              /* a centre up to this far behind a wall is pushed back in front  */
  PetscInt  *segBeg;                             /* per local cell k: the segments a disk of k can reach are        */
  PetscInt  *segIdx;                             /* segIdx[segBeg[k] .. segBeg[k+1]) (built by WallsCellMask)       */
} Walls;

/* Half-planes from the options; segments (may be NULL) from the crowd geometry. */
PetscErrorCode WallsSetUp(const Params *prm, PetscInt nseg, const PetscReal *seg, const PetscReal *nrm, Walls *wl);
PetscErrorCode WallsDestroy(Walls *wl);
/* mask[k] = 1 for each local cell k from which a disk (radius <= rmax, within margin of
   its cell) may violate some wall; the sweep skips the walls of the other cells.  Also
   builds the per-cell segment lists.                                                    */
PetscErrorCode WallsCellMask(Walls *wl, const Domain *d, PetscReal rmax, PetscReal margin, char *mask);
/* Largest violation of the walls by one disk of local cell k. */
PetscReal WallsViolation(const Walls *wl, PetscInt k, PetscReal x, PetscReal y, PetscReal r);
