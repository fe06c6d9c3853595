/* contacts — contact forces and the stress they carry (-stress). */
#pragma once
#include <throng/util/opt.h>
#include <throng/core/sim.h>

/* -stress, -stress_bands (RUN options: recording does not change a bit of the run). */
PetscErrorCode StressSetFromOptions(Opt *o);
PetscErrorCode StressCheck(MPI_Comm comm, const Params *p);
/* Should the step about to run be recorded (a progress step, or the last)? Sets on. */
PetscErrorCode StressBeforeStep(Sim *s);
/* After a recorded step: reduce, print the stress line (and at the end the summary and
   the band profile). Collective. */
PetscErrorCode StressAfterStep(Sim *s, PetscBool last);
