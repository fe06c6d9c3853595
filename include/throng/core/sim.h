/* sim — one simulation: parameters, decomposition, disks, cells, halo, driver, walls. */
#pragma once
#include <throng/app/options.h>
#include <throng/core/domain.h>
#include <throng/core/particles.h>
#include <throng/core/cells.h>
#include <throng/core/halo.h>
#include <throng/core/migrate.h>
#include <throng/core/drivers.h>
#include <throng/core/walls.h>
#include <throng/core/digest.h>
#include <throng/core/idorder.h>

#include <throng/core/solver.h>
#include <throng/core/geometry.h>
#include <throng/core/balance.h>

#include <throng/core/modules.h>
#include <throng/granular/contacts.h>

struct Sim {
  Params    prm;
  Domain    dom;
  Particles P;
  Cells     cells;
  Halo      halo;
  Migrator  mig;
  Driver    drv;
  Walls     walls;
  char     *wallMask; /* per local cell: may a disk there touch a wall?          */
  PetscReal rmax;
  PetscReal time;
  PetscInt  step;
  /* statistics */
  PetscInt       rebins;
  PetscInt64     pairChecks;    /* candidate pair evaluations on this rank                  */
  PetscReal      sweepDisp;     /* largest |q - q_bin| after a sweep since the last report   */
  PetscInt       skinStep;      /* the first step whose sweep ended skin/2 or more from the
                                binning and that missed a pair or could not be checked
                                (-1: none): main.c stops the run (pbd.c)                */
  PetscReal      skinDisp;      /* ... how far                                              */
  PetscInt64     skinMissed;    /* ... the pairs it missed                                 */
  PetscInt64     skinChecks;    /* sweeps that ended beyond skin/2, each checked (pbd.c)    */
  PetscReal     *saveX, *saveY; /* where the last sweep left the disks (and ghosts): kept
                                   by the prediction for that check (pbd.c)             */
  PetscInt       saveCap;
  PetscReal      ovlMax;     /* largest overlap measured at the progress samples          */
  PetscInt       ovlSamples; /* ... how many (every -progress K steps, also with -quiet)  */
  PetscInt       ovlStep;    /* the step of the last sample (-1: none)                   */
  Digest         idPrint;    /* id-set fingerprint, for -check_conservation               */
  PetscReal      control;    /* set before a step, max-reduced by it: 1 checkpoint, 2 stop */
  SolverStats    sol;
  SolverOps      ops;    /* the stepper of -solver (solver.c)                     */
  Geometry       geom;   /* -geometry: walls, and a crowd's walkable area and exits */
  PetscInt64     ndisks; /* disks in the scene, all ranks (modules may remove some) */
  PetscInt       nmod;
  SimModule      mod[SIM_MAX_MODULES]; /* modules.c                                     */
  Balance        bal;                  /* load checks and repartitions (balance.c)              */
  PetscBool      regrid;               /* the next rebinning makes a new cell grid for box (deform.c) */
  PetscReal      regridBox[4];
  PetscBool      reroute;    /* ... and every disk may go to any rank (a flip of the tilt) */
  Stress         stress;     /* -stress: the recorded contact stress (contacts.c)      */
  PetscLogDouble busy;       /* prediction and sweep seconds since the last balance check */
  char           fail[2048]; /* set by a module that ended the run (its stepEnd's stop): the run
                                fails with this error once its summary, records and checkpoint
                                are written (stall.c); "" otherwise                            */
};

/* Collective. Sets up everything from prm and creates the initial disks. */
PetscErrorCode SimCreate(MPI_Comm comm, const Params *prm, Sim *s);
/* Collective. Everything but the disks (for a restart: then CheckpointRead). */
PetscErrorCode SimSetUp(MPI_Comm comm, const Params *prm, Sim *s);
/* Collective. Disks from records of the checkpointed fields (any rank), binned at their
   stored binning positions. */
PetscErrorCode SimRestore(Sim *s, const IoRecs *recs, PetscInt step, PetscReal time);
PetscErrorCode SimDestroy(Sim *s);
/* Rebin (migrate, bin, rebuild ghosts) from the current positions. Collective. */
PetscErrorCode SimRebin(Sim *s);
/* A new cell grid and decomposition for the box (x0, y0, x1, y1), the disks routed to
   their new owners, binned, with ghosts: a rebinning (SimRebin) that moves the box.
   Collective. */
PetscErrorCode SimRegrid(Sim *s, const PetscReal box[4]);
/* The pairs and walls that overlap now among the candidates of the current binning, the
   sum over all ranks (an integer: the same on any rank count). Collective. */
PetscErrorCode SimCountContacts(Sim *s, PetscInt64 *count);
/* Largest overlap of any pair or wall (absolute length), over all ranks. Collective. */
PetscErrorCode SimMaxOverlap(Sim *s, PetscReal *ovl);
/* Conservation check (no-op unless -check_conservation). Collective. */
PetscErrorCode SimCheckConservation(Sim *s);
PetscErrorCode SimRegisterEvents(void);
/* Initial overlaps beyond -init_overlap_tol: an error, or projected away by sweeps
   (-init_overlap project), as the options say. Collective. */
PetscErrorCode SimResolveInitialOverlaps(Sim *s);
