/* halo — ghost copies of the disks in the one-cell ring around a rank's block.
 *
 * Build (at every rebinning).  For a neighbour in direction (dx, dy) the disks to send
 * are those of the owned cells that lie in that neighbour's ring: one column (dx = ±1)
 * or all columns (dx = 0), times one row or all rows.  They are sent cell by cell in
 * row-major order, id order inside a cell, as records of the fields registered
 * FIELD_GHOSTED (particles.c: id, x, y, r and any other), with the position (x, y) that
 * of the owner's binning, (xb, yb) — so the receiver bins them into the same cells of its ring
 * (and keeps it as the ghost's xb, yb: warm.c builds its contact list from binning positions)
 * — and appended after the owned disks; a forward exchange then brings their current
 * positions (after a restart these differ from the binning positions).  The send list
 * (owned index of every sent entry) and the receive list (ghost index of every received
 * entry) are kept: later exchanges move positions only, addressed by these lists.
 *
 * Forward (owners -> ghosts) copies the owners' positions onto the ghosts and remembers
 * what it wrote (ref).
 *
 * Reverse (ghosts -> owners).  A tile's sweep may move disks of the ring cells, which
 * belong to a neighbour.  Within one colour each disk is touched by at most one tile
 * (footprints of one colour are disjoint), so at most one rank changed any given disk:
 * each rank returns, for every ghost, either its new position or a NaN marker when the
 * ghost is bit-for-bit what the last forward exchange wrote, and the owner overwrites
 * its disk with the one non-marker value it may receive.  Overwriting — never adding a
 * displacement — keeps the result bitwise equal to a sequential sweep.
 *
 * Periodic sides (periodic.c).  A neighbour slot across a periodic side carries images:
 * each received entry of slot k is binned in its owner's cell shifted by inWrap[k]
 * times the cell count, and its positions are the owner's plus inWrap[k] times the box
 * length — added on receipt in every forward exchange, subtracted before the reverse
 * one.  Slots without a wrap are copied untouched (no + 0.0), bit for bit as before.
 *
 * Every exchange is one MPI_Neighbor_alltoallv on the 8-neighbour graph communicator
 * (the reverse exchange on its twin with the edges reversed: domain.c);
 * the counts of the position exchanges are those of the build, so only the build needs
 * an MPI_Neighbor_alltoall of counts.                                                    */
#include <throng/core/halo.h>
#include <string.h>
#include <math.h>

/* Count one exchange sending n entries of `size` bytes, cnt[k] to neighbour k. */
static void Traffic(Halo *h, PetscMPIInt nnbr, const PetscMPIInt *cnt, PetscInt n, size_t size)
{
  h->exchanges++;
  h->bytes += (PetscInt64)n * (PetscInt64)size;
  for (PetscMPIInt k = 0; k < nnbr; k++) h->messages += cnt[k] > 0;
}

static MPI_Datatype PairType(void)
{
  static MPI_Datatype t = MPI_DATATYPE_NULL;
  if (t == MPI_DATATYPE_NULL) {
    MPI_Type_contiguous(2, MPIU_REAL, &t);
    MPI_Type_commit(&t);
  }
  return t;
}

