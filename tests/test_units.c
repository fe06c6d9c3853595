/* Unit tests: projections, tile colouring, cells, halo, migration and conservation, the
   load balancer's partitions, Brownian noise, the registry of per-disk fields. */
#include "testutil.h"
#include <throng/util/project.h>
#include <throng/io/io.h>
#include <unistd.h>
#include <string.h>

static double Rand(unsigned *s)
{
  *s = *s * 1103515245u + 12345u;
  return (double)((*s >> 8) & 0xffffff) / 16777216.0;
}

static void TestProjections(void)
{
  unsigned seed = 7;
  for (int k = 0; k < 2000; k++) {
    double        xi = Rand(&seed), yi = Rand(&seed), xj = Rand(&seed), yj = Rand(&seed), s = 0.05 + Rand(&seed);
    const double  mx = 0.5 * (xi + xj), my = 0.5 * (yi + yj), d0 = hypot(xj - xi, yj - yi);
    const double  ex = (xj - xi) / d0, ey = (yj - yi) / d0;
    const int64_t two   = 2;
    int           moved = ProjectPair(&xi, &yi, &xj, &yj, s, 1, &two);
    const double  d1    = hypot(xj - xi, yj - yi);
    if (d0 < s) {
      CHECK(moved && fabs(d1 - s) <= 1e-12 * s, "violated pair not projected to contact: %g vs %g", d1, s);
      CHECK(fabs(0.5 * (xi + xj) - mx) < 1e-14 && fabs(0.5 * (yi + yj) - my) < 1e-14,
            "pair projection moved the midpoint");
      CHECK(fabs((xj - xi) / d1 - ex) < 1e-12 && fabs((yj - yi) / d1 - ey) < 1e-12,
            "pair projection changed the direction");
    } else CHECK(!moved && d1 == d0, "satisfied pair was moved");
  }
  { /* coincident centres: deterministic by id */
    double        a[2] = {1, 1}, b[2] = {1, 1};
    const int64_t three = 3;
    ProjectPair(&a[0], &a[1], &b[0], &b[1], 0.5, 9, &three);
    CHECK(a[0] == 1.25 && b[0] == 0.75 && a[1] == 1 && b[1] == 1, "coincident pair: got (%g,%g) (%g,%g)", a[0], a[1],
          b[0], b[1]);
  }
  for (int k = 0; k < 500; k++) {
    double th = 2 * PETSC_PI * Rand(&seed), w[3] = {cos(th), sin(th), Rand(&seed) - 0.5}, x = Rand(&seed),
           y = Rand(&seed), r = 0.1;
    const double g0 = w[0] * x + w[1] * y - w[2] - r, x0 = x, y0 = y;
    ProjectHalfPlane(&x, &y, r, w);
    const double g1 = w[0] * x + w[1] * y - w[2] - r;
    if (g0 < 0)
      CHECK(fabs(g1) < 1e-14 && fabs((x - x0) * w[1] - (y - y0) * w[0]) < 1e-14, "half-plane projection: g %g", g1);
    else CHECK(x == x0 && y == y0, "satisfied half-plane moved the disk");
  }
  {
    double c[3] = {0, 0, 10}, x[3] = {0.3, 0.4, 9.5};
    ProjectOutsideBall(3, x, c, 2.0);
    CHECK(fabs(sqrt(x[0] * x[0] + x[1] * x[1] + (x[2] - 10) * (x[2] - 10)) - 2.0) < 1e-14,
          "ball projection not on the sphere");
  }
}

/* The colour sweep is one sweep over every candidate constraint (domain.c, pbd.c).
   A tile's constraints are, for each of its cells c, the pairs inside c and between c
   and each forward neighbour c + f (THRONG_FWD) inside the grid; it moves the disks of
   both cells.  Checked here, with pbd.c's own rule for the tiles of a colour
   (DomainColourStart from a block's first tile, every second one) on a split of the
   tile grid into blocks, as on several ranks:
   - the forward offsets take each of the 8 neighbour directions exactly once, up to sign;
   - every (cell, cell) and (cell, forward cell) constraint is visited exactly once;
   - two tiles of one colour never move a disk of the same cell.                       */
