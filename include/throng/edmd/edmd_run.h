/* edmd_run — event-driven elastic hard disks as a stepper with a loop of its own
   (-solver edmd; see src/edmd/edmd_run.c). */
#pragma once
#include <throng/core/solver.h>

PetscErrorCode SolverCreate_EDMD(SolverOps *ops);
