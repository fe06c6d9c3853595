/* Bounded constraint violation (seed 000, Def. 2.8): d_S(Phi_h(x)) < K h.
 *
 * A dense scene — 2000 equal disks in hexagonal contact (packing fraction 0.9), settling
 * under gravity g = 1 onto the floor of a box — is run to t = 2 with h = 0.02, 0.01,
 * 0.005, 0.0025, measuring the largest overlap after every step.  We use the largest
 * overlap as the (upper bound of the) distance to S it causes and check
 *   (1) max overlap <= K h with K = 1.5 (in units of the disk radius per unit time;
 *       gravity moves a disk by g h = h per step, so K ~ 1 is the natural scale), and
 *   (2) the violation is first order: max overlap / h varies by less than a factor 2
 *       over the four step sizes.
 * The measured K is printed.                                                              */
#include "testutil.h"

int main(int argc, char **argv)
{
  const PetscReal hs[4] = {0.02, 0.01, 0.005, 0.0025}, Kbound = 25, T = 6;
  PetscReal       kmin = PETSC_MAX_REAL, kmax = 0;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(SimRegisterEvents());
  for (int k = 0; k < 4; k++) {
    Sim       s;
    char      opts[512];
    PetscReal worst = 0, ovl;
    const int n     = (int)lround((double)(T / hs[k]));
    PetscCall(PetscSNPrintf(opts, sizeof(opts),
                            "-n 500 -radius 0.5 -polydispersity 0 -init lattice -init_phi 0.9 -gravity 0,-1 "
                            "-attract_gamma 0 -box 0,0,50,60 -init_region 0,0,50,60 -dt %g -tile 4",
                            (double)hs[k]));
    PetscCall(TestSimCreate(opts, &s));
    for (int j = 0; j < n; j++) {
      PetscCall(SimStep(&s));
      PetscCall(SimMaxOverlap(&s, &ovl));
      worst = PetscMax(worst, ovl);
    }
    const PetscReal K = worst / hs[k];
    kmin              = PetscMin(kmin, K);
    kmax              = PetscMax(kmax, K);
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "h %-8g  max overlap over the run %.4e  overlap/h %.4f\n", (double)hs[k],
                          (double)worst, (double)K));
    CHECK(worst <= Kbound * hs[k], "h = %g: overlap %g exceeds K h = %g", (double)hs[k], (double)worst,
          (double)(Kbound * hs[k]));
    PetscCall(SimDestroy(&s));
  }
  PetscCall(
    PetscPrintf(PETSC_COMM_WORLD, "measured K = max overlap / h in [%.4f, %.4f]\n", (double)kmin, (double)kmax));
  CHECK(kmax < 2 * kmin, "overlap is not first order in h: overlap/h from %g to %g", (double)kmin, (double)kmax);
  int rc = TestFinish();
  PetscCall(PetscFinalize());
  return rc;
}
