/* pbd — the sweep of projections and the steps built on it (pbd.c), shared by the steppers
   pbd, pngs, penalty and pgs and by the set-up's overlap relaxation. */
#pragma once
#include <throng/core/sim.h>

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
/* A reduced displacement from the binning after a sweep, into s->sweepDisp. */
void PBDNoteDisplacement(Sim *s, PetscReal disp);
/* The displacement left by the last sweep, into s->sweepDisp; at skin/2 or more the
   sweep is checked for missed pairs (s->skinStep), and the disks are rebinned: call it
   only after the run's last step and its last files. Collective. */
PetscErrorCode PBDFinishDisplacement(Sim *s);
/* A sweep in the same order with another operation per cell: cell(s, ctx, k) for every
   owned local cell k, colour by colour, with the halo exchanges between. Collective. */
typedef void (*PBDCellFn)(Sim *s, void *ctx, PetscInt k);
PetscErrorCode PBDSweepCells(Sim *s, PBDCellFn cell, void *ctx, PetscBool reverse);
/* The same, with a pair of per-disk sums (ax, ay) that the cell function adds to (for
   ghosts too) and that ride the halo exchanges between the colours (halo.h:
   HaloForwardPair), so that every owner ends with its sum, bitwise as on one rank. */
typedef struct {
  PetscReal *ax, *ay, *aref;
} PBDPair;
PetscErrorCode PBDSweepCellsPair(Sim *s, PBDCellFn cell, void *ctx, PetscBool reverse, const PBDPair *pair);
/* The same colour loop with a tile function of the caller's: tile(s, ctx, tx, ty,
   reverse) must visit the tile's cells in an order equivalent to PBDSweepCells's (rows of
   one parity are independent: warm.c runs two of them as two lanes). */
typedef void (*PBDTileFn)(Sim *s, void *ctx, PetscInt tx, PetscInt ty, PetscBool reverse);
PetscErrorCode PBDSweepTilesPair(Sim *s, PBDTileFn tile, void *ctx, PetscBool reverse, const PBDPair *pair);
/* Repeat sweeps until the largest overlap is <= tol; reports the sweeps made. */
PetscErrorCode PBDRelax(Sim *s, PetscReal tol, PetscInt maxSweeps, PetscInt *nsweeps, PetscReal *ovl);
/* Initial overlaps beyond -init_overlap_tol: an error, or projected away by sweeps
   (-init_overlap project), as the options say. Collective. */
PetscErrorCode PBDResolveInitialOverlaps(Sim *s);
/* The steppers of this file (app/register.c registers them). */
PetscErrorCode SolverCreate_PBD(SolverOps *ops);
PetscErrorCode SolverCreate_PNGS(SolverOps *ops);
