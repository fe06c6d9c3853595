/* idorder — disks redistributed into contiguous blocks of ids, sorted: the row order of
   every file throng writes, so that files do not depend on the rank count.           */
#pragma once
#include <throng/particles.h>

/* One disk as it is written to and read from files. */
typedef struct {
  PetscInt64 id;
  PetscReal  x, y, r;
  PetscReal  xb, yb; /* position at the last binning: needed for an exact restart */
} IoRec;

/* Send count records of recsize bytes to the ranks dest[]; *out (PetscMalloc'ed, may be
   NULL when *nout == 0) receives this rank's records. Collective, all-to-all.           */
PetscErrorCode RouteRecords(MPI_Comm comm, PetscInt count, const void *recs, size_t recsize, const PetscMPIInt *dest, void **out, PetscInt *nout);

/* The owned disks of p as IoRecs, redistributed so that rank k holds the k-th block of
   the id range, sorted by id. *offset: number of disks on lower ranks; *total: all.
   Collective. *recs is PetscMalloc'ed.                                                 */
PetscErrorCode IdOrderGather(MPI_Comm comm, const Particles *p, IoRec **recs, PetscInt *count, PetscInt64 *offset, PetscInt64 *total);
