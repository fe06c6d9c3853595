/* particles — structure-of-arrays storage of owned disks followed by ghost copies. */
#pragma once
#include <throng/throng.h>

/* The record moved between ranks (migration, ghost creation, initial routing). */
typedef struct {
  PetscReal  x, y, r;
  PetscInt64 id;
} ParticleRec;

typedef struct {
  PetscInt    n;    /* owned disks, indices [0, n)                              */
  PetscInt    ng;   /* ghost copies, indices [n, n + ng)                        */
  PetscInt    cap;  /* capacity of every array                                  */
  PetscReal  *x, *y, *r;
  PetscInt64 *id;
  PetscReal  *xb, *yb; /* position at the last binning (owned disks)            */
  void       *scratch; /* 8 bytes per entry, for reordering                      */
} Particles;

/* The MPI datatype of one ParticleRec (bytes: the record never leaves one machine type). */
MPI_Datatype   ParticleRecType(void);

PetscErrorCode ParticlesCreate(Particles *p, PetscInt cap);
PetscErrorCode ParticlesDestroy(Particles *p);
PetscErrorCode ParticlesReserve(Particles *p, PetscInt cap);
void           ParticlesGetRec(const Particles *p, PetscInt i, ParticleRec *rec);
void           ParticlesSetRec(Particles *p, PetscInt i, const ParticleRec *rec);
PetscErrorCode ParticlesAppend(Particles *p, PetscInt count, const ParticleRec *recs);
/* Reorder entries [offset, offset+m): entry k moves from index src[k] (a gather); with
   withBin the binning positions xb, yb move too.                                      */
PetscErrorCode ParticlesGather(Particles *p, PetscInt offset, PetscInt m, const PetscInt *src, PetscBool withBin);
