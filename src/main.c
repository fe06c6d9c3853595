/* throng — main(): set up, loop, finish.
 *
 *   set up   options (command line > YAML config > defaults), decomposition, disks,
 *            initial overlaps (error or project), binning and ghosts;
 *   loop     PBD steps (pbd.c), a progress line every K steps;
 *   finish   summary, density map, and the last line `state-digest: <hex>`, a hash of
 *            every disk's (id, x, y) that is the same on any number of ranks.           */
#include <throng/sim.h>
#include <throng/errors.h>
#include <throng/init.h>

static const char help[] = "throng: first-order position-based dynamics (PBD) of non-overlapping disks.\n"
                           "  mpirun -n P throng [-options_file_yaml config.yaml] [-option value ...]\n"
                           "All options are listed below; see README.md for the model and the algorithm.\n\n";

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
  PetscCallMPI(MPI_Comm_size(comm, &size));

  PetscCall(PetscLogStagePush(THRONG_EV.setup));
  PetscCall(ReportResidentBytes(PETSC_FALSE, &rss0));
  if (!prm.quiet) PetscCall(ParamsView(comm, &prm));
  PetscCall(SimCreate(comm, &prm, &s));
  if (!prm.quiet)
    PetscCall(PetscPrintf(comm, "throng: %d ranks as %d x %d blocks; %" PetscInt_FMT " x %" PetscInt_FMT " cells of %.4g x %.4g in tiles of %" PetscInt_FMT "; r_max %g, skin %g\n", size, s.dom.p[0], s.dom.p[1], s.dom.nc[0], s.dom.nc[1], (double)s.dom.w[0], (double)s.dom.w[1], prm.tile, (double)s.rmax, (double)prm.skin));
  PetscCall(SimResolveInitialOverlaps(&s));
  PetscCall(PetscLogStagePop());

  PetscCall(PetscLogStagePush(THRONG_EV.run));
  step0 = s.step;
  PetscCall(PetscTime(&t0));
  PetscCall(ReportProgress(&s, t0, step0, PETSC_TRUE));
  while (s.step < prm.steps) {
    PetscCall(PBDStep(&s));
    PetscCall(ReportProgress(&s, t0, step0, PETSC_FALSE));
  }
  PetscCall(PetscTime(&t1));
  PetscCall(PBDFinishDisplacement(&s));
  PetscCall(PetscLogStagePop());

  {
    PetscReal  ovl, disp = s.sweepDisp, el = (PetscReal)(t1 - t0);
    PetscInt64 checks = s.pairChecks, moved = s.mig.moved;
    Digest     dg;
    PetscCall(SimMaxOverlap(&s, &ovl));
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
    PetscCheck(dg.n == prm.n, comm, PETSC_ERR_PLIB, "%" PetscInt64_FMT " disks at the end instead of %" PetscInt64_FMT, dg.n, prm.n);
    if (prm.map && !prm.quiet) PetscCall(ReportMap(&s, 64, 24));
    PetscCall(PetscPrintf(comm, "summary: steps %" PetscInt_FMT "  t %g  N %" PetscInt64_FMT "  ranks %d  wall %.3f s  %.4e particle-steps/s (%.4e per rank)\n", s.step, (double)s.time, dg.n, size, (double)el, el > 0 ? (double)((PetscReal)prm.n * (PetscReal)(s.step - step0) / el) : 0.0,
                          el > 0 ? (double)((PetscReal)prm.n * (PetscReal)(s.step - step0) / el / size) : 0.0));
    PetscCall(PetscPrintf(comm, "summary: max_overlap %.6e (%.3e of the mean diameter)  rebins %" PetscInt_FMT "  migrated %" PetscInt64_FMT "  pair_checks %" PetscInt64_FMT "  max_disp/skin %.3f%s\n", (double)ovl, (double)(ovl / (2 * prm.radius)), s.rebins, moved, checks, (double)(disp / prm.skin),
                          disp >= 0.5 * prm.skin ? "  skin_exceeded (candidate pairs may have been missed: lower -rebin_fraction or raise -skin)" : ""));
    if (prm.n > 0)
      PetscCall(PetscPrintf(comm, "summary: memory: peak resident %.1f MB over all ranks, %.1f bytes per disk (%.1f bytes per disk above the start-up footprint)\n", (double)(rss1 / 1e6), (double)(rss1 / (PetscReal)prm.n), (double)(rss0 / (PetscReal)prm.n)));
    DigestFormat(&dg, hex);
    PetscCall(PetscPrintf(comm, "state-digest: %s\n", hex));
  }
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
  return ierr ? 1 : 0;
}
