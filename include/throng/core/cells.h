/* cells — binning of disks into the local cell grid, sorted by global id within a cell. */
#pragma once
#include <throng/core/domain.h>
#include <throng/core/particles.h>

typedef struct {
  PetscInt  *beg, *end; /* per local cell: the disks in it are [beg, end)                 */
  PetscInt  *key;       /* scratch: local cell of each disk                               */
  PetscInt  *perm;      /* scratch: gather permutation                                    */
  PetscInt  *count;     /* scratch: per cell                                              */
  PetscInt   cap;
  PetscInt64 candidates; /* candidate pairs of the current binning (diagnostic, work)     */
} Cells;

PetscErrorCode CellsCreate(const Domain *d, Cells *c);
PetscErrorCode CellsDestroy(Cells *c);
/* Sort owned disks by local cell, then by id. Binned by (x, y), which become (xb, yb);
   or, with atBin (restart), by the stored (xb, yb), which are kept. Not collective.  */
PetscErrorCode CellsBinOwned(const Domain *d, Particles *p, Cells *c, PetscBool atBin);
/* Sort the ghosts [n, n+ng) into the ring cells (stable); gcell: the global cell (cx, cy)
   of each ghost, -1 or nc across a periodic side (halo.c); perm[k] = old ghost index of
   the ghost now at n + k (ghost indices relative to n). Not collective.                */
PetscErrorCode CellsBinGhosts(const Domain *d, Particles *p, Cells *c, const PetscInt *gcell, PetscInt *oldOfNew);
PetscErrorCode CellsCountCandidates(const Domain *d, Cells *c);

/* The candidate partners j of disk i in cell k: the disks after i in k, then every disk
   of k's forward neighbours (fwd: DomainForwardOffsets), a half stencil that takes each
   pair of neighbouring cells once.  The order is the sweep's (pbd.c's SweepCell unrolls
   the same loops by hand).  Use: CELLS_FOR_PARTNERS(c, k, fwd, i, j) { ... j ... }     */
#define CELLS_FOR_PARTNERS(c, k, fwd, i, j) \
  for (int f_ = -1; f_ < 4; f_++) \
    for (PetscInt j       = f_ < 0 ? (i) + 1 : (c)->beg[(k) + (fwd)[f_]], \
                  j##_end = (c)->end[f_ < 0 ? (k) : (k) + (fwd)[f_]]; \
         j < j##_end; j++)
