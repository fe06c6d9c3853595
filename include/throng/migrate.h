/* migrate — hand disks whose cell changed owner to the neighbouring rank. */
#pragma once
#include <throng/domain.h>
#include <throng/particles.h>

typedef struct {
  ParticleRec *sbuf, *rbuf;
  PetscInt     capS, capR;
  PetscMPIInt *scount, *sdispl, *rcount, *rdispl;
  PetscInt    *dest;
  PetscInt     capDest;
  PetscInt64   moved;  /* disks sent by this rank so far */
} Migrator;

PetscErrorCode MigratorCreate(const Domain *d, Migrator *m);
PetscErrorCode MigratorDestroy(Migrator *m);
/* Collective on d->comm. Ghosts are dropped. */
PetscErrorCode Migrate(const Domain *d, Particles *p, Migrator *m);
/* Send every disk to the rank owning its cell, from anywhere: collective, all-to-all. */
PetscErrorCode RouteToOwners(const Domain *d, Particles *p);
