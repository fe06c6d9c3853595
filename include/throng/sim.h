/* sim — one simulation: parameters, decomposition, disks, cells, halo, driver, walls. */
#pragma once
#include <throng/options.h>
#include <throng/domain.h>
#include <throng/particles.h>
#include <throng/cells.h>
#include <throng/halo.h>
#include <throng/migrate.h>
#include <throng/drivers.h>
#include <throng/walls.h>
#include <throng/digest.h>
#include <throng/idorder.h>

#include <throng/solver.h>
#include <throng/crowd.h>
#include <throng/balance.h>

typedef struct {
  Params    prm;
  Domain    dom;
  Particles P;
  Cells     cells;
  Halo      halo;
  Migrator  mig;
  Driver    drv;
  Walls     walls;
  char     *wallMask;  /* per local cell: may a disk there touch a wall?          */
  PetscReal rmax;
  PetscReal time;
  PetscInt  step;
  /* statistics */
  PetscInt   rebins;
  PetscInt64 pairChecks;   /* candidate pair evaluations on this rank                  */
  PetscReal  sweepDisp;    /* largest |q - q_bin| after a sweep since the last report   */
  PetscReal  ovlMax;       /* largest overlap measured at the progress samples          */
  PetscInt   ovlSamples;   /* ... how many (every -progress K steps, also with -quiet)  */
  PetscInt   ovlStep;      /* the step of the last sample (-1: none)                   */
  Digest     idPrint;      /* id-set fingerprint, for -check_conservation               */
  PetscReal  control;      /* set before a step, max-reduced by it: 1 checkpoint, 2 stop */
  SolverStats sol;
  Crowd       crowd;         /* -geometry: walkable area, eikonal field, exits        */
  Balance     bal;           /* load checks and repartitions (balance.c)              */
} Sim;

/* Collective. Sets up everything from prm and creates the initial disks. */
PetscErrorCode SimCreate(MPI_Comm comm, const Params *prm, Sim *s);
/* Collective. Everything but the disks (for a restart: then CheckpointRead). */
PetscErrorCode SimSetUp(MPI_Comm comm, const Params *prm, Sim *s);
/* Collective. Disks from records (any rank), binned at their stored binning positions. */
PetscErrorCode SimRestore(Sim *s, PetscInt count, const IoRec *recs, PetscInt step, PetscReal time);
PetscErrorCode SimDestroy(Sim *s);
/* Rebin (migrate, bin, rebuild ghosts) from the current positions. Collective. */
PetscErrorCode SimRebin(Sim *s);
/* Largest overlap of any pair or wall (absolute length), over all ranks. Collective. */
PetscErrorCode SimMaxOverlap(Sim *s, PetscReal *ovl);
/* Conservation check (no-op unless -check_conservation). Collective. */
PetscErrorCode SimCheckConservation(Sim *s);
PetscErrorCode SimRegisterEvents(void);
/* balance.c: at a rebinning, after migration: measure the imbalance, and repartition
   (new cuts, disks routed to their new owners) when -balance_threshold says so.
   Collective.  BalanceReport: the summary line, and PREFIX.balance.csv if writeFile. */
PetscErrorCode SimBalance(Sim *s);
PetscErrorCode BalanceReport(Sim *s, PetscBool writeFile);
/* Initial overlaps beyond -init_overlap_tol: an error, or projected away by sweeps
   (-init_overlap project), as the options say. Collective. */
PetscErrorCode SimResolveInitialOverlaps(Sim *s);

/* crowd.c: set up (geometry, eikonal field, desired velocity), check the agents,
   remove those that reached an exit (collective; rebins if any left), final report   */
PetscErrorCode CrowdSetUp(Sim *s);
PetscErrorCode CrowdCheckAgents(Sim *s);
/* Initial-condition filter: (x, y) inside the walkable area, margin from every wall. */
PetscBool      CrowdSiteOK(void *ctx, PetscReal x, PetscReal y, PetscReal margin);
PetscErrorCode CrowdExits(Sim *s);
/* Line sensors: look for crossings since the last mark (before a rebin; CrowdExits),
   and mark the owned agents' positions (after a rebin, after a restart).             */
