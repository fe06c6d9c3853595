/* deform — a box compressed or expanded at a rate, to a packing fraction (-deform_rate). */
#pragma once
#include <throng/optdecl.h>
#include <throng/modules.h>

PetscErrorCode DeformSetFromOptions(Opt *o);
PetscErrorCode DeformCheck(MPI_Comm comm, const Params *p);
PetscErrorCode DeformModuleCreate(const Params *prm, SimModule *m, PetscBool *on);
