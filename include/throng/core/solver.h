/* solver — the time steppers of dq/dt ∈ f(q) − N(S, q): the method (PBD) and the schemes
   it is compared with (seed 000 §4.1, seed 001 §3), and their registry. See solver.c. */
#pragma once
#include <throng/util/params.h>

/* What the steppers did, summed over the run (replicated on every rank). */
typedef struct {
  PetscInt64 work;       /* single-constraint evaluations: projections (pbd, pngs),   */
                         /* pair terms (penalty), candidate tests and dual row        */
                         /* updates (pgs), summed over all ranks                      */
  PetscInt64 iterations; /* inner iterations: sweeps (pbd, pngs), PGS or TAO its.    */
  PetscInt   lastIts, maxIts;
  PetscInt   unconverged;               /* steps that reached -solver_max_it                         */
  PetscReal  lastResidual, maxResidual; /* pngs: last change; pgs: ||min(mu, W mu + b)|| */
  PetscReal  lastGap, maxGap;           /* pgs: max_k |mu_k (W mu + b)_k|              */
  PetscInt64 lastRows, maxRows;         /* pgs: linearised constraints of a step       */
  PetscReal *save;                      /* scratch: 2 reals per owned disk             */
  PetscInt   cap;
} SolverStats;

typedef struct Sim Sim;

/* A time stepper: what its create function (registered by name) fills in.  Only `step`
   (or `run`) is required; the rest may stay NULL. */
typedef struct {
  PetscErrorCode (*check)(MPI_Comm, Params *);                         /* its options, once they are all read */
  PetscErrorCode (*view)(MPI_Comm, const Params *);                    /* its line of the set-up report      */
  PetscErrorCode (*step)(Sim *);                                       /* one step of the time loop (main.c) */
  PetscErrorCode (*run)(MPI_Comm, const Params *, PetscInt *exitCode); /* or a loop of its own */
  PetscErrorCode (*monitor)(Sim *);                                    /* -solver_monitor: after every step  */
  PetscErrorCode (*report)(Sim *);                                     /* its fields of the summary line     */
  const char *(*variant)(const Params *);                              /* a suffix of its name there ("/tao") */
} SolverOps;

/* Add a stepper under `name` (-solver name). Not collective. */
PetscErrorCode SolverRegister(const char *name, const char *help, PetscErrorCode (*create)(SolverOps *));
/* The stepper `name`, or one error on comm that lists the registered names. */
PetscErrorCode SolverGetOps(MPI_Comm comm, const char *name, SolverOps *ops);
/* "-solver" help: every registered name with its help. */
const char *SolverHelp(void);
