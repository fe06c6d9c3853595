/* stall — a crowd that no longer moves ends the run with an error (see src/stall.c). */
#pragma once
#include <throng/app/optdecl.h>
#include <hdf5.h>

typedef struct Sim Sim;

typedef struct {
  PetscBool  on;
  PetscReal  time;      /* -stall_time: the window (s of simulated time; 0: off)        */
  PetscReal  dist;      /* -stall_distance: movement that counts as progress (m)        */
  PetscReal  every;     /* a check every this many seconds of simulated time            */
  PetscInt   kx, ky;    /* the per-disk fields stall_x, stall_y: each agent at tref      */
  PetscReal  tref;      /* the window's start: the last check that saw progress         */
  PetscInt64 sig[3];    /* agents inside, arrivals, link passages at tref               */
  PetscInt64 checked;   /* index of the last check, floor(t / every); -1: none yet      */
  PetscReal  eta[2][8]; /* progress lines' (time, agents inside), a ring, for the ETA */
  PetscInt   neta;
} Stall;

/* -stall_time and -stall_distance (options.c calls it; a crowd's options). */
PetscErrorCode StallSetFromOptions(Opt *o);
/* The fields, before any disk exists (crowd.c's set-up). */
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