PetscErrorCode CrowdSensorsAdvance(Sim *s);
PetscErrorCode CrowdSensorsMark(Sim *s);
PetscErrorCode CrowdDestroy(Sim *s);
/* The desired direction at (x, y): down the travel-distance field, or straight on
   through a door whose line the agent has passed (-exit_rule pass with csm). */
void           CrowdDirection(const Crowd *c, PetscReal x, PetscReal y, PetscReal *wx, PetscReal *wy);
/* The exit segment an agent at (x, y) has gone through (-1: none), *out its distance
   beyond the door's line. */
PetscInt       CrowdExitBeyond(const Crowd *c, PetscReal x, PetscReal y, PetscReal *out);
/* The area an agent may be in, as WKT (PetscFree it): the walkable area and, when agents
   walk on through the doors, each door's lane between its jambs' extensions. */
PetscErrorCode CrowdAreaWKT(const Sim *s, char **wkt);
/* Add the exit and sensor records to a state digest (all agents may have left). Collective. */
PetscErrorCode CrowdDigest(const Sim *s, Digest *dg);
/* After every rebin (and a restore): what the crowd keeps per binning. Collective. */
PetscErrorCode CrowdRebinned(Sim *s);

/* csm.c: the collision-free speed model (-crowd_model csm) */
PetscReal      CsmRange(const Params *prm);
PetscErrorCode CsmSetUp(Sim *s);
PetscErrorCode CsmRebinned(Sim *s);
PetscErrorCode CsmDestroy(Csm *m);
PetscErrorCode CsmCheckReach(Sim *s);

/* solver.c: one step of the stepper chosen by -solver; summary and monitor lines */
PetscErrorCode SolverStep(Sim *s);
PetscErrorCode SolverReport(Sim *s);
PetscErrorCode SolverDestroy(Sim *s);
/* s->sol.save holds at least 2 reals per owned disk (contents not kept). */
PetscErrorCode SolverScratch(Sim *s);

/* pbd.c */
/* One PBD step: prediction, then ONE colour-ordered sweep over all constraints. */
PetscErrorCode PBDStep(Sim *s);
/* PNGS (seed 000 eq. 108): prediction, then sweeps until one changes the state by at
   most atol + rtol max|q| (max norm, reduced over all ranks). */
PetscErrorCode PNGSStep(Sim *s);
/* Prediction and the rebin-or-reset that precedes a sweep (first half of PBDStep). */
PetscErrorCode PBDPredict(Sim *s);
/* After a step that moved owned disks by other means than sweeps: reduce the largest
   distance from the binning position (with s->control), rebin or refresh the ghosts. */
PetscErrorCode PBDSettle(Sim *s);

/* penalty.c: explicit Euler on seed 000 eq. 107 */
PetscErrorCode PenaltyStep(Sim *s);

/* pgs.c: the catching-up scheme, linearised and PETSc-assembled (seed 001 eq. 10) */
PetscErrorCode PGSStep(Sim *s);
/* One sweep with no prediction (h = 0). Collective. */
PetscErrorCode PBDSweep(Sim *s);
/* Fold the displacement left by the last sweep into s->sweepDisp. Collective. */
PetscErrorCode PBDFinishDisplacement(Sim *s);
/* Repeat sweeps until the largest overlap is <= tol; reports the sweeps made. */
PetscErrorCode PBDRelax(Sim *s, PetscReal tol, PetscInt maxSweeps, PetscInt *nsweeps, PetscReal *ovl);

/* edmd_run.c: a whole -solver edmd run (replicas over the ranks of comm). Collective. */
PetscErrorCode EDMDRun(MPI_Comm comm, const Params *prm, PetscInt *exitCode);

/* report.c */
PetscErrorCode ReportProgress(Sim *s, PetscLogDouble t0, PetscInt step0, PetscBool force);
PetscErrorCode ReportMap(Sim *s, PetscInt nx, PetscInt ny);
PetscErrorCode ReportResidentBytes(PetscBool peak, PetscReal *bytes);
