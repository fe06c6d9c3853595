/* contacts — contact forces and the stress they carry (-stress). */
#pragma once
#include <throng/optdecl.h>

typedef struct {
  PetscBool  on;    /* the next step's sweeps are recorded (pbd.c)                       */
  PetscReal  S[4];  /* this rank's sum of Delta_j (x) l over the recorded projections   */
  PetscReal *band;  /* the same per horizontal band, 4 per band                           */
  PetscInt64 nproj; /* recorded projections that moved a disk                          */
} Stress;

typedef struct Sim Sim;

/* -stress, -stress_bands (RUN options: recording does not change a bit of the run). */
PetscErrorCode StressSetFromOptions(Opt *o);
PetscErrorCode StressCheck(MPI_Comm comm, const Params *p);
/* Should the step about to run be recorded (a progress step, or the last)? Sets on. */
PetscErrorCode StressBeforeStep(Sim *s);
/* The sweep of pbd and pngs, recording (pbd.c calls it instead of its own when on). */
PetscErrorCode StressSweep(Sim *s);
/* After a recorded step: reduce, print the stress line (and at the end the summary and
   the band profile). Collective. */
PetscErrorCode StressAfterStep(Sim *s, PetscBool last);
PetscErrorCode StressDestroy(Sim *s);
/* One contact of a recorded step: Delta the displacement it gave its second disk (force
   Delta / h), l the branch vector from the first, ym the height of its midpoint. */
void StressAdd(Sim *s, PetscReal dx, PetscReal dy, PetscReal lx, PetscReal ly, PetscReal ym);
