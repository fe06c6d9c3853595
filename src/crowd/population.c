/* population — who is in the building, and when each one starts to walk.
 *
 * An evacuation study describes its occupants by populations: office staff who know the
 * building, visitors, elderly people, wheelchair users.  Each population has
 *   - a start region (a polygon, or a rectangle x0,y0,x1,y1) and a count, or a density
 *     per m^2 of the walkable part of the region; the agents take random sites of the
 *     -init lattice spread over the whole region (-pop_NAME_place spread, the default;
 *     each seed places them anew), or the first sites row by row from the region's
 *     lower-left corner (fill: a block, as -n places a crowd);
 *   - distributions of the radius, the free speed and the pre-movement time;
 *   - a time gap for the time-gap law (csm.c) where it differs from -csm_time_gap;
 *   - optionally a route (targets of the scene file, as its `route` lines name them).
 * Options (YAML: a mapping `pop: {NAME: {count: 50, ...}}` flattens to the same names):
 *
 *     -populations staff,visitors
 *     -pop_staff_region 0,0,20,10          -pop_staff_count 40     (or _density 0.5)
 *     -pop_staff_speed normal:1.34,0.26,0.5,2.2
 *     -pop_staff_premove lognormal:60,0.5,10,600
 *     -pop_staff_radius uniform:0.18,0.22   -pop_staff_time_gap 1.0
 *     -pop_visitors_route hall,main
 *
 * The agents are numbered population after population (ids first .. first + count - 1),
 * so an agent's population is a function of its id, the same on every rank.
 *
 * Distributions (DistParse): a number (constant), uniform:lo,hi, normal:mean,sd,min,max
 * clipped to [min, max] (a draw beyond a bound is set to it, as -speed's free speeds:
 * with bounds 3 sd out that is ~0.1 % of the agents), and lognormal:median,sigma,min,max
 * (sigma the standard deviation of the logarithm, as ISO/TR 16738 and the SFPE handbook
 * give pre-movement times) truncated to [min, max]: a draw beyond is drawn again (see
 * TruncatedLognormal), so no point masses pile up at the bounds.  And the groups of RiMEA's test 7 (RiMEA 3.0, Table 1, after Weidmann's
 * speed-age curve): rimea:under30 (0.58-1.61 m/s), rimea:30to50 (1.41-1.54),
 * rimea:over50 (0.68-1.41), rimea:limited (mobility impaired, 0.46-0.76); each a normal
 * distribution centred in its range and clipped to it, with the standard deviations
 * JuPedSim's transcription of the test uses (0.2, 0.02, 0.13, 0.05 m/s).
 *
 * Every draw is a function of (-seed, id, quantity) (random.h): a normal speed draws the
 * same deviate as -speed does, so one population with -speed's distribution gives the
 * agents the speeds they had without it.  Runs are bitwise the same on any rank count,
 * and a restart draws the same values again (the physics string holds a hash of every
 * population, so a restart with other populations is refused).
 *
 * Pre-movement.  Agent i stands still until its time t_pre,i (a disk that the others
 * walk round, and that the sweep keeps from overlapping); from the first step that
 * begins at t >= t_pre,i it walks by the law (crowd.c, csm.c).  -premove DIST gives
 * every agent's when there are no populations.                                         */
#include <throng/app/optdecl.h>
#include <throng/core/geometry.h>
#include <throng/util/random.h>
#include <string.h>
#include <stdlib.h>
#include <errno.h>
#include <ctype.h>
#include <math.h>

/* ---- distributions ------------------------------------------------------------------ */

/* The standard normal distribution function and its quantile: Acklam's rational
   approximation (relative error below 1.2e-9), refined by one Halley step on erfc, which
   brings it to double precision. */
static double NormalCDF(double x) { return 0.5 * erfc(-x / sqrt(2.0)); }

