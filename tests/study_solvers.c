/* The precision-work study of seed 000 §4 (Figures 8 and 10): PBD against PNGS, PGS and
 * the penalty method, error against h and against work, on
 *   sliding   §4.2: a point in R^3 kept outside two balls (C = 10, d = 3, alpha = pi/16),
 *             f = -e_2, T = 3, error = sup over the steps of |x_k - x(t_k)| against the
 *             exact solution (sliding.h);
 *   disks40   §4.3: N = 40, R = 0.1, gamma = 1, T = 4, the half-plane y >= R, from the
 *             spiral start of test_disks40.c, run by throng's engine with -solver;
 *             error = max_i |x_i(T) - x_ref,i(T)| against a PNGS reference
 *             (rtol 1e-10, atol 1e-12) at the smallest h of the study divided by 4.
 * Work is the number of single-constraint evaluations (solver.c defines it per scheme),
 * and wall time is measured per run.  One CSV line per run:
 *   case,solver,gamma,h,steps,error,work,work_per_step,wall,max_violation
 * (gamma: the penalty parameter, 0 for the others; max_violation: largest overlap or
 * ball penetration over the run; error = inf when a run blew up).
 *
 *   study_solvers [-quick] [-csv FILE]
 * -quick is the ctest version (fewer h): it checks the claims of the seed on small
 * versions — PBD order in [0.8, 1.2] on both cases; PGS order in [0.8, 1.2] on the 40
 * disks (from successive differences at h = T/2^12..T/2^14: PGS's error falls below the
 * PNGS reference's); at the coarse end and equal work (beyond PBD's finest run, along
 * its fitted order) PBD's error is not above the others' — on the 40 disks, and on the
 * sliding case against pngs and pgs (against the penalty runs it is printed only);
 * the penalty method with the smallest gamma stops converging; every run keeps the
 * violation bounded (<= 25 h for the projection schemes; <= 25 / gamma for the penalty
 * method where it is stable, h gamma <= 1/2: its overlaps are O(1/gamma) by design).  Without -quick it is the
 * full study of jobs/study_solvers.sh (no checks).                                     */
#include "testutil.h"
#include "sliding.h"
#include <string.h>

enum { M_PBD, M_PNGS, M_PGS, M_PENALTY };
static const char  *names[]  = {"pbd", "pngs", "pgs", "penalty"};
static const double gammas[] = {10, 100, 1000}; /* penalty parameters of the study */
#define NGAMMA 3
#define MAXH   16

typedef struct {
  double h, error, work, wall, viol;
  int    steps;
} Point;

static FILE *csv;

static void Emit(const char *cs, int m, double gamma, const Point *p)
{
  if (!csv) return;
  fprintf(csv, "%s,%s,%g,%.10g,%d,%.10g,%.10g,%.10g,%.6g,%.6g\n", cs, names[m], gamma, p->h, p->steps, p->error,
          p->work, p->work / p->steps, p->wall, p->viol);
  fflush(csv);
}

/* ---------------------------------------------------------------- sliding case ------ */
static double Now(void)
{
  PetscLogDouble t;
  PetscTime(&t);
  return (double)t;
}

