/* sim — one simulation: parameters, decomposition, disks, cells, halo, driver, walls. */
#pragma once
#include <throng/util/params.h>
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

#include <throng/core/digest.h>
#include <hdf5.h>

typedef struct Sim Sim;

/* A module plugged into the loop (modules.c lists them; crowd.c is one).  The core calls
   its hooks at fixed points and never names the module; ctx is the module's own state.
   Every hook may be NULL.                                                              */
typedef struct {
  const char *name;
  void       *ctx;
  /* set-up: may an initial disk sit at (x, y) (margin: its radius)? the first module
     with a filter decides; then the initial disks exist, binned with their ghosts      */
  PetscErrorCode (*setUp)(Sim *, void *); /* after the driver, before the walls   */
  PetscBool (*siteOK)(const Sim *, void *, PetscReal x, PetscReal y, PetscReal margin);
  PetscErrorCode (*created)(Sim *, void *);
  PetscErrorCode (*restored)(Sim *, void *);    /* a checkpoint's disks are binned      */
  PetscErrorCode (*beforeStep)(Sim *, void *);  /* before a step's prediction (deform.c) */
  PetscErrorCode (*beforeRebin)(Sim *, void *); /* before migration moves any disk      */
  PetscErrorCode (*afterRebin)(Sim *, void *);  /* after the binning and the ghosts     */
  /* after every step (it may remove disks: then s->ndisks falls); *stop: why the run
     must end now, or left NULL                                                        */
  PetscErrorCode (*stepEnd)(Sim *, void *, const char **stop);
  PetscErrorCode (*finish)(Sim *, void *, PetscBool writeFiles, hid_t file, hid_t dxpl);
  PetscErrorCode (*checkpointWrite)(const Sim *, void *, hid_t grp, hid_t dxpl);
  PetscErrorCode (*checkpointRead)(Sim *, void *, hid_t grp, const char *path);
  PetscErrorCode (*digest)(const Sim *, void *, Digest *); /* records beyond the disks  */
  /* state kept outside the fields during the steps, written back into them before a
     checkpoint or a digest reads them and before the stepEnd hooks, which may remove,
     add or reorder disks (warm.c's multipliers); not collective                      */
  PetscErrorCode (*sync)(const Sim *, void *);
  /* the simulated time the module expects the run still to need before it ends it
     (a crowd's last agents out), < 0 unknown; for the progress line's ETA (rank 0)  */
  PetscReal (*timeLeft)(const Sim *, void *);
  PetscErrorCode (*destroy)(Sim *, void *);
} SimModule;
#define SIM_MAX_MODULES 5

#define SIM_MODULES_CALL(s, hook) \
  do { \
    for (PetscInt k_ = 0; k_ < (s)->nmod; k_++) \
      if ((s)->mod[k_].hook) PetscCall((s)->mod[k_].hook((s), (s)->mod[k_].ctx)); \
  } while (0)
/* A module's create function: from the options, whether the run has the module (*on),
   and its hooks. */
typedef PetscErrorCode (*SimModuleCreate)(const Params *, SimModule *, PetscBool *);
/* Add a module to the modules every run looks at (app/register.c calls it, once per
   module, before any Sim is set up; the order of the calls is the order of the hooks, on
   every rank).  Not collective. */
PetscErrorCode SimModuleRegister(const char *name, SimModuleCreate create);

/* The contact stress of the recorded steps (-stress, -contact_output, -barostat): the
   recording is granular/contacts.c's, the sums are made in the sweeps (core/stress.c). */
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
  PetscReal      ovlMax;     /* largest overlap measured at the progress samples          */
  PetscInt       ovlSamples; /* ... how many (every -progress K steps, also with -quiet)  */
  PetscInt       ovlStep;    /* the step of the last sample (-1: none)                   */
  PetscReal     *saveX, *saveY; /* where the last sweep left the disks (and ghosts): kept
                                   by the prediction for that check (pbd.c)             */
  PetscInt       saveCap;
  PetscBool      speedKept;  /* speed.c: a measured step rebinned, and its module kept the
                                disks' ids in their order before it (positions: saveX, saveY) */
  PetscInt64    *speedId;    /* ... there, when an id does not fit 32 bits (else NULL)    */
  PetscInt       speedN;     /* ... how many disks the step started with                  */
  PetscInt       speedMark;  /* the step after which SpeedMark kept them (-1: none)       */
  PetscInt       speedStep;  /* the step whose speeds were measured last (-1: none)       */
  PetscReal      rmsSpeed, maxSpeed; /* ... its RMS and largest speed (length per unit time) */
  PetscInt64     speedLeftOut;       /* ... disks that changed rank within it, not measured  */
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
/* saveX, saveY hold at least the owned disks and ghosts, and least entries (the
   prediction's scratch). */
PetscErrorCode SimSaveReserve(Sim *s, PetscInt least);
/* Conservation check (no-op unless -check_conservation). Collective. */
PetscErrorCode SimCheckConservation(Sim *s);
PetscErrorCode SimRegisterEvents(void);
/* The stepper of -solver (core/solver.c holds the registry): one step, then the clock
   (step, time), the loop's call (collective); its summary line (collective); scratch of
   at least 2 reals per owned disk in s->sol.save (contents not kept). */
PetscErrorCode SimStep(Sim *s);
PetscErrorCode SimSolverReport(Sim *s);
PetscErrorCode SimScratch(Sim *s);
