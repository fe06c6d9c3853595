/* warm — PBD with contact multipliers carried between steps (-solver pbdw): the stepper
   and the module that keeps its per-disk state (see src/step/warm.c); the contact list and the module are warm_list.c's. */
#pragma once
#include <throng/core/sim.h>
#include <throng/core/solver.h>

PetscErrorCode SolverCreate_PBDW(SolverOps *ops);
/* The contacts of the last step with their multipliers (contacts.c: -stress): for each,
   add(s, i, ida, idb, Delta, l, ym) with i the owned disk's local index, ida and idb the
   ends' ids (a wall: -1 - its index, then the disk), Delta the displacement the contact
   gave its second end (a pair: lambda/2 along the normal; a wall: lambda along the wall's
   normal), l the branch vector and ym the height of its midpoint.  Owned disks only; not
   collective. */
PetscErrorCode WarmContacts(Sim *s, void (*add)(Sim *, PetscInt, PetscInt64, PetscInt64, PetscReal, PetscReal,
                                                PetscReal, PetscReal, PetscReal));
