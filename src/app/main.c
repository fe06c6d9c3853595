/* throng — main(): set up, loop, finish.
 *
 *   set up   options (command line > YAML config > defaults), decomposition, disks,
 *            initial overlaps (error or project), binning and ghosts;
 *   loop     PBD steps (pbd.c), a progress line every K steps;
 *   finish   summary, density map, and the last line `state-digest: <hex>`, a hash of
 *            every disk's (id, x, y) that is the same on any number of ranks.           */
#include <throng/core/sim.h>
#include <throng/core/speed.h>
#include <throng/app/options.h>
#include <throng/io/report.h>
#include <throng/step/pbd.h>
#include <throng/util/errors.h>
#include <throng/core/init.h>
#include <throng/io/io.h>
#include <throng/granular/contact_output.h>
#include <throng/granular/deform.h>
#include <throng/crowd/trajectory.h>
#include <throng/granular/contacts.h>
#include <throng/core/modules.h>
#include <signal.h>
#include <string.h>

static const char help[] = "throng: first-order position-based dynamics (PBD) of non-overlapping disks.\n"
                           "  mpirun -n P throng [-options_file_yaml config.yaml] [-option value ...]\n"
                           "All options are listed below; see README.md for the model and the algorithm.\n\n";

/* Signals from the batch system: SIGUSR1 asks for a checkpoint, SIGTERM for a checkpoint
   and a clean stop. The handler only records; the ranks agree on it in the next step's
   reduction (pbd.c) and act together at the end of that step.                       */
static volatile sig_atomic_t g_signal = 0;
static int                   g_exit   = 0;

static void OnSignal(int sig)
{
  const sig_atomic_t v = sig == SIGTERM ? 2 : 1;
  if (v > g_signal) g_signal = v;
}

/* One job of the time loop: its parameters, simulation, writers and clocks. */
typedef struct {
  Params         prm;
  Sim            s;
  H5MDWriter     w;
  ContactWriter  cw; /* -contact_output (contact_output.c)                  */
  TrajWriter     traj;
  PetscBool      output, chk;        /* snapshots, checkpoints                         */
  PetscInt       lastFrame, lastChk; /* steps of the last snapshot and checkpoint      */
  PetscInt       step0;              /* the first step of this run (after a restart)    */
  PetscLogDouble chkClock, t0, t1;
  PetscReal      rss0, rss1; /* resident bytes before the set-up, at the end   */
  PetscReal      ovlBound;   /* -overlap_abort times the smallest diameter (0: none) */
  PetscReal      dmean;      /* the mean diameter of the disks at the (re)start      */
  PetscInt       blownStep;  /* the step whose state is unsound (Unsound), or -1     */
  char           why[1024];  /* ... why                                               */
  PetscMPIInt    rank, size;
} Job;