static Point Sliding(int m, double gamma, double h)
{
  const double a = SLIDING_PI / 16, C = 10, T = 3, R = sqrt(1 + C * C), rtol = 1e-10, atol = 1e-12;
  const double c[2][3] = {{0, 0, C}, {0, 0, -C}};
  double       x[3]    = {sin(a), cos(a), 0};
  Point        p       = {h, 0, 0, 0, 0, (int)lround(T / h)};
  const double t0      = Now();
  for (int k = 1; k <= p.steps; k++) {
    double y[3] = {x[0], x[1] - h, x[2]}, ex[3];
    if (m == M_PBD || m == M_PNGS) {
      double change;
      int    it = 0;
      do { /* pbd: one sweep; pngs: sweeps until the change is small */
        double z[3] = {y[0], y[1], y[2]};
        ProjectOutsideBall(3, y, c[0], R);
        ProjectOutsideBall(3, y, c[1], R);
        p.work += 2;
        it++;
        change = fmax(fabs(y[0] - z[0]), fmax(fabs(y[1] - z[1]), fabs(y[2] - z[2])));
      } while (m == M_PNGS && change > atol + rtol * fmax(fabs(y[0]), fmax(fabs(y[1]), fabs(y[2]))) && it < 10000);
    } else if (m == M_PGS) { /* linearise at x, project y onto the two half-spaces (dual PGS) */
      double G[2][3], b[2], W[2][2], mu[2] = {0, 0}, bmax = 0;
      for (int j = 0; j < 2; j++) {
        double d[3], nd = 0;
        for (int q = 0; q < 3; q++) d[q] = x[q] - c[j][q], nd += d[q] * d[q];
        nd   = sqrt(nd);
        b[j] = nd - R;
        for (int q = 0; q < 3; q++) G[j][q] = d[q] / nd, b[j] += G[j][q] * (y[q] - x[q]);
        bmax = fmax(bmax, fabs(b[j]));
      }
      for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2; j++) W[i][j] = G[i][0] * G[j][0] + G[i][1] * G[j][1] + G[i][2] * G[j][2];
      for (int it = 0; it < 10000; it++) {
        double res = 0;
        for (int j = 0; j < 2; j++) res = fmax(res, fabs(fmin(mu[j], W[j][0] * mu[0] + W[j][1] * mu[1] + b[j])));
        if (res <= atol + rtol * bmax) break;
        for (int j = 0; j < 2; j++) mu[j] = fmax(0, mu[j] - (W[j][0] * mu[0] + W[j][1] * mu[1] + b[j]) / W[j][j]);
        p.work += 2;
      }
      for (int q = 0; q < 3; q++) y[q] += G[0][q] * mu[0] + G[1][q] * mu[1];
    } else { /* penalty: x + h (f - gamma sum_j (x - P_j x)) */
      for (int j = 0; j < 2; j++) {
        double z[3] = {x[0], x[1], x[2]};
        ProjectOutsideBall(3, z, c[j], R);
        for (int q = 0; q < 3; q++) y[q] -= h * gamma * (x[q] - z[q]);
      }
      p.work += 2;
    }
    for (int q = 0; q < 3; q++) x[q] = y[q];
    SlidingExact(a, k * h, ex);
    const double e = sqrt((x[0] - ex[0]) * (x[0] - ex[0]) + (x[1] - ex[1]) * (x[1] - ex[1]) + x[2] * x[2]);
    p.error        = e > p.error || e != e ? e : p.error;
    for (int j = 0; j < 2; j++) {
      const double d = sqrt((x[0] - c[j][0]) * (x[0] - c[j][0]) + (x[1] - c[j][1]) * (x[1] - c[j][1]) +
                            (x[2] - c[j][2]) * (x[2] - c[j][2]));
      p.viol         = fmax(p.viol, R - d);
    }
    if (!(p.error < 1e3)) {
      p.error = INFINITY;
      break;
    }
  }
  p.wall = Now() - t0;
  return p;
}

/* --------------------------------------------------------------- 40 disks ----------- */
static char base[512];