static PetscErrorCode TestColouring(void)
{
  const PetscInt shapes[][5] = {/* cells nx, ny, tile T, blocks px, py */
                                {23, 17, 3, 2, 3}, {16, 16, 2, 1, 1}, {16, 16, 2, 3, 2},
                                {9, 5, 4, 2, 1},   {7, 7, 2, 2, 2},   {40, 9, 5, 3, 1}};
  PetscFunctionBeginUser;
  for (int dy = -1; dy <= 1; dy++)
    for (int dx = -1; dx <= 1; dx++) {
      int hits = 0;
      if (!dx && !dy) continue;
      for (int f = 0; f < 4; f++)
        hits +=
          (THRONG_FWD[f][0] == dx && THRONG_FWD[f][1] == dy) + (THRONG_FWD[f][0] == -dx && THRONG_FWD[f][1] == -dy);
      CHECK(hits == 1, "neighbour direction (%d, %d) is taken %d times by the forward stencil", dx, dy, hits);
    }
  for (PetscInt L = 3; L < 40; L += 7) { /* the offsets the sweep uses are these directions */
    PetscInt fwd[4];
    DomainForwardOffsets(L, fwd);
    for (int f = 0; f < 4; f++)
      CHECK(fwd[f] == THRONG_FWD[f][0] + THRONG_FWD[f][1] * L,
            "forward offset %d of row length %d is %d, not THRONG_FWD's", f, (int)L, (int)fwd[f]);
  }
  for (size_t sh = 0; sh < sizeof(shapes) / sizeof(shapes[0]); sh++) {
    const PetscInt nx = shapes[sh][0], ny = shapes[sh][1], T = shapes[sh][2], ntx = (nx + T - 1) / T,
                   nty  = (ny + T - 1) / T;
    const PetscInt P[2] = {shapes[sh][3], shapes[sh][4]}, nt[2] = {ntx, nty};
    int           *mark, *visits, clash = 0, bad = 0;
    PetscCall(PetscCalloc1(nx * ny, &mark));
    PetscCall(PetscCalloc1(nx * ny * 5, &visits));
    for (int col = 0; col < THRONG_NCOLOURS; col++) {
      PetscCall(PetscArrayzero(mark, nx * ny));
      for (PetscInt by = 0; by < P[1]; by++)
        for (PetscInt bx = 0; bx < P[0]; bx++) {
          const PetscInt t0[2] = {nt[0] * bx / P[0], nt[1] * by / P[1]},
                         t1[2] = {nt[0] * (bx + 1) / P[0], nt[1] * (by + 1) / P[1]};
          for (PetscInt ty = DomainColourStart(t0[1], col >> 1); ty < t1[1]; ty += 2)
            for (PetscInt tx = DomainColourStart(t0[0], col & 1); tx < t1[0]; tx += 2) {
              const int tile = (int)(tx + ntx * ty + 1);
              CHECK(DomainTileColour(tx, ty) == col, "tile (%d, %d) swept in colour %d, not its own", (int)tx, (int)ty,
                    col);
              for (PetscInt cy = ty * T; cy < PetscMin((ty + 1) * T, ny); cy++)
                for (PetscInt cx = tx * T; cx < PetscMin((tx + 1) * T, nx); cx++)
                  for (int f = -1; f < 4; f++) {
                    const PetscInt ex = f < 0 ? cx : cx + THRONG_FWD[f][0], ey = f < 0 ? cy : cy + THRONG_FWD[f][1];
                    if (ex < 0 || ex >= nx || ey < 0 || ey >= ny) continue;
                    visits[(cy * nx + cx) * 5 + f + 1]++;
                    for (int e = 0; e < 2; e++) { /* the disks of both cells move */
                      const PetscInt k = e ? ey * nx + ex : cy * nx + cx;
                      if (mark[k] && mark[k] != tile) clash++;
                      mark[k] = tile;
                    }
                  }
            }
        }
    }
    for (PetscInt cy = 0; cy < ny; cy++)
      for (PetscInt cx = 0; cx < nx; cx++)
        for (int f = -1; f < 4; f++) {
          const PetscInt ex = f < 0 ? cx : cx + THRONG_FWD[f][0], ey = f < 0 ? cy : cy + THRONG_FWD[f][1];
          const int      want = ex >= 0 && ex < nx && ey >= 0 && ey < ny;
          bad += visits[(cy * nx + cx) * 5 + f + 1] != want;
        }
    CHECK(!clash, "%dx%d cells in tiles of %d on %dx%d blocks: %d cells moved by two tiles of one colour", (int)nx,
          (int)ny, (int)T, (int)P[0], (int)P[1], clash);
    CHECK(!bad, "%dx%d cells in tiles of %d on %dx%d blocks: %d constraints not visited exactly once", (int)nx, (int)ny,
          (int)T, (int)P[0], (int)P[1], bad);
    PetscCall(PetscFree(mark));
    PetscCall(PetscFree(visits));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Binning: each owned disk lies in its cell, cells partition [0, n), ids ascend in a cell. */
static PetscErrorCode CheckCells(Sim *s, const char *when)
{
  const Domain *d       = &s->dom;
  PetscInt      covered = 0, badCell = 0, badOrder = 0;
  PetscFunctionBeginUser;
  for (PetscInt cy = d->c0[1]; cy < d->c1[1]; cy++)
    for (PetscInt cx = d->c0[0]; cx < d->c1[0]; cx++) {
      const PetscInt k = DomainLocalCell(d, cx, cy);
      covered += s->cells.end[k] - s->cells.beg[k];
      for (PetscInt i = s->cells.beg[k]; i < s->cells.end[k]; i++) {
        PetscInt bx, by;
        DomainCellOf(d, s->P.xb[i], s->P.yb[i], &bx, &by);
        badCell += bx != cx || by != cy;
        if (i > s->cells.beg[k]) badOrder += s->P.id[i] <= s->P.id[i - 1];
      }
    }
  CHECK(covered == s->P.n, "%s: cells cover %d of %d disks", when, (int)covered, (int)s->P.n);
  CHECK(!badCell && !badOrder, "%s: %d disks in a wrong cell, %d out of id order", when, (int)badCell, (int)badOrder);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Ghosts are exactly the other ranks' disks binned in this rank's ring, bit for bit. */
static PetscErrorCode CheckHalo(Sim *s, const char *when)
{
  const Domain  *d = &s->dom;
  const PetscInt N = (PetscInt)s->prm.n;
  PetscReal     *x, *y, *xb, *yb;
  PetscMPIInt   *own;
  PetscInt       wrong = 0, missing = 0, ringDisks = 0;
  PetscFunctionBeginUser;
  PetscCall(PetscMalloc4(N, &x, N, &y, N, &xb, N, &yb));
  PetscCall(PetscCalloc1(N, &own));
  PetscCall(TestGatherById(s, x, y));
  for (PetscInt i = 0; i < s->P.n; i++) own[s->P.id[i]] = d->rank + 1;
  PetscCall(TestGatherArraysById(s, s->P.xb, s->P.yb, xb, yb));
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, own, (PetscMPIInt)N, MPI_INT, MPI_SUM, PETSC_COMM_WORLD));
  char *seen;
  PetscCall(PetscCalloc1(N, &seen));
  for (PetscInt g = s->P.n; g < s->P.n + s->P.ng; g++) {
    const PetscInt64 id = s->P.id[g];
    wrong += memcmp(&s->P.x[g], &x[id], sizeof(PetscReal)) || memcmp(&s->P.y[g], &y[id], sizeof(PetscReal));
    wrong += own[id] == d->rank + 1;
    seen[id] = 1;
  }
  for (PetscInt64 id = 0; id < N; id++) {
    PetscInt cx, cy;
    if (own[id] == d->rank + 1) continue;
    DomainCellOf(d, xb[id], yb[id], &cx, &cy);
    if (cx >= d->c0[0] - 1 && cx <= d->c1[0] && cy >= d->c0[1] - 1 && cy <= d->c1[1]) {
      ringDisks++;
      missing += !seen[id];
    }
  }
  {
    PetscInt    ngAll = s->P.ng;
    PetscMPIInt size;
    PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &ngAll, 1, MPIU_INT, MPI_SUM, PETSC_COMM_WORLD));
    PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
    CHECK(size == 1 || ngAll > 0, "%s: no ghosts at all on %d ranks", when, size);
  }
  CHECK(!wrong, "%s: %d ghosts differ from their owners", when, (int)wrong);
  CHECK(!missing && ringDisks == s->P.ng, "%s: %d of %d ring disks missing, %d ghosts", when, (int)missing,
        (int)ringDisks, (int)s->P.ng);
  PetscCall(PetscFree(seen));
  PetscCall(PetscFree(own));
  PetscCall(PetscFree4(x, y, xb, yb));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Every cut of n columns into p strips of >= 1 column (as cut[0..p]), by recursion: the
   smallest heaviest strip, over bands S (nb x n), for the brute-force check of Cut1D. */