/* The options, read and checked; *done with -help. */
static PetscErrorCode JobOptions(MPI_Comm comm, int *argc, char ***argv, Params *prm, PetscBool *done)
{
  PetscBool help_;
  PetscFunctionBeginUser;
  *done = PETSC_FALSE;
  PetscCall(ErrorsInstall());
  PetscCall(LoadConfigFile(comm, argc, argv));
  PetscCall(ParamsSetDefaults(prm));
  {
    /* PETSc raises malformed option values on PETSC_COMM_SELF; the options are the same
       on every rank, so the error is collective: re-raise it as such (one message). */
    PetscErrorCode ierr = ProcessOptions(comm, prm);
    if (ierr) {
      char      msg[1024];
      PetscBool num;
      PetscCall(PetscStrncpy(msg, ErrorsLastMessage(), sizeof(msg)));
      PetscCall(PetscStrbeginswith(msg, "Input string", &num));
      SETERRQ(comm, PETSC_ERR_USER_INPUT, "%s%s", num ? "an option value is not a number: " : "", msg);
    }
  }
  PetscCall(PetscOptionsHasHelp(NULL, &help_));
  if (help_) {
    *done = PETSC_TRUE;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(CheckUnusedOptions(comm, prm));
  PetscCall(OutputPreflight(comm, prm)); /* before any work: the files must fit */

  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The simulation (new, or from a checkpoint) and the writers. */
static PetscErrorCode JobSetUp(MPI_Comm comm, Job *j)
{
  PetscFunctionBeginUser;
  if (j->prm.checkpoint[0] &&
      strcmp(j->prm.output, "none")) { /* before the (long) set-up: a signal may come any time */
    signal(SIGUSR1, OnSignal);
    signal(SIGTERM, OnSignal);
  }
  PetscCall(PetscLogStagePush(THRONG_EV.setup));
  PetscCall(ReportResidentBytes(PETSC_FALSE, &j->rss0));
  if (!j->prm.quiet) PetscCall(ParamsView(comm, &j->prm));
  H5Eset_auto2(H5E_DEFAULT, NULL, NULL); /* HDF5 failures are reported as throng errors */
  if (j->prm.restart[0]) {
    PetscCall(SimSetUp(comm, &j->prm, &j->s));
    PetscCall(CheckpointRead(&j->s, j->prm.restart));
    if (!j->prm.quiet)
      PetscCall(
        PetscPrintf(comm, "throng: restarted from '%s' at step %" PetscInt_FMT ", t = %g, %" PetscInt64_FMT " disks\n",
                    j->prm.restart, j->s.step, (double)j->s.time, j->s.idPrint.n));
  } else PetscCall(SimCreate(comm, &j->prm, &j->s));
  if (!j->prm.quiet)
    PetscCall(PetscPrintf(
      comm,
      "throng: %d ranks as %d x %d blocks; %" PetscInt_FMT " x %" PetscInt_FMT
      " cells of %.4g x %.4g in tiles of %" PetscInt_FMT "; r_max %g, skin %g%s\n",
      j->size, j->s.dom.p[0], j->s.dom.p[1], j->s.dom.nc[0], j->s.dom.nc[1], (double)j->s.dom.w[0],
      (double)j->s.dom.w[1], j->prm.tile, (double)j->s.rmax, (double)j->prm.skin,
      j->size == 1 ? "" : (j->prm.balance > 0 ? "; load balancing on (-balance_threshold)" : "; load balancing off")));
  if (!j->prm.restart[0]) PetscCall(PBDResolveInitialOverlaps(&j->s));
  j->output    = strcmp(j->prm.output, "none") ? PETSC_TRUE : PETSC_FALSE;
  j->chk       = j->prm.checkpoint[0] ? PETSC_TRUE : PETSC_FALSE;
  j->lastFrame = j->lastChk = -1;
  j->blownStep              = -1;
  { /* the blow-up guard's bound, from the smallest disk at the start; the mean diameter */
    PetscReal rmin = PETSC_MAX_REAL, sum[2] = {0, (PetscReal)j->s.P.n};
    for (PetscInt i = 0; i < j->s.P.n; i++) rmin = PetscMin(rmin, j->s.P.r[i]), sum[0] += 2 * j->s.P.r[i];
    PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &rmin, 1, MPIU_REAL, MPI_MIN, comm));
    PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, sum, 2, MPIU_REAL, MPI_SUM, comm));
    j->ovlBound = rmin < PETSC_MAX_REAL ? j->prm.overlapAbort * 2 * rmin : 0;
    j->dmean    = sum[1] > 0 ? sum[0] / sum[1] : 2 * j->prm.radius;
  }
  PetscCall(TrajectoryOpen(comm, &j->s, &j->traj));
  if (!j->prm.restart[0]) PetscCall(TrajectoryWrite(&j->traj, &j->s)); /* frame 0 */
  if (j->output) {
    PetscCall(H5MDOpen(comm, j->prm.output, &j->s, j->prm.restart[0] ? PETSC_TRUE : PETSC_FALSE, j->s.step, &j->w));
    if (!j->w.appended) {
      PetscCall(H5MDWriteFrame(&j->w, &j->s));
      j->lastFrame = j->s.step;
    } else j->lastFrame = j->w.frames ? j->w.fstep[j->w.frames - 1] : -1;
    if (j->prm.contactOutput)
      PetscCall(ContactWriterOpen(comm, &j->s, j->prm.restart[0] ? PETSC_TRUE : PETSC_FALSE, j->s.step, &j->cw));
  }
  PetscCall(PetscTime(&j->chkClock));
  PetscCall(PetscLogStagePop());
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* One measurement of the largest overlap (collective): the summary's max_overlap, and
   the blow-up guard (-overlap_abort) reads it. */
