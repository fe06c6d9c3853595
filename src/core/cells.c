/* cells — binning of disks into the local cell grid, sorted by id within each cell.
 *
 * The local grid is the rank's block of cells plus a one-cell ring of ghost cells,
 * row-major, ln[0] x ln[1].  Owned disks are stored cell by cell (a counting sort on the
 * cell's storage slot, O(n): tile by tile, colour by colour, see domain.c), and inside a
 * cell by global id (an insertion sort: cells hold
 * a handful of disks).  The id order inside a cell is what makes the sweep order
 * independent of the history of the arrays, hence of the rank count.
 *
 * Ghosts live after the owned disks, also cell by cell.  Each ring cell is owned by one
 * neighbour, which sends that cell's disks already in id order, so a stable counting
 * sort keeps them in id order.
 *
 * Binning is lazy: a disk keeps its cell until a prediction has moved some disk (of any
 * rank: the decision is a global reduction) more than -rebin_fraction x skin from where
 * it was binned; see pbd.c for why this is still an exact PBD sweep.                    */
#include <throng/core/cells.h>

PetscErrorCode CellsCreate(const Domain *d, Cells *c)
{
  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(c, sizeof(*c)));
  PetscCall(PetscCalloc1(d->ncell, &c->beg));
  PetscCall(PetscCalloc1(d->ncell, &c->end));
  PetscCall(PetscCalloc1(d->ncell + 1, &c->count));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode CellsDestroy(Cells *c)
{
  PetscFunctionBeginUser;
  PetscCall(PetscFree(c->beg));
  PetscCall(PetscFree(c->end));
  PetscCall(PetscFree(c->count));
  PetscCall(PetscFree2(c->key, c->perm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* key and perm are scratch of a binning: allocated for it and freed after, so that their
   memory (8 bytes per disk) is shared with the other transients (snapshot rounds). */
static PetscErrorCode Reserve(Cells *c, PetscInt m)
{
  PetscFunctionBeginUser;
  PetscCall(PetscMalloc2(m + 1, &c->key, m + 1, &c->perm));
  c->cap = m;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode Release(Cells *c)
{
  PetscFunctionBeginUser;
  PetscCall(PetscFree2(c->key, c->perm));
  c->cap = 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode CellsBinOwned(const Domain *d, Particles *p, Cells *c, PetscBool atBin)
{
  const PetscReal *bx = atBin ? p->xb : p->x, *by = atBin ? p->yb : p->y;
  const PetscInt   n = p->n;

  PetscFunctionBeginUser;
  PetscCall(Reserve(c, n));
  PetscCall(PetscArrayzero(c->count, d->ncell + 1));
  for (PetscInt i = 0; i < n; i++) {
    PetscInt cx, cy;
    DomainCellOf(d, bx[i], by[i], &cx, &cy);
    PetscCheck(cx >= d->c0[0] && cx < d->c1[0] && cy >= d->c0[1] && cy < d->c1[1], PETSC_COMM_SELF, PETSC_ERR_PLIB,
               "disk %" PetscInt64_FMT " at (%g, %g) binned outside its rank's block", p->id[i], (double)bx[i],
               (double)by[i]);
    c->key[i] = d->slot[DomainLocalCell(d, cx, cy)];
    c->count[c->key[i] + 1]++;
  }
  /* count[] is indexed by slot; owned cells occupy slots [0, nslot) */
  const PetscInt nslot = (d->c1[0] - d->c0[0]) * (d->c1[1] - d->c0[1]);
  for (PetscInt k = 0; k < nslot; k++) c->count[k + 1] += c->count[k];
  for (PetscInt k = 0; k < d->ncell; k++) {
    const PetscInt sl = d->slot[k];
    c->beg[k] = c->end[k] = sl >= 0 ? c->count[sl] : 0;
  }
  for (PetscInt i = 0; i < n; i++) c->perm[c->count[c->key[i]]++] = i;
  for (PetscInt k = 0; k < d->ncell; k++)
    if (d->slot[k] >= 0) c->end[k] = c->count[d->slot[k]];
  /* id order inside each cell */
  for (PetscInt k = 0; k < d->ncell; k++) {
    for (PetscInt a = c->beg[k] + 1; a < c->end[k]; a++) {
      const PetscInt   v  = c->perm[a];
      const PetscInt64 id = p->id[v];
      PetscInt         b  = a - 1;
      while (b >= c->beg[k] && p->id[c->perm[b]] > id) {
        c->perm[b + 1] = c->perm[b];
        b--;
      }
      c->perm[b + 1] = v;
    }
  }
  PetscCall(ParticlesGather(p, 0, n, c->perm, PETSC_TRUE, atBin));
  PetscCall(Release(c));
  if (!atBin) {
    PetscCall(PetscArraycpy(p->xb, p->x, n));
    PetscCall(PetscArraycpy(p->yb, p->y, n));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static inline PetscBool IsRing(const Domain *d, PetscInt k)
{
  const PetscInt ix = k % d->ln[0], iy = k / d->ln[0];
  return (ix == 0 || iy == 0 || ix == d->ln[0] - 1 || iy == d->ln[1] - 1) ? PETSC_TRUE : PETSC_FALSE;
}

PetscErrorCode CellsBinGhosts(const Domain *d, Particles *p, Cells *c, const PetscInt *gcell, PetscInt *oldOfNew)
{
  const PetscInt n = p->n, ng = p->ng;

  PetscFunctionBeginUser;
  PetscCall(Reserve(c, ng));
  PetscCall(PetscArrayzero(c->count, d->ncell + 1));
  for (PetscInt g = 0; g < ng; g++) {
    const PetscInt cx = gcell[2 * g], cy = gcell[2 * g + 1];
    PetscCheck(cx >= d->c0[0] - 1 && cx <= d->c1[0] && cy >= d->c0[1] - 1 && cy <= d->c1[1], PETSC_COMM_SELF,
               PETSC_ERR_PLIB, "ghost %" PetscInt64_FMT " is not in the ring", p->id[n + g]);
    const PetscInt k = DomainLocalCell(d, cx, cy);
    PetscCheck(IsRing(d, k), PETSC_COMM_SELF, PETSC_ERR_PLIB, "ghost %" PetscInt64_FMT " is not in the ring",
               p->id[n + g]);
    c->key[g] = k;
    c->count[k + 1]++;
  }
  for (PetscInt k = 0; k < d->ncell; k++) c->count[k + 1] += c->count[k];
  for (PetscInt k = 0; k < d->ncell; k++)
    if (IsRing(d, k)) {
      c->beg[k] = n + c->count[k];
      c->end[k] = n + c->count[k + 1];
    }
  for (PetscInt g = 0; g < ng; g++) oldOfNew[c->count[c->key[g]]++] = g;
  PetscCall(Release(c));
  PetscCall(ParticlesGather(p, n, ng, oldOfNew, PETSC_FALSE, PETSC_FALSE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode CellsCountCandidates(const Domain *d, Cells *c)
{
  const PetscInt L = d->ln[0];
  PetscInt       fwd[4];
  DomainForwardOffsets(L, fwd);
  PetscInt64 m = 0;

  PetscFunctionBeginUser;
  for (PetscInt cy = 1; cy < d->ln[1] - 1; cy++)
    for (PetscInt cx = 1; cx < L - 1; cx++) {
      const PetscInt   k  = cy * L + cx;
      const PetscInt64 nk = c->end[k] - c->beg[k];
      m += nk * (nk - 1) / 2;
      for (int f = 0; f < 4; f++) m += nk * (c->end[k + fwd[f]] - c->beg[k + fwd[f]]);
    }
  c->candidates = m;
  PetscFunctionReturn(PETSC_SUCCESS);
}
