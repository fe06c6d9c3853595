/* idorder — disks redistributed into contiguous blocks of ids, sorted: the row order of
   every file throng writes, so that files do not depend on the rank count.           */
#pragma once
#include <throng/core/particles.h>
#include <string.h>

/* Disks as they are written to and read from files: one record per disk, of the
   fields of a flag mask (particles.h), 8 bytes each, in registration order.  The id is
   always word 0 (it is the first field and has every flag).                           */
typedef struct {
  PetscInt  n;     /* records                                     */
  PetscInt  words; /* words per record                            */
  unsigned  mask;
  PetscInt  word[PARTICLES_MAX_FIELDS]; /* word of field k in a record, -1: not in it  */
  uint64_t *rec;                        /* n * words (PetscMalloc'ed)                  */
} IoRecs;

/* An empty set of records of the fields of p in mask (rec: room for n records). */
PetscErrorCode           IoRecsCreate(const Particles *p, unsigned mask, PetscInt n, IoRecs *r);
PetscErrorCode           IoRecsDestroy(IoRecs *r);
static inline PetscInt64 IoRecsId(const IoRecs *r, PetscInt i)
{
  PetscInt64 v;
  memcpy(&v, r->rec + (size_t)r->words * i, 8);
  return v;
}
/* The value of field k (in the records: r->word[k] >= 0) of record i, as a real. */
static inline PetscReal IoRecsReal(const IoRecs *r, PetscInt i, PetscInt k)
{
  PetscReal v;
  memcpy(&v, r->rec + (size_t)r->words * i + r->word[k], 8);
  return v;
}

/* Send count records of recsize bytes to the ranks dest[]; *out (PetscMalloc'ed, may be
   NULL when *nout == 0) receives this rank's records. Collective, all-to-all.           */
PetscErrorCode RouteRecords(MPI_Comm comm, PetscInt count, const void *recs, size_t recsize, const PetscMPIInt *dest,
                            void **out, PetscInt *nout);

/* The owned disks of p as records of the fields in mask, redistributed so that rank k
   holds the k-th block of the id range, sorted by id. *offset: number of disks on lower
   ranks; *total: all. Collective.                                                      */
PetscErrorCode IdOrderGather(MPI_Comm comm, const Particles *p, unsigned mask, IoRecs *recs, PetscInt64 *offset,
                             PetscInt64 *total);
/* The same for the disks with ids in [ida, idb) only: rank k holds the k-th block of that
   range (the frames are written in such rounds, so that the records in flight stay
   bounded: io_h5md.c).  *offset and *total count the disks of the range. Collective. */
PetscErrorCode IdOrderGatherRange(MPI_Comm comm, const Particles *p, unsigned mask, PetscInt64 ida, PetscInt64 idb,
                                  IoRecs *recs, PetscInt64 *offset, PetscInt64 *total);
/* M = the largest id + 1 over comm (0 without disks). Collective. */
PetscErrorCode IdOrderEnd(MPI_Comm comm, const Particles *p, PetscInt64 *M);
