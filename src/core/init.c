/* init — initial conditions, deterministic for a seed and independent of the rank count.
 *
 * Every random number is drawn from the counter-based generator Philox-4x32-10
 * (Random123), keyed by the run's -seed and counted by (disk id, purpose).  A disk's
 * radius and position are therefore functions of its id alone: rank r creates the ids
 * [r N / P, (r + 1) N / P) and routes each disk to the rank that owns its cell.
 *
 * Disks are created and routed in chunks of 65536 per rank, so set-up needs little
 * memory beyond the disks themselves.
 *
 *   lattice  hexagonal lattice of spacing a = 2 r_max sqrt(phi_hcp / phi), filled row by
 *            row from the lower-left corner of -init_region (phi_hcp = pi / (2 sqrt 3),
 *            the close packing: disks of radius r_max touch); a population
 *            (-populations) instead takes N of its region's sites at random, spread
 *            over the whole region (SpreadSites);
 *   jitter   the same lattice, each disk displaced uniformly within a disk of radius
 *            (a - 2 r_max) / 2: a random packing at area fraction phi with no overlaps;
 *   uniform  independent uniform positions in the region: overlaps are certain; with
 *            -init_overlap project they are removed by PBD sweeps (h = 0) before the
 *            run and the count is reported, with -init_overlap error the run stops;
 *   file     a text file, one disk per line, "x y" or "x y r" (r: else -radius and
 *            -polydispersity as usual), '#' starts a comment; the disk on the k-th data
 *            line gets id k - 1.  Rank 0 reads it in chunks and routes them: O(chunk)
 *            memory, but a serial read (fine up to ~10^8 disks; HDF5 input will scale). */
#include <throng/core/init.h>
#include <throng/util/files.h>
#include <throng/core/migrate.h>
#include <throng/util/random.h>
#include <string.h>
#include <stdlib.h>
#include <errno.h>

PetscReal InitRadius(const Params *prm, PetscInt64 id)
{
  double u[2];
  if (prm->npop) return InitRadiusOf(prm, ParamsPopulationOf(prm, id), id);
  if (prm->bidisperse > 0) return id % 2 ? prm->bidisperse * prm->radius : prm->radius;
  if (prm->poly == 0) return prm->radius;
  RandomUniform2(prm->seed, id, RANDOM_STREAM_RADIUS, 0, u);
  return prm->radius * (1 + prm->poly * (2 * u[0] - 1));
}

void InitGaussian2(const Params *prm, PetscInt64 id, PetscReal g[2])
{
  RandomNormal2(prm->seed, id, RANDOM_STREAM_VELOCITY, 0, g);
}

PetscInt InitPopulation(const Params *prm, PetscInt64 id)
{
  double u[2];
  if (prm->npop) return ParamsPopulationOf(prm, id);
  if (prm->frac2 <= 0) return 0;
  RandomUniform2(prm->seed, id, RANDOM_STREAM_GROUP, 0, u);
  return u[0] < prm->frac2 ? 1 : 0;
}

PetscReal InitFreeSpeed(const Params *prm, PetscInt64 id)
{
  PetscReal        z[2];
  const PetscReal *s;
  if (prm->npop) return InitFreeSpeedOf(prm, ParamsPopulationOf(prm, id), id);
  s = InitPopulation(prm, id) ? prm->speed2 : prm->speed;
  RandomNormal2(prm->seed, id, RANDOM_STREAM_SPEED, 0, z); /* one normal deviate per id */
  return PetscMin(s[3], PetscMax(s[2], s[0] + s[1] * z[0]));
}

PetscReal InitPremove(const Params *prm, PetscInt64 id)
{
  return InitPremoveOf(prm, prm->npop ? ParamsPopulationOf(prm, id) : -1, id);
}

/* The same for an agent of population k (-1: the defaults), whatever its id (source.c). */
PetscReal InitRadiusOf(const Params *prm, PetscInt k, PetscInt64 id)
{
  if (k >= 0) return DistDraw(&prm->pop[k].radius, prm->seed, id, RANDOM_STREAM_RADIUS);
  if (prm->poly == 0) return prm->radius;
  {
    double u[2];
    RandomUniform2(prm->seed, id, RANDOM_STREAM_RADIUS, 0, u);
    return prm->radius * (1 + prm->poly * (2 * u[0] - 1));
  }
}

PetscReal InitFreeSpeedOf(const Params *prm, PetscInt k, PetscInt64 id)
{
  PetscReal z[2];
  if (k >= 0) return DistDraw(&prm->pop[k].speed, prm->seed, id, RANDOM_STREAM_SPEED);
  RandomNormal2(prm->seed, id, RANDOM_STREAM_SPEED, 0, z);
  return PetscMin(prm->speed[3], PetscMax(prm->speed[2], prm->speed[0] + prm->speed[1] * z[0]));
}

