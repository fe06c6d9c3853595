/* Event-driven hard disks (edmd.c, seed 003): the three lemmas against independent
 * computations, and the engine.
 *   Lemma 1  TIME-TO-HIT against a brute-force root search (sampling, then bisection) on
 *            random pairs; the infinite cases (receding, missing) and grazing contact.
 *   Lemma 2  each of the four walls: the disk reaches its wall exactly at the time.
 *   Lemma 3  momentum, energy, the reflected normal relative velocity, the kept tangential
 *            one, and separation afterwards, to round-off, with random masses.
 *   engine   the cell-list engine processes the same collisions and bounces in the same
 *            order (and times, bitwise) as the brute-force engine: walls and periodic,
 *            polydisperse radii and masses; a long dense run never overlaps beyond 1e-12
 *            of a diameter and keeps energy (and, periodic, momentum).                  */
#include "testutil.h"
#include <throng/edmd/edmd.h>
#include <string.h>

static double Rand(unsigned *s)
{
  *s = *s * 1103515245u + 12345u;
  return (double)((*s >> 8) & 0xffffff) / 16777216.0;
}

/* Brute force: the first t in [0, T] where f(t) = |dr + t dv|^2 - sigma^2 <= 0, or -1. */
static double RootSearch(double dx, double dy, double dvx, double dvy, double s, double T)
{
  const int n    = 200000;
  double    prev = 0;
  for (int k = 1; k <= n; k++) {
    const double t = T * k / n, X = dx + t * dvx, Y = dy + t * dvy;
    if (X * X + Y * Y - s * s <= 0) {
      double a = prev, b = t;
      for (int it = 0; it < 200; it++) {
        const double m = 0.5 * (a + b), MX = dx + m * dvx, MY = dy + m * dvy;
        if (MX * MX + MY * MY - s * s <= 0) b = m;
        else a = m;
      }
      return 0.5 * (a + b);
    }
    prev = t;
  }
  return -1;
}

static void TestLemma1(void)
{
  unsigned seed = 11;
  int      hits = 0, misses = 0, receding = 0;
  for (int k = 0; k < 400; k++) {
    const double s = 0.2 + Rand(&seed), dx = 4 * Rand(&seed) - 2, dy = 4 * Rand(&seed) - 2, dvx = 2 * Rand(&seed) - 1,
                 dvy = 2 * Rand(&seed) - 1;
    if (dx * dx + dy * dy <= s * s * 1.0001) continue; /* the lemma assumes c > 0 */
    const double tau = EDMDPairTime(dx, dy, dvx, dvy, s), T = 50, bf = RootSearch(dx, dy, dvx, dvy, s, T);
    if (tau < INFINITY) {
      hits++;
      CHECK(bf >= 0 && fabs(tau - bf) <= 1e-9 * (1 + tau), "pair %d: TIME-TO-HIT %.17g, root search %.17g", k, tau, bf);
      const double X = dx + tau * dvx, Y = dy + tau * dvy;
      CHECK(fabs(sqrt(X * X + Y * Y) - s) <= 1e-12 * s,
            "pair %d: at TIME-TO-HIT the distance is %.17g, not sigma %.17g", k, sqrt(X * X + Y * Y), s);
    } else {
      if (dx * dvx + dy * dvy >= 0) receding++;
      else misses++;
      /* no contact ever: the minimum of f over t >= 0 is positive (checked by sampling
         to a time well past the closest approach) */
      CHECK(bf < 0, "pair %d: TIME-TO-HIT says never, the root search finds %.17g", k, bf);
    }
  }
  CHECK(hits > 50 && misses > 20 && receding > 50,
        "the random pairs do not cover the cases: %d hits, %d misses, %d receding", hits, misses, receding);
  /* exact cases */
  CHECK(EDMDPairTime(3, 0, -1, 0, 1) == 2, "head-on from 3 at speed 1, sigma 1: %.17g", EDMDPairTime(3, 0, -1, 0, 1));
  CHECK(EDMDPairTime(3, 0, 1, 0, 1) == INFINITY, "receding pair (b > 0) must be infinite");
  CHECK(EDMDPairTime(3, 0, 0, 0, 1) == INFINITY, "pair at rest (a = 0, b = 0) must be infinite");
  CHECK(EDMDPairTime(3, 0, 0, 1, 1) == INFINITY, "pair moving sideways (b = 0) must be infinite");
  CHECK(EDMDPairTime(-4, 1.5, 1, 0, 1) == INFINITY, "pair passing at distance 1.5 > sigma (d < 0) must be infinite");
  /* grazing, d = 0: dr = (-X, sigma), dv = (1, 0) touch tangentially at t = X */
  CHECK(EDMDPairTime(-4, 1, 1, 0, 1) == 4, "grazing pair: %.17g instead of 4", EDMDPairTime(-4, 1, 1, 0, 1));
}

