/* pbd — the sweep of projections and the steps built on it (pbd.c), shared by the steppers
   pbd, pngs, penalty and pgs and by the set-up's overlap relaxation. */
#pragma once
#include <throng/sim.h>

/* Prediction and the rebin-or-reset that precedes a sweep (the first half of a PBD step). */
PetscErrorCode PBDPredict(Sim *s);
/* Rebin if a disk is further than -rebin_fraction x skin from its binning position
   (a stepper that moves disks more than once per step: pbdw). Collective. */
PetscErrorCode PBDRebinIfFar(Sim *s);
/* One colour-ordered sweep with no prediction (h = 0). Collective. */
PetscErrorCode PBDSweep(Sim *s);
/* After a step that moved owned disks by other means than sweeps: reduce the largest
   distance from the binning position (with s->control), rebin or refresh the ghosts. */
PetscErrorCode PBDSettle(Sim *s);
/* Fold the displacement left by the last sweep into s->sweepDisp. Collective. */
PetscErrorCode PBDFinishDisplacement(Sim *s);
/* A sweep in the same order with another operation per cell: cell(s, ctx, k) for every
   owned local cell k, colour by colour, with the halo exchanges between. Collective. */
typedef void (*PBDCellFn)(Sim *s, void *ctx, PetscInt k);
PetscErrorCode PBDSweepCells(Sim *s, PBDCellFn cell, void *ctx, PetscBool reverse);
/* Repeat sweeps until the largest overlap is <= tol; reports the sweeps made. */
PetscErrorCode PBDRelax(Sim *s, PetscReal tol, PetscInt maxSweeps, PetscInt *nsweeps, PetscReal *ovl);