static PetscErrorCode Disks40(int m, double gamma, int steps, const PetscReal *xr, const PetscReal *yr, PetscReal *x,
                              PetscReal *y, Point *p)
{
  const PetscReal T = 4;
  Sim             s;
  char            opts[1024];
  PetscInt64      w[2];
  double          t0;
  PetscBool       blown = PETSC_FALSE;

  PetscFunctionBeginUser;
  char pen[64] = ""; /* the penalty parameter, for the penalty stepper alone (another refuses it) */
  if (gamma > 0) PetscCall(PetscSNPrintf(pen, sizeof(pen), " -penalty_gamma %g", gamma));
  PetscCall(PetscSNPrintf(opts, sizeof(opts),
                          "%s -dt %.17g -steps %d -solver %s%s -solver_rtol 1e-10 -solver_atol 1e-12 -solver_max_it 100000",
                          base, (double)(T / steps), steps, names[m], pen));
  PetscCall(TestSimCreateOn(PETSC_COMM_WORLD, opts, &s));
  p->h     = T / steps;
  p->steps = steps;
  p->viol  = 0;
  t0       = Now();
  for (int k = 0; k < steps; k++) {
    PetscReal ovl, big = 0;
    PetscCall(SimStep(&s));
    for (PetscInt i = 0; i < s.P.n; i++) big = PetscMax(big, PetscMax(PetscAbsReal(s.P.x[i]), PetscAbsReal(s.P.y[i])));
    PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, &big, 1, MPIU_REAL, MPI_MAX, PETSC_COMM_WORLD));
    if (!(big < 3)) { /* left the box: the explicit penalty step is unstable at this h */
      blown = PETSC_TRUE;
      break;
    }
    PetscCall(SimMaxOverlap(&s, &ovl));
    p->viol = PetscMax(p->viol, ovl);
  }
  p->wall = Now() - t0;
  w[0]    = s.sol.work;
  w[1]    = s.pairChecks;
  PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, w, 2, MPIU_INT64, MPI_SUM, PETSC_COMM_WORLD));
  p->work = (double)(w[0] + w[1]);
  if (!blown) PetscCall(TestGatherById(&s, x, y));
  p->error = 0;
  if (blown) p->error = INFINITY;
  else if (xr)
    for (int i = 0; i < 40; i++)
      p->error = PetscMax(p->error, PetscSqrtReal(PetscSqr(x[i] - xr[i]) + PetscSqr(y[i] - yr[i])));
  PetscCall(SimDestroy(&s));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* --------------------------------------------------------------- checks ------------- */
/* Least-squares order over the points with h <= hmax. */
static double Order(const Point *p, int n, double hmax)
{
  while (n > 2 && p[0].h > hmax * (1 + 1e-12)) p++, n--;
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (int k = 0; k < n; k++) {
    sx += log(p[k].h), sy += log(p[k].error), sxx += log(p[k].h) * log(p[k].h), sxy += log(p[k].h) * log(p[k].error);
  }
  return (n * sxy - sx * sy) / (n * sxx - sx * sx);
}

/* Error of a curve at work W, interpolated in log-log (NAN outside its finite range). */
static double ErrorAtWork(const Point *p, int n, double W)
{
  for (int k = 0; k + 1 < n; k++) {
    const double w0 = p[k].work, w1 = p[k + 1].work;
    if (!isfinite(p[k].error) || !isfinite(p[k + 1].error)) continue;
    if (W >= w0 && W <= w1) {
      const double t = (log(W) - log(w0)) / (log(w1) - log(w0));
      return exp((1 - t) * log(p[k].error) + t * log(p[k + 1].error));
    }
  }
  return NAN;
}

/* At the coarse end: the smallest work both curves reach, PBD's error <= the other's. */
static void CheckCoarseEnd(const char *cs, const char *other, const Point *pbd, int npbd, const Point *o, int no,
                           PetscBool assert, double hAsym)
{
  double W0    = pbd[0].work;
  int    first = 0;
  while (first < no && !isfinite(o[first].error)) first++;
  if (first == no) { /* the other scheme never gave a finite error: PBD must have */
    PetscPrintf(PETSC_COMM_WORLD, "%s: %s diverged at every h\n", cs, other);
    if (assert) CHECK(isfinite(pbd[npbd - 1].error), "%s: %s and PBD both diverged at every h", cs, other);
    return;
  }
  W0        = fmax(W0, o[first].work);
  double ep = ErrorAtWork(pbd, npbd, W0), eo = ErrorAtWork(o, no, W0);
  if (W0 > pbd[npbd - 1].work) /* beyond PBD's finest run: along its fitted order (work ~ 1/h) */
    ep = pbd[npbd - 1].error * pow(pbd[npbd - 1].work / W0, Order(pbd, npbd, hAsym));
  if (!isfinite(eo)) eo = o[first].error;
  PetscPrintf(PETSC_COMM_WORLD, "%s: at work %.3e (coarse end) error pbd %.3e, %s %.3e\n", cs, W0, ep, other, eo);
  if (assert)
    CHECK(isfinite(ep) && (!isfinite(eo) || ep <= 1.05 * eo),
          "%s: at equal work %.3e PBD's error %.3e is above %s's %.3e", cs, W0, ep, other, eo);
}

