/* warm — PBD with contact multipliers carried between steps (-solver pbdw): the stepper
   and the module that keeps its per-disk state (see src/warm.c). */
#pragma once
#include <throng/modules.h>
#include <throng/solver.h>

PetscErrorCode SolverCreate_PBDW(SolverOps *ops);
PetscErrorCode WarmModuleCreate(const Params *prm, SimModule *m, PetscBool *on);
