/* reach — every disk within a distance R of an owned disk or a ghost, on any decomposition.
 *
 * The sweep needs the neighbours of a disk up to 2 r_max + skin: the one-cell ring of
 * halo.c.  A crowd's speed law (csm.c) looks further, up to R = l + v0_max T, about 2.6 m,
 * which is five or six cells, and on a fine decomposition more than one rank away.  This
 * module provides that wider view without touching the cells, the tiles or the sweep.
 *
 * Far ghosts.  At every rebin each rank sends, to every rank whose block lies within
 * `send` = R + sqrt(2) cell edge + skin of the disk's binning position, a copy of the
 * disk (id, radius, binning and current position).  Why that distance is enough: a disk
 * that is queried — an owned disk or a ring ghost — was binned inside the block or in
 * its ring, so within a cell's diagonal of the block (the ring's corner cells), and has
 * moved less than skin/2 since; a disk within R of it was binned less than
 * R + skin/2 + skin/2 + sqrt(2) cell edge from the block.  (The first version said
 * "one cell edge"; the brute-force check of the test found the agent in a corner cell
 * that this missed.)
 * The partners are the ranks whose block rectangle lies within `send` of ours: every
 * rank computes them from the cuts, which all ranks share, and the relation is
 * symmetric, so no rank needs to ask.  A block on the edge of the box reaches to
 * infinity on that side (disks outside the box are binned into its edge cells).
 * Between rebins, ReachRefresh sends the current positions along the same lists: one
 * message to each partner per use, point to point.
 *
 * The grid.  The owned disks and the far ghosts are binned, at their binning positions,
 * into a grid of cells of edge R/2 over the block widened by `send`; its entries are
 * copied in cell order (ax, ay, ar, aid) and their positions refreshed before each use.
 * A disk within R of (x, y) now was within R + skin of it at its binning, so the cells
 * that meet the square of half-width R + skin around (x, y) hold it (ReachCells; indices
 * outside the grid are clamped, and clamping never separates two points).  The set of
 * disks found within R of a point is thus exact — the same on any rank count — as long
 * as no disk has moved skin/2 from its binning position, which the stepper checks: a
 * prediction that starts beyond it is undone and made again from a new binning (pbd.c).  What the user does with the set must not depend on the
 * order in which it is visited (csm.c: minima, and sums in integer fixed point).  The
 * test of this module compares the set with a brute-force search over all disks.      */
#include <throng/crowd/reach.h>

