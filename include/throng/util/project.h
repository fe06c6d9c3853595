/* project — orthogonal projections onto single constraint sets S_j.
 *
 * PBD (seed 000, eq. 6) needs, for every constraint g_j(q) >= 0, the orthogonal
 * projection P_{S_j} in the Euclidean norm of the whole state space.  For the
 * constraints of throng these are explicit:
 *   - pair  |q_i - q_j| >= s  (s = r_i + r_j): if violated, move both centres apart along
 *     the line of centres by half the overlap each; the centre of the pair is unchanged.
 *     Coincident centres have no unique projection; we choose the x axis, the disk with the
 *     lower id moving to -x, so the choice is the same on every rank.
 *   - half-plane  n·q_i >= b + r_i  (|n| = 1): move q_i along n by the deficit.
 *   - outside a ball in R^d  |x - c| >= R: radial push to the sphere (the sliding test of
 *     seed 000 §4.2, a point in R^3 kept outside two balls).
 * These are inline: they sit in the innermost loop of the sweep.                          */
#pragma once
#include <math.h>
#include <stdint.h>

/* Returns 1 if the pair was violated (and has been projected). */
static inline int ProjectPair(double *xi, double *yi, double *xj, double *yj, double s, int64_t idi, const int64_t *idj)
{
  const double dx = *xj - *xi, dy = *yj - *yi, d2 = dx * dx + dy * dy;
  if (d2 >= s * s) return 0;
  if (d2 > 0) {
    const double d = sqrt(d2), c = 0.5 * (s - d) / d;
    *xi -= c * dx;
    *yi -= c * dy;
    *xj += c * dx;
    *yj += c * dy;
  } else {
    const double h = 0.5 * s;
    if (idi < *idj) {
      *xi -= h;
      *xj += h;
    } else {
      *xi += h;
      *xj -= h;
    }
  }
  return 1;
}

static inline void ProjectHalfPlane(double *x, double *y, double r, const double w[3])
{
  const double g = w[0] * *x + w[1] * *y - w[2] - r;
  if (g < 0) {
    *x -= g * w[0];
    *y -= g * w[1];
  }
}

/* A wall segment s = (x0, y0, x1, y1) with unit normal n into the walkable side.  Gap of
   the centre (x, y): beside the segment's interior, the signed distance n.(q - a) (also
   for a centre up to `depth` behind the wall, i.e. crossed by a large step); beyond the
   ends, the distance to the end point.  (gx, gy): the gap's gradient, n beside the
   interior, the radial direction from the end point beyond it. */
static inline double SegmentGapNormal(const double *s, const double *n, double depth, double x, double y, double *gx,
                                      double *gy)
{
  const double dx = s[2] - s[0], dy = s[3] - s[1], l2 = dx * dx + dy * dy;
  const double t = l2 > 0 ? ((x - s[0]) * dx + (y - s[1]) * dy) / l2 : -1;
  *gx = n[0], *gy = n[1];
  if (t > 0 && t < 1) {
    const double sd = n[0] * (x - s[0]) + n[1] * (y - s[1]);
    return sd > -depth ? sd : INFINITY; /* far behind: another wall's business */
  }
  const double ex = x - (t <= 0 ? s[0] : s[2]), ey = y - (t <= 0 ? s[1] : s[3]), d = sqrt(ex * ex + ey * ey);
  if (d > 0) *gx = ex / d, *gy = ey / d;
  return d;
}

/* The gap alone. */
static inline double SegmentGap(const double *s, const double *n, double depth, double x, double y)
{
  double gx, gy;
  return SegmentGapNormal(s, n, depth, x, y, &gx, &gy);
}

/* Keep the centre (x, y) at gap >= r from the wall segment (see SegmentGap): along n
   beside the interior, radially from an end point beyond the ends. */
static inline void ProjectSegment(double *x, double *y, double r, const double *s, const double *n, double depth)
{
  const double dx = s[2] - s[0], dy = s[3] - s[1], l2 = dx * dx + dy * dy;
  const double t = l2 > 0 ? ((*x - s[0]) * dx + (*y - s[1]) * dy) / l2 : -1;
  if (t > 0 && t < 1) {
    const double sd = n[0] * (*x - s[0]) + n[1] * (*y - s[1]);
    if (sd < r && sd > -depth) {
      *x += (r - sd) * n[0];
      *y += (r - sd) * n[1];
    }
    return;
  }
  const double cx = t <= 0 ? s[0] : s[2], cy = t <= 0 ? s[1] : s[3], ex = *x - cx, ey = *y - cy, d2 = ex * ex + ey * ey;
  if (d2 >= r * r) return;
  if (d2 > 0) {
    const double f = r / sqrt(d2);
    *x             = cx + f * ex;
    *y             = cy + f * ey;
  } else {
    *x = cx + r * n[0];
    *y = cy + r * n[1];
  }
}

/* The clamped increment of a constraint with gap g that carries the multiplier lambda >= 0
   (the separation its projections have made so far, pbdw: warm.c): remove an overlap
   (g < 0) as the projection does, and close a gap (g > 0) by at most lambda, so that the
   multiplier lambda + increment stays >= 0.  With lambda = 0 it is the projection's. */
static inline double ClampedIncrement(double g, double lambda) { return -g > -lambda ? -g : -lambda; }

/* Keep x (in R^dim) outside the open ball B_R(c). */
static inline void ProjectOutsideBall(int dim, double *x, const double *c, double R)
{
  double d2 = 0;
  for (int k = 0; k < dim; k++) d2 += (x[k] - c[k]) * (x[k] - c[k]);
  if (d2 >= R * R || d2 == 0) return;
  const double f = R / sqrt(d2);
  for (int k = 0; k < dim; k++) x[k] = c[k] + f * (x[k] - c[k]);
}
