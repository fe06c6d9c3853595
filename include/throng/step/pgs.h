/* pgs — the catching-up scheme of seed 001 eq. 10, linearised and PETSc-assembled
   (-solver pgs; see src/step/pgs.c). */
#pragma once
#include <throng/core/solver.h>

PetscErrorCode SolverCreate_PGS(SolverOps *ops);