static PetscErrorCode SampleOverlap(Job *j)
{
  PetscReal ovl;
  PetscFunctionBeginUser;
  PetscCall(SimMaxOverlap(&j->s, &ovl));
  j->s.ovlMax = PetscMax(j->s.ovlMax, ovl);
  j->s.ovlSamples++;
  j->s.ovlStep = j->s.step;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Is the state of this step unsound, so that nothing of it may be written?  Every rank
   decides alike (reduced values).  Three ways, each a message in j->why:
     - a measured overlap passed -overlap_abort (the steps have blown up);
     - a step left a disk skin/2 or more from the binning and a pair that was no
       candidate of it overlapping (pbd.c: CheckBeyondSkin): the step missed it and is
       not the stepper's (an overlap beyond -overlap_abort, measured then, is named
       first: a blow-up moves disks far);
     - a deformed box was compressed past the hexagonal close packing, which no packing
       of disks without overlaps reaches (deform.c, barostat.c).
   Collective. */
static PetscErrorCode Unsound(Job *j)
{
  const Params   *p        = &j->prm;
  const PetscReal hex      = PETSC_PI / (2 * PetscSqrtReal(3.0));
  char            box[160] = "";
  PetscFunctionBeginUser;
  if (j->blownStep >= 0) PetscFunctionReturn(PETSC_SUCCESS);
  if (j->s.skinStep >= 0 && j->ovlBound > 0 && j->s.ovlStep != j->s.step) PetscCall(SampleOverlap(j));
  if (p->deformRate != 0)
    PetscCall(PetscSNPrintf(box, sizeof(box),
                            "; -deform_rate %g may compress the box faster than the stepper resolves "
                            "the overlaps it makes",
                            (double)p->deformRate));
  else if (p->baroP > 0)
    PetscCall(PetscSNPrintf(box, sizeof(box),
                            "; -barostat %g (with -barostat_tau %g) may compress the box faster than "
                            "the stepper resolves the overlaps it makes",
                            (double)p->baroP, (double)p->baroTau));
  if (j->ovlBound > 0 && j->s.ovlMax > j->ovlBound) {
    const PetscReal d = j->ovlBound / p->overlapAbort;
    PetscCall(PetscSNPrintf(
      j->why, sizeof(j->why),
      "the run has blown up: an overlap of %g (%.3g of the smallest diameter %g) at step %" PetscInt_FMT
      " is more than -overlap_abort %g of it. The time step -dt is too large for the stepper and the "
      "scene (README: the steppers' stability), or the stepper diverges here%s",
      (double)j->s.ovlMax, (double)(j->s.ovlMax / d), (double)d, j->s.step, (double)p->overlapAbort, box));
    j->blownStep = j->s.step;
  } else if (j->s.skinStep >= 0) {
    PetscCall(PetscSNPrintf(j->why, sizeof(j->why),
                            "step %" PetscInt_FMT " moved a disk %g from where it was binned, %.3g of the skin %g, "
                            "and left %" PetscInt64_FMT
                            " pair%s (or disk and wall) overlapping that were no candidates "
                            "of its pair search: it missed them, and the step is not -solver %s's. Lower -dt, or raise "
                            "-skin%s",
                            j->s.skinStep, (double)j->s.skinDisp, (double)(j->s.skinDisp / p->skin), (double)p->skin,
                            j->s.skinMissed, j->s.skinMissed > 1 ? "s" : "", p->solver, box));
    j->blownStep = j->s.step;
  } else if (ParamsBoxMoves(p)) {
    const PetscReal phi = DeformPackingFraction(&j->s);
    if (phi > hex * (1 + 1e-9)) {
      PetscCall(PetscSNPrintf(j->why, sizeof(j->why),
                              "at step %" PetscInt_FMT " the box holds disks at packing fraction %.6f, past the "
                              "hexagonal close packing %.6f that no packing of disks without overlaps passes%s",
                              j->s.step, (double)phi, (double)hex, box));
      j->blownStep = j->s.step;
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Is the next step one whose speeds a progress line or the summary may report?  The last
   two steps before each (speed.c: a step that rebins is measured only when the step
   before it could not be).  *last: the next step is the line's own. */
static PetscBool SpeedWanted(const Job *j, PetscBool *last)
{
  const PetscInt K = j->prm.progress > 0 ? j->prm.progress : PetscMax(1, j->prm.steps / 10), next = j->s.step + 1;
  const PetscBool lines = j->prm.quiet && j->prm.progress <= 0 ? PETSC_FALSE : PETSC_TRUE;
  *last = next == j->prm.steps || (lines && next % K == 0) ? PETSC_TRUE : PETSC_FALSE;
  return *last || next == j->prm.steps - 1 || (lines && (next + 1) % K == 0) ? PETSC_TRUE : PETSC_FALSE;
}

/* The time loop: a step, the modules' step end, the outputs, signals, progress.  An
   unsound state (Unsound: an overlap beyond -overlap_abort, a sweep beyond the skin, a
   box past close packing) ends it at once (blownStep): nothing of it is written, and
   Run() raises the error once the files are closed. */
static PetscErrorCode JobLoop(MPI_Comm comm, Job *j)
{
  const char *stop = NULL;
  PetscFunctionBeginUser;
  PetscCall(PetscLogStagePush(THRONG_EV.run));
  j->step0 = j->s.step;
  /* test-only (tests/test_inject.sh): a coordinate of rank 0 turns NaN after half the steps */
  const PetscInt nanStep = IoInjectFault(comm, "nan") && j->s.P.n > 0 ? j->prm.steps / 2 : -1;
  /* test-only (tests/test_faults.sh): rank 0 is killed (SIGKILL, as kill -9) at the end of
     step -steps / 2, after that step's records were written and flushed as the run would */
  const PetscInt killStep = IoInjectFault(comm, "kill") ? j->prm.steps / 2 : -1;
  PetscCall(PetscTime(&j->t0));
  PetscCall(ReportProgress(&j->s, j->t0, j->step0, PETSC_TRUE));
  while (j->s.step < j->prm.steps) {
    PetscLogDouble now;
    j->s.control = (PetscReal)g_signal;
    if (j->chk && j->prm.chkWall > 0 && !j->rank) {
      PetscCall(PetscTime(&now));
      if (now - j->chkClock >= j->prm.chkWall) j->s.control = PetscMax(j->s.control, 1);
    }
    if (j->output &&
        ((j->prm.outputEvery > 0 && (j->s.step + 1) % j->prm.outputEvery == 0) || j->s.step + 1 == j->prm.steps))
      PetscCall(H5MDRememberPrevious(&j->w, &j->s));
    PetscCall(StressBeforeStep(&j->s)); /* -stress: record this step's contacts? */
    PetscBool speedLast = PETSC_FALSE; /* the progress line's, or the summary's, rms_speed */
    if (SpeedWanted(j, &speedLast)) PetscCall(SpeedMark(&j->s));
    PetscCall(SimStep(&j->s));
    if (j->s.speedMark == j->s.step - 1) PetscCall(SpeedMeasure(&j->s, speedLast)); /* before an exit removes disks */
    PetscCall(StressAfterStep(&j->s, j->s.step == j->prm.steps ? PETSC_TRUE : PETSC_FALSE));
    if (j->output) PetscCall(H5MDWriteStress(&j->w, &j->s)); /* its time series in the snapshot file */
    if (j->s.step == nanStep) j->s.P.x[0] = NAN;
    PetscCall(SimModulesStepEnd(&j->s, &stop)); /* modules: a crowd's exits */
    PetscCall(TrajectoryWrite(&j->traj, &j->s));
    if (j->prm.overlapEvery > 0 && j->s.step % j->prm.overlapEvery == 0)
      PetscCall(SampleOverlap(j)); /* the summary's */
    const PetscBool frame = j->output && j->prm.outputEvery > 0 && j->s.step % j->prm.outputEvery == 0;
    const PetscBool chk   = j->chk && ((j->prm.chkEvery > 0 && j->s.step % j->prm.chkEvery == 0) || j->s.control >= 1);
    if ((frame || chk) && j->ovlBound > 0 && j->s.ovlStep != j->s.step)
      PetscCall(SampleOverlap(j)); /* nothing blown up is written */
    PetscCall(Unsound(j));
    if (j->blownStep >= 0) break;
    if (frame) {
      PetscCall(H5MDWriteFrame(&j->w, &j->s));
      PetscCall(ContactWriterWrite(&j->cw, &j->s));
      j->lastFrame = j->s.step;
    }
    if (chk) {
      PetscCall(TrajectoryFlush(&j->traj)); /* its frames up to here survive a kill */
      PetscCall(CheckpointWrite(&j->s, j->prm.checkpoint));
      if (j->output) PetscCall(BalanceWriteCSV(&j->s.bal, &j->s.prm, &j->s.dom, j->prm.restart[0] ? j->step0 : -1));
      j->lastChk = j->s.step;
      if (g_signal == 1) g_signal = 0;
      PetscCall(PetscTime(&j->chkClock));
      if (!j->prm.quiet && j->s.control >= 1)
        PetscCall(PetscPrintf(comm, "throng: checkpoint '%s' written at step %" PetscInt_FMT " (%s)\n",
                              j->prm.checkpoint, j->s.step,
                              j->s.control >= 2 ? "SIGTERM" : "signal or wall-time interval"));
    }
    if (j->s.control >= 2) {
      PetscCall(PetscPrintf(comm, "throng: stopped by SIGTERM at step %" PetscInt_FMT "; continue with -restart %s\n",
                            j->s.step, j->prm.checkpoint));
      g_exit = 143;
      break;
    }
    PetscCall(ReportProgress(&j->s, j->t0, j->step0, PETSC_FALSE));
    if (j->s.step == killStep) raise(SIGKILL);
    PetscCall(Unsound(j)); /* the progress line's overlap sample */
    if (j->blownStep >= 0) break;
    if (stop) {
      if (!j->prm.quiet)
        PetscCall(
          PetscPrintf(comm, "throng: %s, at t = %g (step %" PetscInt_FMT ")\n", stop, (double)j->s.time, j->s.step));
      break;
    }
  }
  if (j->blownStep < 0 && j->s.ovlStep != j->s.step) PetscCall(SampleOverlap(j)); /* the end is always measured */
  PetscCall(Unsound(j));
  /* the last state, unless it has blown up: then the last good snapshot and checkpoint stay */
  if (j->output && j->lastFrame != j->s.step && j->blownStep < 0) {
    PetscCall(H5MDWriteFrame(&j->w, &j->s));
    PetscCall(ContactWriterWrite(&j->cw, &j->s));
  }
  if (j->chk && j->lastChk != j->s.step && j->blownStep < 0) {
    PetscCall(TrajectoryFlush(&j->traj));
    PetscCall(CheckpointWrite(&j->s, j->prm.checkpoint));
  }
  PetscCall(PetscTime(&j->t1));
  if (j->blownStep < 0) { /* the last sweep, checked after the last files (its check rebins) */
    PetscCall(PBDFinishDisplacement(&j->s));
    PetscCall(Unsound(j));
  }
  PetscCall(PetscLogStagePop());
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The summary lines and the state digest. */
static PetscErrorCode JobSummary(MPI_Comm comm, Job *j)
{
  char hex[33];
  PetscFunctionBeginUser;
  {
    PetscReal  ovl, disp = j->s.sweepDisp, el = (PetscReal)(j->t1 - j->t0);
    PetscInt64 checks = j->s.pairChecks, moved = j->s.mig.moved;
    Digest     dg;
    PetscCall(SimMaxOverlap(&j->s, &ovl));
    j->s.ovlMax = PetscMax(j->s.ovlMax, ovl);
    if (j->s.ovlStep != j->s.step) j->s.ovlSamples++;
    PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &disp, 1, MPIU_REAL, MPI_MAX, comm));
    PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &checks, 1, MPIU_INT64, MPI_SUM, comm));
    PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &moved, 1, MPIU_INT64, MPI_SUM, comm));
    PetscCall(SimCheckConservation(&j->s));
    char beyond[160] = "";
    if (j->s.skinChecks)
      PetscCall(PetscSNPrintf(beyond, sizeof(beyond),
                              "  beyond_half_skin %" PetscInt64_FMT
                              " (sweeps that ended skin/2 or more from the binning, "
                              "each checked: no pair missed)",
                              j->s.skinChecks));
    PetscCall(ReportResidentBytes(PETSC_TRUE, &j->rss1));
    {
      PetscReal mem[2] = {j->rss1, j->rss1 - j->rss0};
      PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, mem, 2, MPIU_REAL, MPI_SUM, comm));
      j->rss1 = mem[0];
      j->rss0 = mem[1];
    }
    PetscCall(StateDigest(comm, &j->s.P, &dg));
    PetscCheck(dg.n == j->s.ndisks, comm, PETSC_ERR_PLIB,
               "%" PetscInt64_FMT " disks at the end instead of %" PetscInt64_FMT, dg.n,
               j->s.ndisks); /* modules may remove disks (a crowd's exits) */
    if (j->prm.map && !j->prm.quiet) PetscCall(ReportMap(&j->s, 64, 24));
    PetscCall(
      PetscPrintf(comm,
                  "summary: steps %" PetscInt_FMT "  t %g  N %" PetscInt64_FMT
                  "  ranks %d  wall %.3f s  %.4e particle-steps/s (%.4e per rank)\n",
                  j->s.step, (double)j->s.time, dg.n, j->size, (double)el,
                  el > 0 ? (double)((PetscReal)j->prm.n * (PetscReal)(j->s.step - j->step0) / el) : 0.0,
                  el > 0 ? (double)((PetscReal)j->prm.n * (PetscReal)(j->s.step - j->step0) / el / j->size) : 0.0));
    PetscCall(PetscPrintf(
      comm,
      "summary: sampled_max_overlap %.6e (%.3e of the mean diameter): the largest of %" PetscInt_FMT
      " samples, every %" PetscInt_FMT " steps (%s) and at the end%s\n",
      (double)j->s.ovlMax, (double)(j->s.ovlMax / j->dmean), j->s.ovlSamples,
      j->prm.overlapEvery > 0 ? j->prm.overlapEvery
                              : (j->prm.progress > 0 ? j->prm.progress : PetscMax(1, j->prm.steps / 10)),
      j->prm.overlapEvery > 0 ? "-overlap_every" : "-progress",
      j->prm.quiet && j->prm.progress <= 0 && j->prm.overlapEvery <= 0 ? " (-quiet without -progress: at the end only)"
                                                                       : ""));
    PetscCall(
      PetscPrintf(comm,
                  "summary: max_overlap %.6e (%.3e of the mean diameter; the largest sampled since the start or "
                  "restart; %.6e at the end, %.3e of it)  rebins %" PetscInt_FMT "  migrated %" PetscInt64_FMT
                  "  pair_checks %" PetscInt64_FMT "  max_disp/skin %.3f%s\n",
                  (double)j->s.ovlMax, (double)(j->s.ovlMax / j->dmean), (double)ovl, (double)(ovl / j->dmean),
                  j->s.rebins, moved, checks, (double)(disp / j->prm.skin), beyond));
    char left[96] = "";
    if (j->s.speedLeftOut > 0)
      PetscCall(PetscSNPrintf(left, sizeof(left), "; %" PetscInt64_FMT " disks that changed rank in that step left out",
                              j->s.speedLeftOut));
    if (j->s.speedStep >= 0)
      PetscCall(PetscPrintf(comm,
                            "summary: rms_speed %.6e (%.3e mean diameters per unit time)  max_speed %.6e over step "
                            "%" PetscInt_FMT " (the last measured: |x(t+dt) - x(t)| / dt)%s\n",
                            (double)j->s.rmsSpeed, (double)(j->s.rmsSpeed / j->dmean), (double)j->s.maxSpeed,
                            j->s.speedStep, left));
    PetscCall(SimSolverReport(&j->s));
    if (j->size > 1 && j->s.step > j->step0) { /* the inputs of the performance model (docs/performance.md) */
      PetscInt64 t[3] = {j->s.halo.exchanges, j->s.halo.bytes, j->s.halo.messages};
      PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, t, 3, MPIU_INT64, MPI_SUM, comm));
      const PetscReal per = (PetscReal)j->size * (PetscReal)(j->s.step - j->step0);
      PetscCall(PetscPrintf(comm,
                            "summary: halo: %.3g exchanges, %.4g bytes and %.3g messages sent per rank and step "
                            "(means; rebins %" PetscInt_FMT ")\n",
                            (double)(t[0] / per), (double)(t[1] / per), (double)(t[2] / per), j->s.rebins));
    }
    PetscCall(BalanceReport(&j->s.bal, &j->s.prm, &j->s.dom, j->output, j->prm.restart[0] ? j->step0 : -1));
    PetscCall(SimModulesFinish(&j->s, j->output, j->output ? j->w.file : -1, j->output ? j->w.dxpl : -1));
    if (j->prm.n > 0)
      PetscCall(PetscPrintf(comm,
                            "summary: memory: peak resident %.1f MB over all ranks, %.1f bytes per disk (%.1f bytes "
                            "per disk above the start-up footprint)\n",
                            (double)(j->rss1 / 1e6), (double)(j->rss1 / (PetscReal)j->prm.n),
                            (double)(j->rss0 / (PetscReal)j->prm.n)));
    PetscCall(SimModulesDigest(&j->s, &dg)); /* the modules' records: a crowd may have left */
    DigestFormat(&dg, hex);
    PetscCall(PetscPrintf(comm, "summary: program %s\n", ReportVersion()));
    PetscCall(PetscPrintf(comm, "state-digest: %s\n", hex));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode Run(int *argc, char ***argv)
{
  MPI_Comm  comm = PETSC_COMM_WORLD;
  Job       job;
  SolverOps solver;
  PetscBool done;

  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(&job, sizeof(job)));
  PetscCall(SimRegisterEvents());
  PetscCall(JobOptions(comm, argc, argv, &job.prm, &done));
  if (done) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCallMPI(MPI_Comm_size(comm, &job.size));
  PetscCallMPI(MPI_Comm_rank(comm, &job.rank));
  PetscCall(SolverGetOps(comm, job.prm.solver, &solver));
  if (solver.run) { /* a stepper with a loop of its own (edmd: event-driven hard disks) */
    PetscInt code;
    if (!job.prm.quiet) PetscCall(ParamsView(comm, &job.prm));
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    PetscCall(solver.run(comm, &job.prm, &code));
    g_exit = (int)code;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(JobSetUp(comm, &job));
  PetscCall(JobLoop(comm, &job));
  if (job.blownStep >= 0) { /* close the files (they stay readable), then one error */
    char kept[2 * PETSC_MAX_PATH_LEN + 128] = "";
    if (job.output)
      PetscCall(PetscSNPrintf(kept, sizeof(kept), "; the snapshots in %s.h5 end at step %" PetscInt_FMT, job.prm.output,
                              job.lastFrame));
    if (job.chk && job.lastChk >= 0)
      PetscCall(PetscSNPrintf(kept + strlen(kept), sizeof(kept) - strlen(kept),
                              "; the checkpoint %s is of step %" PetscInt_FMT, job.prm.checkpoint, job.lastChk));
    if (job.output) PetscCall(ContactWriterClose(&job.cw));
    if (job.output) PetscCall(H5MDClose(&job.w, 0));
    PetscCall(TrajectoryClose(&job.traj));
    PetscCall(SimDestroy(&job.s));
    SETERRQ(comm, PETSC_ERR_NOT_CONVERGED, "%s%s", job.why, kept);
  }
  PetscCall(JobSummary(comm, &job));
  if (job.output) PetscCall(ContactWriterClose(&job.cw));
  if (job.output) PetscCall(H5MDClose(&job.w, (PetscReal)(job.t1 - job.t0)));
  PetscCall(TrajectoryClose(&job.traj));
  {
    char fail[sizeof(job.s.fail)];
    PetscCall(PetscStrncpy(fail, job.s.fail, sizeof(fail)));
    PetscCall(SimDestroy(&job.s));
    /* a module ended the run as a failure (stall.c): its records are written, then one error */
    PetscCheck(!fail[0], comm, PETSC_ERR_NOT_CONVERGED, "%s", fail);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  PetscErrorCode ierr;

  TakeConfigFile(&argc, &argv);
  ierr = PetscInitialize(&argc, &argv, NULL, help);
  if (ierr) return 1;
  ierr = Run(&argc, &argv);
  if (ierr) return ErrorsFinish(ierr);
  ierr = PetscFinalize();
  return ierr ? 1 : g_exit;
}
