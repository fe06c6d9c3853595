/* throng — main(): set up, loop, finish.
 *
 *   set up   options (command line > YAML config > defaults), decomposition, disks,
 *            initial overlaps (error or project), binning and ghosts;
 *   loop     PBD steps (pbd.c), a progress line every K steps;
 *   finish   summary, density map, and the last line `state-digest: <hex>`, a hash of
 *            every disk's (id, x, y) that is the same on any number of ranks.           */
#include <throng/sim.h>
#include <throng/report.h>
#include <throng/pbd.h>
#include <throng/errors.h>
#include <throng/init.h>
#include <throng/io.h>
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

static PetscErrorCode Run(int *argc, char ***argv)
{
  MPI_Comm       comm = PETSC_COMM_WORLD;
  Params         prm;
  Sim            s;
  PetscBool      help_;
  PetscLogDouble t0, t1;
  PetscInt       step0;
  char           hex[33];
  PetscMPIInt    size;
  PetscReal      rss0, rss1;
  SolverOps      solver;

  PetscFunctionBeginUser;
  PetscCall(ErrorsInstall());
  PetscCall(LoadConfigFile(comm, argc, argv));
  PetscCall(SimRegisterEvents());
  PetscCall(ParamsSetDefaults(&prm));
  {
    /* PETSc raises malformed option values on PETSC_COMM_SELF; the options are the same
       on every rank, so the error is collective: re-raise it as such (one message). */
    PetscErrorCode ierr = ProcessOptions(comm, &prm);
    if (ierr) {
      char      msg[1024];
      PetscBool num;
      PetscCall(PetscStrncpy(msg, ErrorsLastMessage(), sizeof(msg)));
      PetscCall(PetscStrbeginswith(msg, "Input string", &num));
      SETERRQ(comm, PETSC_ERR_USER_INPUT, "%s%s", num ? "an option value is not a number: " : "", msg);
    }
  }
  PetscCall(PetscOptionsHasHelp(NULL, &help_));
  if (help_) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(CheckUnusedOptions(comm));
  PetscCall(OutputPreflight(comm, &prm)); /* before any work: the files must fit */
  PetscCallMPI(MPI_Comm_size(comm, &size));

  PetscCall(SolverGetOps(comm, prm.solver, &solver));
  if (solver.run) { /* a stepper with a loop of its own (edmd: event-driven hard disks) */
    PetscInt code;
    if (!prm.quiet) PetscCall(ParamsView(comm, &prm));
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    PetscCall(solver.run(comm, &prm, &code));
    g_exit = (int)code;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (prm.checkpoint[0] && strcmp(prm.output, "none")) { /* before the (long) set-up: a signal may come any time */
    signal(SIGUSR1, OnSignal);
    signal(SIGTERM, OnSignal);
  }
  PetscCall(PetscLogStagePush(THRONG_EV.setup));
  PetscCall(ReportResidentBytes(PETSC_FALSE, &rss0));
  if (!prm.quiet) PetscCall(ParamsView(comm, &prm));
  H5Eset_auto2(H5E_DEFAULT, NULL, NULL); /* HDF5 failures are reported as throng errors */
  if (prm.restart[0]) {
    PetscCall(SimSetUp(comm, &prm, &s));
    PetscCall(CheckpointRead(&s, prm.restart));
    if (!prm.quiet) PetscCall(PetscPrintf(comm, "throng: restarted from '%s' at step %" PetscInt_FMT ", t = %g, %" PetscInt64_FMT " disks\n", prm.restart, s.step, (double)s.time, s.idPrint.n));
  } else PetscCall(SimCreate(comm, &prm, &s));
  if (!prm.quiet)
    PetscCall(PetscPrintf(comm, "throng: %d ranks as %d x %d blocks; %" PetscInt_FMT " x %" PetscInt_FMT " cells of %.4g x %.4g in tiles of %" PetscInt_FMT "; r_max %g, skin %g%s\n", size, s.dom.p[0], s.dom.p[1], s.dom.nc[0], s.dom.nc[1], (double)s.dom.w[0], (double)s.dom.w[1], prm.tile, (double)s.rmax, (double)prm.skin,
                          size == 1 ? "" : (prm.balance > 0 ? "; load balancing on (-balance_threshold)" : "; load balancing off")));
  if (!prm.restart[0]) PetscCall(SimResolveInitialOverlaps(&s));
  const PetscBool output = strcmp(prm.output, "none") ? PETSC_TRUE : PETSC_FALSE, chk = prm.checkpoint[0] ? PETSC_TRUE : PETSC_FALSE;
  H5MDWriter      w;
  PetscInt        lastFrame = -1, lastChk = -1;
  const char     *stop = NULL;
  PetscLogDouble  chkClock;
  PetscMPIInt     rank;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  TrajWriter traj;
  PetscCall(TrajectoryOpen(comm, &s, &traj));
  if (!prm.restart[0]) PetscCall(TrajectoryWrite(&traj, &s)); /* frame 0 */
  if (output) {
    PetscCall(H5MDOpen(comm, prm.output, &s, prm.restart[0] ? PETSC_TRUE : PETSC_FALSE, s.step, &w));
    if (!w.appended) {
      PetscCall(H5MDWriteFrame(&w, &s));
      lastFrame = s.step;
    } else lastFrame = w.frames ? w.fstep[w.frames - 1] : -1;
  }
  PetscCall(PetscTime(&chkClock));
  PetscCall(PetscLogStagePop());

  PetscCall(PetscLogStagePush(THRONG_EV.run));
  step0 = s.step;
  /* test-only (tests/test_inject.sh): a coordinate of rank 0 turns NaN after half the steps */
  const PetscInt nanStep = IoInjectFault(comm, "nan") && s.P.n > 0 ? prm.steps / 2 : -1;
  PetscCall(PetscTime(&t0));
  PetscCall(ReportProgress(&s, t0, step0, PETSC_TRUE));
  while (s.step < prm.steps) {
    PetscLogDouble now;
    s.control = (PetscReal)g_signal;
    if (chk && prm.chkWall > 0 && !rank) {
      PetscCall(PetscTime(&now));
      if (now - chkClock >= prm.chkWall) s.control = PetscMax(s.control, 1);
    }
    if (output && ((prm.outputEvery > 0 && (s.step + 1) % prm.outputEvery == 0) || s.step + 1 == prm.steps)) PetscCall(H5MDRememberPrevious(&w, &s));
    PetscCall(SolverStep(&s));
    if (s.step == nanStep) s.P.x[0] = NAN;
    PetscCall(SimModulesStepEnd(&s, &stop)); /* modules: a crowd's exits */
    PetscCall(TrajectoryWrite(&traj, &s));
    if (prm.overlapEvery > 0 && s.step % prm.overlapEvery == 0) { /* the summary's max_overlap */
      PetscReal ovl;
      PetscCall(SimMaxOverlap(&s, &ovl));
      s.ovlMax = PetscMax(s.ovlMax, ovl);
      s.ovlSamples++;
      s.ovlStep = s.step;
    }
    if (output && prm.outputEvery > 0 && s.step % prm.outputEvery == 0) {
      PetscCall(H5MDWriteFrame(&w, &s));
      lastFrame = s.step;
    }
    if (chk && ((prm.chkEvery > 0 && s.step % prm.chkEvery == 0) || s.control >= 1)) {
      PetscCall(CheckpointWrite(&s, prm.checkpoint));
      lastChk = s.step;
      if (g_signal == 1) g_signal = 0;
      PetscCall(PetscTime(&chkClock));
      if (!prm.quiet && s.control >= 1) PetscCall(PetscPrintf(comm, "throng: checkpoint '%s' written at step %" PetscInt_FMT " (%s)\n", prm.checkpoint, s.step, s.control >= 2 ? "SIGTERM" : "signal or wall-time interval"));
    }
    if (s.control >= 2) {
      PetscCall(PetscPrintf(comm, "throng: stopped by SIGTERM at step %" PetscInt_FMT "; continue with -restart %s\n", s.step, prm.checkpoint));
      g_exit = 143;
      break;
    }
    PetscCall(ReportProgress(&s, t0, step0, PETSC_FALSE));
    if (stop) {
      if (!prm.quiet) PetscCall(PetscPrintf(comm, "throng: %s, at t = %g (step %" PetscInt_FMT ")\n", stop, (double)s.time, s.step));
      break;
    }
  }
  if (output && lastFrame != s.step) PetscCall(H5MDWriteFrame(&w, &s));
  if (chk && lastChk != s.step) PetscCall(CheckpointWrite(&s, prm.checkpoint));
  PetscCall(PetscTime(&t1));
  PetscCall(PBDFinishDisplacement(&s));
  PetscCall(PetscLogStagePop());

  {
    PetscReal  ovl, disp = s.sweepDisp, el = (PetscReal)(t1 - t0);
    PetscInt64 checks = s.pairChecks, moved = s.mig.moved;
    Digest     dg;
    PetscCall(SimMaxOverlap(&s, &ovl));
    s.ovlMax = PetscMax(s.ovlMax, ovl);
    if (s.ovlStep != s.step) s.ovlSamples++;
    PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &disp, 1, MPIU_REAL, MPI_MAX, comm));
    PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &checks, 1, MPIU_INT64, MPI_SUM, comm));
    PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &moved, 1, MPIU_INT64, MPI_SUM, comm));
    PetscCall(SimCheckConservation(&s));
    PetscCall(ReportResidentBytes(PETSC_TRUE, &rss1));
    {
      PetscReal mem[2] = {rss1, rss1 - rss0};
      PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, mem, 2, MPIU_REAL, MPI_SUM, comm));
      rss1 = mem[0];
      rss0 = mem[1];
    }
    PetscCall(StateDigest(comm, &s.P, &dg));
    PetscCheck(dg.n == s.ndisks, comm, PETSC_ERR_PLIB, "%" PetscInt64_FMT " disks at the end instead of %" PetscInt64_FMT, dg.n, s.ndisks); /* modules may remove disks (a crowd's exits) */
    if (prm.map && !prm.quiet) PetscCall(ReportMap(&s, 64, 24));
    PetscCall(PetscPrintf(comm, "summary: steps %" PetscInt_FMT "  t %g  N %" PetscInt64_FMT "  ranks %d  wall %.3f s  %.4e particle-steps/s (%.4e per rank)\n", s.step, (double)s.time, dg.n, size, (double)el, el > 0 ? (double)((PetscReal)prm.n * (PetscReal)(s.step - step0) / el) : 0.0,
                          el > 0 ? (double)((PetscReal)prm.n * (PetscReal)(s.step - step0) / el / size) : 0.0));
    PetscCall(PetscPrintf(comm, "summary: sampled_max_overlap %.6e (%.3e of the mean diameter): the largest of %" PetscInt_FMT " samples, every %" PetscInt_FMT " steps (%s) and at the end%s\n", (double)s.ovlMax, (double)(s.ovlMax / (2 * prm.radius)), s.ovlSamples,
                          prm.overlapEvery > 0 ? prm.overlapEvery : (prm.progress > 0 ? prm.progress : PetscMax(1, prm.steps / 10)), prm.overlapEvery > 0 ? "-overlap_every" : "-progress", prm.quiet && prm.progress <= 0 && prm.overlapEvery <= 0 ? " (-quiet without -progress: at the end only)" : ""));
    PetscCall(PetscPrintf(comm, "summary: max_overlap %.6e (%.3e of the mean diameter; the largest sampled since the start or restart, %.3e at the end)  rebins %" PetscInt_FMT "  migrated %" PetscInt64_FMT "  pair_checks %" PetscInt64_FMT "  max_disp/skin %.3f%s\n", (double)s.ovlMax, (double)(s.ovlMax / (2 * prm.radius)), (double)ovl, s.rebins, moved, checks, (double)(disp / prm.skin),
                          disp >= 0.5 * prm.skin ? "  skin_exceeded (candidate pairs may have been missed: lower -rebin_fraction or raise -skin)" : ""));
    PetscCall(SolverReport(&s));
    if (size > 1 && s.step > step0) { /* the inputs of the performance model (docs/performance.md) */
      PetscInt64 t[3] = {s.halo.exchanges, s.halo.bytes, s.halo.messages};
      PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, t, 3, MPIU_INT64, MPI_SUM, comm));
      const PetscReal per = (PetscReal)size * (PetscReal)(s.step - step0);
      PetscCall(PetscPrintf(comm, "summary: halo: %.3g exchanges, %.4g bytes and %.3g messages sent per rank and step (means; rebins %" PetscInt_FMT ")\n", (double)(t[0] / per), (double)(t[1] / per), (double)(t[2] / per), s.rebins));
    }
    PetscCall(BalanceReport(&s.bal, &s.prm, &s.dom, output));
    PetscCall(SimModulesFinish(&s, output, output ? w.file : -1, output ? w.dxpl : -1));
    if (prm.n > 0)
      PetscCall(PetscPrintf(comm, "summary: memory: peak resident %.1f MB over all ranks, %.1f bytes per disk (%.1f bytes per disk above the start-up footprint)\n", (double)(rss1 / 1e6), (double)(rss1 / (PetscReal)prm.n), (double)(rss0 / (PetscReal)prm.n)));
    PetscCall(SimModulesDigest(&s, &dg)); /* the modules' records: a crowd may have left */
    DigestFormat(&dg, hex);
    PetscCall(PetscPrintf(comm, "state-digest: %s\n", hex));
  }
  if (output) PetscCall(H5MDClose(&w, (PetscReal)(t1 - t0)));
  PetscCall(TrajectoryClose(&traj));
  PetscCall(SimDestroy(&s));
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
