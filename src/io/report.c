/* report — what rank 0 prints while a run goes: progress lines and a density map.
 *
 * A progress line costs one overlap measurement (a pass over the candidate pairs) and
 * a few reductions; it is printed every -progress K steps (default: ten per run).  The
 * measurement is made with -quiet too when -progress K is given, only not printed: the
 * summary reports the largest overlap of these samples, so a quiet run can still be
 * checked for it.  (A quiet run without -progress measures only at the end: ten passes
 * over the pairs would cost a benchmark of 200 steps 5 %.)                             */
#include <throng/io/report.h>
#include <throng/core/modules.h>
#include <string.h>
#include <stdlib.h>

static void FormatSeconds(PetscReal s, char *buf, size_t n)
{
  if (!(s >= 0) || s > 1e8) snprintf(buf, n, "--");
  else if (s < 60) snprintf(buf, n, "%.1fs", (double)s);
  else if (s < 3600) snprintf(buf, n, "%dm%02ds", (int)(s / 60), (int)s % 60);
  else snprintf(buf, n, "%dh%02dm", (int)(s / 3600), (int)(s / 60) % 60);
}

PetscErrorCode ReportProgress(Sim *s, PetscLogDouble t0, PetscInt step0, PetscBool force)
{
  const PetscInt K = s->prm.progress > 0 ? s->prm.progress : PetscMax(1, s->prm.steps / 10);
  PetscLogDouble now;
  PetscReal      ovl, disp;
  char           eta[96];

  PetscFunctionBeginUser;
  if (!force && s->step % K) PetscFunctionReturn(PETSC_SUCCESS);
  if (s->prm.quiet && s->prm.progress <= 0)
    PetscFunctionReturn(PETSC_SUCCESS); /* a quiet run samples only when asked */
  PetscCall(SimMaxOverlap(s, &ovl));
  s->ovlMax = PetscMax(s->ovlMax, ovl);
  if (s->ovlStep != s->step) s->ovlSamples++;
  s->ovlStep = s->step;
  if (s->prm.quiet) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscTime(&now));
  disp = s->sweepDisp;
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &disp, 1, MPIU_REAL, MPI_MAX, s->dom.comm));
  const PetscReal el = (PetscReal)(now - t0), done = (PetscReal)(s->step - step0);
  const PetscReal rate = done > 0 && el > 0 ? (PetscReal)s->prm.n * done / el : 0;
  FormatSeconds(done > 0 ? el / done * (PetscReal)(s->prm.steps - s->step) : -1, eta, sizeof(eta));
  { /* a module that may end the run early (a crowd): its estimate, beside the bound of -steps */
    PetscBool       early;
    const PetscReal left = SimModulesTimeLeft(s, &early);
    char            est[32], both[80];
    if (early && done > 0 && left >= 0) {
      FormatSeconds(el / done * PetscMin(left / s->prm.dt, (PetscReal)(s->prm.steps - s->step)), est, sizeof(est));
      PetscCall(PetscSNPrintf(both, sizeof(both), "%s (at most %s)", est, eta));
      PetscCall(PetscStrncpy(eta, both, sizeof(eta)));
    } else if (early) {
      PetscCall(PetscSNPrintf(both, sizeof(both), "at most %s", eta));
      PetscCall(PetscStrncpy(eta, both, sizeof(eta)));
    }
  }
  char speed[48] = ""; /* the RMS speed over the step just taken, or the one before (speed.c) */
  if (s->step > 0 && (s->speedStep == s->step || s->speedStep == s->step - 1))
    PetscCall(PetscSNPrintf(speed, sizeof(speed), "  rms_speed %.3e", (double)s->rmsSpeed));
  PetscCall(PetscPrintf(s->dom.comm,
                        "step %7" PetscInt_FMT "  t %10.4g  N %" PetscInt64_FMT
                        "  max_overlap %.3e  disp/skin %.2f  %.3e particle-steps/s  ETA %s  largest %.3e%s\n",
                        s->step, (double)s->time, s->idPrint.n, (double)ovl, (double)(disp / s->prm.skin), (double)rate,
                        eta, (double)s->ovlMax, speed));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode ReportMap(Sim *s, PetscInt nx, PetscInt ny)
{
  const Domain *d = &s->dom;
  PetscInt64   *h, hmax = 0;
  const char    ramp[] = " .:-=+*#%@";

  PetscFunctionBeginUser;
  PetscCall(PetscCalloc1(nx * ny, &h));
  for (PetscInt i = 0; i < s->P.n; i++) {
    PetscInt ix = (PetscInt)((s->P.x[i] - d->lo[0]) / (d->hi[0] - d->lo[0]) * nx);
    PetscInt iy = (PetscInt)((s->P.y[i] - d->lo[1]) / (d->hi[1] - d->lo[1]) * ny);
    ix          = PetscMin(PetscMax(ix, 0), nx - 1);
    iy          = PetscMin(PetscMax(iy, 0), ny - 1);
    h[iy * nx + ix]++;
  }
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, h, (PetscMPIInt)(nx * ny), MPIU_INT64, MPI_SUM, d->comm));
  for (PetscInt k = 0; k < nx * ny; k++) hmax = PetscMax(hmax, h[k]);
  PetscCall(PetscPrintf(d->comm, "final state (disks per map cell, box [%g,%g]x[%g,%g]):\n", (double)d->lo[0],
                        (double)d->hi[0], (double)d->lo[1], (double)d->hi[1]));
  for (PetscInt iy = ny - 1; iy >= 0; iy--) {
    char     line[512];
    PetscInt k = 0;
    line[k++]  = '|';
    for (PetscInt ix = 0; ix < nx && k < 500; ix++) {
      const PetscInt64 v = h[iy * nx + ix];
      line[k++]          = v == 0 ? ' ' : ramp[1 + (int)((double)(v * 8) / (double)(hmax ? hmax : 1))];
    }
    line[k++] = '|';
    line[k]   = 0;
    PetscCall(PetscPrintf(d->comm, "%s\n", line));
  }
  PetscCall(PetscFree(h));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Resident set size of this process in bytes: VmHWM (peak) or VmRSS (now) of
   /proc/self/status; 0 where that file does not exist. Not collective. */
PetscErrorCode ReportResidentBytes(PetscBool peak, PetscReal *bytes)
{
  FILE       *f = fopen("/proc/self/status", "r");
  char        line[256];
  const char *key = peak ? "VmHWM:" : "VmRSS:";
  PetscFunctionBeginUser;
  *bytes = 0;
  if (!f) PetscFunctionReturn(PETSC_SUCCESS);
  while (fgets(line, sizeof(line), f)) {
    if (!strncmp(line, key, strlen(key))) {
      *bytes = 1024.0 * atof(line + strlen(key));
      break;
    }
  }
  fclose(f);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The program's version and the git revision it was built from, as the summary and
   an ensemble's manifest (jobs/ensemble.py) name them. */
const char *ReportVersion(void) { return "throng " THRONG_VERSION " (git " THRONG_GIT_REVISION ")"; }