static PetscInt64 BruteBest(PetscInt n, PetscInt nb, const PetscInt64 *S, PetscInt p, PetscInt k, PetscInt pos,
                            PetscInt64 sofar)
{
  PetscInt64 best = INT64_MAX;
  if (k == p - 1) { /* the last strip takes the rest */
    PetscInt64 w = sofar;
    for (PetscInt b = 0; b < nb; b++) {
      PetscInt64 a = 0;
      for (PetscInt t = pos; t < n; t++) a += S[b * n + t];
      w = PetscMax(w, a);
    }
    return w;
  }
  for (PetscInt e = pos + 1; e <= n - (p - 1 - k); e++) {
    PetscInt64 w = sofar;
    for (PetscInt b = 0; b < nb; b++) {
      PetscInt64 a = 0;
      for (PetscInt t = pos; t < e; t++) a += S[b * n + t];
      w = PetscMax(w, a);
    }
    best = PetscMin(best, BruteBest(n, nb, S, p, k + 1, e, w));
  }
  return best;
}

/* The rectilinear partitioner: valid cuts, never worse than the even cuts, reported
   heaviest block true, the optimum in one dimension (against every cut), and a load in
   one corner moves the cuts towards it. */
static PetscErrorCode TestBalance(void)
{
  unsigned seed = 11;
  PetscFunctionBeginUser;
  for (int k = 0; k < 300; k++) {
    const PetscInt    nt[2] = {1 + (PetscInt)(12 * Rand(&seed)), 1 + (PetscInt)(9 * Rand(&seed))};
    const PetscMPIInt p[2]  = {1 + (PetscMPIInt)(Rand(&seed) * (double)PetscMin(nt[0], 4)),
                               1 + (PetscMPIInt)(Rand(&seed) * (double)PetscMin(nt[1], 3))};
    PetscInt64        W[12 * 9], heavy, even;
    PetscInt          cx[5], cy[4];
    const int         skew = k % 3; /* uniform, a hot corner, a hot stripe */
    for (PetscInt ty = 0; ty < nt[1]; ty++)
      for (PetscInt tx = 0; tx < nt[0]; tx++) {
        PetscInt64 w = (PetscInt64)(10 * Rand(&seed));
        if (skew == 1 && tx < nt[0] / 3 + 1 && ty < nt[1] / 2 + 1) w += 100;
        if (skew == 2 && tx == nt[0] / 2) w += 300;
        W[ty * nt[0] + tx] = Rand(&seed) < 0.2 ? 0 : w;
      }
    for (PetscMPIInt b = 0; b <= p[0]; b++) cx[b] = (b * nt[0]) / p[0];
    for (PetscMPIInt b = 0; b <= p[1]; b++) cy[b] = (b * nt[1]) / p[1];
    even = BalanceHeaviest(nt, W, p, cx, cy);
    PetscCall(BalanceRectilinear(nt, W, p, cx, cy, &heavy));
    PetscBool valid = cx[0] == 0 && cx[p[0]] == nt[0] && cy[0] == 0 && cy[p[1]] == nt[1] ? PETSC_TRUE : PETSC_FALSE;
    for (PetscMPIInt b = 0; b < p[0]; b++) valid = valid && cx[b + 1] > cx[b];
    for (PetscMPIInt b = 0; b < p[1]; b++) valid = valid && cy[b + 1] > cy[b];
    CHECK(valid, "case %d: invalid cuts", k);
    CHECK(heavy <= even, "case %d: heaviest block %lld, worse than the even cuts' %lld", k, (long long)heavy,
          (long long)even);
    CHECK(heavy == BalanceHeaviest(nt, W, p, cx, cy), "case %d: reported heaviest %lld is not the cuts' %lld", k,
          (long long)heavy, (long long)BalanceHeaviest(nt, W, p, cx, cy));
    if (p[1] == 1) { /* one band: the x cut alone, which must be the optimum */
      PetscInt64 S[12];
      for (PetscInt tx = 0; tx < nt[0]; tx++) {
        S[tx] = 0;
        for (PetscInt ty = 0; ty < nt[1]; ty++) S[tx] += W[ty * nt[0] + tx];
      }
      const PetscInt64 opt = BruteBest(nt[0], 1, S, p[0], 0, 0, 0);
      CHECK(heavy == opt, "case %d: 1-D cut gives %lld, the best of all cuts is %lld", k, (long long)heavy,
            (long long)opt);
    }
  }
  { /* 4 x 1 ranks over 16 columns, all the load in the first 4: one column each */
    const PetscInt    nt[2] = {16, 2};
    const PetscMPIInt p[2]  = {4, 1};
    PetscInt64        W[32] = {0}, heavy;
    PetscInt          cx[5] = {0, 4, 8, 12, 16}, cy[2] = {0, 2};
    for (PetscInt tx = 0; tx < 4; tx++) W[tx] = W[16 + tx] = 50;
    PetscCall(BalanceRectilinear(nt, W, p, cx, cy, &heavy));
    CHECK(heavy == 100 && cx[1] == 1 && cx[2] == 2 && cx[3] == 3,
          "hot west: heaviest %lld, cuts %d %d %d (want 100; 1 2 3)", (long long)heavy, (int)cx[1], (int)cx[2],
          (int)cx[3]);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Brownian noise: the draws are standard normal (mean, variance, fourth moment over 2e5
   pairs), a function of (seed, id, step) alone, and the prediction of a free disk moves
   it by sqrt(2 D h) xi. */
static PetscErrorCode TestNoise(void)
{
  const PetscInt n  = 200000;
  double         m1 = 0, m2 = 0, m4 = 0, c = 0;
  PetscFunctionBeginUser;
  for (PetscInt i = 0; i < n; i++) {
    PetscReal g[2], h[2];
    DriverNoise(7, i, 12345, g);
    DriverNoise(7, i, 12346, h);
    for (int k = 0; k < 2; k++) m1 += g[k], m2 += g[k] * g[k], m4 += g[k] * g[k] * g[k] * g[k], c += g[k] * h[k];
  }
  m1 /= 2.0 * n, m2 /= 2.0 * n, m4 /= 2.0 * n, c /= 2.0 * n;
  const double se = 1 / sqrt(2.0 * n); /* standard error of a mean of unit variance */
  CHECK(fabs(m1) < 4 * se, "noise mean %g (4 sigma: %g)", m1, 4 * se);
  CHECK(fabs(m2 - 1) < 4 * sqrt(2.0) * se, "noise variance %g", m2);
  CHECK(fabs(m4 - 3) < 4 * sqrt(96.0) * se, "noise fourth moment %g (normal: 3)", m4);
  CHECK(fabs(c) < 4 * se, "draws of consecutive steps correlate: %g", c);
  {
    PetscReal a[2], b[2], d[2];
    DriverNoise(7, 5, 9, a);
    DriverNoise(7, 5, 9, b);
    DriverNoise(8, 5, 9, d);
    CHECK(a[0] == b[0] && a[1] == b[1] && (a[0] != d[0] || a[1] != d[1]),
          "noise is not a function of (seed, id, step)");
  }
  { /* the prediction: x += sqrt(2 D h) xi for a free disk */
    Params     prm;
    Driver     drv;
    PetscReal  x[3] = {1, 2, 3}, y[3] = {4, 5, 6}, xb[3] = {1, 2, 3}, yb[3] = {4, 5, 6}, d2[2], g[2];
    PetscInt64 id[3] = {0, 1, 2};
    PetscCall(ParamsSetDefaults(&prm));
    prm.noise = 0.3, prm.seed = 11, prm.gamma = 0, prm.gravity[0] = prm.gravity[1] = 0;
    PetscCall(DriverSetUp(&prm, &drv));
    drv.step = 41;
    PetscCall(DriverPredict(&drv, 0.01, 3, x, y, id, 3, xb, yb, NULL, NULL, d2));
    DriverNoise(11, 2, 41, g);
    CHECK(fabs(x[2] - 3 - sqrt(2 * 0.3 * 0.01) * g[0]) < 1e-14 && fabs(y[2] - 6 - sqrt(2 * 0.3 * 0.01) * g[1]) < 1e-14,
          "noise prediction: moved by (%g, %g), want sqrt(2 D h) xi", x[2] - 3, y[2] - 6);
    { /* the same prediction keeping q before it (2 owned disks, 1 ghost): the same result */
      PetscReal x2[3] = {1, 2, 3}, y2[3] = {4, 5, 6}, sx[3], sy[3], e2[2];
      PetscCall(DriverPredict(&drv, 0.01, 3, x2, y2, id, 2, xb, yb, sx, sy, e2));
      for (int i = 0; i < 3; i++)
        CHECK(sx[i] == i + 1 && sy[i] == i + 4 && x2[i] == x[i] && y2[i] == y[i],
              "prediction keeping q: disk %d kept (%g, %g), moved to (%g, %g), want (%d, %d) and (%g, %g)", i, sx[i],
              sy[i], x2[i], y2[i], i + 1, i + 4, x[i], y[i]);
    }
    PetscCall(DriverDestroy(&drv));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode TestEngine(const char *opts, PetscBool expectRepartition)
{
  Sim    s;
  Digest before, after;
  PetscFunctionBeginUser;
  PetscCall(TestSimCreate(opts, &s));
  PetscCall(IdFingerprint(PETSC_COMM_WORLD, &s.P, &before));
  PetscCall(CheckCells(&s, "after set-up"));
  PetscCall(CheckHalo(&s, "after set-up"));
  for (int k = 0; k < 40; k++) PetscCall(SimStep(&s));
  PetscCall(CheckCells(&s, "after 40 steps"));
  PetscCall(CheckHalo(&s, "after 40 steps"));
  PetscCall(IdFingerprint(PETSC_COMM_WORLD, &s.P, &after));
  CHECK(after.n == before.n && after.h[0] == before.h[0] && after.h[1] == before.h[1], "id set changed by migration");
  CHECK(s.rebins > 0, "the test made no rebinning");
  {
    PetscInt64  moved = s.mig.moved;
    PetscMPIInt size;
    PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &moved, 1, MPIU_INT64, MPI_SUM, PETSC_COMM_WORLD));
    PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
    CHECK(size == 1 || moved > 0, "no disk migrated on %d ranks", size);
    if (expectRepartition) CHECK(size == 1 || s.bal.repartitions > 0, "no repartition on %d ranks", size);
  }
  PetscCall(SimDestroy(&s));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A coordinate that is no longer a number stops the run at the next step, on every
   rank with the same error (Migrate's PETSC_ERR_FP, "no longer a finite number"), for
   every solver and in a crowd.  Before, NaN slipped through the max-reductions that
   decide rebinning, and a run of NaNs ended with a normal summary.                   */
static PetscErrorCode TestNonFinite(const char *opts)
{
  Sim            s;
  PetscErrorCode ierr = PETSC_SUCCESS;
  int            code[2];
  PetscInt       steps = 0;
  PetscFunctionBeginUser;
  PetscCall(TestSimCreate(opts, &s));
  { /* one disk on one rank: the last rank that has any (a crowd may leave some empty) */
    PetscMPIInt last = s.P.n > 0 ? s.dom.rank : -1;
    PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &last, 1, MPI_INT, MPI_MAX, PETSC_COMM_WORLD));
    CHECK(last >= 0, "%s: no disk on any rank", opts);
    if (s.dom.rank == last) s.P.x[s.P.n / 2] = NAN;
  }
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  while (!ierr && steps < 3) {
    ierr = SimStep(&s);
    steps++;
  }
  PetscCall(PetscPopErrorHandler());
  code[0] = (int)ierr, code[1] = -(int)ierr;
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, code, 2, MPI_INT, MPI_MAX, PETSC_COMM_WORLD));
  CHECK(code[0] == PETSC_ERR_FP && -code[1] == PETSC_ERR_FP,
        "%s: a NaN coordinate gave error codes %d..%d after %d steps, not %d on every rank", opts, -code[1], code[0],
        (int)steps, PETSC_ERR_FP);
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  (void)SimDestroy(&s); /* a half-done step: only the memory matters here */
  PetscCall(PetscPopErrorHandler());
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The registry of per-disk fields (particles.c): a field registered once follows its
   disk through migration, repartitions, the cell sort, ghost creation, the id-ordered
   records and a checkpoint and restart (on the same ranks), with no other code.  Two
   fields: an integer that migrates, is ghosted, checkpointed and in snapshots, and an
   owned-only real that migrates and is checkpointed.  Their values are functions of the
   id, so a value that stayed behind or went to another disk is seen.                  */
static PetscErrorCode CheckFields(Sim *s, PetscInt kt, PetscInt kw, const char *when)
{
  const PetscInt64 *tag = (const PetscInt64 *)ParticlesField(&s->P, kt);
  const PetscReal  *w   = (const PetscReal *)ParticlesField(&s->P, kw);
  PetscInt          bad = 0, badGhost = 0;
  PetscFunctionBeginUser;
  for (PetscInt i = 0; i < s->P.n; i++) bad += tag[i] != 3 * s->P.id[i] + 1 || w[i] != 0.5 * (PetscReal)s->P.id[i];
  for (PetscInt g = s->P.n; g < s->P.n + s->P.ng; g++) badGhost += tag[g] != 3 * s->P.id[g] + 1;
  CHECK(!bad && !badGhost, "%s: %d owned disks and %d ghosts with another disk's field values", when, (int)bad,
        (int)badGhost);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode TestFields(const char *opts)
{
  Sim         s, r;
  PetscInt    kt, kw, kt2, kw2, moved;
  IoRecs      recs;
  PetscInt64  off, total;
  PetscMPIInt rank, size;
  char        path[64];
  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCall(TestSimCreate(opts, &s));
  PetscCall(ParticlesRegisterField(&s.P, "tag", FIELD_INT64,
                                   FIELD_MIGRATES | FIELD_GHOSTED | FIELD_CHECKPOINT | FIELD_SNAPSHOT, &kt));
  PetscCall(ParticlesRegisterField(&s.P, "w", FIELD_REAL, FIELD_OWNED | FIELD_MIGRATES | FIELD_CHECKPOINT, &kw));
  for (PetscInt i = 0; i < s.P.n; i++) {
    ((PetscInt64 *)ParticlesField(&s.P, kt))[i] = 3 * s.P.id[i] + 1;
    ((PetscReal *)ParticlesField(&s.P, kw))[i]  = 0.5 * (PetscReal)s.P.id[i];
  }
  PetscCall(SimRebin(&s)); /* the ghosts get the new field */
  PetscCall(CheckFields(&s, kt, kw, "after registration"));
  for (int k = 0; k < 40; k++) PetscCall(SimStep(&s));
  PetscCall(CheckFields(&s, kt, kw, "after 40 steps"));
  moved = (PetscInt)(s.mig.moved + s.bal.routed);
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &moved, 1, MPIU_INT, MPI_SUM, PETSC_COMM_WORLD));
  CHECK(size == 1 || moved > 0, "fields: no disk changed rank on %d ranks", size);
  /* the id-ordered records of the snapshot fields: ascending ids, each with its tag */
  PetscCall(IdOrderGather(PETSC_COMM_WORLD, &s.P, FIELD_SNAPSHOT, &recs, &off, &total));
  {
    PetscInt bad = 0;
    CHECK(recs.word[kt] >= 0 && recs.word[kw] < 0, "fields: snapshot records hold the wrong fields");
    for (PetscInt i = 0; i < recs.n; i++) {
      PetscInt64 t;
      memcpy(&t, recs.rec + (size_t)recs.words * i + recs.word[kt], 8);
      bad += t != 3 * IoRecsId(&recs, i) + 1 || (i > 0 && IoRecsId(&recs, i) <= IoRecsId(&recs, i - 1));
    }
    CHECK(!bad && total == s.prm.n, "fields: %d id-ordered records out of order or with another disk's tag (%d of %d)",
          (int)bad, (int)total, (int)s.prm.n);
  }
  PetscCall(IoRecsDestroy(&recs));
  /* a checkpoint, and a restart that registers the same fields */
  PetscCall(PetscSNPrintf(path, sizeof(path), "test_fields_%d.chk.h5", (int)getpid()));
  PetscCallMPI(MPI_Bcast(path, sizeof(path), MPI_CHAR, 0, PETSC_COMM_WORLD));
  PetscCall(CheckpointWrite(&s, path));
  PetscCall(SimSetUp(PETSC_COMM_WORLD, &s.prm, &r));
  PetscCall(ParticlesRegisterField(&r.P, "tag", FIELD_INT64,
                                   FIELD_MIGRATES | FIELD_GHOSTED | FIELD_CHECKPOINT | FIELD_SNAPSHOT, &kt2));
  PetscCall(ParticlesRegisterField(&r.P, "w", FIELD_REAL, FIELD_OWNED | FIELD_MIGRATES | FIELD_CHECKPOINT, &kw2));
  PetscCall(CheckpointRead(&r, path));
  PetscCall(CheckFields(&r, kt2, kw2, "after a restart"));
  {
    PetscInt n[2] = {r.P.n, s.P.n}; /* the restart's partition is the initial one: compare sums */
    PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, n, 2, MPIU_INT, MPI_SUM, PETSC_COMM_WORLD));
    CHECK(n[0] == n[1], "fields: the restart holds %d disks, the run %d", (int)n[0], (int)n[1]);
  }
  if (!rank) unlink(path);
  { /* a snapshot: the tag is an H5MD element of its own, row by row with the ids */
    H5MDWriter w;
    char       prefix[64], h5[80];
    PetscCall(PetscSNPrintf(prefix, sizeof(prefix), "test_fields_%d", (int)getpid()));
    PetscCallMPI(MPI_Bcast(prefix, sizeof(prefix), MPI_CHAR, 0, PETSC_COMM_WORLD));
    PetscCall(H5MDOpen(PETSC_COMM_WORLD, prefix, &s, PETSC_FALSE, 0, &w));
    PetscCall(H5MDWriteFrame(&w, &s));
    PetscCall(H5MDClose(&w, 0));
    PetscCall(PetscSNPrintf(h5, sizeof(h5), "%s.h5", prefix));
    if (!rank) {
      hid_t      f = H5Fopen(h5, H5F_ACC_RDONLY, H5P_DEFAULT), dt = -1, di = -1;
      long long *t, *id;
      PetscInt   n = (PetscInt)s.prm.n, bad = 0;
      PetscCall(PetscMalloc2(n, &t, n, &id));
      if (f >= 0)
        dt = H5Dopen2(f, "/particles/disks/tag/value", H5P_DEFAULT),
        di = H5Dopen2(f, "/particles/disks/id/value", H5P_DEFAULT);
      CHECK(dt >= 0 && di >= 0, "fields: the snapshot has no /particles/disks/tag/value");
      if (dt >= 0 && di >= 0 && H5Dread(dt, H5T_NATIVE_LLONG, H5S_ALL, H5S_ALL, H5P_DEFAULT, t) >= 0 &&
          H5Dread(di, H5T_NATIVE_LLONG, H5S_ALL, H5S_ALL, H5P_DEFAULT, id) >= 0)
        for (PetscInt i = 0; i < n; i++) bad += t[i] != 3 * id[i] + 1 || id[i] != i;
      else bad = -1;
      CHECK(bad == 0, "fields: %d snapshot rows with another disk's tag (-1: unreadable)", (int)bad);
      if (dt >= 0) H5Dclose(dt);
      if (di >= 0) H5Dclose(di);
      if (f >= 0) H5Fclose(f);
      PetscCall(PetscFree2(t, id));
      unlink(h5);
      PetscCall(PetscSNPrintf(h5, sizeof(h5), "%s.xdmf", prefix));
      unlink(h5);
    }
  }
  PetscCall(SimDestroy(&r));
  PetscCall(SimDestroy(&s));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The scanline marking of the walkable nodes (geometry.c: GeometryInsideRows) gives
   GeometryInside's answer at every node: a polygon with slanted edges, a triangular and
   two square holes, a second polygon, on a grid whose nodes fall on edges and vertices
   (h = 0.25 from 0) and on shifted grids; rows marked in two calls. */
