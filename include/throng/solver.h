/* solver — the time steppers of dq/dt ∈ f(q) − N(S, q): the method (PBD) and the schemes
   it is compared with (seed 000 §4.1, seed 001 §3). See solver.c for the comparison.  */
#pragma once
#include <throng/throng.h>

/* What the steppers did, summed over the run (replicated on every rank). */
typedef struct {
  PetscInt64 work;         /* single-constraint evaluations: projections (pbd, pngs),   */
                           /* pair terms (penalty), candidate tests and dual row        */
                           /* updates (pgs), summed over all ranks                      */
  PetscInt64 iterations;   /* inner iterations: sweeps (pbd, pngs), PGS or TAO its.    */
  PetscInt   lastIts, maxIts;
  PetscInt   unconverged;  /* steps that reached -solver_max_it                         */
  PetscReal  lastResidual, maxResidual; /* pngs: last change; pgs: ||min(mu, W mu + b)|| */
  PetscReal  lastGap, maxGap;           /* pgs: max_k |mu_k (W mu + b)_k|              */
  PetscInt64 lastRows, maxRows;         /* pgs: linearised constraints of a step       */
  PetscReal *save;                      /* scratch: 2 reals per owned disk             */
  PetscInt   cap;
} SolverStats;
