/* dist — distributions of one per-agent quantity (radius, free speed, pre-movement time),
 * parsed from their option text and drawn per (seed, id) (random.h).
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
 * The draws are functions of (seed, id, stream), so that they are the same on any rank
 * count and after a restart.                                                            */
#include <throng/util/dist.h>
#include <throng/util/random.h>
#include <string.h>
#include <stdlib.h>
#include <errno.h>
#include <ctype.h>
#include <math.h>

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
