/* options — every run-time parameter, read in one place.
 *
 * Options come from PETSc's options database: the command line, the PETSC_OPTIONS
 * environment variable, and a YAML config file given with -options_file_yaml FILE
 * (keys are option names without the dash: "n: 1000", "box: [0, 0, 100, 100]").
 * Precedence: command line over config file over the defaults set here.
 *
 * PETSc would read the YAML file inside PetscInitialize(), where a missing or malformed
 * file ends the run with a traceback on every rank.  main() therefore removes
 * -options_file_yaml from argv before PetscInitialize() and LoadConfigFile() reads it
 * once throng's error handler is installed, then re-inserts the command line so that it
 * keeps precedence.
 *
 * Any option left unused after ProcessOptions() is an error that names it: a misspelt
 * option must not silently run a different experiment.                                   */
#include <throng/options.h>
#include <string.h>
#include <stdlib.h>
#include <errno.h>
#include <throng/init.h>
#include <petsctao.h>
#include <throng/geometry.h>

static const char *const InitKinds[]      = {"lattice", "jitter", "uniform", "file", "InitKind", "INIT_", NULL};
static const char *const OverlapPolicies[] = {"error", "project", "OverlapPolicy", "OVERLAP_", NULL};
const char *const        SolverKinds[]     = {"pbd", "pngs", "penalty", "pgs", "edmd", "SolverKind", "SOLVER_", NULL};

PetscErrorCode ParamsSetDefaults(Params *p)
{
  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(p, sizeof(*p)));
  /* The embedded default scene: a layer of polydisperse disks settling under gravity
     onto the floor of a wide box, from a jittered lattice (a random packing at 55 %).
     About 25 layers deep: single-sweep PBD compresses a deep jammed pile by ~1.5 g h per
     layer (see README), and the default keeps that near 5 % of a diameter.            */
  p->n                = 20000;
  p->radius           = 0.5;
  p->poly             = 0.2;
  p->dt               = 0.001;
  p->steps            = 16000;
  p->seed             = 1;
  p->box[0] = p->box[1] = p->box[2] = p->box[3] = 0; /* sized from n in ProcessOptions */
  p->wallBox          = PETSC_TRUE;
  p->nhalf            = 0;
  p->skin             = -1; /* default: 0.2 r_max */
  p->rebin            = 0.25;
  p->tile             = 16;
  p->balance          = 1.2;
  p->balanceInterval  = 10;
  p->balanceCell      = 0.03;
  p->gamma            = 0.0;
  p->center[0] = p->center[1] = PETSC_MAX_REAL; /* default: box centre */
  p->gravity[0]       = 0;
  p->gravity[1]       = -1;
  p->init             = INIT_JITTER;
  p->region[0] = p->region[1] = p->region[2] = p->region[3] = 0; /* default: the box */
  p->phi              = 0.55;
  p->overlap          = OVERLAP_PROJECT;
  p->overlapTol       = 1e-9;
  p->overlapMaxSweeps = 100000;
  p->progress         = 0;
  p->map              = PETSC_TRUE;
  p->checkConservation = PETSC_FALSE;
  p->quiet            = PETSC_FALSE;
  PetscCall(PetscStrncpy(p->output, "throng", sizeof(p->output)));
  p->outputEvery      = -1; /* default: ten snapshots per run */
  p->checkpoint[0]    = 0;
  p->chkEvery         = 0;
  p->chkWall          = 0;
  p->restart[0]       = 0;
  p->flushEvery       = 10;
  p->geometry[0]      = 0;
  p->walk             = PETSC_TRUE;
  p->eikH             = 0.1;
  p->eikWall          = 0;
  p->densH            = 0.5;
  p->kT               = 1;
  p->densDt           = 1.0;
  p->speed[0]         = 1.34; /* Weidmann (1993), as in RiMEA and JuPedSim: see docs/crowd.md */
  p->speed[1]         = 0.26;
  p->speed[2]         = 0.5;
  p->speed[3]         = 2.2;
  p->frac2            = 0;
  for (int k = 0; k < 4; k++) p->speed2[k] = p->speed[k];
  p->solver           = SOLVER_PBD;
  p->rtol             = 1e-10;
  p->atol             = 1e-12;
  p->maxIt            = 1000;
  p->penalty          = 1e3;
  p->active           = -1; /* default: the skin */
  p->tao              = PETSC_FALSE;
  p->monitor          = PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A 64-bit integer option (PetscInt may be 32-bit). */
