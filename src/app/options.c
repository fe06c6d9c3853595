/* options — every run-time parameter, read in one place: the composition.
 *
 * Options come from PETSc's options database: the command line, the PETSC_OPTIONS
 * environment variable, and a YAML config file given with -options_file_yaml FILE
 * (config.c).  Precedence: command line over config file over the defaults
 * (util/params.c).  ProcessOptions has each module read its own options with the helpers
 * of util/opt.c (XxxSetFromOptions, in the module's file where it has one), in a fixed
 * order, then runs the checks across modules and derives the defaults that depend on
 * several modules' options.
 *
 * Any option left unused after ProcessOptions() is an error that names it: a misspelt
 * option must not silently run a different experiment.                                   */
#include <throng/app/options.h>
#include <throng/app/register.h>
#include <throng/util/opt.h>
#include <string.h>
#include <stdlib.h>
#include <errno.h>
#include <limits.h>
#include <throng/core/init.h>
#include <throng/core/solver.h>
#include <throng/core/geometry.h>
#include <throng/util/files.h>
#include <throng/core/periodic.h>
#include <throng/granular/contacts.h>
#include <throng/granular/contact_output.h>
#include <throng/granular/deform.h>
#include <throng/granular/barostat.h>
#include <throng/crowd/stall.h>
#include <throng/crowd/population.h>
#include <throng/crowd/zone.h>
#include <throng/crowd/source.h>
#include <throng/crowd/floors.h>
#include <throng/crowd/crowd_module.h>

static const char *const InitKinds[]       = {"lattice", "jitter", "uniform", "file", "InitKind", "INIT_", NULL};
static const char *const OverlapPolicies[] = {"error", "project", "OverlapPolicy", "OVERLAP_", NULL};

/* ---- Options of each module ---------------------------------------------------------
 * ProcessOptions reads the options module by module (XxxSetFromOptions), then checks
 * them and derives the defaults that depend on other modules' options (XxxCheck, then
 * SizeTheBox).  Given records which options were given explicitly: a crowd's radius
 * and time step, the box from the geometry, ... are defaults that only apply then.   */
typedef struct {
  PetscBool box, region, center, n, tile, radius, poly, dt, gravity;
} Given;

