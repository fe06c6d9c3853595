/* stall — a crowd that no longer moves ends the run with an error (see
   src/crowd/stall.c).  A part of the crowd: its state (Stall) is the crowd's. */
#pragma once
#include <throng/crowd/crowd.h>
#include <throng/util/opt.h>

/* -stall_time and -stall_distance (options.c calls it; a crowd's options). */
PetscErrorCode StallSetFromOptions(Opt *o);
/* The fields, before any disk exists (crowd_module.c's set-up). */
PetscErrorCode StallSetUp(Sim *s, Stall *st);
/* At the end of a step, after the exits, links and sources (collective): if a check is
   due, either the window starts again (progress) or, when nothing has moved for
   -stall_time, the run stops: *stop is set and s->fail holds the error (where the
   agents are stuck), raised by main.c once the summary, the records and a checkpoint
   are written. */
PetscErrorCode StallStep(Sim *s, Stall *st, const char **stop);
/* The simulated time the crowd still needs at its recent outflow (< 0: unknown), for
   the progress line's ETA (rank 0's value is used). */
PetscReal      StallTimeLeft(const Sim *s, Stall *st);
PetscErrorCode StallCheckpointWrite(const Sim *s, const Stall *st, hid_t grp);
PetscErrorCode StallCheckpointRead(Sim *s, Stall *st, hid_t grp, const char *path);