PetscReal InitPremoveOf(const Params *prm, PetscInt k, PetscInt64 id)
{
  return DistDraw(k >= 0 ? &prm->pop[k].premove : &prm->premove, prm->seed, id, RANDOM_STREAM_PREMOVE);
}

/* Parse one line: 0 blank/comment, 1 a disk, -1 malformed. */
static int ParseLine(char *line, double v[3], int *nv)
{
  char *s    = line, *end;
  char *hash = strchr(line, '#');
  if (hash) *hash = 0;
  *nv = 0;
  while (1) {
    while (*s == ' ' || *s == '\t' || *s == ',' || *s == '\r' || *s == '\n') s++;
    if (!*s) break;
    if (*nv == 3) return -1;
    errno  = 0;
    v[*nv] = strtod(s, &end);
    if (end == s || errno == ERANGE || !isfinite(v[*nv])) return -1;
    (*nv)++;
    s = end;
  }
  if (*nv == 0) return 0;
  return (*nv == 2 || *nv == 3) ? 1 : -1;
}

PetscErrorCode InitCountFile(MPI_Comm comm, const char *path, PetscInt64 *count, PetscReal *rmax)
{
  PetscMPIInt rank;
  PetscInt64  n = 0, bad = 0;
  PetscReal   rm = 0;
  int         ok = 1;
  char        line[1024];

  PetscFunctionBeginUser;
  PetscCall(FilesCheckReadable(comm, "-init_file", path)); /* files.c: a directory is no file */
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  if (!rank) {
    FILE *f = fopen(path, "r");
    ok      = f != NULL;
    for (PetscInt64 ln = 1; f && fgets(line, sizeof(line), f); ln++) {
      double v[3];
      int    nv, k = ParseLine(line, v, &nv);
      if (k < 0 && !bad) bad = ln;
      if (k > 0) n++;
      if (k > 0 && nv == 3 && v[2] > rm) rm = v[2];
    }
    if (f) fclose(f);
  }
  PetscCallMPI(MPI_Bcast(&ok, 1, MPI_INT, 0, comm));
  PetscCheck(ok, comm, PETSC_ERR_FILE_OPEN, "cannot open -init_file '%s'", path);
  PetscCallMPI(MPI_Bcast(&bad, 1, MPIU_INT64, 0, comm));
  PetscCheck(!bad, comm, PETSC_ERR_USER_INPUT,
             "-init_file '%s', line %" PetscInt64_FMT ": expected 'x y' or 'x y r' (finite numbers)", path, bad);
  PetscCallMPI(MPI_Bcast(&n, 1, MPIU_INT64, 0, comm));
  PetscCallMPI(MPI_Bcast(&rm, 1, MPIU_REAL, 0, comm));
  *count = n;
  *rmax  = rm;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode InitFromFile(const Params *prm, const Domain *d, Particles *p)
{
  const PetscInt chunk = 1 << 16;
  ParticleRec   *recs;
  FILE          *f  = NULL;
  PetscInt64     id = 0, ln = 0, badLine = 0;
  PetscMPIInt    rank;
  int            more = 1;
  char           line[1024];

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(d->comm, &rank));
  PetscCall(PetscMalloc1(chunk, &recs));
  if (!rank) {
    f = fopen(prm->initFile, "r");
    PetscCheck(f, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "cannot reopen -init_file '%s'", prm->initFile);
  }
  p->n = p->ng = 0;
  while (more) {
    PetscInt m = 0;
    if (!rank) {
      while (m < chunk && fgets(line, sizeof(line), f)) {
        double v[3];
        int    nv, k;
        ln++;
        k = ParseLine(line, v, &nv);
        if (k == 0) continue;
        recs[m].id = id;
        recs[m].x  = v[0];
        recs[m].y  = v[1];
        recs[m].r  = nv == 3 ? v[2] : InitRadius(prm, id);
        if (!(recs[m].r > 0) && !badLine) badLine = ln;
        if ((v[0] < d->lo[0] || v[0] > d->hi[0] || v[1] < d->lo[1] || v[1] > d->hi[1]) && !badLine) badLine = -ln;
        id++;
        m++;
      }
      more = m == chunk;
    }
    PetscCallMPI(MPI_Bcast(&more, 1, MPI_INT, 0, d->comm));
    PetscCallMPI(MPI_Bcast(&badLine, 1, MPIU_INT64, 0, d->comm));
    PetscCheck(badLine <= 0, d->comm, PETSC_ERR_USER_INPUT,
               "-init_file '%s', line %" PetscInt64_FMT ": the radius must be > 0", prm->initFile, badLine);
    PetscCheck(badLine == 0, d->comm, PETSC_ERR_USER_INPUT,
               "-init_file '%s', line %" PetscInt64_FMT ": the disk is outside the box", prm->initFile, -badLine);
    PetscCall(RouteToOwners(d, m, recs, p));
  }
  if (f) fclose(f);
  PetscCall(PetscFree(recs));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Lattice sites with a filter: rank-independent numbering of the accepted sites.  Each
   rank counts the accepted sites of every row (the same counts on every rank), finds
   the row of its first id by the prefix sums, and walks the sites from there. */
typedef struct {
  PetscInt64 perRow, rows, *prefix; /* prefix[r]: accepted sites in rows < r */
} Sites;

static void SiteXY(const PetscReal *R, PetscInt64 row, PetscInt64 col, PetscReal a_, PetscReal dy, PetscReal m0,
                   PetscReal *x, PetscReal *y)
{
  *x = R[0] + m0 + (PetscReal)col * a_ + ((row & 1) ? a_ / 2 : 0);
  *y = R[1] + m0 + (PetscReal)row * dy;
}

/* Advance (row, col) to the next accepted site at or after it (row == S->rows: none). */
static void SiteSeek(const PetscReal *R, const Sites *S, PetscReal a_, PetscReal dy, PetscReal m0, InitSiteFilter ok,
                     void *ctx, PetscInt64 *row, PetscInt64 *col, PetscReal *x, PetscReal *y)
{
  for (; *row < S->rows; (*col)++) {
    if (*col == S->perRow) {
      *col = 0;
      if (++*row == S->rows) return;
    }
    SiteXY(R, *row, *col, a_, dy, m0, x, y);
    if (*x + m0 <= R[2] + 1e-12 && ok(ctx, *x, *y, m0)) return;
  }
}

typedef struct {
  PetscInt64 rem, b;
} SpreadShare;

static int SpreadShareCmp(const void *a, const void *b)
{
  const SpreadShare *u = (const SpreadShare *)a, *v = (const SpreadShare *)b;
  if (u->rem != v->rem) return u->rem > v->rem ? -1 : 1; /* largest remainder first */
  return u->b < v->b ? -1 : (u->b > v->b ? 1 : 0);
}

typedef struct {
  double     key;
  PetscInt64 k;
} SpreadKey;

static int SpreadKeyCmp(const void *a, const void *b)
{
  const SpreadKey *u = (const SpreadKey *)a, *v = (const SpreadKey *)b;
  if (u->key != v->key) return u->key < v->key ? -1 : 1;
  return u->k < v->k ? -1 : (u->k > v->k ? 1 : 0);
}

static int SpreadIndexCmp(const void *a, const void *b)
{
  const SpreadKey *u = (const SpreadKey *)a, *v = (const SpreadKey *)b;
  return u->k < v->k ? -1 : (u->k > v->k ? 1 : 0);
}

/* A population spread over its region: N of the St accepted lattice sites, chosen at
   random.  The sites, in their rank-independent order, are cut into blocks of
   SPREAD_BLOCK; block b receives its share N S_b / St (rounded by largest remainders,
   so the shares sum to N), and within the block the sites of the smallest keys
   Philox(seed; site, RANDOM_STREAM_SITE, group) are taken: stratified random sampling,
   uniform within a block and proportional between blocks, so the crowd covers the
   region evenly at any count and a seed changes where everyone stands.  Ids follow the
   sites' order.  Rank-independent: every rank computes the same shares and each fills
   the positions of its ids [start, end) into xy.                                     */
#define SPREAD_BLOCK 1024
static PetscErrorCode SpreadSites(const Params *prm, const PetscReal *R, const Sites *S, PetscReal a_, PetscReal dy,
                                  PetscReal m0, InitSiteFilter ok, void *ctx, PetscInt64 first, PetscInt64 N,
                                  PetscInt64 start, PetscInt64 end, PetscReal *xy)
{
  const PetscInt64 St = S->prefix[S->rows], nb = (St + SPREAD_BLOCK - 1) / SPREAD_BLOCK;
  PetscInt64      *Q, left                     = N;
  SpreadShare     *sh;
  SpreadKey       *key;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc3(nb + 1, &Q, nb, &sh, SPREAD_BLOCK, &key));
  for (PetscInt64 b = 0; b < nb; b++) {
    const PetscInt64 Sb = PetscMin(St, (b + 1) * SPREAD_BLOCK) - b * SPREAD_BLOCK;
    Q[b]                = N * Sb / St;
    sh[b].rem = N * Sb % St, sh[b].b = b;
    left -= Q[b];
  }
  qsort(sh, (size_t)nb, sizeof(*sh), SpreadShareCmp);
  for (PetscInt64 k = 0; k < left; k++) Q[sh[k].b]++;
  for (PetscInt64 b = 0, acc = 0; b <= nb; b++) { /* Q[b]: the first id of block b */
    const PetscInt64 q = b < nb ? Q[b] : 0;
    Q[b]               = acc;
    acc += q;
  }
  for (PetscInt64 b = 0; b < nb; b++) {
    if (Q[b + 1] <= start || Q[b] >= end) continue; /* none of this rank's ids */
    const PetscInt64 s0 = b * SPREAD_BLOCK, Sb = PetscMin(St, s0 + SPREAD_BLOCK) - s0, qb = Q[b + 1] - Q[b];
    PetscInt64       lo = 0, hi = S->rows, row, col = 0, k = 0;
    PetscReal        x = 0, y = 0;
    while (hi - lo > 1) { /* the row of site s0: prefix[row] <= s0 < prefix[row + 1] */
      const PetscInt64 mid = (lo + hi) / 2;
      if (S->prefix[mid] <= s0) lo = mid;
      else hi = mid;
    }
    row = lo;
    SiteSeek(R, S, a_, dy, m0, ok, ctx, &row, &col, &x, &y);
    for (PetscInt64 c = S->prefix[row]; c < s0; c++) col++, SiteSeek(R, S, a_, dy, m0, ok, ctx, &row, &col, &x, &y);
    for (k = 0; k < Sb; k++) {
      double u[2];
      PetscCheck(row < S->rows, PETSC_COMM_SELF, PETSC_ERR_PLIB, "spread: site walk out of step");
      RandomUniform2(prm->seed, s0 + k, RANDOM_STREAM_SITE, (uint32_t)first, u);
      key[k].key = u[0], key[k].k = k;
      col++, SiteSeek(R, S, a_, dy, m0, ok, ctx, &row, &col, &x, &y);
    }
    qsort(key, (size_t)Sb, sizeof(*key), SpreadKeyCmp);
    qsort(key, (size_t)qb, sizeof(*key), SpreadIndexCmp); /* the chosen, in site order */
    /* walk the block again, writing the chosen sites of this rank's ids */
    row = lo, col = 0;
    SiteSeek(R, S, a_, dy, m0, ok, ctx, &row, &col, &x, &y);
    for (PetscInt64 c = S->prefix[row]; c < s0; c++) col++, SiteSeek(R, S, a_, dy, m0, ok, ctx, &row, &col, &x, &y);
    for (PetscInt64 kk = 0, j = 0; kk < Sb && j < qb; kk++) {
      if (key[j].k == kk) {
        const PetscInt64 id = Q[b] + j++;
        if (id >= start && id < end) xy[2 * (id - start)] = x, xy[2 * (id - start) + 1] = y;
      }
      col++, SiteSeek(R, S, a_, dy, m0, ok, ctx, &row, &col, &x, &y);
    }
  }
  PetscCall(PetscFree3(Q, sh, key));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The N disks with ids first, first + 1, ... in region R (a group); appended to p.
   spread (populations): the disks take N of the region's sites at random (SpreadSites);
   else the first N sites, row by row from the lower-left corner. */
static PetscErrorCode InitGroup(const Params *prm, const char *what, const PetscReal *R, PetscInt64 first, PetscInt64 N,
                                const Domain *d, Particles *p, InitSiteFilter ok, void *ctx, PetscBool spread)
{
  const PetscInt64 start = N * d->rank / d->size, end = N * (d->rank + 1) / d->size;
  const PetscReal  rmax = ParamsRadiusMax(prm), w = R[2] - R[0], hgt = R[3] - R[1];
  const PetscReal  phiHcp = PETSC_PI / (2 * PetscSqrtReal(3.0));
  const PetscReal  a_ = 2 * rmax * PetscSqrtReal(phiHcp / prm->phi), dy = a_ * PetscSqrtReal(3.0) / 2;
  /* jitter radius; the lattice is inset by it so jittered disks stay inside the region */
  const PetscReal J = prm->init == INIT_JITTER ? 0.5 * (a_ - 2 * rmax) * (1 - 1e-9) : 0, m0 = rmax + J;
  PetscInt64      perRow = 1;

  PetscFunctionBeginUser;
  PetscCheck(R[0] >= d->lo[0] && R[1] >= d->lo[1] && R[2] <= d->hi[0] && R[3] <= d->hi[1], d->comm,
             PETSC_ERR_USER_INPUT, "%s [%g,%g]x[%g,%g] is not inside the box [%g,%g]x[%g,%g]", what, (double)R[0],
             (double)R[2], (double)R[1], (double)R[3], (double)d->lo[0], (double)d->hi[0], (double)d->lo[1],
             (double)d->hi[1]);
  PetscCheck(w >= 2 * rmax && hgt >= 2 * rmax, d->comm, PETSC_ERR_USER_INPUT,
             "%s is narrower than one disk (diameter %g)", what, (double)(2 * rmax));
  if (prm->init == INIT_UNIFORM) { /* the disks may overlap at first and spread over the
                                      box; but they must fit in it, or removing the
                                      overlaps never ends */
    const PetscReal r2 = prm->radius * prm->radius * (1 + prm->poly * prm->poly / 3), /* E[r^2] */
      bw = d->hi[0] - d->lo[0], bh = d->hi[1] - d->lo[1];
    PetscCheck((PetscReal)N * PETSC_PI * r2 <= phiHcp * bw * bh, d->comm, PETSC_ERR_USER_INPUT,
               "-init uniform: %" PetscInt64_FMT " disks cover %g, more than the %g that fit in the %g x %g box at "
               "the densest packing (%.4f): lower -n or enlarge the box or the walkable area",
               N, (double)((PetscReal)N * PETSC_PI * r2), (double)(phiHcp * bw * bh), (double)bw, (double)bh,
               (double)phiHcp);
  }
  Sites S = {0, 0, NULL};
  if (prm->init != INIT_UNIFORM && N > 0 && ok) { /* only the sites the filter accepts */
    perRow = (PetscInt64)PetscFloorReal((w - 2 * m0 - a_ / 2) / a_) + 1;
    if (perRow < 1) perRow = 1;
    S.perRow = perRow;
    S.rows   = (PetscInt64)PetscFloorReal((hgt - 2 * m0) / dy + 1e-9) + 1;
    PetscCall(PetscMalloc1(S.rows + 1, &S.prefix));
    S.prefix[0] = 0;
    for (PetscInt64 r = 0; r < S.rows; r++) {
      PetscInt64 c = 0;
      for (PetscInt64 col = 0; col < perRow; col++) {
        PetscReal x, y;
        SiteXY(R, r, col, a_, dy, m0, &x, &y);
        if (x + m0 <= R[2] + 1e-12 && ok(ctx, x, y, m0)) c++;
      }
      S.prefix[r + 1] = S.prefix[r] + c;
    }
    PetscCheck(S.prefix[S.rows] >= N, d->comm, PETSC_ERR_USER_INPUT,
               "%s holds only %" PetscInt64_FMT
               " lattice sites at packing fraction %g inside the walkable area, fewer than the %" PetscInt64_FMT
               " agents: lower their number (-n, -pop_NAME_count) or -init_phi, or enlarge the region",
               what, S.prefix[S.rows], (double)prm->phi, N);
  } else if (prm->init != INIT_UNIFORM && N > 0) {
    perRow = (PetscInt64)PetscFloorReal((w - 2 * m0 - a_ / 2) / a_) + 1;
    if (perRow < 1) perRow = 1;
    const PetscInt64 rows = (N + perRow - 1) / perRow;
    PetscCheck(R[1] + m0 + (PetscReal)(rows - 1) * dy + m0 <= R[3] + 1e-12 * PetscAbsReal(R[3]) + 1e-12, d->comm,
               PETSC_ERR_USER_INPUT,
               "%" PetscInt64_FMT " disks on a hexagonal lattice at packing fraction %g need %" PetscInt64_FMT
               " rows of %" PetscInt64_FMT ", %g high, but %s is %g high: lower -n or -init_phi, or enlarge the region",
               N, (double)prm->phi, rows, perRow, (double)((rows - 1) * dy + 2 * m0), what, (double)hgt);
  }
  /* Create and route in chunks, so the set-up needs O(chunk) extra memory, not O(N). */
  const PetscInt64 chunk  = 1 << 16;
  PetscInt64       rounds = (end - start + chunk - 1) / chunk;
  ParticleRec     *recs;
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &rounds, 1, MPIU_INT64, MPI_MAX, d->comm));
  PetscCall(ParticlesReserve(p, p->n + (PetscInt)(N / d->size + N / (10 * d->size) + 16)));
  PetscCall(PetscMalloc1(chunk, &recs));
  PetscInt64 srow = 0, scol = 0, sid = start; /* the filtered walk: next site to examine */
  PetscReal *sxy = NULL;                      /* spread: the positions of this rank's ids */
  if (S.prefix && spread) {
    PetscCall(PetscMalloc1(2 * (end - start) + 2, &sxy));
    PetscCall(SpreadSites(prm, R, &S, a_, dy, m0, ok, ctx, first, N, start, end, sxy));
  } else if (S.prefix) {
    while (srow + 1 <= S.rows && S.prefix[srow + 1] <= start) srow++;
    PetscInt64 k = S.prefix[srow];
    for (scol = 0; scol < perRow; scol++) {
      PetscReal x, y;
      SiteXY(R, srow, scol, a_, dy, m0, &x, &y);
      if (x + m0 <= R[2] + 1e-12 && ok(ctx, x, y, m0)) {
        if (k == start) break;
        k++;
      }
    }
  }
  for (PetscInt64 round = 0; round < rounds; round++) {
    const PetscInt64 a = PetscMin(start + round * chunk, end), b = PetscMin(a + chunk, end);
    for (PetscInt64 id = a; id < b; id++) {
      ParticleRec *rec = &recs[id - a];
      double       u[2];
      rec->id = first + id; /* id: the index within the group */
      rec->r  = InitRadius(prm, rec->id);
      if (prm->init == INIT_UNIFORM) {
        RandomUniform2(prm->seed, rec->id, RANDOM_STREAM_POS, 0, u);
        rec->x = R[0] + rec->r + u[0] * (w - 2 * rec->r);
        rec->y = R[1] + rec->r + u[1] * (hgt - 2 * rec->r);
      } else {
        PetscInt64 row = id / perRow, col = id % perRow;
        if (sxy) rec->x = sxy[2 * (id - start)], rec->y = sxy[2 * (id - start) + 1];
        else if (S.prefix) { /* the site at (srow, scol) is accepted and is this id's */ row = srow, col = scol;
          PetscCheck(sid == id, PETSC_COMM_SELF, PETSC_ERR_PLIB, "filtered lattice walk out of step");
          sid++;
          for (;;) { /* advance to the next accepted site */
            if (++scol == perRow) scol = 0, srow++;
            if (srow >= S.rows) break;
            PetscReal x, y;
            SiteXY(R, srow, scol, a_, dy, m0, &x, &y);
            if (x + m0 <= R[2] + 1e-12 && ok(ctx, x, y, m0)) break;
          }
        }
        if (!sxy) SiteXY(R, row, col, a_, dy, m0, &rec->x, &rec->y);
        if (prm->init == INIT_JITTER) {
          RandomUniform2(prm->seed, rec->id, RANDOM_STREAM_POS, 0, u);
          const PetscReal rho = J * PetscSqrtReal(u[0]), th = 2 * PETSC_PI * u[1];
          rec->x += rho * PetscCosReal(th);
          rec->y += rho * PetscSinReal(th);
        }
      }
    }
    PetscCall(RouteToOwners(d, (PetscInt)(b - a), recs, p));
  }
  PetscCall(PetscFree(recs));
  PetscCall(PetscFree(sxy));
  PetscCall(PetscFree(S.prefix));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The disks already placed near a group's region (earlier populations or groups whose
   regions overlap it): every rank holds all of them, so that every rank accepts the same
   sites; a cell grid of edge `h` over their box finds the near ones. */
