/* deform — a box compressed or expanded at a rate, to a packing fraction (-deform_rate). */
#pragma once
#include <throng/app/optdecl.h>
#include <throng/core/modules.h>

PetscErrorCode DeformSetFromOptions(Opt *o);
PetscErrorCode DeformCheck(MPI_Comm comm, const Params *p);
PetscErrorCode DeformModuleCreate(const Params *prm, SimModule *m, PetscBool *on);
/* The packing fraction of the current box (sum pi r^2 exact over the ranks; 0 when the
   deform module is off). */
PetscReal DeformPackingFraction(const Sim *s);
/* Does the box change in this run (-deform_rate, -shear_rate, -barostat)? */
PetscBool DeformBoxMoves(const Params *p);
