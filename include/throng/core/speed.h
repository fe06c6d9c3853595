/* speed — the RMS speed of the disks over one step, for the progress and summary lines
   (see the essay at the top of src/core/speed.c). */
#pragma once
#include <throng/core/sim.h>

/* The two fields that keep the positions at the start of a step (registered by
   SimCreate, sim.c; s->speedK).  Their arrays (owned disks and ghosts; valid until the next ParticlesReserve): the
   prediction (pbd.c) writes where the last sweep left each disk into them. */
static inline PetscReal *SpeedSavedX(const Sim *s) { return (PetscReal *)ParticlesField(&s->P, s->speedK[0]); }
static inline PetscReal *SpeedSavedY(const Sim *s) { return (PetscReal *)ParticlesField(&s->P, s->speedK[1]); }
/* Before a step that is to be measured: keep every owned disk's position. */
void SpeedMark(Sim *s);
/* After that step (before the modules may remove disks): the RMS and the largest speed,
   |x_{k+1} - x_k| / dt over all disks, into s->rmsSpeed, s->maxSpeed, s->speedStep. */
PetscErrorCode SpeedMeasure(Sim *s);
