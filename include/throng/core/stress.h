/* stress — the sums of the contact stress, made inside the sweeps (see
   src/core/stress.c); the Stress record is the Sim's (sim.h). */
#pragma once
#include <throng/core/sim.h>

/* Does the stepper record its contact forces (pbd, pngs, pbdw, penalty)? */
PetscBool StressRecords(const char *solver);
/* One contact of a recorded step: Delta the displacement it gave its second disk (force
   Delta / h), l the branch vector from the first, ym the height of its midpoint. */
void StressAdd(Sim *s, PetscReal dx, PetscReal dy, PetscReal lx, PetscReal ly, PetscReal ym);
/* A wall contact of the owned disk i: it moved the disk from (x0, y0) to (x, y) (force
   (x - x0, y - y0) / h), r its radius; wall = the wall's index (walls, then segments). */
void StressAddWall(Sim *s, PetscInt i, PetscInt64 wall, PetscReal x0, PetscReal y0, PetscReal x, PetscReal y,
                   PetscReal r);
/* The same, also kept as a contact record when rec is on: i the owned disk's local index,
   ida and idb the ends' ids (ContactRec).                                              */
void StressAddContact(Sim *s, PetscInt i, PetscInt64 ida, PetscInt64 idb, PetscReal dx, PetscReal dy, PetscReal lx,
                      PetscReal ly, PetscReal ym);