static void TestLemma2(void)
{
  unsigned seed = 5;
  for (int k = 0; k < 400; k++) {
    const double lo = -1 + Rand(&seed), hi = lo + 2 + 3 * Rand(&seed), r = 0.3 * Rand(&seed) + 0.01;
    const double x = lo + r + (hi - lo - 2 * r) * Rand(&seed), v = 4 * Rand(&seed) - 2;
    PetscInt     side;
    const double tau = EDMDWallTime(x, v, lo + r, hi - r, &side);
    CHECK(tau >= 0 && side == (v > 0 ? 1 : 0), "wall case %d: tau %g side %d for v %g", k, tau, (int)side, v);
    CHECK(fabs(x + tau * v - (v > 0 ? hi - r : lo + r)) <= 1e-12 * (1 + fabs(hi)),
          "wall case %d: the disk ends at %.17g, not at its wall", k, x + tau * v);
  }
  PetscInt side;
  CHECK(EDMDWallTime(0.5, 0, 0.1, 0.9, &side) == INFINITY && side == -1, "v = 0 must never meet a wall");
  CHECK(EDMDWallTime(0.9, 1, 0.1, 0.9, &side) == 0 && side == 1, "a disk at its wall moving into it: tau 0");
  { /* the four walls of an engine: a disk aimed at each in turn bounces at the right time */
    const char *name[4] = {"x-low", "x-high", "y-low", "y-high"};
    for (int w = 0; w < 4; w++) {
      const PetscReal lo[2] = {0, 0}, L[2] = {10, 10}, r = 0.5, m = 1;
      PetscReal       x = 5, y = 5, vx = w == 0 ? -2 : w == 1 ? 2 : 0, vy = w == 2 ? -2 : w == 3 ? 2 : 0;
      EDMD            e;
      if (EDMDCreate(1, &x, &y, &vx, &vy, &r, &m, lo, L, PETSC_FALSE, PETSC_FALSE, &e)) {
        CHECK(0, "engine with one disk failed");
        continue;
      }
      EDMDAdvance(&e, 2.2); /* the wall is 4.5 away at speed 2: bounce at 2.25, not yet */
      CHECK(e.bounces == 0, "%s wall: bounced before its time", name[w]);
      EDMDAdvance(&e, 2.3);
      CHECK(e.bounces == 1 && e.d[0].t == 2.25, "%s wall: %lld bounces, last at %.17g (want 1 at 2.25)", name[w],
            (long long)e.bounces, (double)e.d[0].t);
      CHECK((w < 2 ? e.d[0].vx : e.d[0].vy) == -(w < 2 ? vx : vy), "%s wall: the normal velocity is not reversed",
            name[w]);
      EDMDDestroy(&e);
    }
  }
}