typedef struct {
  PetscInt   n, nx, ny;
  PetscReal *xyr, x0, y0, h; /* (x, y, r) of each, sorted by cell           */
  PetscInt  *beg;            /* disks of cell c: [beg[c], beg[c + 1])       */
} Placed;

/* The disks of p within dist of the rectangle R, gathered on every rank. Collective. */
static PetscErrorCode PlacedGather(const Domain *d, const Particles *p, const PetscReal *R, PetscReal dist, Placed *pl)
{
  PetscReal  *mine, *all;
  PetscInt    m = 0;
  PetscMPIInt nm, *cnt, *dsp, size;
  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(pl, sizeof(*pl)));
  PetscCallMPI(MPI_Comm_size(d->comm, &size));
  PetscCall(PetscMalloc1(3 * p->n + 3, &mine));
  for (PetscInt i = 0; i < p->n; i++)
    if (p->x[i] >= R[0] - dist && p->x[i] <= R[2] + dist && p->y[i] >= R[1] - dist && p->y[i] <= R[3] + dist)
      mine[3 * m] = p->x[i], mine[3 * m + 1] = p->y[i], mine[3 * m + 2] = p->r[i], m++;
  nm = (PetscMPIInt)(3 * m);
  PetscCall(PetscMalloc2(size, &cnt, size + 1, &dsp));
  PetscCallMPI(MPI_Allgather(&nm, 1, MPI_INT, cnt, 1, MPI_INT, d->comm));
  dsp[0] = 0;
  for (PetscMPIInt r = 0; r < size; r++) dsp[r + 1] = dsp[r] + cnt[r];
  PetscCall(PetscMalloc1(dsp[size] + 3, &all));
  PetscCallMPI(MPI_Allgatherv(mine, nm, MPIU_REAL, all, cnt, dsp, MPIU_REAL, d->comm));
  pl->n = dsp[size] / 3;
  PetscCall(PetscFree2(cnt, dsp));
  PetscCall(PetscFree(mine));
  if (!pl->n) {
    PetscCall(PetscFree(all));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  pl->h  = PetscMax(dist, 1e-9);
  pl->x0 = R[0] - dist, pl->y0 = R[1] - dist;
  pl->nx = (PetscInt)PetscCeilReal((R[2] - R[0] + 2 * dist) / pl->h) + 1;
  pl->ny = (PetscInt)PetscCeilReal((R[3] - R[1] + 2 * dist) / pl->h) + 1;
  PetscCall(PetscCalloc1((size_t)pl->nx * pl->ny + 1, &pl->beg));
  PetscCall(PetscMalloc1(3 * pl->n, &pl->xyr));
  for (PetscInt k = 0; k < pl->n; k++) { /* a counting sort by cell */
    const PetscInt cx = PetscMin(pl->nx - 1, PetscMax(0, (PetscInt)((all[3 * k] - pl->x0) / pl->h)));
    const PetscInt cy = PetscMin(pl->ny - 1, PetscMax(0, (PetscInt)((all[3 * k + 1] - pl->y0) / pl->h)));
    pl->beg[cy * pl->nx + cx + 1]++;
  }
  for (PetscInt c = 0; c < pl->nx * pl->ny; c++) pl->beg[c + 1] += pl->beg[c];
  {
    PetscInt *at;
    PetscCall(PetscMalloc1((size_t)pl->nx * pl->ny, &at));
    PetscCall(PetscArraycpy(at, pl->beg, pl->nx * pl->ny));
    for (PetscInt k = 0; k < pl->n; k++) {
      const PetscInt cx = PetscMin(pl->nx - 1, PetscMax(0, (PetscInt)((all[3 * k] - pl->x0) / pl->h)));
      const PetscInt cy = PetscMin(pl->ny - 1, PetscMax(0, (PetscInt)((all[3 * k + 1] - pl->y0) / pl->h)));
      PetscCall(PetscArraycpy(&pl->xyr[3 * at[cy * pl->nx + cx]++], &all[3 * k], 3));
    }
    PetscCall(PetscFree(at));
  }
  PetscCall(PetscFree(all));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Is a disk of extent margin at (x, y) clear of every placed disk (each within the grid's
   cell edge h >= margin + its radius of the cells next to (x, y))? */
static PetscBool PlacedClear(const Placed *pl, PetscReal x, PetscReal y, PetscReal margin)
{
  if (!pl || !pl->n) return PETSC_TRUE;
  const PetscInt cx = (PetscInt)PetscFloorReal((x - pl->x0) / pl->h),
                 cy = (PetscInt)PetscFloorReal((y - pl->y0) / pl->h);
  for (PetscInt j = PetscMax(0, cy - 1); j <= PetscMin(pl->ny - 1, cy + 1); j++)
    for (PetscInt i = PetscMax(0, cx - 1); i <= PetscMin(pl->nx - 1, cx + 1); i++)
      for (PetscInt k = pl->beg[j * pl->nx + i]; k < pl->beg[j * pl->nx + i + 1]; k++) {
        const PetscReal *q = &pl->xyr[3 * k], dd = margin + q[2];
        if (PetscSqr(x - q[0]) + PetscSqr(y - q[1]) < dd * dd) return PETSC_FALSE;
      }
  return PETSC_TRUE;
}

static PetscErrorCode PlacedDestroy(Placed *pl)
{
  PetscFunctionBeginUser;
  PetscCall(PetscFree(pl->xyr));
  PetscCall(PetscFree(pl->beg));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The disks placed so far near region R (x0,y0,x1,y1), if R overlaps one of the n
   earlier regions (every stride-th number of prev starts one), gathered on every rank;
   none otherwise, so that regions apart place as they always did. Collective. */
static PetscErrorCode PlacedBefore(const Params *prm, const Domain *d, const Particles *p, const PetscReal *R,
                                   PetscInt n, const PetscReal *prev, PetscInt stride, Placed *pl)
{
  const PetscReal rmax = ParamsRadiusMax(prm),
                  a    = 2 * rmax * PetscSqrtReal(PETSC_PI / (2 * PetscSqrtReal(3.0)) / prm->phi);
  const PetscReal reach =
    2 * rmax + a; /* a site's extent (r_max and the jitter) and a placed disk's radius, and more */
  PetscBool overlap = PETSC_FALSE;
  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(pl, sizeof(*pl)));
  for (PetscInt k = 0; k < n && !overlap; k++) {
    const PetscReal *q = &prev[stride * k];
    overlap = (PetscBool)(q[0] <= R[2] + reach && R[0] <= q[2] + reach && q[1] <= R[3] + reach && R[1] <= q[3] + reach);
  }
  if (overlap) PetscCall(PlacedGather(d, p, R, reach, pl));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A population's (or a group's) sites: those of the crowd's filter that lie in its
   region (pop NULL: a group's rectangle) and are clear of the disks placed before. */
typedef struct {
  InitSiteFilter    ok;
  void             *ctx;
  const Population *pop;
  const Placed     *placed;
} PopFilter;

static PetscBool PopSiteOK(void *ctx, PetscReal x, PetscReal y, PetscReal margin)
{
  const PopFilter *f = (const PopFilter *)ctx;
  return (!f->pop || PopulationHolds(f->pop, x, y)) && (!f->ok || f->ok(f->ctx, x, y, margin)) &&
         PlacedClear(f->placed, x, y, margin);
}

PetscErrorCode InitParticles(const Params *prm, const Domain *d, Particles *p, InitSiteFilter ok, void *ctx)
{
  PetscFunctionBeginUser;
  PetscCall(PetscLogEventBegin(THRONG_EV.init, 0, 0, 0, 0));
  p->n  = 0;
  p->ng = 0;
  if (prm->init == INIT_FILE) PetscCall(InitFromFile(prm, d, p));
  else if (prm->npop) /* -populations: each in its region, ids numbered population after population,
                          around the agents of the populations before whose regions overlap its */
    for (PetscInt k = 0; k < prm->npop; k++) {
      const Population *q = &prm->pop[k];
      Placed            pl;
      PetscReal         prev[4 * THRONG_MAX_POPS];
      char              what[96];
      for (PetscInt j = 0; j < k; j++) PetscCall(PetscArraycpy(&prev[4 * j], prm->pop[j].bbox, 4));
      PetscCall(PlacedBefore(prm, d, p, q->bbox, k, prev, 4, &pl));
      PopFilter f = {ok, ctx, q, &pl};
      PetscCheck(prm->init != INIT_UNIFORM || q->nvert == 4, d->comm, PETSC_ERR_USER_INPUT,
                 "-init uniform places agents in rectangles: give population '%s' a rectangle x0,y0,x1,y1, or -init "
                 "jitter",
                 q->name);
      /* the region as far as it lies in the box: the walkable area is inside, and a region
         drawn beyond it (its walkable part checked in population.c) is no error */
      const PetscReal R[4] = {PetscMax(q->bbox[0], d->lo[0]), PetscMax(q->bbox[1], d->lo[1]),
                              PetscMin(q->bbox[2], d->hi[0]), PetscMin(q->bbox[3], d->hi[1])};
      PetscCall(PetscSNPrintf(what, sizeof(what), "the region of population '%s'%s", q->name,
                              pl.n ? " (around the agents of the populations before it)" : ""));
      {
        PetscErrorCode ierr =
          InitGroup(prm, what, R, q->first, q->count, d, p, PopSiteOK, &f, q->place == 0 ? PETSC_TRUE : PETSC_FALSE);
        PetscCall(PlacedDestroy(&pl)); /* before its error */
        PetscCall(ierr);
      }
    }
  else if (!prm->ngroups) PetscCall(InitGroup(prm, "-init_region", prm->region, 0, prm->n, d, p, ok, ctx, PETSC_FALSE));
  else /* -groups: each region gets its count, ids numbered group after group, around the groups before */
    for (PetscInt g = 0, first = 0; g < prm->ngroups; first += (PetscInt)prm->groups[5 * g + 4], g++) {
      char      what[96];
      Placed    pl;
      PopFilter f = {ok, ctx, NULL, &pl};
      PetscCall(PlacedBefore(prm, d, p, &prm->groups[5 * g], g, prm->groups, 5, &pl));
      PetscCall(PetscSNPrintf(what, sizeof(what), "-groups region %" PetscInt_FMT "%s", g,
                              pl.n ? " (around the disks of the groups before it)" : ""));
      {
        PetscErrorCode ierr = InitGroup(prm, what, &prm->groups[5 * g], first, (PetscInt64)prm->groups[5 * g + 4], d, p,
                                        pl.n || ok ? PopSiteOK : NULL, &f, PETSC_FALSE);
        PetscCall(PlacedDestroy(&pl));
        PetscCall(ierr);
      }
    }
  PetscCall(PetscLogEventEnd(THRONG_EV.init, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}