int main(int argc, char **argv)
{
  PetscBool    quick                       = PETSC_FALSE;
  char         csvName[PETSC_MAX_PATH_LEN] = "";
  static Point sl[4 + NGAMMA][MAXH + 8], dk[4 + NGAMMA][MAXH];
  int          nsl[4 + NGAMMA], ndk[4 + NGAMMA];
  PetscReal    pgsOrder = 0;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(SimRegisterEvents());
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-quick", &quick, NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-csv", csvName, sizeof(csvName), NULL));
  {
    PetscMPIInt rank;
    PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
    if (!rank && csvName[0]) {
      csv = fopen(csvName, "w");
      PetscCheck(csv, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "cannot write %s", csvName);
      fprintf(csv, "case,solver,gamma,h,steps,error,work,work_per_step,wall,max_violation\n");
    }
  }

  /* sliding: h = h0 / 2^k */
  const int    ks = quick ? 6 : 12;
  const double h0 = quick ? 0.02 : 0.1;
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "# sliding case (seed 000 §4.2): solver gamma h error work\n"));
  for (int m = 0; m < 4 + NGAMMA - 1; m++) {
    const int    meth  = m < 3 ? m : M_PENALTY;
    const double gamma = m < 3 ? 0 : gammas[m - 3];
    nsl[m]             = meth == M_PBD ? ks + 8 : ks; /* PBD is cheap: reach the others' work */
    for (int k = 0; k < nsl[m]; k++) {
      sl[m][k] = Sliding(meth, gamma, h0 / (1 << k));
      Emit("sliding", meth, gamma, &sl[m][k]);
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  %-8s %6g %10.3e %10.3e %10.3e\n", names[meth], gamma, sl[m][k].h,
                            sl[m][k].error, sl[m][k].work));
    }
  }

  /* 40 disks: h = T / 2^k, k = k0 .. k1 (fewer for the costly schemes) */
  PetscCall(TestDisks40Start(base, sizeof(base)));
  {
    /* orders are fitted over h <= T/2^11 only (test_disks40.c: coarser h may jam the
       cluster in another arrangement) */
    const int k0 = 7, k1 = quick ? 14 : 16, kref = k1 + 2;
    PetscReal xr[40], yr[40], x[40], y[40], xs[3][40], ys[3][40];
    Point     ref;
    PetscCall(Disks40(M_PNGS, 0, 1 << kref, NULL, NULL, xr, yr, &ref));
    PetscCall(
      PetscPrintf(PETSC_COMM_WORLD,
                  "# 40 disks (seed 000 §4.3), PNGS reference at h = T/2^%d (%.3e s): solver gamma h error work wall\n",
                  kref, ref.wall));
    for (int m = 0; m < 4 + NGAMMA - 1; m++) {
      const int    meth  = m < 3 ? m : M_PENALTY;
      const double gamma = m < 3 ? 0 : gammas[m - 3];
      const int    top   = meth == M_PGS ? 14 : meth == M_PNGS ? (quick ? 12 : 15) : k1;
      ndk[m]             = 0;
      for (int k = k0; k <= top; k++) {
        Point *p = &dk[m][ndk[m]++];
        PetscCall(Disks40(meth, gamma, 1 << k, xr, yr, x, y, p));
        if (meth == M_PGS && k >= 12) {
          PetscCall(PetscArraycpy(xs[k - 12], x, 40));
          PetscCall(PetscArraycpy(ys[k - 12], y, 40));
        }
        Emit("disks40", meth, gamma, p);
        PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  %-8s %6g %10.3e %10.3e %10.3e %8.3f s\n", names[meth], gamma, p->h,
                              p->error, p->work, p->wall));
      }
    }
    { /* PGS's self-convergence order from h = T/2^12, T/2^13, T/2^14: its error falls
         below the reference's own (see the closing line) */
      PetscReal d1 = 0, d2 = 0;
      for (int i = 0; i < 40; i++) {
        d1 = PetscMax(d1, PetscSqrtReal(PetscSqr(xs[0][i] - xs[1][i]) + PetscSqr(ys[0][i] - ys[1][i])));
        d2 = PetscMax(d2, PetscSqrtReal(PetscSqr(xs[1][i] - xs[2][i]) + PetscSqr(ys[1][i] - ys[2][i])));
      }
      pgsOrder = PetscLog2Real(d1 / d2);
      PetscCall(
        PetscPrintf(PETSC_COMM_WORLD,
                    "pgs self-convergence: |x(T/2^12) - x(T/2^13)| %.3e, |x(T/2^13) - x(T/2^14)| %.3e, order %.4f\n",
                    (double)d1, (double)d2, (double)pgsOrder));
    }
  }
  PetscCall(TestDisks40Remove(base));
  if (csv) fclose(csv);

  if (quick) {
    const int    mp = M_PBD, mg = M_PGS, mpen0 = 3;
    const double osl = Order(sl[mp], nsl[mp], 1.0), odk = Order(dk[mp], ndk[mp], 4.0 / (1 << 11)), opgs = pgsOrder;
    (void)mg;
    PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                          "observed orders: sliding pbd %.4f; 40 disks pbd %.4f, pgs %.4f (self-convergence)\n", osl,
                          odk, opgs));
    CHECK(osl >= 0.8 && osl <= 1.2, "sliding: PBD order %.4f not in [0.8, 1.2]", osl);
    CHECK(odk >= 0.8 && odk <= 1.2, "40 disks: PBD order %.4f not in [0.8, 1.2]", odk);
    CHECK(opgs >= 0.8 && opgs <= 1.2, "40 disks: PGS order %.4f not in [0.8, 1.2]", opgs);
    for (int m = 1; m < 4 + NGAMMA - 1; m++) {
      char who[32];
      PetscCall(PetscSNPrintf(who, sizeof(who), "%s%s%g", names[m < 3 ? m : M_PENALTY], m < 3 ? "" : " gamma ",
                              m < 3 ? 0.0 : gammas[m - 3]));
      if (m < 3) who[strlen(names[m])] = 0;
      /* asserted on the 40 disks, and on the sliding case against pngs and pgs; the
         sliding case's penalty runs are printed only (see README: the consistent two-ball
         set-up makes PBD's error constant large there) */
      CheckCoarseEnd("sliding", who, sl[mp], nsl[mp], sl[m], nsl[m], (PetscBool)(m < 3), 1.0);
      CheckCoarseEnd("40 disks", who, dk[mp], ndk[mp], dk[m], ndk[m], PETSC_TRUE, 4.0 / (1 << 11));
    }
    { /* the smallest penalty parameter stops converging: the last 3 halvings gain < 2x */
      const Point *a = sl[mpen0], *b = dk[mpen0];
      const double rs = a[nsl[mpen0] - 4].error / a[nsl[mpen0] - 1].error,
                   rd = b[ndk[mpen0] - 4].error / b[ndk[mpen0] - 1].error;
      PetscCall(PetscPrintf(
        PETSC_COMM_WORLD,
        "penalty gamma %g: error ratio over the last 3 halvings of h: sliding %.3f, 40 disks %.3f (PBD: %.3f, %.3f)\n",
        gammas[0], rs, rd, sl[mp][nsl[mp] - 4].error / sl[mp][nsl[mp] - 1].error,
        dk[mp][ndk[mp] - 4].error / dk[mp][ndk[mp] - 1].error));
      CHECK(rs < 2 && rd < 2, "penalty with gamma %g still converges: ratios %.3f, %.3f", gammas[0], rs, rd);
    }
    for (int m = 0; m < 4 + NGAMMA - 1; m++) /* bounded violation */
      for (int k = 0; k < ndk[m]; k++) {
        const Point *p = &dk[m][k];
        /* projections: K = overlap / h <= 25 (as test_violation); penalty, where stable
           (h gamma <= 1/2): O(1 / gamma) — at rest 6.9 / gamma is measured, the
           transient of the collapse compresses more */
        const double bound = m < 3 ? 25 * p->h : 25 / gammas[m - 3];
        if (m < 3 || p->h * gammas[m - 3] <= 0.5)
          CHECK(p->viol <= bound, "40 disks %s (gamma %g) h %g: overlap %g above %g", names[m < 3 ? m : M_PENALTY],
                m < 3 ? 0.0 : gammas[m - 3], p->h, p->viol, bound);
      }
  }
  int rc = TestFinish();
  PetscCall(PetscFinalize());
  return rc;
}
