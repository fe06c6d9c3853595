/* contacts — contact forces and the stress they carry (-stress). */
#pragma once
#include <throng/app/optdecl.h>

/* One contact of a recorded step, from end a to end b: a pair (ida, idb the disks' ids),
   or a wall and a disk (ida = -1 - the wall's index, a the contact point, b the disk).
   d is the displacement the contact gave end b over the step (force d / h on b, -d / h
   on a), l = b - a the branch vector; i is the local index of the owned disk (a for a
   pair, b for a wall), whose position after the step draws the contact.               */
typedef struct {
  PetscInt64 ida, idb;
  PetscReal  dx, dy, lx, ly;
  PetscInt   i;
} ContactRec;

typedef struct {
  PetscBool   on;    /* the next step's sweeps are recorded (pbd.c)                     */
  PetscBool   print; /* ... and it is a progress step: the stress line (-stress)          */
  PetscBool   rec;   /* ... and each contact is kept (-contact_output, contact_output.c) */
  ContactRec *c;     /* the kept contacts, merged and sorted by (ida, idb) after the step */
  PetscInt    nc, capc;
  PetscInt    recStep; /* the step they belong to (-1: none)                              */
  PetscBool   recFail; /* a failed allocation while recording, raised after the sweep     */
  /* the last printed sample, for the snapshot file's time series (io_h5md.c):
     sigma_xx, sigma_xy, sigma_yx, sigma_yy, p, phi, z, z_nr, nr, and its step (-1: none) */
  PetscReal  sample[9];
  PetscInt   sampleStep;
  PetscReal  S[4];  /* this rank's sum of Delta_j (x) l over the recorded projections   */
  PetscReal *band;  /* the same per horizontal band, 4 per band                           */
  PetscInt64 nproj; /* recorded projections that moved a disk                          */
  /* -barostat (barostat.c): this rank's sum of Delta . l along the deformed axes, each
     projection rounded to units of 2^-32 r_max^2 (an exact sum over the ranks)        */
  PetscBool baro;
  PetscReal baroW[2], baroScale;
  uint64_t  baroSum;
} Stress;

typedef struct Sim Sim;

/* -stress, -stress_bands (RUN options: recording does not change a bit of the run). */
PetscErrorCode StressSetFromOptions(Opt *o);
PetscErrorCode StressCheck(MPI_Comm comm, const Params *p);
/* Does the stepper record its contact forces (pbd, pngs, pbdw, penalty)? */
PetscBool StressRecords(const char *solver);
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
/* A wall contact of the owned disk i: it moved the disk from (x0, y0) to (x, y) (force
   (x - x0, y - y0) / h), r its radius; wall = the wall's index (walls, then segments). */
void StressAddWall(Sim *s, PetscInt i, PetscInt64 wall, PetscReal x0, PetscReal y0, PetscReal x, PetscReal y,
                   PetscReal r);
/* The same, also kept as a contact record when rec is on: i the owned disk's local index,
   ida and idb the ends' ids (ContactRec).                                              */
void StressAddContact(Sim *s, PetscInt i, PetscInt64 ida, PetscInt64 idb, PetscReal dx, PetscReal dy, PetscReal lx,
                      PetscReal ly, PetscReal ym);
