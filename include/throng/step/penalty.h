/* penalty — explicit Euler on the penalised ODE, seed 000 eq. 107 (-solver penalty; see
   src/step/penalty.c). */
#pragma once
#include <throng/core/solver.h>

PetscErrorCode SolverCreate_Penalty(SolverOps *ops);
