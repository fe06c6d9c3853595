/* idorder — disks redistributed into contiguous, sorted blocks of ids.
 *
 * Files must not depend on the rank count: row k of every dataset is the disk with the
 * k-th smallest id, whatever rank held it.  Before a write the disks are therefore
 * routed (one MPI_Alltoallv) so that rank r holds the ids in [r M / P, (r+1) M / P), M =
 * largest id + 1, and sorted there; a rank's rows then start at the exclusive prefix sum
 * of the counts (MPI_Exscan) and each rank writes one contiguous hyperslab.  Ids may have
 * gaps (disks that left a crowd): the blocks are of ids, the rows stay dense.           */
#include <throng/core/idorder.h>
#include <stdlib.h>

PetscErrorCode RouteRecords(MPI_Comm comm, PetscInt count, const void *recs, size_t recsize, const PetscMPIInt *dest,
                            void **out, PetscInt *nout)
{
  PetscMPIInt  size, rank, *sc, *sd, *rc, *rd, *fill;
  char        *sbuf, *rbuf = NULL;
  PetscInt64   nin = 0, nself = 0;
  MPI_Datatype t;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCall(PetscCalloc5(size, &sc, size, &sd, size, &rc, size, &rd, size, &fill));
  /* records that stay on this rank are copied, not sent through MPI */
  for (PetscInt i = 0; i < count; i++) {
    if (dest[i] == rank) nself++;
    else sc[dest[i]]++;
  }
  for (PetscMPIInt k = 1; k < size; k++) sd[k] = sd[k - 1] + sc[k - 1];
  PetscCall(PetscMalloc1((count - nself + 1) * recsize, &sbuf));
  PetscCallMPI(MPI_Alltoall(sc, 1, MPI_INT, rc, 1, MPI_INT, comm));
  for (PetscMPIInt k = 0; k < size; k++) {
    PetscCheck(nin <= PETSC_MPI_INT_MAX, PETSC_COMM_SELF, PETSC_ERR_SUP, "more records than an MPI count can address");
    rd[k] = (PetscMPIInt)nin;
    nin += rc[k];
  }
  PetscCall(PetscMalloc1((nin + nself + 1) * recsize, &rbuf));
  for (PetscInt i = 0, j = 0; i < count; i++) {
    const char *src = (const char *)recs + (size_t)i * recsize;
    if (dest[i] == rank) PetscCall(PetscMemcpy(rbuf + (size_t)(nin + j++) * recsize, src, recsize));
    else PetscCall(PetscMemcpy(sbuf + (size_t)(sd[dest[i]] + fill[dest[i]]++) * recsize, src, recsize));
  }
  PetscCallMPI(MPI_Type_contiguous((int)recsize, MPI_BYTE, &t));
  PetscCallMPI(MPI_Type_commit(&t));
  PetscCallMPI(MPI_Alltoallv(sbuf, sc, sd, t, rbuf, rc, rd, t, comm));
  PetscCallMPI(MPI_Type_free(&t));
  PetscCall(PetscFree(sbuf));
  PetscCall(PetscFree5(sc, sd, rc, rd, fill));
  *out  = rbuf;
  *nout = (PetscInt)(nin + nself);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode IoRecsCreate(const Particles *p, unsigned mask, PetscInt n, IoRecs *r)
{
  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(r, sizeof(*r)));
  PetscCheck(p->field[PF_ID].flags & mask, PETSC_COMM_SELF, PETSC_ERR_PLIB, "records without the id");
  r->mask = mask;
  for (PetscInt k = 0; k < PARTICLES_MAX_FIELDS; k++)
    r->word[k] = k < p->nfield && (p->field[k].flags & mask) ? r->words++ : -1;
  PetscCall(PetscMalloc1((size_t)r->words * n + 1, &r->rec));
  r->n = n;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode IoRecsDestroy(IoRecs *r)
{
  PetscFunctionBeginUser;
  PetscCall(PetscFree(r->rec));
  r->n = 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static int CompareId(const void *a, const void *b)
{
  PetscInt64 x, y;
  memcpy(&x, a, 8);
  memcpy(&y, b, 8);
  return (x > y) - (x < y);
}

/* Rank holding id in the blocks [ceil(k M / P), ceil((k+1) M / P)). */
static inline PetscMPIInt BlockOwner(PetscInt64 id, PetscInt64 M, PetscMPIInt size)
{
  if (M <= 0) return 0;
  PetscInt64 k = (id * size) / M;
  while (k > 0 && id < (k * M + size - 1) / size) k--;
  while (k + 1 < size && id >= ((k + 1) * M + size - 1) / size) k++;
  return (PetscMPIInt)k;
}

/* One pass, one result buffer: records that stay on this rank go straight to their
   final place, the others are packed by destination, exchanged with one
   MPI_Alltoallv and then placed.  When the block has no id gaps (the usual case) a
   record's place is id - lo and no sort is needed; otherwise the block is sorted.    */
PetscErrorCode IdOrderGatherRange(MPI_Comm comm, const Particles *p, unsigned mask, PetscInt64 ida, PetscInt64 idb,
                                  IoRecs *recs, PetscInt64 *offset, PetscInt64 *total)
{
  PetscMPIInt      size, rank, *sc, *sd, *rc, *rd, *fill;
  PetscInt64       nin = 0, nself = 0, nout = 0, lo, hi, c;
  const PetscInt64 M = idb - ida;
  uint64_t        *out, *sbuf, *rbuf;
  PetscInt         w;
  MPI_Datatype     t;
  PetscBool        dense;

  PetscFunctionBeginUser;
  PetscCall(PetscLogEventBegin(THRONG_EV.ioOrder, 0, 0, 0, 0));
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  lo = ida + ((PetscInt64)rank * M + size - 1) / size;
  hi = ida + ((PetscInt64)(rank + 1) * M + size - 1) / size;
  /* the destination of each disk is computed twice (count, then pack) rather than
     stored: no array of the size of the rank's disks                               */
  PetscCall(PetscCalloc5(size, &sc, size, &sd, size, &rc, size, &rd, size, &fill));
  for (PetscInt i = 0; i < p->n; i++) {
    if (p->id[i] < ida || p->id[i] >= idb) continue; /* another round's */
    const PetscMPIInt dst = BlockOwner(p->id[i] - ida, M, size);
    if (dst == rank) nself++;
    else sc[dst]++, nout++;
  }
  for (PetscMPIInt k = 1; k < size; k++) sd[k] = sd[k - 1] + sc[k - 1];
  PetscCallMPI(MPI_Alltoall(sc, 1, MPI_INT, rc, 1, MPI_INT, comm));
  for (PetscMPIInt k = 0; k < size; k++) {
    rd[k] = (PetscMPIInt)nin;
    nin += rc[k];
    PetscCheck(nin <= PETSC_MPI_INT_MAX, PETSC_COMM_SELF, PETSC_ERR_SUP, "more records than an MPI count can address");
  }
  c     = nin + nself;
  dense = (PetscBool)(hi - lo == c);
  PetscCall(IoRecsCreate(p, mask, (PetscInt)c, recs));
  w   = recs->words;
  out = recs->rec;
  PetscCall(PetscMalloc2((size_t)w * nout + 1, &sbuf, (size_t)w * nin + 1, &rbuf));
  for (PetscInt i = 0, j = 0; i < p->n; i++) {
    uint64_t *dst;
    if (p->id[i] < ida || p->id[i] >= idb) continue;
    const PetscMPIInt k = BlockOwner(p->id[i] - ida, M, size);
    if (k != rank) dst = sbuf + (size_t)w * (sd[k] + fill[k]++);
    else dst = out + (size_t)w * (dense ? p->id[i] - lo : nin + j++);
    ParticlesPack(p, mask, i, dst);
  }
  PetscCallMPI(MPI_Type_contiguous((int)(8 * w), MPI_BYTE, &t));
  PetscCallMPI(MPI_Type_commit(&t));
  PetscCallMPI(MPI_Alltoallv(sbuf, sc, sd, t, rbuf, rc, rd, t, comm));
  PetscCallMPI(MPI_Type_free(&t));
  for (PetscInt64 i = 0; i < nin; i++) {
    PetscInt64 id;
    memcpy(&id, rbuf + (size_t)w * i, 8);
    PetscCall(PetscArraycpy(out + (size_t)w * (dense ? id - lo : i), rbuf + (size_t)w * i, w));
  }
  PetscCall(PetscFree2(sbuf, rbuf));
  PetscCall(PetscFree5(sc, sd, rc, rd, fill));
  if (!dense) qsort(out, (size_t)c, 8 * (size_t)w, CompareId);
  *offset = 0;
  PetscCallMPI(MPI_Exscan(&c, offset, 1, MPIU_INT64, MPI_SUM, comm));
  if (!rank) *offset = 0; /* MPI_Exscan leaves rank 0's result undefined */
  PetscCallMPI(MPI_Allreduce(&c, total, 1, MPIU_INT64, MPI_SUM, comm));
  PetscCall(PetscLogEventEnd(THRONG_EV.ioOrder, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode IdOrderEnd(MPI_Comm comm, const Particles *p, PetscInt64 *M)
{
  PetscFunctionBeginUser;
  *M = 0;
  for (PetscInt i = 0; i < p->n; i++) *M = PetscMax(*M, p->id[i] + 1);
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, M, 1, MPIU_INT64, MPI_MAX, comm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode IdOrderGather(MPI_Comm comm, const Particles *p, unsigned mask, IoRecs *recs, PetscInt64 *offset,
                             PetscInt64 *total)
{
  PetscInt64 M;
  PetscFunctionBeginUser;
  PetscCall(IdOrderEnd(comm, p, &M));
  PetscCall(IdOrderGatherRange(comm, p, mask, 0, M, recs, offset, total));
  PetscFunctionReturn(PETSC_SUCCESS);
}