static PetscErrorCode OptionsInt64(MPI_Comm comm, PetscOptionItems *PetscOptionsObject, const char *name, const char *help, PetscInt64 *v)
{
  char      buf[64], *end;
  PetscBool set;

  PetscFunctionBeginUser;
  PetscCall(PetscSNPrintf(buf, sizeof(buf), "%" PetscInt64_FMT, *v));
  PetscCall(PetscOptionsString(name, help, "ProcessOptions", buf, buf, sizeof(buf), &set));
  if (set) {
    errno         = 0;
    long long val = strtoll(buf, &end, 10);
    PetscCheck(!errno && end != buf && *end == 0, comm, PETSC_ERR_USER_INPUT, "option %s: '%s' is not an integer", name, buf);
    *v = (PetscInt64)val;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode OptionsRealArray(MPI_Comm comm, PetscOptionItems *PetscOptionsObject, const char *name, const char *help, PetscInt want, PetscReal *v, PetscBool *set)
{
  PetscInt n = want;
  PetscFunctionBeginUser;
  PetscCall(PetscOptionsRealArray(name, help, "ProcessOptions", v, &n, set));
  PetscCheck(!*set || n == want, comm, PETSC_ERR_USER_INPUT, "option %s needs %" PetscInt_FMT " comma-separated numbers, got %" PetscInt_FMT, name, want, n);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* -scenario NAME: a ready-made set of options, each used unless given otherwise. */
static const char *const EvacuationScenario[][2] = {
  {"-geometry",      "builtin:venue"},
  {"-n",             "10000"        },
  {"-radius",        "0.2"          },
  {"-polydispersity", "0"           },
  {"-init",          "jitter"       },
  {"-init_phi",      "0.4"          },
  {"-dt",            "0.001"        },
  {"-steps",         "300000"       },
  {"-skin",          "0.2"          },
  {"-eikonal_h",     "0.1"          },
  {"-output_every",  "5000"         },
  {"-progress",      "10000"        },
  {"-map",           "false"        },
};

static PetscErrorCode ApplyScenario(MPI_Comm comm)
{
  char      name[64] = "";
  PetscBool set;
  PetscFunctionBeginUser;
  PetscCall(PetscOptionsGetString(NULL, NULL, "-scenario", name, sizeof(name), &set));
  if (!set) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCheck(!strcmp(name, "evacuation"), comm, PETSC_ERR_USER_INPUT, "-scenario %s: the only scenario is 'evacuation'", name);
  for (size_t k = 0; k < sizeof(EvacuationScenario) / sizeof(EvacuationScenario[0]); k++) {
    PetscBool has;
    PetscCall(PetscOptionsHasName(NULL, NULL, EvacuationScenario[k][0], &has));
    if (!has) PetscCall(PetscOptionsSetValue(NULL, EvacuationScenario[k][0], EvacuationScenario[k][1]));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode ProcessOptions(MPI_Comm comm, Params *p)
{
  PetscBool set, boxSet, regionSet, centerSet, nSet;
  PetscInt  ninit = (PetscInt)p->init, novl = (PetscInt)p->overlap, nsolver = (PetscInt)p->solver, nh;

  PetscFunctionBeginUser;
  PetscCall(ApplyScenario(comm));
  PetscOptionsBegin(comm, NULL, "throng: first-order position-based dynamics of disks", NULL);
  {
    char scen[64] = "";
    PetscCall(PetscOptionsString("-scenario", "Ready-made job: evacuation (10 000 agents leave an 80 m x 50 m hall through 4 doors; the Quick start's job)", NULL, scen, scen, sizeof(scen), NULL));
  }
  PetscCall(PetscOptionsHasName(NULL, NULL, "-n", &nSet));
  PetscCall(OptionsInt64(comm, PetscOptionsObject, "-n", "Number of disks (with -init file: the file's)", &p->n));
  PetscCall(PetscOptionsReal("-radius", "Mean disk radius", NULL, p->radius, &p->radius, NULL));
  PetscCall(PetscOptionsReal("-polydispersity", "Radii uniform in [R(1-p), R(1+p)], 0 <= p < 1", NULL, p->poly, &p->poly, NULL));
  PetscCall(PetscOptionsReal("-dt", "Time step h", NULL, p->dt, &p->dt, NULL));
  PetscCall(PetscOptionsInt("-steps", "Number of time steps", NULL, p->steps, &p->steps, NULL));
  PetscCall(OptionsInt64(comm, PetscOptionsObject, "-seed", "Seed of every random stream", &p->seed));
  PetscCall(OptionsRealArray(comm, PetscOptionsObject, "-box", "Decomposed box x0,y0,x1,y1 (default: sized from -n, ~25 layers deep when settled)", 4, p->box, &boxSet));
  PetscCall(PetscOptionsBool("-wall_box", "The box edges are walls", NULL, p->wallBox, &p->wallBox, NULL));
  nh = 3 * THRONG_MAX_HALFPLANES;
  PetscCall(PetscOptionsRealArray("-halfplanes", "Half-plane walls nx,ny,b,...: disks kept in n.q >= b + r", NULL, p->half, &nh, &set));
  if (set) {
    PetscCheck(nh % 3 == 0, comm, PETSC_ERR_USER_INPUT, "option -halfplanes needs triples nx,ny,b; got %" PetscInt_FMT " numbers", nh);
    p->nhalf = nh / 3;
  }
  PetscCall(PetscOptionsReal("-skin", "Cell edge = 2 r_max + skin (default 0.2 r_max)", NULL, p->skin, &p->skin, NULL));
  PetscCall(PetscOptionsReal("-rebin_fraction", "Rebin when a prediction moved a disk this fraction of the skin", NULL, p->rebin, &p->rebin, NULL));
  PetscCall(PetscOptionsInt("-tile", "Tile edge in cells (>= 2): the unit of the colour-ordered sweep", NULL, p->tile, &p->tile, NULL));
  {
    PetscInt  ng = 2;
    PetscBool gset;
    PetscCall(PetscOptionsIntArray("-rank_grid", "Ranks along x and y (default: the shortest halo)", NULL, p->grid, &ng, &gset));
    PetscCheck(!gset || ng == 2, comm, PETSC_ERR_USER_INPUT, "option -rank_grid needs 2 comma-separated numbers, got %" PetscInt_FMT, ng);
  }
  PetscCall(PetscOptionsReal("-balance_threshold", "Repartition the rank blocks when the work's max/mean over the ranks passes this (0: never); results are bitwise the same either way", NULL, p->balance, &p->balance, NULL));
  PetscCall(PetscOptionsInt("-balance_interval", "Rebinnings between two attempts to repartition", NULL, p->balanceInterval, &p->balanceInterval, NULL));
  PetscCall(PetscOptionsReal("-balance_cell_weight", "The work of a cell relative to a disk's (empty cells still cost a sweep visit)", NULL, p->balanceCell, &p->balanceCell, NULL));
  PetscCall(PetscOptionsEList("-solver", "Time stepper: pbd (one sweep), pngs (sweeps to convergence), penalty (explicit Euler, seed 000 eq. 107), pgs (linearised, PETSc-assembled, seed 001 eq. 10), edmd (event-driven elastic hard disks, seed 003; -dt is then the reporting interval)", NULL, SolverKinds, 5, SolverKinds[p->solver], &nsolver, NULL));
  PetscCall(PetscOptionsReal("-solver_rtol", "pngs/pgs: stop when the change (pngs) or complementarity residual (pgs) <= atol + rtol * scale", NULL, p->rtol, &p->rtol, NULL));
  PetscCall(PetscOptionsReal("-solver_atol", "pngs/pgs: absolute tolerance of the stopping rule", NULL, p->atol, &p->atol, NULL));
  PetscCall(PetscOptionsInt("-solver_max_it", "pngs/pgs: iteration limit per step", NULL, p->maxIt, &p->maxIt, NULL));
  PetscCall(PetscOptionsReal("-penalty_gamma", "penalty: parameter gamma of seed 000 eq. 107 (1/time)", NULL, p->penalty, &p->penalty, NULL));
  PetscCall(PetscOptionsReal("-pgs_active", "pgs: linearise the pairs and walls with a gap below this (default: the skin)", NULL, p->active, &p->active, NULL));
  PetscCall(PetscOptionsBool("-pgs_tao", "pgs: solve the dual QP with PETSc TAO (choose with -tao_type, default tron) instead of projected Gauss-Seidel", NULL, p->tao, &p->tao, NULL));
  PetscCall(PetscOptionsBool("-solver_monitor", "Print the iterations, residual and complementarity gap of every step", NULL, p->monitor, &p->monitor, NULL));
  PetscCall(PetscOptionsReal("-edmd_temperature", "edmd: kT of the Maxwell-Boltzmann velocities (masses (r/radius)^2)", NULL, p->kT, &p->kT, NULL));
  PetscCall(PetscOptionsBool("-edmd_periodic", "edmd: periodic box (else the box has walls)", NULL, p->periodic, &p->periodic, NULL));
  PetscCall(PetscOptionsBool("-edmd_brute", "edmd: predict against every disk, O(N) per event (the test oracle)", NULL, p->brute, &p->brute, NULL));
  PetscCall(PetscOptionsReal("-edmd_equilibrate", "edmd: pressure statistics start at this time", NULL, p->equil, &p->equil, NULL));
  PetscCall(PetscOptionsString("-edmd_log", "edmd: write every collision and wall bounce, in order, to this file (replica 0)", NULL, p->edmdLog, p->edmdLog, sizeof(p->edmdLog), NULL));
  PetscCall(PetscOptionsString("-geometry", "Crowd scene: file with the walkable area (WKT POLYGON/MULTIPOLYGON) and exits (WKT LINESTRING), see docs/crowd.md", NULL, p->geometry, p->geometry, sizeof(p->geometry), NULL));
  PetscCall(PetscOptionsBool("-walk", "With -geometry: agents walk to the exits (desired velocity, removal at exits); false: the geometry only adds walls", NULL, p->walk, &p->walk, NULL));
  PetscCall(PetscOptionsReal("-eikonal_h", "Crowd: grid spacing of the travel-distance field (m)", NULL, p->eikH, &p->eikH, NULL));
  PetscCall(PetscOptionsReal("-eikonal_wall_distance", "Crowd: paths slow down within this distance of walls, so they do not hug them (0: off)", NULL, p->eikWall, &p->eikWall, NULL));
  PetscCall(OptionsRealArray(comm, PetscOptionsObject, "-speed", "Crowd: free speeds mean,sd,min,max (m/s), normal and clipped", 4, p->speed, &set));
  PetscCall(OptionsRealArray(comm, PetscOptionsObject, "-speed2", "Crowd: a second population's free speeds mean,sd,min,max", 4, p->speed2, &set));
  PetscCall(PetscOptionsReal("-speed2_fraction", "Crowd: share of the agents (drawn per id) in the second population", NULL, p->frac2, &p->frac2, NULL));
  PetscCall(PetscOptionsReal("-density_h", "Crowd: cell size of the density map written at the end (m; 0: no map)", NULL, p->densH, &p->densH, NULL));
  PetscCall(PetscOptionsReal("-density_dt", "Crowd: simulated seconds between the density map's samples", NULL, p->densDt, &p->densDt, NULL));
  PetscCall(PetscOptionsReal("-attract_gamma", "Attraction f = -gamma (q - c)", NULL, p->gamma, &p->gamma, NULL));
  PetscCall(OptionsRealArray(comm, PetscOptionsObject, "-attract_center", "Centre c of the attraction (default: box centre)", 2, p->center, &centerSet));
  PetscCall(OptionsRealArray(comm, PetscOptionsObject, "-gravity", "Constant field gx,gy (default 0,-1; 0,0 with -geometry)", 2, p->gravity, &set));
  PetscCall(PetscOptionsReal("-noise", "Brownian noise: diffusion coefficient D (length^2/time); each step adds sqrt(2 D h) N(0,1) per coordinate", NULL, p->noise, &p->noise, NULL));
  if (!set && p->geometry[0] && p->walk) p->gravity[0] = p->gravity[1] = 0; /* a crowd walks, it does not fall */
  nh = 3 * 16;
  PetscCall(PetscOptionsRealArray("-gravity_schedule", "Piecewise-constant field: t1,gx,gy,t2,gx,gy,... (the field is g_k from time t_k on; before t1: -gravity)", NULL, p->sched, &nh, &set));
  if (set) {
    PetscCheck(nh % 3 == 0 && nh > 0, comm, PETSC_ERR_USER_INPUT, "option -gravity_schedule needs triples t,gx,gy; got %" PetscInt_FMT " numbers", nh);
    p->nsched = nh / 3;
    for (PetscInt k = 1; k < p->nsched; k++) PetscCheck(p->sched[3 * k] > p->sched[3 * k - 3], comm, PETSC_ERR_USER_INPUT, "option -gravity_schedule: the times must increase");
  }
  PetscCall(PetscOptionsEList("-init", "Initial condition", NULL, InitKinds, 4, InitKinds[p->init], &ninit, NULL));
  PetscCall(PetscOptionsString("-init_file", "With -init file: text file, one disk per line: x y [r] ('#' comments)", NULL, p->initFile, p->initFile, sizeof(p->initFile), NULL));
  PetscCall(OptionsRealArray(comm, PetscOptionsObject, "-init_region", "Region x0,y0,x1,y1 filled initially (default: the box)", 4, p->region, &regionSet));
  {
    PetscInt  ng = 5 * 16;
    PetscBool gset;
    PetscCall(PetscOptionsBool("-groups_density", "The fifth number of each -groups entry is a density (agents per m^2 of the walkable part of the region, with -geometry), not a count", NULL, p->groupsDensity, &p->groupsDensity, NULL));
    PetscCall(PetscOptionsRealArray("-groups", "Groups x0,y0,x1,y1,n,...: n disks in each region (lattice/jitter/uniform as -init; replaces -n and -init_region)", NULL, p->groups, &ng, &gset));
    PetscCheck(!p->groupsDensity || gset, comm, PETSC_ERR_USER_INPUT, "-groups_density needs -groups x0,y0,x1,y1,density,...");
    PetscCheck(!p->groupsDensity || (p->geometry[0] && p->walk), comm, PETSC_ERR_USER_INPUT, "-groups_density needs a crowd -geometry: the density is per m^2 of its walkable area");
    if (gset) {
      Geometry geo;
      PetscCheck(ng % 5 == 0 && ng > 0, comm, PETSC_ERR_USER_INPUT, "option -groups needs quintuples x0,y0,x1,y1,n; got %" PetscInt_FMT " numbers", ng);
      p->ngroups = ng / 5;
      p->n       = 0;
      if (p->groupsDensity) PetscCall(GeometryRead(comm, p->geometry, PETSC_FALSE, &geo));
      for (PetscInt g = 0; g < p->ngroups; g++) {
        PetscReal *q = &p->groups[5 * g];
        PetscCheck(q[2] > q[0] && q[3] > q[1], comm, PETSC_ERR_USER_INPUT, "-groups: region %" PetscInt_FMT " needs x0 < x1 and y0 < y1", g);
        if (p->groupsDensity) { /* density -> count, from the walkable area inside the region */
          PetscReal area;
          PetscCheck(q[4] >= 0 && q[4] <= 10, comm, PETSC_ERR_USER_INPUT, "-groups: the density of group %" PetscInt_FMT " is %g per m^2; give 0 to 10 (a crowd of 0.2 m disks packs at most 8 /m^2)", g, (double)q[4]);
          PetscCall(GeometryRegionArea(&geo, q, &area));
          q[4] = PetscFloorReal(q[4] * area + 0.5);
        }
        PetscCheck(q[4] >= 0 && q[4] == PetscFloorReal(q[4]), comm, PETSC_ERR_USER_INPUT, "-groups: the count of group %" PetscInt_FMT " must be a whole number >= 0, got %g", g, (double)q[4]);
        p->n += (PetscInt64)q[4];
      }
      if (p->groupsDensity) PetscCall(GeometryDestroy(&geo));
    }
  }
  PetscCall(PetscOptionsReal("-init_phi", "Packing fraction of the lattice / jittered lattice (w.r.t. r_max)", NULL, p->phi, &p->phi, NULL));
  PetscCall(PetscOptionsEList("-init_overlap", "Initial overlaps: error or project them away", NULL, OverlapPolicies, 2, OverlapPolicies[p->overlap], &novl, NULL));
  PetscCall(PetscOptionsReal("-init_overlap_tol", "Overlap left by the initial projection, relative to 2 r_max", NULL, p->overlapTol, &p->overlapTol, NULL));
  PetscCall(PetscOptionsInt("-init_overlap_max_sweeps", "Sweeps allowed for the initial projection", NULL, p->overlapMaxSweeps, &p->overlapMaxSweeps, NULL));
  PetscCall(PetscOptionsInt("-progress", "Progress line every K steps (0: ten lines per run)", NULL, p->progress, &p->progress, NULL));
  PetscCall(PetscOptionsBool("-map", "Print an ASCII density map of the final state", NULL, p->map, &p->map, NULL));
  PetscCall(PetscOptionsBool("-check_conservation", "Verify the id set after every migration", NULL, p->checkConservation, &p->checkConservation, NULL));
  PetscCall(PetscOptionsBool("-quiet", "Print only the final summary", NULL, p->quiet, &p->quiet, NULL));
  PetscCall(PetscOptionsString("-output", "Snapshot files PREFIX.h5 (H5MD) and PREFIX.xdmf (ParaView); none: no output", NULL, p->output, p->output, sizeof(p->output), NULL));
  PetscCall(PetscOptionsInt("-output_every", "Snapshot every K steps (0: first and last only; default: max(100, steps/10))", NULL, p->outputEvery, &p->outputEvery, NULL));
  PetscCall(PetscOptionsString("-checkpoint", "Checkpoint file (default PREFIX.chk.h5)", NULL, p->checkpoint, p->checkpoint, sizeof(p->checkpoint), NULL));
  PetscCall(PetscOptionsInt("-checkpoint_every", "Checkpoint every K steps (0: off)", NULL, p->chkEvery, &p->chkEvery, NULL));
  PetscCall(PetscOptionsReal("-checkpoint_wall", "Checkpoint every T seconds of wall time (0: off)", NULL, p->chkWall, &p->chkWall, NULL));
  PetscCall(PetscOptionsReal("-output_flush_every", "Flush the snapshot file (fsync) and refresh the XDMF at most every T seconds (0: every frame)", NULL, p->flushEvery, &p->flushEvery, NULL));
  PetscCall(PetscOptionsBool("-io_collective_buffering", "MPI-IO two-phase aggregation of HDF5 writes (for parallel file systems)", NULL, p->ioTwoPhase, &p->ioTwoPhase, NULL));
  PetscCall(PetscOptionsString("-restart", "Continue from this checkpoint (give the original run's options)", NULL, p->restart, p->restart, sizeof(p->restart), NULL));
  PetscOptionsEnd();
  p->init    = (InitKind)ninit;
  p->overlap = (OverlapPolicy)novl;
  p->solver  = (SolverKind)nsolver;

  if (p->init == INIT_FILE) {
    PetscInt64 count;
    PetscCheck(p->initFile[0], comm, PETSC_ERR_USER_INPUT, "-init file needs -init_file PATH");
    PetscCheck(boxSet || p->geometry[0], comm, PETSC_ERR_USER_INPUT, "-init file needs the box given with -box x0,y0,x1,y1 (or a -geometry)");
    PetscCall(InitCountFile(comm, p->initFile, &count, &p->rmaxFile));
    PetscCheck(!nSet || count == p->n, comm, PETSC_ERR_USER_INPUT, "-n %" PetscInt64_FMT " but '%s' holds %" PetscInt64_FMT " disks (leave -n out with -init file)", p->n, p->initFile, count);
    p->n = count;
  }

  /* Validation: replicated data, so every rank raises the same error (collective). */
  PetscCheck(p->n >= 0, comm, PETSC_ERR_USER_INPUT, "-n %" PetscInt64_FMT ": the number of disks must be >= 0", p->n);
  PetscCheck(p->n <= PETSC_MAX_INT, comm, PETSC_ERR_USER_INPUT, "-n %" PetscInt64_FMT ": more disks than this PETSc build's PetscInt can index", p->n);
  PetscCheck(p->radius > 0 && PetscIsNormalReal(p->radius), comm, PETSC_ERR_USER_INPUT, "-radius %g: the radius must be > 0", (double)p->radius);
  PetscCheck(p->poly >= 0 && p->poly < 1, comm, PETSC_ERR_USER_INPUT, "-polydispersity %g: must be in [0, 1)", (double)p->poly);
  PetscCheck(p->dt > 0 && PetscIsNormalReal(p->dt), comm, PETSC_ERR_USER_INPUT, "-dt %g: the time step must be > 0", (double)p->dt);
  PetscCheck(p->steps >= 0, comm, PETSC_ERR_USER_INPUT, "-steps %" PetscInt_FMT ": must be >= 0", p->steps);
  PetscCheck(p->noise >= 0 && p->noise < 1e300, comm, PETSC_ERR_USER_INPUT, "-noise %.6g: the diffusion coefficient must be >= 0 and finite", (double)p->noise);
  PetscCheck(!(p->noise > 0 && p->solver == SOLVER_EDMD), comm, PETSC_ERR_USER_INPUT, "-noise is a term of the time-stepped dynamics; -solver edmd has none");
  PetscCheck(p->balance == 0 || p->balance >= 1, comm, PETSC_ERR_USER_INPUT, "-balance_threshold %.6g: must be 0 (off) or >= 1 (max/mean of the disks per rank)", (double)p->balance);
  PetscCheck(p->balanceCell >= 0 && p->balanceCell <= 1000, comm, PETSC_ERR_USER_INPUT, "-balance_cell_weight %.6g: must be in [0, 1000] (work of a cell relative to a disk)", (double)p->balanceCell);
  PetscCheck(p->balanceInterval >= 0, comm, PETSC_ERR_USER_INPUT, "-balance_interval %" PetscInt_FMT ": must be >= 0", p->balanceInterval);
  PetscCheck(p->tile >= 2, comm, PETSC_ERR_USER_INPUT, "-tile %" PetscInt_FMT ": tiles must be at least 2 cells wide", p->tile);
  PetscCheck(p->rebin > 0 && p->rebin <= 0.5, comm, PETSC_ERR_USER_INPUT, "-rebin_fraction %g: must be in (0, 0.5]", (double)p->rebin);
  PetscCheck(p->progress >= 0, comm, PETSC_ERR_USER_INPUT, "-progress %" PetscInt_FMT ": must be >= 0", p->progress);
  PetscCheck(p->phi > 0 && p->phi <= PETSC_PI / (2 * PetscSqrtReal(3.0)) + 1e-12, comm, PETSC_ERR_USER_INPUT, "-init_phi %g: must be in (0, %.4f], the hexagonal close packing", (double)p->phi, (double)(PETSC_PI / (2 * PetscSqrtReal(3.0))));
  PetscCheck(p->rtol >= 0 && p->atol >= 0 && p->rtol + p->atol > 0, comm, PETSC_ERR_USER_INPUT, "-solver_rtol %g, -solver_atol %g: must be >= 0, not both 0", (double)p->rtol, (double)p->atol);
  PetscCheck(p->maxIt >= 1, comm, PETSC_ERR_USER_INPUT, "-solver_max_it %" PetscInt_FMT ": must be >= 1", p->maxIt);
  PetscCheck(p->eikH > 0 && PetscIsNormalReal(p->eikH), comm, PETSC_ERR_USER_INPUT, "-eikonal_h %g: must be > 0", (double)p->eikH);
  PetscCheck(p->eikWall >= 0, comm, PETSC_ERR_USER_INPUT, "-eikonal_wall_distance %g: must be >= 0", (double)p->eikWall);
  PetscCheck(p->kT > 0 && PetscIsNormalReal(p->kT), comm, PETSC_ERR_USER_INPUT, "-edmd_temperature %g: must be > 0", (double)p->kT);
  PetscCheck(p->equil >= 0, comm, PETSC_ERR_USER_INPUT, "-edmd_equilibrate %g: must be >= 0", (double)p->equil);
  PetscCheck(p->solver != SOLVER_EDMD || !p->geometry[0], comm, PETSC_ERR_USER_INPUT, "-solver edmd runs hard disks in a box: it takes no -geometry");
  PetscCheck(p->solver != SOLVER_EDMD || !p->restart[0], comm, PETSC_ERR_USER_INPUT, "-solver edmd cannot restart yet (its checkpoints would need velocities and event times)");
  PetscCheck(p->solver != SOLVER_EDMD || p->nhalf == 0, comm, PETSC_ERR_USER_INPUT, "-solver edmd knows the box walls (or -edmd_periodic) only, not -halfplanes");
  PetscCheck(p->densH >= 0, comm, PETSC_ERR_USER_INPUT, "-density_h %g: must be >= 0 (0: no density map)", (double)p->densH);
  PetscCheck(p->densDt > 0, comm, PETSC_ERR_USER_INPUT, "-density_dt %g: must be > 0", (double)p->densDt);
  PetscCheck(p->frac2 >= 0 && p->frac2 <= 1, comm, PETSC_ERR_USER_INPUT, "-speed2_fraction %g: must be in [0, 1]", (double)p->frac2);
  PetscCheck(p->speed2[1] >= 0 && 0 <= p->speed2[2] && p->speed2[2] <= p->speed2[0] && p->speed2[0] <= p->speed2[3], comm, PETSC_ERR_USER_INPUT, "-speed2 %g,%g,%g,%g: need sd >= 0 and 0 <= min <= mean <= max", (double)p->speed2[0], (double)p->speed2[1], (double)p->speed2[2], (double)p->speed2[3]);
  PetscCheck(p->speed[1] >= 0 && 0 <= p->speed[2] && p->speed[2] <= p->speed[0] && p->speed[0] <= p->speed[3], comm, PETSC_ERR_USER_INPUT, "-speed %g,%g,%g,%g: need sd >= 0 and 0 <= min <= mean <= max", (double)p->speed[0], (double)p->speed[1], (double)p->speed[2], (double)p->speed[3]);
  PetscCheck(p->penalty > 0 && PetscIsNormalReal(p->penalty), comm, PETSC_ERR_USER_INPUT, "-penalty_gamma %g: must be > 0", (double)p->penalty);
  PetscCheck(p->overlapTol > 0, comm, PETSC_ERR_USER_INPUT, "-init_overlap_tol must be > 0");
  PetscCheck(p->outputEvery >= -1, comm, PETSC_ERR_USER_INPUT, "-output_every %" PetscInt_FMT ": must be >= 0", p->outputEvery);
  PetscCheck(p->chkEvery >= 0, comm, PETSC_ERR_USER_INPUT, "-checkpoint_every %" PetscInt_FMT ": must be >= 0", p->chkEvery);
  PetscCheck(p->flushEvery >= 0, comm, PETSC_ERR_USER_INPUT, "-output_flush_every %g: must be >= 0", (double)p->flushEvery);
  PetscCheck(p->chkWall >= 0, comm, PETSC_ERR_USER_INPUT, "-checkpoint_wall %g: must be >= 0", (double)p->chkWall);
  if (!p->output[0]) PetscCall(PetscStrncpy(p->output, "none", sizeof(p->output)));
  if (p->outputEvery < 0) p->outputEvery = PetscMax(100, p->steps / 10); /* <= 10 per run, >= 100 steps apart */
  if (!p->checkpoint[0] && strcmp(p->output, "none")) PetscCall(PetscSNPrintf(p->checkpoint, sizeof(p->checkpoint), "%s.chk.h5", p->output));
  if (!strcmp(p->checkpoint, "none")) p->checkpoint[0] = 0;

  const PetscReal rmax = InitRadiusMax(p);
  if (p->skin < 0) p->skin = 0.2 * rmax;
  PetscCheck(p->skin > 0, comm, PETSC_ERR_USER_INPUT, "-skin %g: must be > 0", (double)p->skin);
  if (p->solver == SOLVER_PGS && p->tao) { /* TAO reads its -tao_* options now: checked here, not unknown */
    Tao tao;
    PetscCall(TaoCreate(comm, &tao));
    PetscCall(TaoSetType(tao, TAOTRON));
    PetscCall(TaoSetFromOptions(tao));
    PetscCall(TaoDestroy(&tao));
  }
  if (p->active < 0) p->active = p->skin;
  PetscCheck(p->active > 0 && p->active <= p->skin, comm, PETSC_ERR_USER_INPUT, "-pgs_active %g: must be in (0, skin = %g]: pairs farther apart are not candidates", (double)p->active, (double)p->skin);

  if (p->geometry[0]) { /* crowd: the box is the walkable area's, widened by a cell */
    Geometry g;
    PetscCall(GeometryRead(comm, p->geometry, p->walk, &g));
    if (!boxSet) {
      const PetscReal m = 2 * rmax + p->skin;
      p->box[0] = g.bbox[0] - m, p->box[1] = g.bbox[1] - m, p->box[2] = g.bbox[2] + m, p->box[3] = g.bbox[3] + m;
      boxSet    = PETSC_TRUE;
    }
    if (!regionSet) {
      PetscCall(PetscArraycpy(p->region, g.bbox, 4));
      regionSet = PETSC_TRUE;
    }
    PetscCall(GeometryDestroy(&g));
  }
  if (!boxSet) { /* a wide box, 25 mean diameters of disks per unit of width, 13:1 */
    const PetscReal cell = 2 * rmax + p->skin, a = 2 * rmax * PetscSqrtReal(PETSC_PI / (2 * PetscSqrtReal(3.0)) / p->phi);
    const PetscReal W = PetscMax((PetscReal)p->n * 2 * p->radius / 25, 4 * (PetscReal)p->tile * cell); /* >= 4 tiles */
    const PetscReal Hlattice = ((PetscReal)p->n * a / W + 1) * a * PetscSqrtReal(3.0) / 2 + 4 * rmax;
    p->box[0] = p->box[1] = 0;
    p->box[2] = W;
    p->box[3] = PetscMax(PetscMax(0.075 * W, 1.25 * Hlattice), 4 * cell);
  }
  PetscCheck(p->box[2] > p->box[0] && p->box[3] > p->box[1], comm, PETSC_ERR_USER_INPUT, "-box %g,%g,%g,%g: need x0 < x1 and y0 < y1", (double)p->box[0], (double)p->box[1], (double)p->box[2], (double)p->box[3]);
  if (!regionSet) PetscCall(PetscArraycpy(p->region, p->box, 4));
  PetscCheck(p->region[2] > p->region[0] && p->region[3] > p->region[1], comm, PETSC_ERR_USER_INPUT, "-init_region: need x0 < x1 and y0 < y1");
  if (!centerSet) {
    p->center[0] = 0.5 * (p->box[0] + p->box[2]);
    p->center[1] = 0.5 * (p->box[1] + p->box[3]);
  }
  for (PetscInt k = 0; k < p->nhalf; k++) {
    PetscReal *w = &p->half[3 * k], nn = PetscSqrtReal(w[0] * w[0] + w[1] * w[1]);
    PetscCheck(nn > 0, comm, PETSC_ERR_USER_INPUT, "-halfplanes: triple %" PetscInt_FMT " has a zero normal", k + 1);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode CheckUnusedOptions(MPI_Comm comm)
{
  PetscInt n, nleft;
  char   **names, **values, list[1024] = "";

  PetscFunctionBeginUser;
  PetscCall(PetscOptionsLeftGet(NULL, &n, &names, &values));
  nleft = n; /* PetscOptionsLeftRestore() zeroes n */
  for (PetscInt i = 0; i < n; i++) {
    PetscCall(PetscStrlcat(list, " -", sizeof(list)));
    PetscCall(PetscStrlcat(list, names[i], sizeof(list)));
  }
  PetscCall(PetscOptionsLeftRestore(NULL, &n, &names, &values));
  PetscCheck(nleft == 0, comm, PETSC_ERR_USER_INPUT, "unknown option%s:%s (see -help)", nleft > 1 ? "s" : "", list);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Remove "-options_file_yaml FILE" from argv; return FILE (or NULL). */
static const char *TakeConfigArg(int *argc, char ***argv)
{
  const char *file = NULL;
  int         k    = 1;
  for (int i = 1; i < *argc; i++) {
    if (!strcmp((*argv)[i], "-options_file_yaml") && i + 1 < *argc) {
      file = (*argv)[++i];
      continue;
    }
    (*argv)[k++] = (*argv)[i];
  }
  *argc = k;
  (*argv)[k] = NULL;
  return file;
}

static const char *g_config = NULL;

/* Called before PetscInitialize(): hide the config file from PETSc. */
void TakeConfigFile(int *argc, char ***argv) { g_config = TakeConfigArg(argc, argv); }

PetscErrorCode LoadConfigFile(MPI_Comm comm, int *argc, char ***argv)
{
  PetscMPIInt rank;
  int         ok = 1;

  PetscFunctionBeginUser;
  if (!g_config) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  if (rank == 0) {
    FILE *f = fopen(g_config, "r");
    ok      = f != NULL;
    if (f) fclose(f);
  }
  PetscCallMPI(MPI_Bcast(&ok, 1, MPI_INT, 0, comm));
  PetscCheck(ok, comm, PETSC_ERR_FILE_OPEN, "cannot open config file '%s'", g_config);
  PetscErrorCode ierr;
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = PetscOptionsInsertFileYAML(comm, NULL, g_config, PETSC_TRUE);
  PetscCall(PetscPopErrorHandler());
  PetscCheck(!ierr, comm, PETSC_ERR_USER_INPUT, "config file '%s' is not a valid YAML file of options (a mapping of option names to values)", g_config);
  /* the command line keeps precedence over the file */
  PetscCall(PetscOptionsInsert(NULL, argc, argv, NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode ParamsView(MPI_Comm comm, const Params *p)
{
  PetscFunctionBeginUser;
  PetscCall(PetscPrintf(comm, "throng: n=%" PetscInt64_FMT " radius=%g polydispersity=%g dt=%g steps=%" PetscInt_FMT " seed=%" PetscInt64_FMT "\n", p->n, (double)p->radius, (double)p->poly, (double)p->dt, p->steps, p->seed));
  PetscCall(PetscPrintf(comm, "throng: box=[%g,%g]x[%g,%g] walls=%s%s halfplanes=%" PetscInt_FMT " init=%s gamma=%g center=(%g,%g) gravity=(%g,%g)\n", (double)p->box[0], (double)p->box[2], (double)p->box[1], (double)p->box[3], p->wallBox ? "box" : "none", "", p->nhalf, InitKinds[p->init], (double)p->gamma,
                        (double)p->center[0], (double)p->center[1], (double)p->gravity[0], (double)p->gravity[1]));
  if (p->solver == SOLVER_EDMD) PetscCall(PetscPrintf(comm, "throng: solver=edmd (event-driven; -dt is the reporting interval) kT=%g %s equilibrate=%g%s\n", (double)p->kT, p->periodic ? "periodic" : "walls", (double)p->equil, p->brute ? " brute-force prediction" : ""));
  else if (p->solver == SOLVER_PENALTY) PetscCall(PetscPrintf(comm, "throng: solver=penalty penalty_gamma=%g\n", (double)p->penalty));
  else if (p->solver != SOLVER_PBD) PetscCall(PetscPrintf(comm, "throng: solver=%s%s rtol=%g atol=%g max_it=%" PetscInt_FMT "%s\n", SolverKinds[p->solver], p->solver == SOLVER_PGS && p->tao ? " (TAO)" : "", (double)p->rtol, (double)p->atol, p->maxIt, p->solver == SOLVER_PGS ? " (linearised pairs with gap < -pgs_active)" : ""));
  PetscFunctionReturn(PETSC_SUCCESS);
}