PetscErrorCode ReachCreate(PetscReal range, PetscReal cell, PetscReal skin, Reach *re)
{
  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(re, sizeof(*re)));
  re->range = range;
  re->skin  = skin;
  re->send  = range + PetscSqrtReal(2.0) * cell + skin;
  re->gh    = range / 2;
  re->ginv  = 1 / re->gh;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode ReachDestroy(Reach *re)
{
  PetscFunctionBeginUser;
  PetscCall(PetscFree5(re->part, re->scnt, re->rcnt, re->sbeg, re->rbeg));
  PetscCall(PetscFree(re->req));
  PetscCall(PetscFree(re->sendIdx));
  PetscCall(PetscFree2(re->srec, re->sbuf));
  PetscCall(PetscFree2(re->wrec, re->wxy));
  PetscCall(PetscFree(re->gbeg));
  PetscCall(PetscFree5(re->src, re->ax, re->ay, re->ar, re->aid));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The rectangle of rank q's block, x0, y0, x1, y1; unbounded on the box's edges. */
static void BlockRect(const Domain *d, PetscMPIInt q, PetscReal rect[4])
{
  const PetscMPIInt b[2] = {q % d->p[0], q / d->p[0]};
  for (int a = 0; a < 2; a++) {
    const PetscInt c0 = d->cut[a][b[a]] * d->tile, c1 = PetscMin(d->cut[a][b[a] + 1] * d->tile, d->nc[a]);
    rect[a]     = b[a] == 0 ? PETSC_NINFINITY : d->lo[a] + (PetscReal)c0 * d->w[a];
    rect[2 + a] = b[a] == d->p[a] - 1 ? PETSC_INFINITY : d->lo[a] + (PetscReal)c1 * d->w[a];
  }
}

/* Squared distance from a point to a rectangle (0 inside). */
static inline PetscReal PointRect2(PetscReal x, PetscReal y, const PetscReal r[4])
{
  const PetscReal dx = x < r[0] ? r[0] - x : (x > r[2] ? x - r[2] : 0),
                  dy = y < r[1] ? r[1] - y : (y > r[3] ? y - r[3] : 0);
  return dx * dx + dy * dy;
}

static PetscReal RectRect2(const PetscReal a[4], const PetscReal b[4])
{
  const PetscReal dx = PetscMax(PetscMax(a[0] - b[2], b[0] - a[2]), 0),
                  dy = PetscMax(PetscMax(a[1] - b[3], b[1] - a[3]), 0);
  return dx * dx + dy * dy;
}

static PetscErrorCode Partners(const Domain *d, Reach *re)
{
  PetscReal mine[4], s2 = re->send * re->send;
  PetscFunctionBeginUser;
  BlockRect(d, d->rank, mine);
  if (re->capPart < d->size) {
    PetscCall(PetscFree5(re->part, re->scnt, re->rcnt, re->sbeg, re->rbeg));
    PetscCall(PetscFree(re->req));
    re->capPart = d->size;
    PetscCall(PetscMalloc5(d->size, &re->part, d->size, &re->scnt, d->size, &re->rcnt, d->size + 1, &re->sbeg,
                           d->size + 1, &re->rbeg));
    PetscCall(PetscMalloc1(2 * (size_t)d->size, &re->req));
  }
  re->npart = 0;
  for (PetscMPIInt q = 0; q < d->size; q++) {
    PetscReal r[4];
    if (q == d->rank) continue;
    BlockRect(d, q, r);
    if (RectRect2(mine, r) < s2) re->part[re->npart++] = q;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Far ghosts: the send lists (by binning position) and the records, exchanged. */
static PetscErrorCode Exchange(const Domain *d, const Particles *p, Reach *re)
{
  const PetscReal s2 = re->send * re->send;
  PetscReal       mine[4], inner[4];
  PetscInt        ns = 0, nr = 0;
  MPI_Comm        comm = d->comm;

  PetscFunctionBeginUser;
  BlockRect(d, d->rank, mine);
  for (int a = 0; a < 2; a++) inner[a] = mine[a] + re->send, inner[2 + a] = mine[2 + a] - re->send;
  /* a disk deeper than `send` inside the block goes nowhere: test that first */
  for (PetscMPIInt k = 0; k < re->npart; k++) {
    PetscReal r[4];
    BlockRect(d, re->part[k], r);
    re->sbeg[k] = ns;
    for (PetscInt i = 0; i < p->n; i++) {
      const PetscReal x = p->xb[i], y = p->yb[i];
      if (x > inner[0] && x < inner[2] && y > inner[1] && y < inner[3]) continue;
      if (PointRect2(x, y, r) >= s2) continue;
      PetscCall(ThrongGrow(&re->sendIdx, sizeof(PetscInt), ns, &re->capSend));
      re->sendIdx[ns++] = i;
    }
    re->scnt[k] = ns - re->sbeg[k];
  }
  re->sbeg[re->npart] = ns;
  re->nsend           = ns;
  /* counts, then records (point to point with the partners) */
  for (PetscMPIInt k = 0; k < re->npart; k++)
    PetscCallMPI(MPI_Irecv(&re->rcnt[k], 1, MPIU_INT, re->part[k], 71, comm, &re->req[k]));
  for (PetscMPIInt k = 0; k < re->npart; k++)
    PetscCallMPI(MPI_Isend(&re->scnt[k], 1, MPIU_INT, re->part[k], 71, comm, &re->req[re->npart + k]));
  PetscCallMPI(MPI_Waitall(2 * re->npart, re->req, MPI_STATUSES_IGNORE));
  for (PetscMPIInt k = 0; k < re->npart; k++) re->rbeg[k] = nr, nr += re->rcnt[k];
  re->rbeg[re->npart] = nr;
  if (ns > re->capSrec) {
    PetscCall(PetscFree2(re->srec, re->sbuf));
    re->capSrec = ns + ns / 2 + 16;
    PetscCall(PetscMalloc2(re->capSrec, &re->srec, 2 * (size_t)re->capSrec, &re->sbuf));
  }
  if (nr > re->capW) {
    PetscCall(PetscFree2(re->wrec, re->wxy));
    re->capW = nr + nr / 2 + 16;
    PetscCall(PetscMalloc2(re->capW, &re->wrec, 2 * (size_t)re->capW, &re->wxy));
  }
  for (PetscInt e = 0; e < ns; e++) {
    const PetscInt i = re->sendIdx[e];
    re->srec[e]      = (ReachRec){p->id[i], p->r[i], p->xb[i], p->yb[i], p->x[i], p->y[i]};
  }
  for (PetscMPIInt k = 0; k < re->npart; k++)
    PetscCallMPI(MPI_Irecv(re->wrec + re->rbeg[k], (PetscMPIInt)(re->rcnt[k] * sizeof(ReachRec)), MPI_BYTE, re->part[k],
                           72, comm, &re->req[k]));
  for (PetscMPIInt k = 0; k < re->npart; k++)
    PetscCallMPI(MPI_Isend(re->srec + re->sbeg[k], (PetscMPIInt)(re->scnt[k] * sizeof(ReachRec)), MPI_BYTE, re->part[k],
                           72, comm, &re->req[re->npart + k]));
  PetscCallMPI(MPI_Waitall(2 * re->npart, re->req, MPI_STATUSES_IGNORE));
  re->nw = nr;
  for (PetscInt e = 0; e < nr; e++) re->wxy[2 * e] = re->wrec[e].x, re->wxy[2 * e + 1] = re->wrec[e].y;
  re->exchanges++;
  re->bytes += (PetscInt64)ns * (PetscInt64)sizeof(ReachRec);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static inline PetscInt GridCell(const Reach *re, PetscReal x, PetscReal y)
{
  const PetscReal fx = (x - re->g0[0]) * re->ginv, fy = (y - re->g0[1]) * re->ginv;
  const PetscInt  kx = !(fx >= 0) ? 0 : (fx >= (PetscReal)re->gn[0] ? re->gn[0] - 1 : (PetscInt)fx);
  const PetscInt  ky = !(fy >= 0) ? 0 : (fy >= (PetscReal)re->gn[1] ? re->gn[1] - 1 : (PetscInt)fy);
  return ky * re->gn[0] + kx;
}

/* The grid over the block widened by `send` (clipped to the box widened by a cell). */
static PetscErrorCode Grid(const Domain *d, const Particles *p, Reach *re)
{
  PetscReal      rect[4];
  const PetscInt n = p->n, na = n + re->nw;
  PetscInt       ncell;

  PetscFunctionBeginUser;
  BlockRect(d, d->rank, rect);
  for (int a = 0; a < 2; a++) {
    const PetscReal lo = PetscMax(rect[a] - re->send, d->lo[a] - d->w[a]),
                    hi = PetscMin(rect[2 + a] + re->send, d->hi[a] + d->w[a]);
    re->g0[a]          = lo;
    re->gn[a]          = PetscMax((PetscInt)PetscCeilReal((hi - lo) * re->ginv), 1);
  }
  ncell = re->gn[0] * re->gn[1];
  if (ncell + 1 > re->capG) {
    PetscCall(PetscFree(re->gbeg));
    re->capG = ncell + 1;
    PetscCall(PetscMalloc1(re->capG, &re->gbeg));
  }
  if (na > re->capA) {
    PetscCall(PetscFree5(re->src, re->ax, re->ay, re->ar, re->aid));
    re->capA = na + na / 4 + 16;
    PetscCall(
      PetscMalloc5(re->capA, &re->src, re->capA, &re->ax, re->capA, &re->ay, re->capA, &re->ar, re->capA, &re->aid));
  }
  /* counting sort by cell; the order inside a cell does not matter (see above) */
  PetscCall(PetscArrayzero(re->gbeg, ncell + 1));
  for (PetscInt i = 0; i < n; i++) re->gbeg[GridCell(re, p->xb[i], p->yb[i]) + 1]++;
  for (PetscInt e = 0; e < re->nw; e++) re->gbeg[GridCell(re, re->wrec[e].xb, re->wrec[e].yb) + 1]++;
  for (PetscInt k = 0; k < ncell; k++) re->gbeg[k + 1] += re->gbeg[k];
  for (PetscInt i = 0; i < n; i++) {
    const PetscInt k = GridCell(re, p->xb[i], p->yb[i]), a = re->gbeg[k]++;
    re->src[a] = i, re->ar[a] = p->r[i], re->aid[a] = p->id[i];
  }
  for (PetscInt e = 0; e < re->nw; e++) {
    const PetscInt k = GridCell(re, re->wrec[e].xb, re->wrec[e].yb), a = re->gbeg[k]++;
    re->src[a] = n + e, re->ar[a] = re->wrec[e].r, re->aid[a] = re->wrec[e].id;
  }
  for (PetscInt k = ncell; k > 0; k--) re->gbeg[k] = re->gbeg[k - 1]; /* back to starts */
  re->gbeg[0] = 0;
  re->na      = na;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static void Fill(const Particles *p, Reach *re)
{
  const PetscInt n = p->n;
  for (PetscInt a = 0; a < re->na; a++) {
    const PetscInt s = re->src[a];
    if (s < n) re->ax[a] = p->x[s], re->ay[a] = p->y[s];
    else re->ax[a] = re->wxy[2 * (s - n)], re->ay[a] = re->wxy[2 * (s - n) + 1];
  }
}

PetscErrorCode ReachBuild(const Domain *d, const Particles *p, Reach *re)
{
  PetscFunctionBeginUser;
  PetscCall(PetscLogEventBegin(THRONG_EV.halo, 0, 0, 0, 0));
  PetscCall(Partners(d, re));
  PetscCall(Exchange(d, p, re));
  PetscCall(Grid(d, p, re));
  Fill(p, re);
  PetscCall(PetscLogEventEnd(THRONG_EV.halo, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode ReachRefresh(const Domain *d, const Particles *p, Reach *re)
{
  PetscFunctionBeginUser;
  PetscCall(PetscLogEventBegin(THRONG_EV.halo, 0, 0, 0, 0));
  if (re->npart) {
    for (PetscInt e = 0; e < re->nsend; e++)
      re->sbuf[2 * e] = p->x[re->sendIdx[e]], re->sbuf[2 * e + 1] = p->y[re->sendIdx[e]];
    for (PetscMPIInt k = 0; k < re->npart; k++)
      PetscCallMPI(MPI_Irecv(re->wxy + 2 * re->rbeg[k], (PetscMPIInt)(2 * re->rcnt[k]), MPIU_REAL, re->part[k], 73,
                             d->comm, &re->req[k]));
    for (PetscMPIInt k = 0; k < re->npart; k++)
      PetscCallMPI(MPI_Isend(re->sbuf + 2 * re->sbeg[k], (PetscMPIInt)(2 * re->scnt[k]), MPIU_REAL, re->part[k], 73,
                             d->comm, &re->req[re->npart + k]));
    PetscCallMPI(MPI_Waitall(2 * re->npart, re->req, MPI_STATUSES_IGNORE));
    re->exchanges++;
    re->bytes += (PetscInt64)re->nsend * 2 * (PetscInt64)sizeof(PetscReal);
  }
  Fill(p, re);
  PetscCall(PetscLogEventEnd(THRONG_EV.halo, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}