static void TestLemma3(void)
{
  unsigned seed = 3;
  for (int k = 0; k < 1000; k++) {
    const double mi = 0.1 + 3 * Rand(&seed), mj = 0.1 + 3 * Rand(&seed), s = 0.2 + Rand(&seed),
                 ang = 2 * PETSC_PI * Rand(&seed);
    const double dx = s * cos(ang), dy = s * sin(ang), nx = dx / s, ny = dy / s;
    double vix = 4 * Rand(&seed) - 2, viy = 4 * Rand(&seed) - 2, vjx = 4 * Rand(&seed) - 2, vjy = 4 * Rand(&seed) - 2;
    if ((vjx - vix) * nx + (vjy - viy) * ny >= 0) { /* make them approach */
      const double t = vix;
      vix = vjx, vjx = t;
      const double u = viy;
      viy = vjy, vjy = u;
    }
    const double p0x = mi * vix + mj * vjx, p0y = mi * viy + mj * vjy,
                 e0  = mi * (vix * vix + viy * viy) + mj * (vjx * vjx + vjy * vjy);
    const double dvn = (vjx - vix) * nx + (vjy - viy) * ny, dvt = -(vjx - vix) * ny + (vjy - viy) * nx;
    EDMDBounce(mi, mj, dx, dy, &vix, &viy, &vjx, &vjy);
    const double p1x = mi * vix + mj * vjx, p1y = mi * viy + mj * vjy,
                 e1   = mi * (vix * vix + viy * viy) + mj * (vjx * vjx + vjy * vjy);
    const double dvn1 = (vjx - vix) * nx + (vjy - viy) * ny, dvt1 = -(vjx - vix) * ny + (vjy - viy) * nx;
    const double scale = 1 + fabs(p0x) + fabs(p0y) + e0;
    CHECK(fabs(p1x - p0x) <= 1e-14 * scale && fabs(p1y - p0y) <= 1e-14 * scale, "bounce %d: momentum %g %g -> %g %g", k,
          p0x, p0y, p1x, p1y);
    CHECK(fabs(e1 - e0) <= 1e-14 * scale, "bounce %d: energy %.17g -> %.17g", k, e0, e1);
    CHECK(fabs(dvn1 + dvn) <= 1e-13 * scale, "bounce %d: normal relative velocity %g -> %g, not reversed", k, dvn,
          dvn1);
    CHECK(fabs(dvt1 - dvt) <= 1e-13 * scale, "bounce %d: tangential relative velocity %g -> %g", k, dvt, dvt1);
    CHECK(dvn1 > 0 && EDMDPairTime(dx * 1.0000001, dy * 1.0000001, vjx - vix, vjy - viy, s) == INFINITY,
          "bounce %d: the disks do not separate", k);
  }
}

/* n disks at random without overlap (rejection) in [0, L)^2, polydisperse, random masses. */
static void RandomDisks(unsigned *seed, PetscInt n, PetscReal L, PetscReal rmean, PetscBool periodic, PetscReal *x,
                        PetscReal *y, PetscReal *vx, PetscReal *vy, PetscReal *r, PetscReal *m)
{
  for (PetscInt i = 0; i < n; i++) {
    r[i]  = rmean * (0.8 + 0.4 * Rand(seed));
    m[i]  = 0.5 + Rand(seed);
    vx[i] = 2 * Rand(seed) - 1, vy[i] = 2 * Rand(seed) - 1;
    for (int tries = 0;; tries++) {
      PetscBool ok = PETSC_TRUE;
      x[i] = r[i] + (L - 2 * r[i]) * Rand(seed), y[i] = r[i] + (L - 2 * r[i]) * Rand(seed);
      for (PetscInt j = 0; j < i && ok; j++) {
        double dx = x[j] - x[i], dy = y[j] - y[i];
        if (periodic) dx -= L * nearbyint(dx / L), dy -= L * nearbyint(dy / L);
        if (dx * dx + dy * dy <= PetscSqr(1.01 * (r[i] + r[j]))) ok = PETSC_FALSE;
      }
      if (ok || tries > 100000) break;
    }
  }
}

static char *Slurp(FILE *f, long *len)
{
  char *buf;
  fflush(f);
  *len = ftell(f);
  rewind(f);
  buf = malloc((size_t)*len + 1);
  if (fread(buf, 1, (size_t)*len, f) != (size_t)*len) *len = -1;
  buf[*len > 0 ? *len : 0] = 0;
  return buf;
}

static void TestEngines(void)
{
  for (int periodic = 0; periodic < 2; periodic++) {
    const PetscInt  n = 150;
    const PetscReal L = 20, lo[2] = {0, 0}, box[2] = {L, L};
    PetscReal       x[150], y[150], vx[150], vy[150], r[150], m[150];
    unsigned        seed = 17 + periodic;
    EDMD            cell, brute;
    FILE           *fc = tmpfile(), *fb = tmpfile();
    RandomDisks(&seed, n, L, 0.6, (PetscBool)periodic, x, y, vx, vy, r, m);
    if (EDMDCreate(n, x, y, vx, vy, r, m, lo, box, (PetscBool)periodic, PETSC_FALSE, &cell) ||
        EDMDCreate(n, x, y, vx, vy, r, m, lo, box, (PetscBool)periodic, PETSC_TRUE, &brute)) {
      CHECK(0, "engines could not be created");
      return;
    }
    CHECK(!cell.brute && brute.brute && cell.nc[0] >= 3, "cell engine has %d x %d cells", (int)cell.nc[0],
          (int)cell.nc[1]);
    cell.log = fc, brute.log = fb;
    for (int k = 1; k <= 40; k++) { /* the reporting interval must not matter: irregular limits */
      EDMDAdvance(&cell, 0.7 * k);
      EDMDAdvance(&brute, 0.7 * k + (k % 3 ? 0 : 0.01));
    }
    EDMDAdvance(&brute, 0.7 * 40);
    long  lc, lb;
    char *a = Slurp(fc, &lc), *b = Slurp(fb, &lb);
    CHECK(cell.collisions > 2000 && lc > 0 && lc == lb && !memcmp(a, b, (size_t)lc),
          "%s: the cell engine's %lld events differ from the brute-force engine's %lld",
          periodic ? "periodic" : "walls", (long long)(cell.collisions + cell.bounces),
          (long long)(brute.collisions + brute.bounces));
    printf("engines (%s): %lld collisions, %lld wall bounces, identical in order and time: %s\n",
           periodic ? "periodic" : "walls", (long long)cell.collisions, (long long)cell.bounces,
           lc == lb && !memcmp(a, b, (size_t)lc) ? "yes" : "no");
    free(a), free(b);
    fclose(fc), fclose(fb);
    EDMDDestroy(&cell);
    EDMDDestroy(&brute);
  }
}

