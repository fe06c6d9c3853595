/* deform — a box compressed or expanded at a rate, to a packing fraction (-deform_rate). */
#pragma once
#include <throng/util/opt.h>
#include <throng/core/sim.h>

PetscErrorCode DeformSetFromOptions(Opt *o);
PetscErrorCode DeformCheck(MPI_Comm comm, const Params *p);
PetscErrorCode DeformModuleCreate(const Params *prm, SimModule *m, PetscBool *on);
/* The packing fraction of the current box (sum pi r^2 exact over the ranks; 0 when the
   deform module is off). */
PetscReal DeformPackingFraction(const Sim *s);
/* The box's rate for every later step from rate(s) instead of -deform_rate (a controller:
   the barostat, in its set-up).  Collective (an error when the box does not deform). */
PetscErrorCode DeformSetRate(Sim *s, PetscReal (*rate)(const Sim *));