static PetscErrorCode DisksSetFromOptions(Opt *o, Given *g)
{
  Params *p = o->p;
  PetscFunctionBeginUser;
  PetscCall(OptInt64(o, OPT_RUN, "-n", "Number of disks (with -init file: the file's)", &p->n, &g->n));
  PetscCall(OptReal(o, OPT_PHYS, "-radius", "Mean disk radius (default 0.5; 0.15 m for a crowd: -geometry with -walk)",
                    &p->radius, &g->radius));
  PetscCall(OptReal(o, OPT_PHYS, "-polydispersity",
                    "Radii uniform in [R(1-p), R(1+p)], 0 <= p < 1 (default 0.2; 0 for a crowd)", &p->poly, &g->poly));
  PetscCall(OptReal(o, OPT_PHYS, "-bidisperse",
                    "Radii R (even ids) and q R (odd ids): the 50:50 mixture of jamming studies, q = 1.4 (0: off)",
                    &p->bidisperse, NULL));
  if (p->bidisperse > 0 && !g->poly) p->poly = 0; /* two sizes, not a range */
  PetscCall(OptReal(o, OPT_PHYS, "-dt", "Time step h (default 0.001; 0.02 s for a crowd)", &p->dt, &g->dt));
  PetscCall(OptInt(o, OPT_RUN, "-steps", "Number of time steps", &p->steps, NULL));
  PetscCall(
    OptInt64(o, OPT_PHYS, "-seed", "Seed of every random stream (initial state, free speeds, noise)", &p->seed, NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode DomainSetFromOptions(Opt *o, Given *g)
{
  Params *p = o->p;
  PetscFunctionBeginUser;
  PetscCall(OptReals(o, OPT_PHYS, "-box",
                     "Decomposed box x0,y0,x1,y1 (default: sized from -n, ~25 layers deep when settled)", 4, p->box,
                     NULL, 1, NULL, &g->box));
  PetscCall(OptBool(o, OPT_PHYS, "-wall_box", "The box edges are walls", &p->wallBox));
  PetscCall(OptReals(o, OPT_PHYS, "-halfplanes", "Half-plane walls nx,ny,b,...: disks kept in n.q >= b + r",
                     3 * THRONG_MAX_HALFPLANES, p->half, &p->nhalf, 3, "nx,ny,b", NULL));
  PetscCall(OptReal(o, OPT_PHYS, "-skin", "Cell edge = 2 r_max + skin (default 0.2 r_max)", &p->skin, NULL));
  PetscCall(OptReal(o, OPT_PHYS, "-rebin_fraction", "Rebin when a prediction moved a disk this fraction of the skin",
                    &p->rebin, NULL));
  PetscCall(OptInt(o, OPT_PHYS, "-tile",
                   "Tile edge in cells (>= 2): the unit of the colour-ordered sweep (default: the largest <= 16 that "
                   "makes >= 16 tiles; never depends on the rank count)",
                   &p->tile, &g->tile));
  PetscCall(OptInts(o, OPT_RUN, "-rank_grid", "Ranks along x and y (default: the shortest halo)", 2, p->grid, NULL));
  PetscCall(OptReal(o, OPT_RUN, "-balance_threshold",
                    "Repartition the rank blocks when the work's max/mean over the ranks passes this (0: never); "
                    "results are bitwise the same either way",
                    &p->balance, NULL));
  PetscCall(OptInt(o, OPT_RUN, "-balance_interval", "Rebinnings between two attempts to repartition",
                   &p->balanceInterval, NULL));
  PetscCall(OptReal(o, OPT_RUN, "-balance_cell_weight",
                    "The work of a cell relative to a disk's (empty cells still cost a sweep visit)", &p->balanceCell,
                    NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The stepper (its name must be registered: solver.c) and the options of the steppers. */
static PetscErrorCode SolverSetFromOptions(Opt *o, SolverOps *ops)
{
  Params *p = o->p;
  PetscFunctionBeginUser;
  PetscCall(ThrongRegisterAll());
  PetscCall(OptString(o, OPT_PHYS, "-solver", SolverHelp(), p->solver, sizeof(p->solver), NULL));
  PetscCall(SolverGetOps(o->comm, p->solver, ops)); /* an unknown name: one error now */
  PetscCall(OptReal(o, OPT_PHYS, "-solver_rtol",
                    "pngs/pgs: stop when the change (pngs) or complementarity residual (pgs) <= atol + rtol * scale",
                    &p->rtol, NULL));
  PetscCall(OptReal(o, OPT_PHYS, "-solver_atol", "pngs/pgs: absolute tolerance of the stopping rule", &p->atol, NULL));
  PetscCall(OptInt(o, OPT_PHYS, "-solver_max_it", "pngs/pgs: iteration limit per step", &p->maxIt, NULL));
  PetscCall(OptReal(o, OPT_PHYS, "-pbdw_warm",
                    "pbdw: fraction of the warm start (last step's constraint displacements and multipliers) carried "
                    "(0: PBD's sweep)",
                    &p->warm, NULL));
  PetscCall(OptReal(o, OPT_PHYS, "-pbdw_blend",
                    "pbdw: kappa; a disk's warm start is its last constraint displacement D blended with its "
                    "multipliers along the current normals G, weight min(1, kappa r / largest multiplier) on G "
                    "(docs/algorithm.md)",
                    &p->warmBlend, NULL));
  PetscCall(OptInt(o, OPT_PHYS, "-pbdw_sweeps",
                   "pbdw: 2 (the default), the symmetric step: the warm start's sums in a pass of their own, a "
                   "forward and an exactly backward sweep; 1, one forward sweep that also sums the next warm "
                   "start: 2.3 times cheaper, but unstable in wide piles (docs/algorithm.md, \"Wide piles\")",
                   &p->warmSweeps, NULL));
  PetscCall(
    OptReal(o, OPT_PHYS, "-penalty_gamma", "penalty: parameter gamma of seed 000 eq. 107 (1/time)", &p->penalty, NULL));
  PetscCall(OptReal(o, OPT_PHYS, "-pgs_active",
                    "pgs: linearise the pairs and walls with a gap below this (default: the skin)", &p->active, NULL));
  PetscCall(OptBool(
    o, OPT_PHYS, "-pgs_tao",
    "pgs: solve the dual QP with PETSc TAO (choose with -tao_type, default tron) instead of projected Gauss-Seidel",
    &p->tao));
  PetscCall(OptBool(o, OPT_RUN, "-solver_monitor",
                    "Print the iterations, residual and complementarity gap of every step", &p->monitor));
  PetscCall(OptReal(o, OPT_PHYS, "-edmd_temperature",
                    "edmd: kT of the Maxwell-Boltzmann velocities (masses (r/radius)^2)", &p->kT, NULL));
  PetscCall(OptBool(o, OPT_PHYS, "-edmd_periodic", "edmd: periodic box (else the box has walls)", &p->periodic));
  PetscCall(OptBool(o, OPT_RUN, "-edmd_brute", "edmd: predict against every disk, O(N) per event (the test oracle)",
                    &p->brute));
  PetscCall(OptReal(o, OPT_RUN, "-edmd_equilibrate", "edmd: pressure statistics start at this time", &p->equil, NULL));
  PetscCall(OptString(o, OPT_RUN, "-edmd_log",
                      "edmd: write every collision and wall bounce, in order, to this file (replica 0)", p->edmdLog,
                      sizeof(p->edmdLog), NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The driver f; a crowd walks on level ground, with agents of the calibrated size
   (docs/crowd.md), all alike: its defaults of gravity, radius, time step and
   polydispersity. */
static PetscErrorCode DriverSetFromOptions(Opt *o, Given *g)
{
  Params *p = o->p;
  PetscFunctionBeginUser;
  PetscCall(OptReal(o, OPT_PHYS, "-attract_gamma", "Attraction f = -gamma (q - c)", &p->gamma, NULL));
  PetscCall(OptReals(o, OPT_PHYS, "-attract_center", "Centre c of the attraction (default: box centre)", 2, p->center,
                     NULL, 1, NULL, &g->center));
  PetscCall(OptReals(o, OPT_PHYS, "-gravity", "Constant field gx,gy (default 0,-1; 0,0 with -geometry)", 2, p->gravity,
                     NULL, 1, NULL, &g->gravity));
  PetscCall(
    OptReal(o, OPT_PHYS, "-noise",
            "Brownian noise: diffusion coefficient D (length^2/time); each step adds sqrt(2 D h) N(0,1) per coordinate",
            &p->noise, NULL));
  if (!g->gravity && p->geometry[0] && p->walk) p->gravity[0] = p->gravity[1] = 0; /* a crowd walks, it does not fall */
  if (p->geometry[0] && p->walk) {
    if (!g->radius) p->radius = 0.15;
    if (!g->dt) p->dt = 0.02;
    if (!g->poly) p->poly = 0;
  }
  PetscCall(
    OptReals(o, OPT_PHYS, "-gravity_schedule",
             "Piecewise-constant field: t1,gx,gy,t2,gx,gy,... (the field is g_k from time t_k on; before t1: -gravity)",
             3 * 16, p->sched, &p->nsched, 3, "t,gx,gy", NULL));
  for (PetscInt k = 1; k < p->nsched; k++)
    PetscCheck(p->sched[3 * k] > p->sched[3 * k - 3], o->comm, PETSC_ERR_USER_INPUT,
               "option -gravity_schedule: the times must increase");
  for (PetscInt k = 0; k < p->nsched; k++)
    PetscCall(ParamsCheckTimeReal(o->comm, "-gravity_schedule", p->sched[3 * k]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The initial state; -groups with densities reads the geometry for the walkable areas. */
static PetscErrorCode InitSetFromOptions(Opt *o, Given *g)
{
  Params *p = o->p;
  PetscFunctionBeginUser;
  PetscCall(OptEnum(o, OPT_RUN, "-init", "Initial condition", InitKinds, 4, (int *)&p->init));
  PetscCall(OptString(o, OPT_RUN, "-init_file", "With -init file: text file, one disk per line: x y [r] ('#' comments)",
                      p->initFile, sizeof(p->initFile), NULL));
  PetscCall(OptReals(o, OPT_RUN, "-init_region", "Region x0,y0,x1,y1 filled initially (default: the box)", 4, p->region,
                     NULL, 1, NULL, &g->region));
  {
    PetscBool gset;
    PetscCall(OptBool(o, OPT_RUN, "-groups_density",
                      "The fifth number of each -groups entry is a density (agents per m^2 of the walkable part of the "
                      "region, with -geometry), not a count",
                      &p->groupsDensity));
    PetscCall(OptReals(o, OPT_RUN, "-groups",
                       "Groups x0,y0,x1,y1,n,...: n disks in each region (lattice/jitter/uniform as -init; replaces -n "
                       "and -init_region)",
                       5 * 16, p->groups, &p->ngroups, 5, "x0,y0,x1,y1,n", &gset));
    PetscCheck(!p->groupsDensity || gset, o->comm, PETSC_ERR_USER_INPUT,
               "-groups_density needs -groups x0,y0,x1,y1,density,...");
    PetscCheck(!p->groupsDensity || (p->geometry[0] && p->walk), o->comm, PETSC_ERR_USER_INPUT,
               "-groups_density needs a crowd -geometry: the density is per m^2 of its walkable area");
    if (gset) {
      Geometry geo;
      p->n = 0;
      if (p->groupsDensity) PetscCall(GeometryRead(o->comm, p->geometry, PETSC_FALSE, &geo));
      for (PetscInt g = 0; g < p->ngroups; g++) {
        PetscReal *q = &p->groups[5 * g];
        PetscCheck(q[2] > q[0] && q[3] > q[1], o->comm, PETSC_ERR_USER_INPUT,
                   "-groups: region %" PetscInt_FMT " needs x0 < x1 and y0 < y1", g);
        if (p->groupsDensity) { /* density -> count, from the walkable area inside the region */
          PetscReal area;
          PetscCheck(q[4] >= 0 && q[4] <= 10, o->comm, PETSC_ERR_USER_INPUT,
                     "-groups: the density of group %" PetscInt_FMT
                     " is %g per m^2; give 0 to 10 (a crowd of 0.2 m disks packs at most 8 /m^2)",
                     g, (double)q[4]);
          PetscCall(GeometryRegionArea(&geo, q, &area));
          q[4] = PetscFloorReal(q[4] * area + 0.5);
        }
        PetscCheck(q[4] >= 0 && q[4] == PetscFloorReal(q[4]) && q[4] <= PETSC_MAX_INT, o->comm, PETSC_ERR_USER_INPUT,
                   "-groups: the count of group %" PetscInt_FMT " must be a whole number >= 0, got %g", g,
                   (double)q[4]);
        p->n += (PetscInt64)q[4];
      }
      if (p->groupsDensity) PetscCall(GeometryDestroy(&geo));
    }
  }
  PetscCall(OptReal(o, OPT_RUN, "-init_phi", "Packing fraction of the lattice / jittered lattice (w.r.t. r_max)",
                    &p->phi, NULL));
  PetscCall(OptEnum(o, OPT_RUN, "-init_overlap", "Initial overlaps: error or project them away", OverlapPolicies, 2,
                    (int *)&p->overlap));
  PetscCall(OptReal(o, OPT_RUN, "-init_overlap_tol", "Overlap left by the initial projection, relative to 2 r_max",
                    &p->overlapTol, NULL));
  PetscCall(OptInt(o, OPT_RUN, "-init_overlap_max_sweeps", "Sweeps allowed for the initial projection",
                   &p->overlapMaxSweeps, NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode OutputSetFromOptions(Opt *o)
{
  Params *p = o->p;
  PetscFunctionBeginUser;
  PetscCall(OptInt(o, OPT_RUN, "-progress", "Progress line every K steps (0: ten lines per run)", &p->progress, NULL));
  PetscCall(OptBool(o, OPT_RUN, "-map", "Print an ASCII density map of the final state", &p->map));
  PetscCall(
    OptBool(o, OPT_RUN, "-check_conservation", "Verify the id set after every migration", &p->checkConservation));
  PetscCall(OptBool(o, OPT_RUN, "-quiet", "Print only the final summary", &p->quiet));
  PetscCall(OptString(o, OPT_RUN, "-output",
                      "Snapshot files PREFIX.h5 (H5MD) and PREFIX.xdmf (ParaView); none: no output", p->output,
                      sizeof(p->output), NULL));
  PetscCall(OptInt(o, OPT_RUN, "-output_every",
                   "Snapshot every K steps (0: first and last only; default: max(100, steps/10))", &p->outputEvery,
                   NULL));
  PetscCall(OptInt(o, OPT_RUN, "-overlap_every",
                   "Measure the largest overlap every K steps for the summary's max_overlap (0: at the -progress "
                   "samples only; default 1 for crowds, 0 otherwise)",
                   &p->overlapEvery, NULL));
  PetscCall(
    OptReal(o, OPT_RUN, "-overlap_abort",
            "Stop the run with an error when a measured overlap exceeds F times the smallest diameter (default 0.5): "
            "the steps have blown up (0: never; the last snapshot and checkpoint are kept)",
            &p->overlapAbort, NULL));
  PetscCall(OptString(o, OPT_RUN, "-trajectory",
                      "Crowd: write the agents' trajectories to this HDF5 file in the Pedestrian Dynamics Data Archive "
                      "layout, which PedPy reads (docs/crowd.md)",
                      p->traj, sizeof(p->traj), NULL));
  PetscCall(OptReal(o, OPT_RUN, "-trajectory_fps",
                    "Crowd: frames per second of simulated time in -trajectory (1 / (fps dt) must be whole; default: "
                    "the rate nearest 10 fps that is, 10 fps itself when dt divides 0.1 s)",
                    &p->trajFps, NULL));
  PetscCall(OptString(o, OPT_RUN, "-checkpoint", "Checkpoint file (default PREFIX.chk.h5)", p->checkpoint,
                      sizeof(p->checkpoint), NULL));
  PetscCall(OptInt(o, OPT_RUN, "-checkpoint_every", "Checkpoint every K steps (0: off)", &p->chkEvery, NULL));
  PetscCall(
    OptReal(o, OPT_RUN, "-checkpoint_wall", "Checkpoint every T seconds of wall time (0: off)", &p->chkWall, NULL));
  PetscCall(OptReal(o, OPT_RUN, "-output_flush_every",
                    "Flush the snapshot file (fsync) and refresh the XDMF at most every T seconds (0: every frame)",
                    &p->flushEvery, NULL));
  PetscCall(OptInt(o, OPT_RUN, "-output_round",
                   "A snapshot is routed and written in rounds of K disks per rank: memory bounded by the round",
                   &p->outputRound, NULL));
  PetscCall(OptBool(o, OPT_RUN, "-io_collective_buffering",
                    "MPI-IO two-phase aggregation of HDF5 writes (for parallel file systems)", &p->ioTwoPhase));
  PetscCall(OptString(
    o, OPT_RUN, "-restart",
    "Continue from this checkpoint (give the original run's physics options: a different value of any is refused)",
    p->restart, sizeof(p->restart), NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* -init file: the file gives the disks (counted now) and the largest radius. */
static PetscErrorCode InitCountFromFile(MPI_Comm comm, Params *p, const Given *g)
{
  PetscFunctionBeginUser;
  if (p->init != INIT_FILE) PetscFunctionReturn(PETSC_SUCCESS);
  PetscInt64 count;
  PetscCheck(p->initFile[0], comm, PETSC_ERR_USER_INPUT, "-init file needs -init_file PATH");
  PetscCheck(g->box || p->geometry[0], comm, PETSC_ERR_USER_INPUT,
             "-init file needs the box given with -box x0,y0,x1,y1 (or a -geometry)");
  PetscCall(InitCountFile(comm, p->initFile, &count, &p->rmaxFile));
  PetscCheck(!g->n || count == p->n, comm, PETSC_ERR_USER_INPUT,
             "-n %" PetscInt64_FMT " but '%s' holds %" PetscInt64_FMT " disks (leave -n out with -init file)", p->n,
             p->initFile, count);
  p->n = count;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---- Checks: replicated data, so every rank raises the same error (collective). ---- */
static PetscErrorCode DisksCheck(MPI_Comm comm, const Params *p)
{
  PetscFunctionBeginUser;
  PetscCheck(p->n >= 0, comm, PETSC_ERR_USER_INPUT, "-n %" PetscInt64_FMT ": the number of disks must be >= 0", p->n);
  PetscCheck(p->n <= PETSC_MAX_INT, comm, PETSC_ERR_USER_INPUT,
             "-n %" PetscInt64_FMT ": more disks than this PETSc build's PetscInt can index", p->n);
  PetscCheck(p->radius > 0 && PetscIsNormalReal(p->radius), comm, PETSC_ERR_USER_INPUT,
             "-radius %g: the radius must be > 0", (double)p->radius);
  PetscCheck(p->poly >= 0 && p->poly < 1, comm, PETSC_ERR_USER_INPUT, "-polydispersity %g: must be in [0, 1)",
             (double)p->poly);
  PetscCheck(p->bidisperse == 0 || (p->bidisperse >= 1 && p->bidisperse <= 100), comm, PETSC_ERR_USER_INPUT,
             "-bidisperse %.6g: the ratio of the radii must be in [1, 100] (0: off)", (double)p->bidisperse);
  PetscCheck(p->bidisperse == 0 || (p->poly == 0 && !p->npop), comm, PETSC_ERR_USER_INPUT,
             "-bidisperse with -polydispersity %.6g or -populations: give one size distribution", (double)p->poly);
  PetscCheck(p->dt > 0 && PetscIsNormalReal(p->dt), comm, PETSC_ERR_USER_INPUT, "-dt %g: the time step must be > 0",
             (double)p->dt);
  PetscCall(ParamsCheckTimeReal(comm, "-dt", p->dt));
  PetscCheck(p->steps >= 0, comm, PETSC_ERR_USER_INPUT, "-steps %" PetscInt_FMT ": must be >= 0", p->steps);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode DriverCheck(MPI_Comm comm, const Params *p)
{
  PetscFunctionBeginUser;
  PetscCheck(p->noise >= 0 && p->noise < 1e300, comm, PETSC_ERR_USER_INPUT,
             "-noise %.6g: the diffusion coefficient must be >= 0 and finite", (double)p->noise);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode DomainCheck(MPI_Comm comm, const Params *p, const Given *g)
{
  PetscFunctionBeginUser;
  PetscCheck(p->balance == 0 || p->balance >= 1, comm, PETSC_ERR_USER_INPUT,
             "-balance_threshold %.6g: must be 0 (off) or >= 1 (max/mean of the disks per rank)", (double)p->balance);
  PetscCheck(p->balanceCell >= 0 && p->balanceCell <= 1000, comm, PETSC_ERR_USER_INPUT,
             "-balance_cell_weight %.6g: must be in [0, 1000] (work of a cell relative to a disk)",
             (double)p->balanceCell);
  PetscCheck(p->balanceInterval >= 0, comm, PETSC_ERR_USER_INPUT, "-balance_interval %" PetscInt_FMT ": must be >= 0",
             p->balanceInterval);
  PetscCheck(!g->tile || p->tile >= 2, comm, PETSC_ERR_USER_INPUT,
             "-tile %" PetscInt_FMT ": tiles must be at least 2 cells wide", p->tile);
  PetscCheck(p->rebin > 0 && p->rebin <= 0.5, comm, PETSC_ERR_USER_INPUT, "-rebin_fraction %g: must be in (0, 0.5]",
             (double)p->rebin);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode InitCheck(MPI_Comm comm, const Params *p)
{
  PetscFunctionBeginUser;
  PetscCheck(p->phi > 0 && p->phi <= PETSC_PI / (2 * PetscSqrtReal(3.0)) + 1e-12, comm, PETSC_ERR_USER_INPUT,
             "-init_phi %g: must be in (0, %.4f], the hexagonal close packing", (double)p->phi,
             (double)(PETSC_PI / (2 * PetscSqrtReal(3.0))));
  PetscCheck(p->overlapTol > 0, comm, PETSC_ERR_USER_INPUT, "-init_overlap_tol must be > 0");
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode SolverCheck(MPI_Comm comm, const Params *p)
{
  PetscFunctionBeginUser;
  PetscCheck(p->rtol >= 0 && p->atol >= 0 && p->rtol + p->atol > 0, comm, PETSC_ERR_USER_INPUT,
             "-solver_rtol %g, -solver_atol %g: must be >= 0, not both 0", (double)p->rtol, (double)p->atol);
  PetscCheck(p->maxIt >= 1, comm, PETSC_ERR_USER_INPUT, "-solver_max_it %" PetscInt_FMT ": must be >= 1", p->maxIt);
  PetscCheck(p->warm >= 0 && p->warm <= 1, comm, PETSC_ERR_USER_INPUT, "-pbdw_warm %g: must be in [0, 1]",
             (double)p->warm);
  PetscCheck(p->warmBlend > 0 && PetscIsNormalReal(p->warmBlend), comm, PETSC_ERR_USER_INPUT,
             "-pbdw_blend %g: must be > 0", (double)p->warmBlend);
  PetscCheck(p->warmSweeps == 1 || p->warmSweeps == 2, comm, PETSC_ERR_USER_INPUT,
             "-pbdw_sweeps %" PetscInt_FMT ": must be 1 or 2", p->warmSweeps);
  PetscCheck(p->kT > 0 && PetscIsNormalReal(p->kT), comm, PETSC_ERR_USER_INPUT, "-edmd_temperature %g: must be > 0",
             (double)p->kT);
  PetscCheck(p->equil >= 0, comm, PETSC_ERR_USER_INPUT, "-edmd_equilibrate %g: must be >= 0", (double)p->equil);
  PetscCall(ParamsCheckTimeReal(comm, "-edmd_equilibrate", p->equil));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* An option of one stepper given to another would be ignored: refused.  A stepper's
   options carry its name as their prefix (-pbdw_warm, -penalty_gamma, -pgs_tao, -edmd_*). */
static PetscErrorCode StepperOptionsCheck(MPI_Comm comm, const Params *p)
{
  static const char *const owners[] = {"pbdw", "penalty", "pgs", "edmd"};
  PetscFunctionBeginUser;
  for (PetscInt k = 0; k < p->ndecl; k++) {
    const OptionDecl *d = &p->decl[k];
    if (!d->given) continue;
    for (size_t o = 0; o < sizeof(owners) / sizeof(owners[0]); o++) {
      const size_t l = strlen(owners[o]);
      PetscCheck(strncmp(d->name, owners[o], l) || d->name[l] != '_' || !strcmp(p->solver, owners[o]), comm,
                 PETSC_ERR_USER_INPUT,
                 "-%s is an option of -solver %s; this run uses -solver %s, which would ignore it", d->name, owners[o],
                 p->solver);
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* No output is an input or another output (files.c compares the files, not the strings:
   "o.h5", "./o.h5" and a link to it are one file).  The outputs are every file the run
   may write: the snapshots and their sidecar, the tables of a crowd, the balance log,
   the contact file, the checkpoint, and the trajectory with one file per floor. */
static PetscErrorCode OutputFilesDistinct(MPI_Comm comm, const Params *p)
{
  enum { NSUFFIX = 11, NFIXED = 7 };
  static const char *const suffix[NSUFFIX] = {
    ".h5",           ".xdmf",       ".balance.csv", ".exits.csv",   ".evacuation.csv", ".sensors.csv",
    ".arrivals.csv", ".floors.csv", ".agents.csv",  "_contacts.h5", "_contacts.xdmf"};
  static const char *const role[NSUFFIX] = {"the snapshots of -output",
                                            "the ParaView file of -output",
                                            "the balance log of -output",
                                            "the exit records of -output",
                                            "the evacuation curve of -output",
                                            "the sensor counts of -output",
                                            "the arrivals of -output",
                                            "the floors' occupancy of -output",
                                            "the agents' table of -output",
                                            "the contacts of -contact_output",
                                            "the contacts' ParaView file of -contact_output"};
  const PetscBool          crowd         = p->geometry[0] && p->walk ? PETSC_TRUE : PETSC_FALSE;
  Geometry                 geo;
  PetscInt                 nfloor = 0, n = 0;
  FileRole                *f;
  char(*names)[PETSC_MAX_PATH_LEN + GEOM_NAME_LEN + 24];
  char(*what)[GEOM_NAME_LEN + 48];
  PetscFunctionBeginUser;
  if (p->traj[0] && crowd) { /* the per-floor trajectory files (trajectory.c) */
    PetscCall(GeometryRead(comm, p->geometry, p->walk, &geo));
    nfloor = geo.nfloors;
  }
  PetscCall(
    PetscMalloc3(NSUFFIX + NFIXED + nfloor + p->nsrc, &f, NSUFFIX + nfloor, &names, nfloor + p->nsrc + 1, &what));
  if (strcmp(p->output, "none"))
    for (int k = 0; k < NSUFFIX; k++) {
      if (k >= 3 && k < 9 && !crowd) continue;   /* a crowd's tables */
      if (k >= 9 && !p->contactOutput) continue; /* -contact_output's files */
      PetscCall(PetscSNPrintf(names[n], sizeof(names[n]), "%s%s", p->output, suffix[k]));
      f[n] = (FileRole){role[k], names[n], PETSC_FALSE, NULL};
      n++;
    }
  for (PetscInt k = 0; k < nfloor; k++) {
    TrajectoryFloorPath(p->traj, geo.floor[k].name, names[n], sizeof(names[n]));
    PetscCall(PetscSNPrintf(what[k], sizeof(what[k]), "the trajectory of floor '%s' (-trajectory)", geo.floor[k].name));
    f[n] = (FileRole){what[k], names[n], PETSC_FALSE, NULL};
    n++;
  }
  if (p->traj[0] && crowd) PetscCall(GeometryDestroy(&geo));
  f[n++] = (FileRole){"-checkpoint", p->checkpoint, PETSC_FALSE, "-restart"};
  f[n++] = (FileRole){"-trajectory", p->traj, PETSC_FALSE, NULL};
  f[n++] = (FileRole){"-edmd_log", p->edmdLog, PETSC_FALSE, NULL};
  f[n++] = (FileRole){"-restart", p->restart, PETSC_TRUE, NULL};
  f[n++] = (FileRole){"-geometry", strncmp(p->geometry, "builtin:", 8) ? p->geometry : NULL, PETSC_TRUE, NULL};
  f[n++] = (FileRole){"-options_file_yaml", ConfigFile(), PETSC_TRUE, NULL};
  f[n++] = (FileRole){"-init_file", p->init == INIT_FILE ? p->initFile : NULL, PETSC_TRUE, NULL};
  for (PetscInt k = 0; k < p->nsrc; k++) { /* the sources' tables of arrival times */
    PetscCall(PetscSNPrintf(what[nfloor + k], sizeof(what[0]), "-src_%s_table", p->src[k].name));
    f[n++] = (FileRole){what[nfloor + k], p->src[k].table, PETSC_TRUE, NULL};
  }
  {
    PetscErrorCode ierr = FilesCheckDistinct(comm, n, f);
    PetscCall(PetscFree3(f, names, what)); /* before its error */
    PetscCall(ierr);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Output: defaults (the checkpoint beside the snapshots), and no file written twice. */
static PetscErrorCode OutputCheck(MPI_Comm comm, Params *p)
{
  PetscFunctionBeginUser;
  PetscCheck(p->progress >= 0, comm, PETSC_ERR_USER_INPUT, "-progress %" PetscInt_FMT ": must be >= 0", p->progress);
  PetscCheck(p->outputEvery >= -1, comm, PETSC_ERR_USER_INPUT, "-output_every %" PetscInt_FMT ": must be >= 0",
             p->outputEvery);
  PetscCheck(p->chkEvery >= 0, comm, PETSC_ERR_USER_INPUT, "-checkpoint_every %" PetscInt_FMT ": must be >= 0",
             p->chkEvery);
  PetscCheck(p->outputRound >= 1, comm, PETSC_ERR_USER_INPUT, "-output_round %" PetscInt_FMT ": must be >= 1",
             p->outputRound);
  PetscCheck(p->flushEvery >= 0, comm, PETSC_ERR_USER_INPUT, "-output_flush_every %g: must be >= 0",
             (double)p->flushEvery);
  PetscCheck(p->overlapEvery >= -1, comm, PETSC_ERR_USER_INPUT, "-overlap_every %" PetscInt_FMT ": must be >= 0",
             p->overlapEvery);
  if (p->overlapEvery < 0) p->overlapEvery = p->geometry[0] && p->walk ? 1 : 0;
  PetscCheck(p->overlapAbort >= 0, comm, PETSC_ERR_USER_INPUT,
             "-overlap_abort %g: must be >= 0 (a fraction of the smallest diameter; 0: never)",
             (double)p->overlapAbort);
  if (p->trajFps == -1) /* not given: a frame every round(0.1 s / dt) steps, 10 fps if dt divides 0.1 s */
    p->trajFps = 1 / (p->dt * PetscMax(1, PetscFloorReal(1 / (10 * p->dt) + 0.5)));
  PetscCheck(p->trajFps > 0, comm, PETSC_ERR_USER_INPUT, "-trajectory_fps %.6g: must be > 0", (double)p->trajFps);
  if (p->traj[0]) PetscCall(TrajectoryStride(comm, p, &(PetscInt){0}));
  PetscCheck(p->chkWall >= 0, comm, PETSC_ERR_USER_INPUT, "-checkpoint_wall %g: must be >= 0", (double)p->chkWall);
  PetscCall(ParamsCheckTimeReal(comm, "-checkpoint_wall", p->chkWall));
  PetscCall(ParamsCheckTimeReal(comm, "-output_flush_every", p->flushEvery));
  if (!p->output[0]) PetscCall(PetscStrncpy(p->output, "none", sizeof(p->output)));
  if (p->outputEvery < 0) p->outputEvery = PetscMax(100, p->steps / 10); /* <= 10 per run, >= 100 steps apart */
  if (!p->checkpoint[0] && strcmp(p->output, "none"))
    PetscCall(PetscSNPrintf(p->checkpoint, sizeof(p->checkpoint), "%s.chk.h5", p->output));
  if (!strcmp(p->checkpoint, "none")) p->checkpoint[0] = 0;
  PetscCall(OutputFilesDistinct(comm, p));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The skin (a crowd's from its fastest agent), then the stepper's own checks, which may
   depend on it. */
static PetscErrorCode SkinCheck(MPI_Comm comm, Params *p, const SolverOps *solver)
{
  const PetscReal rmax = ParamsRadiusMax(p);
  PetscFunctionBeginUser;
  if (p->skin < 0 && p->geometry[0] &&
      p->walk) { /* a crowd: a step of the fastest agent is at most a quarter of the skin */
    const PetscReal vmax = ParamsSpeedMax(p);
    p->skin              = PetscMax(0.2 * rmax, 4 * vmax * p->dt);
  }
  if (p->skin < 0) p->skin = 0.2 * rmax;
  PetscCheck(p->skin > 0, comm, PETSC_ERR_USER_INPUT, "-skin %g: must be > 0", (double)p->skin);
  if (p->active < 0) p->active = p->skin;
  PetscCheck(p->active > 0 && p->active <= p->skin, comm, PETSC_ERR_USER_INPUT,
             "-pgs_active %g: must be in (0, skin = %g]: pairs farther apart are not candidates", (double)p->active,
             (double)p->skin);
  if (solver->check) PetscCall(solver->check(comm, p)); /* the stepper's own checks */
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The box (from the geometry, or sized from -n), the initial region, the attraction's
   centre, the tiles, the half-planes. */
static PetscErrorCode SceneCheck(MPI_Comm comm, Params *p, Given *g)
{
  const PetscReal rmax = ParamsRadiusMax(p);
  PetscFunctionBeginUser;
  if (p->geometry[0]) { /* crowd: the box is the walkable area's, widened by a cell and by
                           the distance agents walk on beyond a door */
    Geometry geo;
    PetscCall(GeometryRead(comm, p->geometry, p->walk, &geo));
    p->geomHash = geo.textHash;
    if (!g->box) {
      const PetscReal m = 2 * rmax + p->skin + ParamsExitDepth(p);
      p->box[0] = geo.bbox[0] - m, p->box[1] = geo.bbox[1] - m, p->box[2] = geo.bbox[2] + m,
      p->box[3] = geo.bbox[3] + m;
      g->box    = PETSC_TRUE;
    }
    if (!g->region) {
      PetscCall(PetscArraycpy(p->region, geo.bbox, 4));
      g->region = PETSC_TRUE;
    }
    PetscCall(GeometryDestroy(&geo));
  }
  if (!g->box) { /* a wide box, 25 mean diameters of disks per unit of width, 13:1 */
    const PetscReal cell = 2 * rmax + p->skin,
                    a    = 2 * rmax * PetscSqrtReal(PETSC_PI / (2 * PetscSqrtReal(3.0)) / p->phi);
    const PetscReal W =
      PetscMax((PetscReal)p->n * 2 * p->radius / 25, 4 * (PetscReal)(g->tile ? p->tile : 16) * cell); /* >= 4 tiles */
    const PetscReal Hlattice = ((PetscReal)p->n * a / W + 1) * a * PetscSqrtReal(3.0) / 2 + 4 * rmax;
    p->box[0] = p->box[1] = 0;
    p->box[2]             = W;
    p->box[3]             = PetscMax(PetscMax(0.075 * W, 1.25 * Hlattice), 4 * cell);
  }
  PetscCheck(p->box[2] > p->box[0] && p->box[3] > p->box[1], comm, PETSC_ERR_USER_INPUT,
             "-box %g,%g,%g,%g: need x0 < x1 and y0 < y1", (double)p->box[0], (double)p->box[1], (double)p->box[2],
             (double)p->box[3]);
  if (!g->region) PetscCall(PetscArraycpy(p->region, p->box, 4));
  PetscCheck(p->region[2] > p->region[0] && p->region[3] > p->region[1], comm, PETSC_ERR_USER_INPUT,
             "-init_region: need x0 < x1 and y0 < y1");
  if (!g->center) {
    p->center[0] = 0.5 * (p->box[0] + p->box[2]);
    p->center[1] = 0.5 * (p->box[1] + p->box[3]);
  }
  if (!g->tile) { /* the largest tile <= 16 cells that makes >= 16 tiles, so that small scenes
                     still split over ranks; from the cell grid alone, never from the rank
                     count, so the sweep order and the trajectory stay the same on any    */
    const PetscReal cell = 2 * rmax + p->skin;
    PetscReal       nc[2];
    for (int a = 0; a < 2; a++) nc[a] = PetscMax(PetscFloorReal((p->box[2 + a] - p->box[a]) / cell), 1);
    for (p->tile = 16; p->tile > 2; p->tile--)
      if (PetscCeilReal(nc[0] / p->tile) * PetscCeilReal(nc[1] / p->tile) >= 16) break;
  }
  for (PetscInt k = 0; k < p->nhalf; k++) {
    PetscReal *w = &p->half[3 * k], nn = PetscSqrtReal(w[0] * w[0] + w[1] * w[1]);
    PetscCheck(nn > 0, comm, PETSC_ERR_USER_INPUT, "-halfplanes: triple %" PetscInt_FMT " has a zero normal", k + 1);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Options that the run would ignore, given the others: refused, naming what would make
   them count (a user who gives one expects it to change the run).  Options of another
   stepper are StepperOptionsCheck's; those that depend on the scene file (-storey_height
   without floors, -stair_up without stairs) are checked where it is read (floors.c,
   zone.c). */
static PetscErrorCode IgnoredOptionsCheck(MPI_Comm comm, const Params *p)
{
  const PetscBool crowd    = p->geometry[0] && p->walk ? PETSC_TRUE : PETSC_FALSE;
  const PetscBool quickest = !crowd || p->routeChoice == ROUTE_QUICKEST ? PETSC_TRUE : PETSC_FALSE;
  const char     *steers   = "it steers -route_choice quickest, and this run uses nearest";
  const struct {
    const char *name; /* the option (without the dash); a trailing '*': every option it begins */
    PetscBool   used;
    const char *because;
  } rule[] = {
    {"trajectory_fps", p->traj[0] != 0, "the frame rate of -trajectory, which this run does not write"},
    {"barostat_tau", p->baroP > 0, "the time scale of -barostat, which this run does not have"},
    {"csm_*", !crowd || p->crowdModel == CROWD_CSM,
     "an option of the time-gap law, and this run uses -crowd_model projection"},
    {"route_interval", quickest, steers},
    {"route_reconsider", quickest, steers},
    {"route_gain", quickest, steers},
    {"route_commit", quickest, steers},
    {"route_flow", quickest, steers},
    {"density_dt", !crowd || p->densH > 0, "the interval of the density map, which -density_h 0 turns off"},
    {"speed2", !crowd || p->frac2 > 0 || p->npop, "the second population's, and -speed2_fraction is 0"},
    {"csm_time_gap2", !crowd || p->frac2 > 0 || p->npop, "the second population's, and -speed2_fraction is 0"},
    {"attract_center", p->gamma != 0, "the centre of -attract_gamma, which is 0"},
  };
  PetscFunctionBeginUser;
  for (PetscInt k = 0; k < p->ndecl; k++) {
    const OptionDecl *d = &p->decl[k];
    if (!d->given) continue;
    for (size_t r = 0; r < sizeof(rule) / sizeof(rule[0]); r++) {
      const size_t    l = strlen(rule[r].name);
      const PetscBool m = rule[r].name[l - 1] == '*' ? (PetscBool)!strncmp(d->name, rule[r].name, l - 1)
                                                     : (PetscBool)!strcmp(d->name, rule[r].name);
      PetscCheck(!m || rule[r].used, comm, PETSC_ERR_USER_INPUT, "-%s: %s; the run would ignore it", d->name,
                 rule[r].because);
    }
  }
  for (PetscInt k = 0; k < p->npop; k++) { /* a population's time gap is the time-gap law's */
    char name[THRONG_POP_NAME_LEN + 16];
    PetscCall(PetscSNPrintf(name, sizeof(name), "pop_%s_time_gap", p->pop[k].name));
    PetscCheck(!ParamsGiven(p, name) || p->crowdModel == CROWD_CSM, comm, PETSC_ERR_USER_INPUT,
               "-%s: an option of the time-gap law, and this run uses -crowd_model projection; the run would ignore it",
               name);
  }
  for (PetscInt k = 0; k < p->nsrc; k++) /* a table gives its own times */
    for (int e = 0; e < 2 && p->src[k].process == SOURCE_TABLE; e++) {
      char name[THRONG_POP_NAME_LEN + 16];
      PetscCall(PetscSNPrintf(name, sizeof(name), "src_%s_%s", p->src[k].name, e ? "stop" : "start"));
      PetscCheck(!ParamsGiven(p, name), comm, PETSC_ERR_USER_INPUT,
                 "-%s: the table of -src_%s_table gives the arrival times (-src_%s_process table); the run would "
                 "ignore it",
                 name, p->src[k].name, p->src[k].name);
    }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode ProcessOptions(MPI_Comm comm, Params *p)
{
  Opt       o = {comm, NULL, p};
  Given     g;
  SolverOps solver;

  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(&g, sizeof(g)));
  PetscCall(ScenarioApply(comm)); /* scenarios.c */
  p->ndecl = 0;
  PetscOptionsBegin(comm, NULL, "throng: first-order position-based dynamics of disks", NULL);
  o.PetscOptionsObject = PetscOptionsObject;
  PetscCall(OptString(&o, OPT_RUN, "-scenario", ScenarioHelp(), p->scenario, sizeof(p->scenario), NULL));
  PetscCall(DisksSetFromOptions(&o, &g));
  PetscCall(DomainSetFromOptions(&o, &g));
  PetscCall(PeriodicSetFromOptions(&o)); /* periodic.c */
  PetscCall(DeformSetFromOptions(&o));   /* deform.c */
  PetscCall(BarostatSetFromOptions(&o)); /* barostat.c */
  PetscCall(SolverSetFromOptions(&o, &solver));
  PetscCall(CrowdSetFromOptions(&o));
  PetscCall(DriverSetFromOptions(&o, &g));
  PetscCall(InitSetFromOptions(&o, &g));
  PetscCall(PopulationSetFromOptions(&o)); /* population.c */
  PetscCall(ZoneSetFromOptions(&o));       /* zone.c */
  PetscCall(SourceSetFromOptions(&o));     /* source.c */
  PetscCall(FloorsSetFromOptions(&o));     /* floors.c */
  PetscCall(StallSetFromOptions(&o));      /* stall.c */
  PetscCall(OutputSetFromOptions(&o));
  PetscCall(StressSetFromOptions(&o));        /* contacts.c */
  PetscCall(ContactOutputSetFromOptions(&o)); /* contact_output.c */
  PetscOptionsEnd();

  PetscCall(InitCountFromFile(comm, p, &g));
  PetscCall(DisksCheck(comm, p));
  PetscCall(DriverCheck(comm, p));
  PetscCall(DomainCheck(comm, p, &g));
  PetscCall(InitCheck(comm, p));
  PetscCall(SolverCheck(comm, p));
  PetscCall(StepperOptionsCheck(comm, p));
  PetscCall(CrowdCheck(comm, p));
  PetscCall(OutputCheck(comm, p));
  PetscCall(SkinCheck(comm, p, &solver));
  PetscCall(SceneCheck(comm, p, &g));
  PetscCall(PeriodicCheck(comm, p));      /* periodic.c: after the box and the tile */
  PetscCall(StressCheck(comm, p));        /* contacts.c */
  PetscCall(ContactOutputCheck(comm, p)); /* contact_output.c */
  PetscCall(DeformCheck(comm, p));        /* deform.c */
  PetscCall(BarostatCheck(comm, p));      /* barostat.c */
  PetscCall(IgnoredOptionsCheck(comm, p));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode CheckUnusedOptions(MPI_Comm comm, const Params *p)
{
  PetscInt n, nleft;
  char   **names, **values, list[1024] = "", mapping[256] = "";

  PetscFunctionBeginUser;
  PetscCall(PetscOptionsLeftGet(NULL, &n, &names, &values));
  nleft = n; /* PetscOptionsLeftRestore() zeroes n */
  for (PetscInt i = 0; i < n; i++) {
    PetscCall(PetscStrlcat(list, " -", sizeof(list)));
    PetscCall(PetscStrlcat(list, names[i], sizeof(list)));
    for (PetscInt k = 0; k < p->ndecl && !mapping[0]; k++) { /* YAML "name: {key: v}" arrives as -name_key */
      const size_t l = strlen(p->decl[k].name);
      if (!strncmp(names[i], p->decl[k].name, l) && names[i][l] == '_')
        PetscCall(PetscSNPrintf(mapping, sizeof(mapping),
                                " (-%s: was '%s:' given a YAML mapping? an option's value is a number, a word or a "
                                "list)",
                                names[i], p->decl[k].name));
    }
  }
  PetscCall(PetscOptionsLeftRestore(NULL, &n, &names, &values));
  PetscCheck(nleft == 0, comm, PETSC_ERR_USER_INPUT, "unknown option%s:%s (see -help)%s", nleft > 1 ? "s" : "", list,
             mapping);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode ParamsView(MPI_Comm comm, const Params *p)
{
  PetscFunctionBeginUser;
  PetscCall(PetscPrintf(comm,
                        "throng: n=%" PetscInt64_FMT " radius=%g polydispersity=%g dt=%g steps=%" PetscInt_FMT
                        " seed=%" PetscInt64_FMT "\n",
                        p->n, (double)p->radius, (double)p->poly, (double)p->dt, p->steps, p->seed));
  PetscCall(PetscPrintf(
    comm,
    "throng: box=[%g,%g]x[%g,%g] walls=%s%s halfplanes=%" PetscInt_FMT
    " init=%s gamma=%g center=(%g,%g) gravity=(%g,%g)\n",
    (double)p->box[0], (double)p->box[2], (double)p->box[1], (double)p->box[3], p->wallBox ? "box" : "none",
    p->pbc[0] || p->pbc[1] ? (p->pbc[0] && p->pbc[1] ? " periodic=xy" : (p->pbc[0] ? " periodic=x" : " periodic=y"))
                           : "",
    p->nhalf, InitKinds[p->init], (double)p->gamma, (double)p->center[0], (double)p->center[1], (double)p->gravity[0],
    (double)p->gravity[1]));
  {
    SolverOps ops;
    PetscCall(SolverGetOps(comm, p->solver, &ops));
    if (ops.view) PetscCall(ops.view(comm, p));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
