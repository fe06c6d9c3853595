/* speed — the RMS speed of the disks over one step, for the progress and summary lines
   (see the essay at the top of src/core/speed.c). */
#pragma once
#include <throng/core/sim.h>

/* Before a step that is to be measured: keep every owned disk's id and position. */
PetscErrorCode SpeedMark(Sim *s);
/* After that step (before the modules may remove disks): the RMS and the largest speed,
   |x_{k+1} - x_k| / dt over the disks, into s->rmsSpeed, s->maxSpeed, s->speedStep
   (s->speedLeftOut: disks that changed rank within the step).  A step that rebinned is
   measured only if last (the line's own step) and the step before it was not measured;
   else nothing changes.  Collective. */
PetscErrorCode SpeedMeasure(Sim *s, PetscBool last);
/* The module (always on) whose beforeRebin hook keeps the disks' ids when a measured
   step rebins (app/register.c registers it). */
PetscErrorCode SpeedModuleCreate(const Params *prm, SimModule *m, PetscBool *on);
