/* reach — every disk within a distance R of an owned disk or a ghost, on any decomposition. */
#pragma once
#include <throng/core/domain.h>
#include <throng/core/particles.h>

typedef struct {
  PetscInt64 id;
  PetscReal  r, xb, yb, x, y;
} ReachRec;

typedef struct {
  PetscReal range; /* R: every disk closer than R to a queried point is found     */
  PetscReal send;  /* R + sqrt(2) cell + skin: what a block's neighbours are sent */
  PetscReal skin;
  /* partners: the ranks whose block lies within `send` of this rank's block           */
  PetscMPIInt npart, *part;
  PetscInt   *scnt, *rcnt, *sbeg, *rbeg; /* per partner, in entries                   */
  PetscInt   *sendIdx;                   /* owned disk of each sent entry              */
  PetscInt    nsend, capSend, capPart;
  ReachRec   *srec;
  PetscReal  *sbuf; /* 2 reals per sent entry                     */
  PetscInt    capSrec;
  /* the far ghosts: copies of the partners' disks                                     */
  PetscInt   nw, capW;
  ReachRec  *wrec;
  PetscReal *wxy; /* their current positions, 2 per entry       */
  /* a grid of cells of edge ~R/2 over the owned disks and the far ghosts, binned at
     their binning positions (the rebin); ax.. hold their data in cell order, refreshed
     every step (ReachRefresh)                                                        */
  PetscReal    g0[2], gh, ginv;
  PetscInt     gn[2], *gbeg, capG;
  PetscInt     na, capA, *src; /* < n: owned disk; else far ghost src - n    */
  PetscReal   *ax, *ay, *ar;
  PetscInt64  *aid;
  MPI_Request *req;
  PetscInt64   exchanges, bytes;
} Reach;

/* range R, and the cell edge and skin of the decomposition (the distances a disk may be
   from its binning position, and a ghost from its owner's block). */
PetscErrorCode ReachCreate(PetscReal range, PetscReal cell, PetscReal skin, Reach *re);
PetscErrorCode ReachDestroy(Reach *re);
/* After every rebin: partners, far ghosts and the grid, from the binning.  Collective. */
PetscErrorCode ReachBuild(const Domain *d, const Particles *p, Reach *re);
/* Before a use: current positions of the far ghosts and of the grid.  Collective. */
PetscErrorCode ReachRefresh(const Domain *d, const Particles *p, Reach *re);
/* The cells that can hold a disk within rho - skin (<= R) of (x, y) now: kx in [*x0, *x1],
   ky in [*y0, *y1] (inclusive), k = ky gn0 + kx. */
static inline void ReachCellsWithin(const Reach *re, PetscReal x, PetscReal y, PetscReal rho, PetscInt *x0,
                                    PetscInt *x1, PetscInt *y0, PetscInt *y1)
{
  PetscReal f[4] = {(x - rho - re->g0[0]) * re->ginv, (x + rho - re->g0[0]) * re->ginv,
                    (y - rho - re->g0[1]) * re->ginv, (y + rho - re->g0[1]) * re->ginv};
  PetscInt  k[4];
  for (int a = 0; a < 4; a++) {
    const PetscInt n = re->gn[a / 2];
    k[a]             = !(f[a] >= 0) ? 0 : (f[a] >= (PetscReal)n ? n - 1 : (PetscInt)f[a]); /* NaN: 0 */
  }
  *x0 = k[0], *x1 = k[1], *y0 = k[2], *y1 = k[3];
}

/* ... within R: the grid entries [beg[k], end[k]) of those cells. */
static inline void ReachCells(const Reach *re, PetscReal x, PetscReal y, PetscInt *x0, PetscInt *x1, PetscInt *y0,
                              PetscInt *y1)
{
  ReachCellsWithin(re, x, y, re->range + re->skin, x0, x1, y0, y1);
}

static inline void ReachCells1(const Reach *re, PetscReal x0, PetscReal x1, PetscInt *k0, PetscInt *k1)
{
  const PetscReal f0 = (x0 - re->g0[0]) * re->ginv, f1 = (x1 - re->g0[0]) * re->ginv;
  const PetscInt  n = re->gn[0];
  *k0               = !(f0 >= 0) ? 0 : (f0 >= (PetscReal)n ? n - 1 : (PetscInt)f0);
  *k1               = !(f1 >= 0) ? 0 : (f1 >= (PetscReal)n ? n - 1 : (PetscInt)f1);
}
