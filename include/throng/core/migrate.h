/* migrate — hand disks whose cell changed owner to the neighbouring rank. */
#pragma once
#include <throng/core/domain.h>
#include <throng/core/particles.h>

typedef struct {
  uint64_t    *sbuf, *rbuf; /* records of the migrating fields (words) */
  PetscInt     capS, capR;  /* ... in words                            */
  PetscMPIInt *scount, *sdispl, *rcount, *rdispl;
  PetscInt    *dest;
  PetscInt     capDest;
  PetscInt64   moved; /* disks sent by this rank so far */
} Migrator;

PetscErrorCode MigratorCreate(const Domain *d, Migrator *m);
PetscErrorCode MigratorDestroy(Migrator *m);
/* Collective on d->comm. Ghosts are dropped. */
PetscErrorCode Migrate(const Domain *d, Particles *p, Migrator *m);
/* Every owned position wrapped back into the periodic (or sheared) box, the ghosts
   dropped, without moving any disk to another rank: the caller routes them (a flip of
   a sheared box's tilt, deform.c).  Collective: a non-finite position is an error. */
PetscErrorCode MigrateWrapAll(const Domain *d, Particles *p);
/* Send records created on any rank to the ranks owning their cells, which append them
   to p (no ghosts). Collective, all-to-all: for set-up, not for the time loop.          */
PetscErrorCode RouteToOwners(const Domain *d, PetscInt count, const ParticleRec *recs, Particles *p);
/* Every owned disk, with its migrating fields, to the rank that owns its cell (after a
   new partition; ghosts are dropped). Collective, all-to-all.                          */
PetscErrorCode RouteOwnedToOwners(const Domain *d, Particles *p);
