/* Seed 000 §4.3: N = 40 disks of radius R = 0.1 attracted to the centre, dx/dt =
 * -gamma x - N(S, x), gamma = 1, kept in the half-plane y >= 0 (disk centres y >= R),
 * T = 4, from a jittered lattice (seed 3).  Errors (max over disks of
 * |x_i(T) - x_ref,i(T)|) against a fine reference (PBD at h = T/2^20, 16x finer than the
 * finest h tested) must shrink about linearly in h: the least-squares order over
 * h = T/2^11 ... T/2^16 must lie in [0.8, 1.2], and the overlap stay below 10 h.
 *
 * Why not coarser h: the 40 disks jam into a cluster, and the final arrangement is very
 * sensitive.  For h >= T/2^10 ~ 0.004 one disk ends in a different slot of the cluster
 * (error ~ one diameter, for every seed tried); from h ~ 0.002 on the error is in its
 * asymptotic regime and halves with h (measured ratios 2.05, 2.17 ...).
 * Runs on any number of ranks; the errors are the same bit for bit.                      */
#include "testutil.h"

static const char *base = "-n 40 -radius 0.1 -polydispersity 0 -attract_gamma 1 -attract_center 0,0 -wall_box 0 -halfplanes 0,1,0 "
                          "-box -2,-1,2,3 -init jitter -init_region -1.5,0.1,1.5,2.5 -init_phi 0.25 -seed 3 -tile 2";

static PetscErrorCode RunTo(PetscReal T, PetscInt nsteps, PetscReal *x, PetscReal *y)
{
  Sim  s;
  char opts[1024];
  PetscFunctionBeginUser;
  PetscCall(PetscSNPrintf(opts, sizeof(opts), "%s -dt %.17g -steps %d", base, (double)(T / nsteps), (int)nsteps));
  PetscCall(TestSimCreate(opts, &s));
  for (PetscInt k = 0; k < nsteps; k++) PetscCall(PBDStep(&s));
  PetscReal ovl;
  PetscCall(SimMaxOverlap(&s, &ovl));
  CHECK(ovl < 10 * T / nsteps, "overlap %g after %d steps exceeds 10 h", (double)ovl, (int)nsteps);
  PetscCall(TestGatherById(&s, x, y));
  PetscCall(SimDestroy(&s));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  const PetscReal T = 4;
  PetscReal       xr[40], yr[40], x[40], y[40], e[6], h[6], sx = 0, sy = 0, sxx = 0, sxy = 0;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(SimRegisterEvents());
  PetscCall(RunTo(T, 1 << 20, xr, yr));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "# 40 disks (seed 000 §4.3), reference h = T/2^20\n#        h        error     ratio\n"));
  for (int k = 0; k < 6; k++) {
    const PetscInt n = 1 << (11 + k);
    PetscCall(RunTo(T, n, x, y));
    e[k] = 0;
    h[k] = T / n;
    for (int i = 0; i < 40; i++) e[k] = PetscMax(e[k], PetscSqrtReal(PetscSqr(x[i] - xr[i]) + PetscSqr(y[i] - yr[i])));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  %10.6f  %12.5e  %6.3f\n", (double)h[k], (double)e[k], k ? (double)(e[k - 1] / e[k]) : 0.0));
    sx += PetscLogReal(h[k]);
    sy += PetscLogReal(e[k]);
    sxx += PetscSqr(PetscLogReal(h[k]));
    sxy += PetscLogReal(h[k]) * PetscLogReal(e[k]);
  }
  const PetscReal order = (6 * sxy - sx * sy) / (6 * sxx - sx * sx);
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "observed order (least squares over 5 halvings): %.4f\n", (double)order));
  CHECK(order >= 0.8 && order <= 1.2, "observed order %.4f not in [0.8, 1.2]", (double)order);
  CHECK(e[5] < e[0] / 8, "error did not shrink: %g -> %g", (double)e[0], (double)e[5]);
  int rc = TestFinish();
  PetscCall(PetscFinalize());
  return rc;
}