static void TestLongRun(void)
{
  for (int periodic = 0; periodic < 2; periodic++) {
    /* dense: 900 disks at area fraction ~0.6 after a lattice start */
    const PetscInt  n = 900, side = 30;
    const PetscReal r = 0.5, L = sqrt(n * PETSC_PI * r * r / 0.6), lo[2] = {0, 0}, box[2] = {L, L};
    PetscReal      *x, *y, *vx, *vy, *rr, *m, e0, e1, p0[2], p1[2], worst = -1, wall = -1;
    unsigned        seed = 99;
    EDMD            e;
    PetscMalloc6(n, &x, n, &y, n, &vx, n, &vy, n, &rr, n, &m);
    for (PetscInt i = 0; i < n; i++) {
      x[i] = (i % side + 0.5) * L / side, y[i] = (i / side + 0.5) * L / side;
      vx[i] = 2 * Rand(&seed) - 1, vy[i] = 2 * Rand(&seed) - 1, rr[i] = r, m[i] = 1;
    }
    if (EDMDCreate(n, x, y, vx, vy, rr, m, lo, box, (PetscBool)periodic, PETSC_FALSE, &e)) {
      CHECK(0, "dense engine could not be created");
      return;
    }
    EDMDEnergy(&e, &e0, p0);
    for (int k = 1; k <= 100; k++) {
      PetscReal o, w;
      EDMDAdvance(&e, 3.0 * k);
      EDMDMaxOverlap(&e, 3.0 * k, &o, &w);
      worst = PetscMax(worst, o), wall = PetscMax(wall, w);
    }
    EDMDEnergy(&e, &e1, p1);
    printf("long run (%s, eta 0.6): %lld collisions (%.0f per disk), |1 - |r_ij|/sigma| at contact <= %.3e, largest "
           "overlap at 100 instants %.3e of a diameter (wall %.3e), energy drift %.2e\n",
           periodic ? "periodic" : "walls", (long long)e.collisions, (double)e.collisions / n, (double)e.contact,
           (double)worst, (double)wall, (double)((e1 - e0) / e0));
    CHECK(e.contact <= 1e-12, "long run: a collision found the pair %.3e of a diameter off contact", (double)e.contact);
    CHECK(e.collisions > 500 * n, "long run: only %lld collisions", (long long)e.collisions);
    CHECK(worst <= 1e-12 && wall <= 1e-12, "long run: overlap %.3e, wall %.3e of a diameter (bound 1e-12)",
          (double)worst, (double)wall);
    CHECK(fabs(e1 - e0) <= 1e-10 * e0, "long run: energy %.17g -> %.17g", (double)e0, (double)e1);
    if (periodic)
      CHECK(fabs(p1[0] - p0[0]) <= 1e-10 * n && fabs(p1[1] - p0[1]) <= 1e-10 * n, "long run: momentum %g %g -> %g %g",
            (double)p0[0], (double)p0[1], (double)p1[0], (double)p1[1]);
    EDMDDestroy(&e);
    PetscFree6(x, y, vx, vy, rr, m);
  }
}

int main(int argc, char **argv)
{
  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  TestLemma1();
  TestLemma2();
  TestLemma3();
  TestEngines();
  TestLongRun();
  return TestFinish();
}