static double NormalQuantile(double p)
{
  static const double a[6] = {-3.969683028665376e+01, 2.209460984245205e+02,  -2.759285104469687e+02,
                              1.383577518672690e+02,  -3.066479806614716e+01, 2.506628277459239e+00};
  static const double b[5] = {-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02,
                              6.680131188771972e+01, -1.328068155288572e+01};
  static const double c[6] = {-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00,
                              -2.549732539343734e+00, 4.374664141464968e+00,  2.938163982698783e+00};
  static const double d[4] = {7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00,
                              3.754408661907416e+00};
  double              x, q, r;
  if (!(p > 0)) return -INFINITY;
  if (!(p < 1)) return INFINITY;
  if (p < 0.02425) {
    q = sqrt(-2 * log(p));
    x = (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
        ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
  } else if (p <= 1 - 0.02425) {
    q = p - 0.5, r = q * q;
    x = (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
        (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
  } else {
    q = sqrt(-2 * log(1 - p));
    x = -(((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
        ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
  }
  { /* Halley */
    const double e = NormalCDF(x) - p, u = e * sqrt(2 * PETSC_PI) * exp(0.5 * x * x);
    x -= u / (1 + 0.5 * x * u);
  }
  return x;
}

/* A lognormal draw truncated to [lo, hi]: the deviates of (id, stream, 0), (id, stream,
   1), ... in turn until one lands in the window (the first is the one a clipped draw
   took, so agents inside the window keep their values); after 16 misses (a window of
   small probability) the inverse distribution function of a uniform draw.  Both parts
   draw from the truncated distribution, so the mixture does too. */
static PetscReal TruncatedLognormal(const Dist *d, PetscInt64 seed, PetscInt64 id, uint32_t stream)
{
  for (uint32_t k = 0; k < 8; k++) {
    PetscReal z[2];
    RandomNormal2(seed, id, stream, k, z);
    for (int j = 0; j < 2; j++) {
      const PetscReal v = d->a * PetscExpReal(d->b * z[j]);
      if (v >= d->lo && v <= d->hi) return v;
    }
  }
  {
    double       u[2];
    const double mu = log((double)d->a), s = (double)d->b;
    const double pa = d->lo > 0 ? NormalCDF((log((double)d->lo) - mu) / s) : 0,
                 pb = NormalCDF((log((double)d->hi) - mu) / s);
    RandomUniform2(seed, id, stream, 8, u);
    const PetscReal v = (PetscReal)exp(mu + s * NormalQuantile(pa + u[0] * (pb - pa)));
    return PetscMin(d->hi, PetscMax(d->lo, v)); /* rounding at the ends */
  }
}

PetscReal DistDraw(const Dist *d, PetscInt64 seed, PetscInt64 id, uint32_t stream)
{
  double    u[2];
  PetscReal z[2];
  switch (d->kind) {
  case DIST_CONST: return d->a;
  case DIST_UNIFORM: RandomUniform2(seed, id, stream, 0, u); return d->lo + (PetscReal)u[0] * (d->hi - d->lo);
  case DIST_NORMAL: /* clipped, as -speed's free speeds (a bound > 3 sd out holds ~0.1 %) */
    RandomNormal2(seed, id, stream, 0, z);
    return PetscMin(d->hi, PetscMax(d->lo, d->a + d->b * z[0]));
  default: return d->b > 0 ? TruncatedLognormal(d, seed, id, stream) : d->a; /* truncated */
  }
}

PetscReal DistMax(const Dist *d) { return d->kind == DIST_CONST ? d->a : d->hi; }
PetscReal DistMin(const Dist *d) { return d->kind == DIST_CONST ? d->a : d->lo; }

PetscReal DistMean(const Dist *d)
{
  switch (d->kind) {
  case DIST_CONST: return d->a;
  case DIST_UNIFORM: return 0.5 * (d->lo + d->hi);
  case DIST_NORMAL: return PetscMin(d->hi, PetscMax(d->lo, d->a));
  default: { /* truncated: E[X | lo <= X <= hi] */
    const double mu = log((double)d->a), sg = (double)d->b;
    if (!(sg > 0)) return d->a;
    const double al = d->lo > 0 ? (log((double)d->lo) - mu) / sg : -INFINITY, be = (log((double)d->hi) - mu) / sg;
    const double den = NormalCDF(be) - NormalCDF(al);
    if (!(den > 0)) return d->a;
    return (PetscReal)(exp(mu + 0.5 * sg * sg) * (NormalCDF(be - sg) - NormalCDF(al - sg)) / den);
  }
  }
}

void DistText(const Dist *d, char *buf, size_t len)
{
  switch (d->kind) {
  case DIST_CONST: snprintf(buf, len, "%g", (double)d->a); break;
  case DIST_UNIFORM: snprintf(buf, len, "uniform:%g,%g", (double)d->lo, (double)d->hi); break;
  default:
    snprintf(buf, len, "%s:%g,%g,%g,%g", d->kind == DIST_NORMAL ? "normal" : "lognormal", (double)d->a, (double)d->b,
             (double)d->lo, (double)d->hi);
  }
}

/* RiMEA 3.0 test 7's groups: range of the free speed, and the sd JuPedSim uses */
static const struct {
  const char *name;
  PetscReal   lo, hi, sd;
} RimeaGroups[] = {{"under30", 0.58, 1.61, 0.2},
                   {"30to50", 1.41, 1.54, 0.02},
                   {"over50", 0.68, 1.41, 0.13},
                   {"limited", 0.46, 0.76, 0.05}};

PetscErrorCode DistParse(MPI_Comm comm, const char *opt, const char *text, Dist *d)
{
  static const struct {
    const char *kind;
    DistKind    k;
    int         n;
  } kinds[]         = {{"uniform", DIST_UNIFORM, 2}, {"normal", DIST_NORMAL, 4}, {"lognormal", DIST_LOGNORMAL, 4}};
  const char *colon = strchr(text, ':');
  double      v[5];
  int         n = 0, want = 1;
  DistKind    kind = DIST_CONST;
  const char *s    = colon ? colon + 1 : text;
  char       *end;

  PetscFunctionBeginUser;
  if (colon && !strncmp(text, "rimea:", 6)) {
    for (size_t k = 0; k < sizeof(RimeaGroups) / sizeof(RimeaGroups[0]); k++)
      if (!strcmp(colon + 1, RimeaGroups[k].name)) {
        *d = (Dist){DIST_NORMAL, 0.5 * (RimeaGroups[k].lo + RimeaGroups[k].hi), RimeaGroups[k].sd, RimeaGroups[k].lo,
                    RimeaGroups[k].hi};
        PetscFunctionReturn(PETSC_SUCCESS);
      }
    SETERRQ(comm, PETSC_ERR_USER_INPUT,
            "%s '%s': RiMEA's groups are rimea:under30, rimea:30to50, rimea:over50 and rimea:limited", opt, text);
  }
  if (colon) {
    PetscBool found = PETSC_FALSE;
    for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]) && !found; k++)
      if ((size_t)(colon - text) == strlen(kinds[k].kind) && !strncmp(text, kinds[k].kind, strlen(kinds[k].kind)))
        kind = kinds[k].k, want = kinds[k].n, found = PETSC_TRUE;
    PetscCheck(found, comm, PETSC_ERR_USER_INPUT,
               "%s '%s': a distribution is a number, uniform:lo,hi, normal:mean,sd,min,max, "
               "lognormal:median,sigma,min,max or rimea:GROUP",
               opt, text);
  }
  while (*s && n < 5) {
    while (*s == ' ' || *s == ',') s++;
    if (!*s) break;
    errno  = 0;
    v[n++] = strtod(s, &end);
    PetscCheck(end != s && errno != ERANGE, comm, PETSC_ERR_USER_INPUT, "%s '%s': '%s' is not a number", opt, text, s);
    s = end;
  }
  PetscCheck(n == want, comm, PETSC_ERR_USER_INPUT, "%s '%s': %s needs %d number%s, got %d%s", opt, text,
             colon ? "this distribution" : "a constant", want, want > 1 ? "s" : "", n, n == 5 ? " or more" : "");
  for (int k = 0; k < n; k++)
    PetscCheck(isfinite(v[k]) && v[k] >= 0, comm, PETSC_ERR_USER_INPUT,
               "%s '%s': every number must be finite and >= 0, got %g", opt, text, v[k]);
  switch (kind) {
  case DIST_CONST: *d = (Dist){DIST_CONST, v[0], 0, v[0], v[0]}; break;
  case DIST_UNIFORM:
    PetscCheck(v[0] <= v[1], comm, PETSC_ERR_USER_INPUT, "%s '%s': need lo <= hi", opt, text);
    *d = (Dist){DIST_UNIFORM, 0, 0, v[0], v[1]};
    break;
  default:
    PetscCheck(v[2] <= v[0] && v[0] <= v[3], comm, PETSC_ERR_USER_INPUT, "%s '%s': need min <= %s <= max", opt, text,
               kind == DIST_NORMAL ? "mean" : "median");
    PetscCheck(kind == DIST_NORMAL || v[0] > 0, comm, PETSC_ERR_USER_INPUT, "%s '%s': the median must be > 0", opt,
               text);
    *d = (Dist){kind, v[0], v[1], v[2], v[3]};
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---- the populations ------------------------------------------------------------------ */

PetscBool PopulationHolds(const Population *q, PetscReal x, PetscReal y)
{
  PetscBool in = PETSC_FALSE;
  if (x < q->bbox[0] || x > q->bbox[2] || y < q->bbox[1] || y > q->bbox[3]) return PETSC_FALSE;
  for (PetscInt i = 0, j = q->nvert - 1; i < q->nvert; j = i++) {
    const PetscReal xi = q->vert[2 * i], yi = q->vert[2 * i + 1], xj = q->vert[2 * j], yj = q->vert[2 * j + 1];
    if ((yi > y) != (yj > y) && x < (xj - xi) * (y - yi) / (yj - yi) + xi) in = (PetscBool)!in;
  }
  return in;
}

PetscInt ParamsPopulationOf(const Params *p, PetscInt64 id)
{
  for (PetscInt k = p->npop - 1; k > 0; k--)
    if (id >= p->pop[k].first) return k;
  return 0;
}

PetscReal ParamsSpeedMax(const Params *p)
{
  PetscReal v = 0;
  if (!p->npop) return PetscMax(p->speed[3], p->frac2 > 0 ? p->speed2[3] : 0);
  for (PetscInt k = 0; k < p->npop; k++) v = PetscMax(v, DistMax(&p->pop[k].speed));
  return v;
}

PetscReal ParamsTimeGapMax(const Params *p)
{
  PetscReal T = 0;
  if (!p->npop) return PetscMax(p->csmT[0], p->frac2 > 0 ? p->csmT[1] : 0);
  for (PetscInt k = 0; k < p->npop; k++) T = PetscMax(T, p->pop[k].timeGap > 0 ? p->pop[k].timeGap : p->csmT[0]);
  return T;
}

void ParamsRadiusOption(const Params *p, char *buf, size_t len)
{
  PetscInt  k = -1;
  PetscReal r = 0;
  for (PetscInt j = 0; j < p->npop; j++) { /* the largest of those given with -pop_NAME_radius */
    char name[THRONG_POP_NAME_LEN + 16];
    snprintf(name, sizeof(name), "pop_%s_radius", p->pop[j].name);
    if (ParamsGiven(p, name) && DistMax(&p->pop[j].radius) > r) r = DistMax(&p->pop[j].radius), k = j;
  }
  if (k >= 0 && r >= p->radius * (1 + p->poly)) snprintf(buf, len, "-pop_%s_radius", p->pop[k].name);
  else
    snprintf(buf, len,
             p->poly > 0         ? "-radius and -polydispersity"
             : p->bidisperse > 0 ? "-radius and -bidisperse"
                                 : "-radius");
}

/* The start region: a rectangle (2 points, its corners) or a polygon (3 or more). */
static PetscErrorCode RegionSet(MPI_Comm comm, const char *opt, const PetscReal *v, PetscInt np, Population *q)
{
  const PetscInt n = 2 * np;
  PetscFunctionBeginUser;
  PetscCheck(np >= 2, comm, PETSC_ERR_USER_INPUT,
             "%s: give a rectangle x0,y0,x1,y1 or a polygon x0,y0,x1,y1,x2,y2,... (3 to %d vertices)", opt,
             THRONG_MAX_POP_VERTS);
  if (n == 4) {
    PetscCheck(v[2] > v[0] && v[3] > v[1], comm, PETSC_ERR_USER_INPUT, "%s %g,%g,%g,%g: need x0 < x1 and y0 < y1", opt,
               (double)v[0], (double)v[1], (double)v[2], (double)v[3]);
    const PetscReal r[8] = {v[0], v[1], v[2], v[1], v[2], v[3], v[0], v[3]};
    q->nvert             = 4;
    PetscCall(PetscArraycpy(q->vert, r, 8));
  } else {
    q->nvert = n / 2;
    PetscCall(PetscArraycpy(q->vert, v, n));
  }
  q->bbox[0] = q->bbox[2] = q->vert[0];
  q->bbox[1] = q->bbox[3] = q->vert[1];
  for (PetscInt k = 1; k < q->nvert; k++) {
    q->bbox[0] = PetscMin(q->bbox[0], q->vert[2 * k]), q->bbox[2] = PetscMax(q->bbox[2], q->vert[2 * k]);
    q->bbox[1] = PetscMin(q->bbox[1], q->vert[2 * k + 1]), q->bbox[3] = PetscMax(q->bbox[3], q->vert[2 * k + 1]);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Options that name a population not in -populations (-pop_NAME_*). */
static PetscErrorCode UnknownPopulations(MPI_Comm comm, const Params *p)
{
  PetscInt n, nleft;
  char   **names, **values, bad[256] = "";
  PetscFunctionBeginUser;
  PetscCall(PetscOptionsLeftGet(NULL, &n, &names, &values));
  nleft = n;
  for (PetscInt i = 0; i < nleft && !bad[0]; i++) {
    PetscBool known = PETSC_FALSE;
    if (strncmp(names[i], "pop_", 4)) continue;
    for (PetscInt k = 0; k < p->npop && !known; k++) {
      const size_t l = strlen(p->pop[k].name);
      known          = (PetscBool)(!strncmp(names[i] + 4, p->pop[k].name, l) && names[i][4 + l] == '_');
    }
    if (!known) PetscCall(PetscStrncpy(bad, names[i], sizeof(bad)));
  }
  PetscCall(PetscOptionsLeftRestore(NULL, &n, &names, &values));
  if (bad[0]) {
    char list[256] = "";
    for (PetscInt k = 0; k < p->npop; k++) {
      PetscCall(PetscStrlcat(list, k ? "," : "", sizeof(list)));
      PetscCall(PetscStrlcat(list, p->pop[k].name, sizeof(list)));
    }
    SETERRQ(comm, PETSC_ERR_USER_INPUT, "-%s names an unknown population: -populations is '%s'", bad,
            p->npop ? list : "(not given)");
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Each population's options (the scene is read: regions are checked against it). */
static PetscErrorCode PopulationsRead(Opt *o, const Geometry *geo)
{
  Params  *p    = o->p;
  MPI_Comm comm = o->comm;
  PetscFunctionBeginUser;
  p->n = 0;
  for (PetscInt k = 0; k < p->npop; k++) {
    Population *q = &p->pop[k];
    const char *opt;
    PetscReal   area = 0;
    PetscBool   set, cset, dset;

    PetscCall(OptName(o, "-pop_", q->name, "_region", &opt));
    PetscCall(OptReals(o, OPT_PHYS, opt, "Population: start region, a rectangle x0,y0,x1,y1 or a polygon x0,y0,...",
                       2 * THRONG_MAX_POP_VERTS, q->given, &q->ngiven, 2, "x,y", &set));
    PetscCheck(set, comm, PETSC_ERR_USER_INPUT, "population '%s' needs a start region: %s x0,y0,x1,y1 (or a polygon)",
               q->name, opt);
    PetscCall(RegionSet(comm, opt, q->given, q->ngiven, q));
    PetscCall(GeometryPolygonArea(geo, q->nvert, q->vert, &area));
    PetscCheck(area != -1, comm, PETSC_ERR_USER_INPUT,
               "population '%s': its region (%s) crosses itself: give the polygon's vertices in order round it",
               q->name, opt);
    PetscCheck(area > 0, comm, PETSC_ERR_USER_INPUT,
               "population '%s': its region (%s) lies outside the walkable area of '%s'", q->name, opt, p->geometry);
    q->count = -1, q->density = -1;
    PetscCall(OptName(o, "-pop_", q->name, "_count", &opt));
    PetscCall(OptInt64(o, OPT_PHYS, opt, "Population: number of agents", &q->count, &cset));
    PetscCall(OptName(o, "-pop_", q->name, "_density", &opt));
    PetscCall(
      OptReal(o, OPT_PHYS, opt, "Population: agents per m^2 of the walkable part of its region", &q->density, &dset));
    PetscCheck(cset != dset, comm, PETSC_ERR_USER_INPUT,
               "population '%s': give one of -pop_%s_count and -pop_%s_density", q->name, q->name, q->name);
    if (dset) {
      PetscCheck(q->density >= 0 && q->density <= 10, comm, PETSC_ERR_USER_INPUT,
                 "-pop_%s_density %g: give 0 to 10 agents per m^2", q->name, (double)q->density);
      q->count = (PetscInt64)PetscFloorReal(q->density * area + 0.5);
    }
    PetscCheck(q->count >= 0, comm, PETSC_ERR_USER_INPUT, "-pop_%s_count %" PetscInt64_FMT ": must be >= 0", q->name,
               q->count);
    PetscCheck(q->count <= PETSC_MAX_INT - p->n, comm, PETSC_ERR_USER_INPUT,
               "-pop_%s_%s: %" PetscInt64_FMT " agents%s, more than this PETSc build's PetscInt can index (%d)",
               q->name, dset ? "density" : "count", q->count, p->n ? " with the populations before it" : "",
               (int)PETSC_MAX_INT);
    q->first = p->n;
    p->n += q->count;
    {
      static const char *const places[] = {"spread", "fill"};
      q->place                          = 0;
      PetscCall(OptName(o, "-pop_", q->name, "_place", &opt));
      PetscCall(OptEnum(o, OPT_PHYS, opt,
                        "Population: spread (random sites over the whole region) or fill (row by row from its "
                        "lower-left corner, as -n)",
                        places, 2, &q->place));
    }

    q->radius  = p->poly > 0 ? (Dist){DIST_UNIFORM, 0, 0, p->radius * (1 - p->poly), p->radius * (1 + p->poly)}
                             : (Dist){DIST_CONST, p->radius, 0, p->radius, p->radius};
    q->speed   = (Dist){DIST_NORMAL, p->speed[0], p->speed[1], p->speed[2], p->speed[3]};
    q->premove = p->premove;
    PetscCall(OptName(o, "-pop_", q->name, "_radius", &opt));
    PetscCall(OptDist(o, OPT_PHYS, opt, "Population: radius (m), a distribution (default -radius, -polydispersity)",
                      q->text[0], sizeof(q->text[0]), &q->radius, NULL));
    PetscCheck(DistMin(&q->radius) > 0 && DistMax(&q->radius) <= 10, comm, PETSC_ERR_USER_INPUT,
               "%s %s: radii must lie in (0, 10] m", opt, q->text[0]);
    PetscCall(OptName(o, "-pop_", q->name, "_speed", &opt));
    PetscCall(OptDist(o, OPT_PHYS, opt, "Population: free speed (m/s), a distribution (default -speed)", q->text[1],
                      sizeof(q->text[1]), &q->speed, NULL));
    PetscCheck(DistMax(&q->speed) > 0 && DistMax(&q->speed) <= 10, comm, PETSC_ERR_USER_INPUT,
               "%s %s: the free speeds must lie in [0, 10] m/s, and not all be 0", opt, q->text[1]);
    PetscCall(OptName(o, "-pop_", q->name, "_premove", &opt));
    PetscCall(OptDist(o, OPT_PHYS, opt, "Population: pre-movement time (s), a distribution (default -premove)",
                      q->text[2], sizeof(q->text[2]), &q->premove, NULL));
    PetscCall(ParamsCheckTime(comm, opt, q->text[2], DistMax(&q->premove)));
    p->premoveOn = (PetscBool)(p->premoveOn || DistMax(&q->premove) > 0);
    q->timeGap   = -1;
    PetscCall(OptName(o, "-pop_", q->name, "_time_gap", &opt));
    PetscCall(OptReal(o, OPT_PHYS, opt, "Population: time gap T (s) of the time-gap law (default -csm_time_gap)",
                      &q->timeGap, &set));
    PetscCheck(!set || (q->timeGap >= 0.1 && q->timeGap <= 10), comm, PETSC_ERR_USER_INPUT,
               "%s %g: must be in [0.1, 10] s", opt, (double)q->timeGap);
    PetscCall(OptName(o, "-pop_", q->name, "_route", &opt));
    PetscCall(OptString(o, OPT_PHYS, opt,
                        "Population: its route, targets T1,T2,... of the scene (waypoints, then an exit; default: the "
                        "crowd's choice)",
                        q->route, sizeof(q->route), NULL));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PopulationSetFromOptions(Opt *o)
{
  Params   *p    = o->p;
  MPI_Comm  comm = o->comm;
  Geometry  geo;
  PetscBool set;

  PetscFunctionBeginUser;
  p->premove = (Dist){DIST_CONST, 0, 0, 0, 0};
  PetscCall(OptDist(o, OPT_PHYS, "-premove",
                    "Crowd: pre-movement time of every agent (s), a distribution: T, uniform:lo,hi, "
                    "normal:mean,sd,min,max or lognormal:median,sigma,min,max (per population: -pop_NAME_premove)",
                    p->premoveText, sizeof(p->premoveText), &p->premove, &set));
  PetscCheck(!set || (p->geometry[0] && p->walk), comm, PETSC_ERR_USER_INPUT,
             "-premove describes a crowd: it needs a crowd scene (-geometry FILE)");
  PetscCall(ParamsCheckTime(comm, "-premove", p->premoveText, DistMax(&p->premove)));
  p->premoveOn = (PetscBool)(DistMax(&p->premove) > 0);
  PetscCall(OptString(o, OPT_PHYS, "-populations",
                      "Crowd: the populations NAME,... (at most 16), each described by -pop_NAME_region, _count or "
                      "_density, _speed, _premove, _radius, _time_gap, _route (docs/crowd.md)",
                      p->popList, sizeof(p->popList), &set));
  p->npop = 0;
  for (char *a = p->popList; set && *a;) { /* the names, split at the commas */
    char  *b = strchr(a, ',');
    size_t l = b ? (size_t)(b - a) : strlen(a);
    PetscCheck(p->npop < THRONG_MAX_POPS, comm, PETSC_ERR_USER_INPUT, "-populations: at most %d populations",
               THRONG_MAX_POPS);
    PetscCheck(l > 0 && l < THRONG_POP_NAME_LEN, comm, PETSC_ERR_USER_INPUT,
               "-populations '%s': names of 1 to %d letters and digits, separated by commas", p->popList,
               THRONG_POP_NAME_LEN - 1);
    Population *q = &p->pop[p->npop++];
    memcpy(q->name, a, l);
    q->name[l] = 0;
    for (const char *c = q->name; *c; c++)
      PetscCheck(isalnum((unsigned char)*c), comm, PETSC_ERR_USER_INPUT,
                 "-populations: the name '%s' may hold letters and digits only", q->name);
    for (PetscInt j = 0; j + 1 < p->npop; j++)
      PetscCheck(strcmp(p->pop[j].name, q->name), comm, PETSC_ERR_USER_INPUT, "-populations: '%s' is given twice",
                 q->name);
    a += l + (b ? 1 : 0);
  }
  PetscCall(UnknownPopulations(comm, p));
  if (!p->npop) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCheck(p->geometry[0] && p->walk, comm, PETSC_ERR_USER_INPUT,
             "-populations describes the agents of a crowd: it needs a crowd scene (-geometry FILE)");
  PetscCheck(!p->ngroups && !(p->frac2 > 0) && p->init != INIT_FILE, comm, PETSC_ERR_USER_INPUT,
             "-populations replaces -groups, -speed2_fraction and -init file: give one way of placing the agents");
  PetscCheck(!ParamsGiven(p, "n") && !ParamsGiven(p, "init_region"), comm, PETSC_ERR_USER_INPUT,
             "-populations gives the agents' number and places (-pop_NAME_count, -pop_NAME_region): drop %s",
             ParamsGiven(p, "n") ? "-n" : "-init_region");
  PetscCall(GeometryRead(comm, p->geometry, PETSC_FALSE, &geo));
  {
    PetscErrorCode ierr = PopulationsRead(o, &geo);
    PetscCall(GeometryDestroy(&geo)); /* before an error of theirs */
    PetscCall(ierr);
  }
  PetscCheck(p->n > 0, comm, PETSC_ERR_USER_INPUT, "-populations: the populations hold no agent");
  PetscFunctionReturn(PETSC_SUCCESS);
}
