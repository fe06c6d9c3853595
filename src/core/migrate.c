/* migrate — hand disks whose cell changed owner to the rank that now owns it.
 *
 * Migration runs at every rebinning, after the prediction and before the binning, with
 * the ghosts dropped.  A disk moves at most a fraction of a cell between rebinnings, so
 * its new owner is this rank or one of the 8 neighbours: one MPI_Neighbor_alltoall of
 * counts and one MPI_Neighbor_alltoallv of records.  A disk that would have to jump
 * further is an error (the time step is far too large for the cells), and so is a
 * position that is no longer finite (a blow-up); the ranks first agree on either by a
 * reduction, so all of them stop together with one message.
 *
 * The records are those of the fields registered FIELD_MIGRATES (particles.c).
 *
 * Along a periodic axis (periodic.c) the positions are first wrapped back into the box,
 * and a block displacement of more than one rank is the way round the periodic side.
 *
 * RouteToOwners is the general version for the initial condition, where disks are
 * created on any rank: an all-to-all through RouteRecords (idorder.c);
 * RouteOwnedToOwners sends a rank's disks, with all their migrating fields, to the
 * owners of a new partition (balance.c).                                            */
#include <throng/core/migrate.h>
#include <throng/core/idorder.h>
#include <math.h>

PetscErrorCode MigratorCreate(const Domain *d, Migrator *m)
{
  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(m, sizeof(*m)));
  PetscCall(
    PetscCalloc4(d->nnbr + 1, &m->scount, d->nnbr + 1, &m->sdispl, d->nnbr + 1, &m->rcount, d->nnbr + 1, &m->rdispl));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MigratorDestroy(Migrator *m)
{
  PetscFunctionBeginUser;
  PetscCall(PetscFree4(m->scount, m->sdispl, m->rcount, m->rdispl));
  PetscCall(PetscFree(m->sbuf));
  PetscCall(PetscFree(m->rbuf));
  PetscCall(PetscFree(m->dest));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Room for m records of w words (the contents are not kept). */
static PetscErrorCode ReserveRecs(uint64_t **buf, PetscInt *cap, PetscInt m, PetscInt w)
{
  PetscFunctionBeginUser;
  m *= w;
  if (m <= *cap) PetscFunctionReturn(PETSC_SUCCESS);
  m = PetscMax(m, *cap + *cap / 2);
  PetscCall(PetscFree(*buf));
  PetscCall(PetscMalloc1(m, buf));
  *cap = m;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Along a periodic axis a disk that left the box comes back on the other side (one box
   length at most: a disk moves a fraction of a cell between rebinnings).  In a sheared
   box (deform.c) a disk that crosses the top or bottom moves by the tilt along x as
   well, and the x wrap is taken on the sheared abscissa, by whole box lengths (a flip
   of the tilt moves it by up to one). */
static void MigrateWrap(const Domain *d, PetscReal *x, PetscReal *y)
{
  PetscReal *v[2] = {x, y};
  if (d->tilt != 0) {
    const PetscReal Lx = d->hi[0] - d->lo[0], Ly = d->hi[1] - d->lo[1];
    if (*y < d->lo[1]) *y += Ly, *x += d->tilt;
    else if (*y >= d->hi[1]) *y -= Ly, *x -= d->tilt;
    const PetscReal k = PetscFloorReal(DomainShearedX(d, *x, *y) / Lx);
    if (k != 0) *x -= k * Lx;
    return;
  }
  for (int a = 0; a < 2; a++) {
    if (!d->per[a]) continue;
    if (*v[a] < d->lo[a]) *v[a] += d->hi[a] - d->lo[a];
    else if (*v[a] >= d->hi[a]) *v[a] -= d->hi[a] - d->lo[a];
  }
}

PetscErrorCode MigrateWrapAll(const Domain *d, Particles *p)
{
  int bad = 0;
  PetscFunctionBeginUser;
  p->ng = 0;
  for (PetscInt i = 0; i < p->n; i++) {
    if (!isfinite(p->x[i]) || !isfinite(p->y[i])) bad = 1;
    else MigrateWrap(d, &p->x[i], &p->y[i]);
  }
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MAX, d->comm));
  PetscCheck(!bad, d->comm, PETSC_ERR_FP, "a disk position is no longer a finite number");
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode Migrate(const Domain *d, Particles *p, Migrator *m)
{
  const PetscInt w    = ParticlesRecordWords(p, FIELD_MIGRATES);
  PetscInt       nout = 0, nin = 0, keep = 0;
  int            bad[2] = {0, 0}; /* a disk jumped too far; a position is not finite */

  PetscFunctionBeginUser;
  PetscCall(PetscLogEventBegin(THRONG_EV.migrate, 0, 0, 0, 0));
  p->ng = 0;
  if (p->n > m->capDest) {
    PetscCall(PetscFree(m->dest));
    m->capDest = PetscMax(p->n, m->capDest + m->capDest / 2);
    PetscCall(PetscMalloc1(m->capDest, &m->dest));
  }
  for (PetscMPIInt k = 0; k < d->nnbr; k++) m->scount[k] = 0;
  for (PetscInt i = 0; i < p->n; i++) {
    PetscInt cx, cy;
    m->dest[i] = -1;
    if (!isfinite(p->x[i]) || !isfinite(p->y[i])) {
      bad[1] = 1;
      continue;
    }
    MigrateWrap(d, &p->x[i], &p->y[i]);
    DomainCellOf(d, p->x[i], p->y[i], &cx, &cy);
    if (cx >= d->c0[0] && cx < d->c1[0] && cy >= d->c0[1] && cy < d->c1[1]) continue;
    PetscInt dx = DomainBlockOfTile(d, 0, cx / d->tile) - d->q[0], dy = DomainBlockOfTile(d, 1, cy / d->tile) - d->q[1];
    if (d->per[0] && dx > 1) dx -= d->p[0]; /* across the periodic side: the neighbour beyond it */
    if (d->per[0] && dx < -1) dx += d->p[0];
    if (d->per[1] && dy > 1) dy -= d->p[1];
    if (d->per[1] && dy < -1) dy += d->p[1];
    PetscMPIInt k;
    for (k = 0; k < d->nnbr; k++)
      if (d->nbrDir[k][0] == dx && d->nbrDir[k][1] == dy) break;
    if (k == d->nnbr) {
      bad[0] = 1;
      continue;
    }
    m->dest[i] = k;
    m->scount[k]++;
    nout++;
  }
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, bad, 2, MPI_INT, MPI_MAX, d->comm));
  PetscCheck(!bad[1], d->comm, PETSC_ERR_FP,
             "a disk position is no longer a finite number: the time step -dt is far too large for the driver, or the "
             "driver diverges");
  PetscCheck(!bad[0], d->comm, PETSC_ERR_USER_INPUT,
             "a disk moved further than a neighbouring rank's block between two binnings: the time step -dt is far too "
             "large for the cells (or the driver too strong)");
  PetscCall(ReserveRecs(&m->sbuf, &m->capS, nout, w));
  for (PetscMPIInt k = 0, o = 0; k < d->nnbr; k++) {
    m->sdispl[k] = o;
    o += m->scount[k];
  }
  {
    PetscMPIInt fill[8] = {0};
    for (PetscInt i = 0; i < p->n; i++) {
      if (m->dest[i] < 0) {
        if (keep != i) ParticlesCopy(p, keep, i, PETSC_TRUE);
        keep++;
      } else {
        const PetscInt k = m->dest[i];
        ParticlesPack(p, FIELD_MIGRATES, i, m->sbuf + (size_t)w * (m->sdispl[k] + fill[k]++));
      }
    }
  }
  p->n = keep;
  PetscCallMPI(MPI_Neighbor_alltoall(m->scount, 1, MPI_INT, m->rcount, 1, MPI_INT, d->nbr));
  for (PetscMPIInt k = 0; k < d->nnbr; k++) {
    m->rdispl[k] = (PetscMPIInt)nin;
    nin += m->rcount[k];
  }
  PetscCall(ReserveRecs(&m->rbuf, &m->capR, nin, w));
  PetscCallMPI(MPI_Neighbor_alltoallv(m->sbuf, m->scount, m->sdispl, ParticlesWordsType(w), m->rbuf, m->rcount,
                                      m->rdispl, ParticlesWordsType(w), d->nbr));
  PetscCall(ParticlesAppendPacked(p, FIELD_MIGRATES, nin, m->rbuf));
  m->moved += nout;
  PetscCall(PetscLogEventEnd(THRONG_EV.migrate, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode RouteOwnedToOwners(const Domain *d, Particles *p)
{
  const PetscInt w = ParticlesRecordWords(p, FIELD_MIGRATES), n = p->n;
  PetscMPIInt   *dest;
  uint64_t      *recs;
  void          *in;
  PetscInt       nin;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc2(n + 1, &dest, (size_t)w * n + 1, &recs));
  for (PetscInt i = 0; i < n; i++) {
    PetscInt cx, cy;
    DomainCellOf(d, p->x[i], p->y[i], &cx, &cy);
    dest[i] = DomainOwnerOfCell(d, cx, cy);
    ParticlesPack(p, FIELD_MIGRATES, i, recs + (size_t)w * i);
  }
  PetscCall(RouteRecords(d->comm, n, recs, 8 * (size_t)w, dest, &in, &nin));
  PetscCall(PetscFree2(dest, recs));
  p->n = p->ng = 0;
  PetscCall(ParticlesAppendPacked(p, FIELD_MIGRATES, nin, (const uint64_t *)in));
  PetscCall(PetscFree(in));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode RouteToOwners(const Domain *d, PetscInt count, const ParticleRec *recs, Particles *p)
{
  PetscMPIInt *dest;
  void        *in;
  PetscInt     nin;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc1(count + 1, &dest));
  for (PetscInt i = 0; i < count; i++) {
    PetscInt cx, cy;
    DomainCellOf(d, recs[i].x, recs[i].y, &cx, &cy);
    dest[i] = DomainOwnerOfCell(d, cx, cy);
  }
  PetscCall(RouteRecords(d->comm, count, recs, sizeof(ParticleRec), dest, &in, &nin));
  PetscCall(PetscFree(dest));
  PetscCall(ParticlesAppend(p, nin, (const ParticleRec *)in));
  PetscCall(PetscFree(in));
  PetscFunctionReturn(PETSC_SUCCESS);
}