PetscErrorCode HaloCreate(const Domain *d, Halo *h)
{
  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(h, sizeof(*h)));
  PetscCall(
    PetscCalloc4(d->nnbr + 1, &h->scount, d->nnbr + 1, &h->sdispl, d->nnbr + 1, &h->rcount, d->nnbr + 1, &h->rdispl));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode HaloDestroy(Halo *h)
{
  PetscFunctionBeginUser;
  PetscCall(PetscFree4(h->scount, h->sdispl, h->rcount, h->rdispl));
  PetscCall(PetscFree(h->sendIdx));
  PetscCall(PetscFree(h->recvIdx));
  PetscCall(PetscFree(h->sbuf));
  PetscCall(PetscFree(h->rbuf));
  PetscCall(PetscFree(h->ref));
  PetscCall(PetscFree(h->srec));
  PetscCall(PetscFree(h->rrec));
  PetscCall(PetscFree(h->perm));
  PetscCall(PetscFree(h->gcell));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode ReserveLists(Halo *h, PetscInt ns, PetscInt nr, PetscInt w)
{
  PetscFunctionBeginUser;
  if (w != h->words) { /* the record size changed (a field was registered): new buffers */
    PetscCall(PetscFree(h->srec));
    PetscCall(PetscFree(h->rrec));
    PetscCall(PetscMalloc1((size_t)w * h->capSend + 1, &h->srec));
    PetscCall(PetscMalloc1((size_t)w * h->capRecv + 1, &h->rrec));
    h->words = w;
  }
  if (ns > h->capSend) {
    ns = PetscMax(ns, h->capSend + h->capSend / 2);
    PetscCall(PetscFree(h->sendIdx));
    PetscCall(PetscFree(h->srec));
    PetscCall(PetscMalloc1(ns, &h->sendIdx));
    PetscCall(PetscMalloc1((size_t)w * ns, &h->srec));
    h->capSend = ns;
  }
  if (nr > h->capRecv) {
    nr = PetscMax(nr, h->capRecv + h->capRecv / 2);
    PetscCall(PetscFree(h->recvIdx));
    PetscCall(PetscFree(h->rrec));
    PetscCall(PetscFree(h->ref));
    PetscCall(PetscFree(h->perm));
    PetscCall(PetscFree(h->gcell));
    PetscCall(PetscMalloc1(nr, &h->recvIdx));
    PetscCall(PetscMalloc1(2 * nr, &h->gcell));
    PetscCall(PetscMalloc1((size_t)w * nr, &h->rrec));
    PetscCall(PetscMalloc1(2 * nr, &h->ref));
    PetscCall(PetscMalloc1(nr, &h->perm));
    h->capRecv = nr;
  }
  if (2 * PetscMax(h->capSend, h->capRecv) > h->capBuf) {
    h->capBuf = 2 * PetscMax(h->capSend, h->capRecv);
    PetscCall(PetscFree(h->sbuf));
    PetscCall(PetscFree(h->rbuf));
    PetscCall(PetscMalloc1(h->capBuf, &h->sbuf));
    PetscCall(PetscMalloc1(h->capBuf, &h->rbuf));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Owned cells [x0,x1) x [y0,y1) (global) that face neighbour direction (dx, dy). */
static void SendRegion(const Domain *d, const PetscInt dir[2], PetscInt lo[2], PetscInt hi[2])
{
  for (int a = 0; a < 2; a++) {
    lo[a] = dir[a] > 0 ? d->c1[a] - 1 : d->c0[a];
    hi[a] = dir[a] < 0 ? d->c0[a] + 1 : d->c1[a];
  }
}

PetscErrorCode HaloBuild(const Domain *d, Particles *p, Cells *c, Halo *h)
{
  const PetscInt w  = ParticlesRecordWords(p, FIELD_GHOSTED);
  PetscInt       ns = 0, nr = 0, wx = 0;

  PetscFunctionBeginUser;
  PetscCall(PetscLogEventBegin(THRONG_EV.halo, 0, 0, 0, 0));
  p->ng = 0;
  /* count, then fill the send lists */
  for (PetscMPIInt k = 0; k < d->nnbr; k++) {
    PetscInt lo[2], hi[2], m = 0;
    SendRegion(d, d->nbrDir[k], lo, hi);
    for (PetscInt cy = lo[1]; cy < hi[1]; cy++)
      for (PetscInt cx = lo[0]; cx < hi[0]; cx++) {
        const PetscInt lc = DomainLocalCell(d, cx, cy);
        m += c->end[lc] - c->beg[lc];
      }
    h->scount[k] = (PetscMPIInt)m;
    h->sdispl[k] = (PetscMPIInt)ns;
    ns += m;
  }
  PetscCall(ReserveLists(h, ns, 0, w));
  /* the words of x and y in a record: the core fields id, x, y are registered first, in that order */
  for (PetscInt k = 0; k < PF_X; k++) wx += (p->field[k].flags & FIELD_GHOSTED) != 0;
  for (PetscMPIInt k = 0; k < d->nnbr; k++) {
    PetscInt lo[2], hi[2], e = h->sdispl[k];
    SendRegion(d, d->nbrDir[k], lo, hi);
    for (PetscInt cy = lo[1]; cy < hi[1]; cy++)
      for (PetscInt cx = lo[0]; cx < hi[0]; cx++) {
        const PetscInt lc = DomainLocalCell(d, cx, cy);
        for (PetscInt i = c->beg[lc]; i < c->end[lc]; i++) {
          h->sendIdx[e] = i;
          uint64_t *rec = h->srec + (size_t)w * e++;
          ParticlesPack(p, FIELD_GHOSTED, i, rec);
          memcpy(rec + wx, &p->xb[i], 8); /* ghosts are binned where their owner binned them */
          memcpy(rec + wx + 1, &p->yb[i], 8);
        }
      }
  }
  h->nsend = ns;
  PetscCallMPI(MPI_Neighbor_alltoall(h->scount, 1, MPI_INT, h->rcount, 1, MPI_INT, d->nbr));
  for (PetscMPIInt k = 0; k < d->nnbr; k++) {
    h->rdispl[k] = (PetscMPIInt)nr;
    nr += h->rcount[k];
  }
  PetscCall(ReserveLists(h, ns, nr, w));
  PetscCallMPI(MPI_Neighbor_alltoallv(h->srec, h->scount, h->sdispl, ParticlesWordsType(w), h->rrec, h->rcount,
                                      h->rdispl, ParticlesWordsType(w), d->nbr));
  Traffic(h, d->nnbr, h->scount, h->nsend, 8 * (size_t)w);
  h->nrecv = nr;

  /* append as ghosts, bin them in their owners' cells (shifted across a periodic side),
     and remember where each received entry went */
  PetscCall(ParticlesReserve(p, p->n + nr));
  for (PetscInt e = 0; e < nr; e++) ParticlesUnpack(p, FIELD_GHOSTED, p->n + e, h->rrec + (size_t)w * e);
  p->ng = nr;
  {
    PetscInt *gcell = h->gcell;
    for (PetscMPIInt k = 0; k < d->nnbr; k++) {
      PetscReal       sh[2];
      const PetscBool wrap = DomainImageShift(d, k, sh);
      for (PetscInt e = h->rdispl[k]; e < h->rdispl[k] + h->rcount[k]; e++) {
        const PetscInt g = p->n + e;
        DomainCellOf(d, p->x[g], p->y[g], &gcell[2 * e], &gcell[2 * e + 1]); /* the owner's bits: its cell */
        if (!wrap) continue;
        gcell[2 * e] += d->inWrap[k][0] * d->nc[0];
        gcell[2 * e + 1] += d->inWrap[k][1] * d->nc[1];
        p->x[g] += sh[0];
        p->y[g] += sh[1];
      }
    }
    PetscCall(CellsBinGhosts(d, p, c, gcell, h->perm));
  }
  for (PetscInt j = 0; j < nr; j++) h->recvIdx[h->perm[j]] = p->n + j;
  for (PetscInt g = p->n; g < p->n + p->ng; g++) { /* the ghosts keep their binning positions too */
    p->xb[g] = p->x[g];
    p->yb[g] = p->y[g];
  }
  PetscCall(PetscLogEventEnd(THRONG_EV.halo, 0, 0, 0, 0));
  PetscCall(HaloForward(d, p, h)); /* current positions (they differ from xb after a restart) */
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Owners -> ghosts of the pair (x, y) (positions: shifted across periodic sides), and
   the values written kept in ref. */
static PetscErrorCode ForwardPair(const Domain *d, Halo *h, PetscReal *x, PetscReal *y, PetscReal *ref, PetscBool shift)
{
  PetscFunctionBeginUser;
  PetscCall(PetscLogEventBegin(THRONG_EV.halo, 0, 0, 0, 0));
  for (PetscInt e = 0; e < h->nsend; e++) {
    h->sbuf[2 * e]     = x[h->sendIdx[e]];
    h->sbuf[2 * e + 1] = y[h->sendIdx[e]];
  }
  PetscCallMPI(
    MPI_Neighbor_alltoallv(h->sbuf, h->scount, h->sdispl, PairType(), ref, h->rcount, h->rdispl, PairType(), d->nbr));
  Traffic(h, d->nnbr, h->scount, h->nsend, 2 * sizeof(PetscReal));
  for (PetscMPIInt k = 0; shift && k < d->nnbr; k++) {
    PetscReal sh[2];
    if (DomainImageShift(d, k, sh))
      for (PetscInt e = h->rdispl[k]; e < h->rdispl[k] + h->rcount[k]; e++) {
        ref[2 * e] += sh[0];
        ref[2 * e + 1] += sh[1];
      }
  }
  for (PetscInt e = 0; e < h->nrecv; e++) {
    x[h->recvIdx[e]] = ref[2 * e];
    y[h->recvIdx[e]] = ref[2 * e + 1];
  }
  PetscCall(PetscLogEventEnd(THRONG_EV.halo, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode HaloForward(const Domain *d, Particles *p, Halo *h)
{
  PetscFunctionBeginUser;
  PetscCall(ForwardPair(d, h, p->x, p->y, h->ref, PETSC_TRUE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode HaloForwardPair(const Domain *d, Halo *h, PetscReal *ax, PetscReal *ay, PetscReal *aref)
{
  PetscFunctionBeginUser;
  PetscCall(ForwardPair(d, h, ax, ay, aref, PETSC_FALSE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode HaloForwardValues(const Domain *d, const Particles *p, Halo *h, PetscReal *v)
{
  PetscFunctionBeginUser;
  (void)p;
  PetscCall(PetscLogEventBegin(THRONG_EV.halo, 0, 0, 0, 0));
  for (PetscInt e = 0; e < h->nsend; e++) h->sbuf[2 * e] = v[h->sendIdx[e]], h->sbuf[2 * e + 1] = 0;
  PetscCallMPI(MPI_Neighbor_alltoallv(h->sbuf, h->scount, h->sdispl, PairType(), h->rbuf, h->rcount, h->rdispl,
                                      PairType(), d->nbr));
  Traffic(h, d->nnbr, h->scount, h->nsend, 2 * sizeof(PetscReal));
  for (PetscInt e = 0; e < h->nrecv; e++) v[h->recvIdx[e]] = h->rbuf[2 * e];
  PetscCall(PetscLogEventEnd(THRONG_EV.halo, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode HaloResetReference(Particles *p, Halo *h)
{
  PetscFunctionBeginUser;
  for (PetscInt e = 0; e < h->nrecv; e++) {
    h->ref[2 * e]     = p->x[h->recvIdx[e]];
    h->ref[2 * e + 1] = p->y[h->recvIdx[e]];
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static inline int SameBits(double a, double b) { return memcmp(&a, &b, sizeof(double)) == 0; }

static PetscErrorCode ReversePair(const Domain *d, Halo *h, PetscReal *x, PetscReal *y, const PetscReal *ref,
                                  PetscBool shift)
{
  PetscFunctionBeginUser;
  PetscCall(PetscLogEventBegin(THRONG_EV.halo, 0, 0, 0, 0));
  for (PetscInt e = 0; e < h->nrecv; e++) {
    const PetscInt g = h->recvIdx[e];
    if (SameBits(x[g], ref[2 * e]) && SameBits(y[g], ref[2 * e + 1])) {
      h->rbuf[2 * e] = h->rbuf[2 * e + 1] = NAN;
    } else {
      h->rbuf[2 * e]     = x[g];
      h->rbuf[2 * e + 1] = y[g];
    }
  }
  for (PetscMPIInt k = 0; shift && k < d->nnbr; k++) { /* images go back to their owners' side */
    PetscReal sh[2];
    if (DomainImageShift(d, k, sh))
      for (PetscInt e = h->rdispl[k]; e < h->rdispl[k] + h->rcount[k]; e++) {
        h->rbuf[2 * e] -= sh[0]; /* NaN stays NaN */
        h->rbuf[2 * e + 1] -= sh[1];
      }
  }
  PetscCallMPI(MPI_Neighbor_alltoallv(h->rbuf, h->rcount, h->rdispl, PairType(), h->sbuf, h->scount, h->sdispl,
                                      PairType(), d->rev));
  Traffic(h, d->nnbr, h->rcount, h->nrecv, 2 * sizeof(PetscReal));
  for (PetscInt e = 0; e < h->nsend; e++) {
    if (h->sbuf[2 * e] != h->sbuf[2 * e]) continue; /* NaN: untouched */
    x[h->sendIdx[e]] = h->sbuf[2 * e];
    y[h->sendIdx[e]] = h->sbuf[2 * e + 1];
  }
  PetscCall(PetscLogEventEnd(THRONG_EV.halo, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode HaloReverse(const Domain *d, Particles *p, Halo *h)
{
  PetscFunctionBeginUser;
  PetscCall(ReversePair(d, h, p->x, p->y, h->ref, PETSC_TRUE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode HaloReversePair(const Domain *d, Halo *h, PetscReal *ax, PetscReal *ay, const PetscReal *aref)
{
  PetscFunctionBeginUser;
  PetscCall(ReversePair(d, h, ax, ay, aref, PETSC_FALSE));
  PetscFunctionReturn(PETSC_SUCCESS);
}