static PetscErrorCode TestInsideRows(void)
{
  const char *wkt = "walkable MULTIPOLYGON (((0 0, 20 0, 23.5 9.75, 20 20, 0 20, -2.25 10, 0 0), "
                    "(2 2, 6 2, 6 6, 2 6, 2 2), (10 10, 16 11.5, 12 17, 10 10), (8 2, 9 2, 9 3, 8 3, 8 2)), "
                    "((30 0, 40 5, 30 10, 30 0)))\nexit LINESTRING (20 0, 23.5 9.75)\n";
  char        path[PETSC_MAX_PATH_LEN];
  Geometry    g;
  FILE       *f;
  PetscMPIInt rank;
  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  PetscCall(PetscSNPrintf(path, sizeof(path), "test_inside_rows_%d.wkt", (int)rank));
  f = fopen(path, "w");
  PetscCheck(f, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "cannot write %s", path);
  fputs(wkt, f);
  fclose(f);
  PetscCall(GeometryRead(PETSC_COMM_SELF, path, PETSC_TRUE, &g));
  remove(path);
  const PetscReal grid[4][3] = {{-3, -1, 0.25}, {-3.01, -1.003, 0.0731}, {-2.5, -0.5, 0.5}, {-3, -1, 1e-3 * 97}};
  for (int q = 0; q < 4; q++) {
    const PetscReal x0 = grid[q][0], y0 = grid[q][1], h = grid[q][2];
    const PetscInt  nx = (PetscInt)(45 / h), ny = (PetscInt)(23 / h), mid = ny / 3;
    char           *in;
    PetscInt        bad = 0, walk = 0;
    PetscCall(PetscMalloc1(nx * ny, &in));
    PetscCall(GeometryInsideRows(&g, x0, y0, h, nx, 0, mid, in));
    PetscCall(GeometryInsideRows(&g, x0, y0, h, nx, mid, ny, in + mid * nx));
    for (PetscInt j = 0; j < ny; j++)
      for (PetscInt i = 0; i < nx; i++) {
        const char want = (char)GeometryInside(&g, x0 + i * h, y0 + j * h);
        bad += in[j * nx + i] != want;
        walk += want;
      }
    CHECK(bad == 0 && walk > nx * ny / 10,
          "scanline walkable nodes, grid %d (h %g): %" PetscInt_FMT " of %" PetscInt_FMT
          " differ from GeometryInside (%" PetscInt_FMT " walkable)",
          q, (double)h, bad, nx * ny, walk);
    PetscCall(PetscFree(in));
  }
  PetscCall(GeometryDestroy(&g));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(SimRegisterEvents());
  TestProjections();
  PetscCall(TestColouring());
  PetscCall(TestBalance());
  PetscCall(TestNoise());
  PetscCall(TestInsideRows());
  PetscCall(TestEngine("-n 3000 -init uniform -attract_gamma 0.5 -dt 0.02 -polydispersity 0.3 -tile 2", PETSC_FALSE));
  PetscCall(TestEngine("-n 1500 -init jitter -init_phi 0.6 -gravity 0.3,-1 -attract_gamma 0 -dt 0.05 -box 0,0,60,60 "
                       "-init_region 0,0,60,50 -tile 3",
                       PETSC_FALSE));
  /* a crowd pulled into one corner, repartitioned at every rebinning it can */
  PetscCall(TestEngine("-n 3000 -init uniform -attract_gamma 0.8 -attract_center 10,10 -dt 0.05 -polydispersity 0.2 "
                       "-tile 2 -balance_threshold 1.01 -balance_interval 0",
                       PETSC_TRUE));
  PetscCall(TestFields("-n 3000 -init uniform -attract_gamma 0.8 -attract_center 10,10 -dt 0.05 -polydispersity 0.2 "
                       "-tile 2 -balance_threshold 1.01 -balance_interval 0"));
  PetscCall(TestNonFinite(
    "-n 400 -init lattice -init_phi 0.01 -box 0,0,300,300 -attract_gamma 0 -gravity 0,0 -dt 0.02 -tile 2"));
  PetscCall(TestNonFinite("-n 400 -init lattice -init_phi 0.01 -box 0,0,300,300 -attract_gamma 0 -gravity 0,0 -dt 0.02 "
                          "-tile 2 -solver pngs"));
  PetscCall(TestNonFinite("-n 400 -init lattice -init_phi 0.01 -box 0,0,300,300 -attract_gamma 0 -gravity 0,0 -dt 0.02 "
                          "-tile 2 -solver penalty"));
  PetscCall(TestNonFinite(
    "-n 400 -init lattice -init_phi 0.01 -box 0,0,300,300 -attract_gamma 0 -gravity 0,0 -dt 0.02 -tile 2 -solver pgs"));
  PetscCall(TestNonFinite(
    "-n 400 -init lattice -init_phi 0.01 -box 0,0,300,300 -attract_gamma 0 -gravity 0,0 -dt 0.02 -tile 2 -noise 1e-9"));
  PetscCall(TestNonFinite(
    "-geometry builtin:venue -n 400 -radius 0.2 -polydispersity 0 -init jitter -init_phi 0.3 -dt 0.01 -skin 0.2"));
  int rc = TestFinish();
  PetscCall(PetscFinalize());
  return rc;
}
