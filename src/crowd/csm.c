/* csm — the collision-free speed model: a pedestrian keeps a time gap to whoever is ahead.
 *
 * Tordeux, Chraibi and Seyfried (2016), "Collision-free speed model for pedestrian
 * dynamics", the default operational model of JuPedSim.  Agent i moves with velocity
 *
 *     u_i = V_i(s_i) e_i,     V_i(s) = min(v0_i, max(0, s / T_i)),
 *
 * first order, like everything in throng: the prediction is q + h u, and the sweep of
 * projections stays underneath as a safety net (it rarely acts: the law stops an agent
 * before it touches the one ahead).
 *   - e_i, the direction: the desired direction e0_i (down the travel-distance field of
 *     eikonal.c) turned by repulsions from the neighbours and the walls, then normalised:
 *         e_i ∝ e0_i + Σ_j  a exp((l_ij - d_ij)/D) (q_i - q_j)/d_ij
 *                    + Σ_w  a_w exp((r_i - d_iw)/D_w) (q_i - p_iw)/d_iw,
 *     l_ij = r_i + r_j, d_ij = |q_i - q_j|, p_iw the point of wall w closest to q_i.
 *     Defaults a = 8, D = 0.1 m, a_w = 5, D_w = 0.02 m, JuPedSim's (its source, class
 *     CollisionFreeSpeedModel).  If the sum vanishes, e_i = e0_i.
 *   - s_i, the spacing: the smallest d_ij - l_ij over the neighbours ahead and in the
 *     corridor of the direction: e_i . (q_j - q_i) >= 0 and |e_i^perp . (q_j - q_i)| <= l_ij.
 *     No one ahead: s_i = infinity, V = v0_i.  T_i: -csm_time_gap (per population).
 *   - Neighbours hidden by a wall (the segment q_i q_j crosses a wall segment) neither
 *     repel nor slow the agent, as in JuPedSim.
 *
 * Range.  A neighbour farther than l + v0 T leaves V at v0, and its repulsion is below
 * a exp(-(d - l)/D).  So the law looks at the neighbours closer than
 *     R = 2 r_max + max(v0_max T_max, D ln(a / 1e-4)),
 * about 2.6 m for crowds (v0_max 2.2 m/s, T 1 s); the repulsions of the neighbours with
 * d - l > D ln(a / 1e-4) (below 1e-4, against a desired direction of length 1) are
 * left out, which is exact for the speed and a documented cut of the direction.  Walls
 * repel within r_i + D_w ln(a_w / 1e-4).
 *
 * Every rank the same.  The neighbours within R come from reach.c, which finds the same
 * set on any decomposition.  The law is evaluated for the owned agents and for the
 * ghosts of the sweep's ring alike, from the same positions: an owner and its ghost move
 * identically.  The spacing is a minimum, exact in any order; the repulsion sum runs in
 * integer fixed point (2^-32, each term clamped to 5e5), exact in any order, so the
 * order in which reach.c lists the neighbours — which depends on the decomposition —
 * cannot change a bit.  The wall sum runs over the wall segments in file order.
 *
 * Cost (docs/performance.md has the profile).  The agents go in blocks of 256, and each
 * block in phases, each a PetscLogEvent (ThrLaw*): the desired direction and the range
 * (Direction); the neighbours gathered into one array per quantity, an agent's segment
 * after another's, padded to whole vectors of 8 (Gather); the ones hidden by a wall
 * (Visible: only agents with a wall segment within R); the repulsions of the whole block
 * in one loop (Repulse); the walls (Walls); the spacing, the avoidance and the speed
 * (Spacing).  The block's arrays (56 bytes per neighbour, about 20 neighbours per agent
 * at 2.4 /m^2) stay in the L2 cache between the phases.  The kernels (Gather, Repulse,
 * Spacing) are written for the compiler to vectorise and compiled three times: for
 * AVX-512, for AVX2 and for the baseline processor; the widest the processor has runs
 * (-csm_vector_width lowers it).  Gather packs the kept candidates with AVX-512's
 * compress where it can.  Every lane computes exactly what the scalar loop computes —
 * IEEE +, *, /, sqrt, min, select, no fused multiply-add (-ffp-contract=off) — so the
 * three give the same bits (tests/test_golden.sh runs them), and every rank the same
 * trajectory whatever its processor.  That is why exp is CsmExp, not libm's (a vector
 * exp and the scalar one differ in the last bits, and a loop's remainder would mix
 * them), and why the fixed point rounds by an addition (CsmFix) rather than by a
 * conversion instruction, which SSE2 and AVX2 lack for 64-bit integers.  Both changed the
 * crowd's golden digests once (issue 31); the validation table moved within its spread
 * (docs/performance.md).                                                               */
#include <throng/crowd/csm.h>
#include <throng/crowd/direction.h>
#include <throng/crowd/floors.h>
#include <throng/crowd/zone.h>
#include <throng/core/init.h>
#include <math.h>
#include <string.h>

#define CSM_EPS    1e-4
#define CSM_FIX    4294967296.0 /* 2^32 */
#define CSM_FIXMAX 5e5          /* |term| 2^32 < 2^51: CsmFix's rounding is exact */

/* Does segment p-q cross segment s (x0, y0, x1, y1)?  Touching counts. */
static inline PetscBool Crosses(PetscReal px, PetscReal py, PetscReal qx, PetscReal qy, const PetscReal *s)
{
  const PetscReal ux = s[2] - s[0], uy = s[3] - s[1], vx = qx - px, vy = qy - py;
  const PetscReal o1 = ux * (py - s[1]) - uy * (px - s[0]), o2 = ux * (qy - s[1]) - uy * (qx - s[0]);
  if ((o1 > 0 && o2 > 0) || (o1 < 0 && o2 < 0)) return PETSC_FALSE;
  const PetscReal o3 = vx * (s[1] - py) - vy * (s[0] - px), o4 = vx * (s[3] - py) - vy * (s[2] - px);
  if ((o3 > 0 && o4 > 0) || (o3 < 0 && o4 < 0)) return PETSC_FALSE;
  return PETSC_TRUE;
}

/* The wall segments near each cell of a grid of edge R/2 over the walkable area: those
   that come within R of the cell (a superset: the cell centre within R + half-diagonal). */
static PetscErrorCode WallLists(Csm *m, const Geometry *g)
{
  PetscInt n, cap = 0, cnt = 0;
  PetscFunctionBeginUser;
  m->wh    = m->range / 2;
  m->whinv = 1 / m->wh;
  m->w0[0] = g->bbox[0] - m->range, m->w0[1] = g->bbox[1] - m->range;
  for (int a = 0; a < 2; a++)
    m->wn[a] = (PetscInt)PetscCeilReal((g->bbox[2 + a] - g->bbox[a] + 2 * m->range) / m->wh) + 1;
  n = m->wn[0] * m->wn[1];
  PetscCall(PetscMalloc1(n + 1, &m->wbeg));
  m->widx = NULL;
  for (PetscInt k = 0; k < n; k++) {
    const PetscReal cx    = m->w0[0] + ((PetscReal)(k % m->wn[0]) + 0.5) * m->wh,
                    cy    = m->w0[1] + ((PetscReal)(k / m->wn[0]) + 0.5) * m->wh;
    const PetscReal reach = m->range + m->wh * 0.7072;
    m->wbeg[k]            = cnt;
    for (PetscInt w = 0; w < g->nwall; w++) {
      PetscReal px, py;
      if (SegmentDistance(&g->wall[4 * w], cx, cy, &px, &py) >= reach) continue;
      PetscCall(ThrongGrow(&m->widx, sizeof(PetscInt), cnt, &cap));
      m->widx[cnt++] = w;
    }
  }
  m->wbeg[n] = cnt;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* exp(x) in plain IEEE arithmetic (no fused multiply-add, no table), so that a lane of a
   vector loop and a scalar call give the same bits on any machine: x = k ln 2 + r,
   |r| <= ln 2 / 2, e^r by its Taylor polynomial of degree 13 (truncation below 4e-18),
   times 2^k built in the exponent bits.  Within 2 ulp of exp; x is clamped to +-700. */
static inline PetscReal CsmExp(PetscReal x)
{
  const double big = 0x1.8p52; /* adding it rounds to an integer, which lands in the low bits */
  x                = x < -700 ? -700 : (x > 700 ? 700 : x);
  const double t = x * 0x1.71547652b82fep0 + big, kd = t - big;
  const double r = (x - kd * 0x1.62e42fefa39efp-1) - kd * 0x1.abc9e3b39803fp-56;
  double       p = 1.0 / 6227020800.0; /* 1/13! */
  p              = p * r + 1.0 / 479001600.0;
  p              = p * r + 1.0 / 39916800.0;
  p              = p * r + 1.0 / 3628800.0;
  p              = p * r + 1.0 / 362880.0;
  p              = p * r + 1.0 / 40320.0;
  p              = p * r + 1.0 / 5040.0;
  p              = p * r + 1.0 / 720.0;
  p              = p * r + 1.0 / 120.0;
  p              = p * r + 1.0 / 24.0;
  p              = p * r + 1.0 / 6.0;
  p              = p * r + 0.5;
  p              = p * r + 1.0;
  p              = p * r + 1.0;
  uint64_t ti, sc;
  double   scale;
  memcpy(&ti, &t, sizeof ti);
  sc = (ti + 1023) << 52; /* the low 12 bits of t's pattern are k's; 2^k */
  memcpy(&scale, &sc, sizeof scale);
  return p * scale;
}

/* Per agent of a block: what the phases share. */
typedef struct {
  PetscInt  i, wk; /* index; wall-list cell                    */
  PetscReal e0x, e0y, v0, T, Ri2;
  PetscReal ex, ey; /* the direction, turned by the repulsions    */
} Agent;

/* v (|v| <= CSM_FIXMAX) in fixed point, round(v 2^32): adding 1.5 2^52 rounds to an
   integer (IEEE, to nearest even), which is then the low bits of the sum's pattern.  No
   conversion instruction, so SSE2 and AVX2 vectorise it as well as AVX-512 (whose
   truncating conversion the first version used). */
static inline PetscInt64 CsmFix(PetscReal v)
{
  const double big = 0x1.8p52, t = v * CSM_FIX + big;
  int64_t      ti, bi;
  memcpy(&ti, &t, sizeof ti);
  memcpy(&bi, &big, sizeof bi);
  return (PetscInt64)(ti - bi);
}

/* The neighbours of a block of agents, one segment per agent (beg), structure of arrays:
   dx, dy to the neighbour, q (the spacing key d - l, +inf when hidden; written by Repulse), l,
   id, tx, ty (the repulsion's fixed-point terms).  A neighbour hidden by a wall, and the
   padding, have l = -1: no repulsion, never ahead. */
typedef struct {
  PetscReal  *dx, *dy, *q, *l;
  PetscInt64 *id, *tx, *ty;
} Nb;

static PetscErrorCode NbReserve(Csm *m, PetscInt need, Nb *b)
{
  PetscFunctionBeginUser;
  need += 8; /* Gather512 stores 8 at a time */
  if (need > m->cap) {
    PetscCall(PetscFree(m->nb));
    m->cap = need + need / 2 + 64;
    PetscCall(PetscMalloc(((size_t)4 * sizeof(PetscReal) + 3 * sizeof(PetscInt64)) * (size_t)m->cap, &m->nb));
  }
  b->dx = (PetscReal *)m->nb;
  b->dy = b->dx + m->cap;
  b->q  = b->dy + m->cap;
  b->l  = b->q + m->cap;
  b->id = (PetscInt64 *)(b->l + m->cap);
  b->tx = b->id + m->cap;
  b->ty = b->tx + m->cap;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The repulsion of every neighbour of the block, in one loop that the compiler vectorises
   (see CSM_KERNEL; every lane computes what the scalar loop would, bit for bit: IEEE +, *,
   /, sqrt, CsmExp, CsmFix).  In: dx, dy, l.  Out: tx, ty = CsmFix(f dx), CsmFix(f dy),
   f = -a exp((l - d)/D) / d for the visible neighbours (l >= 0) with d - l < cut and
   d > 0 (else 0); q = d - l (+inf when hidden); then each agent's sums, and its
   direction e0 + sum. */
static inline __attribute__((always_inline)) void
RepulseBody(PetscInt n, const PetscReal *restrict dx, const PetscReal *restrict dy, PetscReal *restrict q,
            const PetscReal *restrict l, PetscReal A, PetscReal Dinv, PetscReal cut, PetscInt64 *restrict tx,
            PetscInt64 *restrict ty, PetscInt na, const PetscInt *beg, Agent *ag)
{
#pragma omp simd
  for (PetscInt k = 0; k < n; k++) {
    const PetscReal d = PetscSqrtReal(dx[k] * dx[k] + dy[k] * dy[k]), dd = d > 0 ? d : 1, lk = l[k];
    const int       on = (lk >= 0) & (d - lk < cut) & (d > 0);
    const PetscReal g = -A * CsmExp((lk - dd) * Dinv) / dd, f = on ? g : 0; /* computed in every lane */
    PetscReal       vx = f * dx[k], vy = f * dy[k];
    vx    = vx > CSM_FIXMAX ? CSM_FIXMAX : (vx < -CSM_FIXMAX ? -CSM_FIXMAX : vx);
    vy    = vy > CSM_FIXMAX ? CSM_FIXMAX : (vy < -CSM_FIXMAX ? -CSM_FIXMAX : vy);
    tx[k] = CsmFix(vx);
    ty[k] = CsmFix(vy);
    q[k]  = lk >= 0 ? d - lk : PETSC_MAX_REAL;
  }
  for (PetscInt k = 0; k < na; k++) { /* per agent, in integer fixed point: exact in any order */
    PetscInt64 sx = 0, sy = 0;
#pragma omp simd reduction(+ : sx, sy)
    for (PetscInt e = beg[k]; e < beg[k + 1]; e++) sx += tx[e], sy += ty[e];
    ag[k].ex = ag[k].e0x + (PetscReal)sx / CSM_FIX;
    ag[k].ey = ag[k].e0y + (PetscReal)sy / CSM_FIX;
  }
}

/* The spacing along the unit direction e: the smallest key d - l of the neighbours ahead
   (e . d >= 0) in the corridor (|e^perp . d| <= kappa l); +inf: none.  A minimum, exact
   in any order. */
static inline PetscReal Spacing(PetscInt n, const PetscReal *restrict dx, const PetscReal *restrict dy,
                                const PetscReal *restrict q, const PetscReal *restrict l, PetscReal ex, PetscReal ey,
                                PetscReal kappa)
{
  PetscReal best = PETSC_MAX_REAL;
#pragma omp simd reduction(min : best)
  for (PetscInt k = 0; k < n; k++) {
    const int       ok = (ex * dx[k] + ey * dy[k] >= 0) & (PetscAbsReal(ex * dy[k] - ey * dx[k]) <= kappa * l[k]);
    const PetscReal s  = ok ? q[k] : PETSC_MAX_REAL;
    best               = s < best ? s : best;
  }
  return best;
}

/* Which neighbour gives that spacing (best < +inf): of equal keys, the smaller id, so
   that the choice does not depend on the order. */
static inline PetscInt SpacingWho(PetscInt n, const PetscReal *restrict dx, const PetscReal *restrict dy,
                                  const PetscReal *restrict q, const PetscReal *restrict l,
                                  const PetscInt64 *restrict id, PetscReal ex, PetscReal ey, PetscReal kappa,
                                  PetscReal best)
{
  PetscInt64 bid = INT64_MAX;
  PetscInt   kb  = n;
#pragma omp simd reduction(min : bid)
  for (PetscInt k = 0; k < n; k++) {
    const int ok =
      (q[k] == best) & (ex * dx[k] + ey * dy[k] >= 0) & (PetscAbsReal(ex * dy[k] - ey * dx[k]) <= kappa * l[k]);
    const PetscInt64 v = ok ? id[k] : INT64_MAX;
    bid                = v < bid ? v : bid;
  }
#pragma omp simd reduction(min : kb)
  for (PetscInt k = 0; k < n; k++) {
    const PetscInt v = ((q[k] == best) & (id[k] == bid)) ? k : n;
    kb               = v < kb ? v : kb;
  }
  return kb;
}

/* The candidates a[0..n) of one row of cells: each one is written at nn, and kept (nn
   advances) when it lies within Ri and is not the agent itself.  No branch: whether a
   candidate is kept is a coin toss. */
static inline PetscInt Gather(PetscInt n, const PetscReal *restrict ax, const PetscReal *restrict ay,
                              const PetscReal *restrict ar, const PetscInt64 *restrict aid, PetscReal xi, PetscReal yi,
                              PetscReal ri, PetscReal Ri2, PetscInt64 idi, PetscInt nn, PetscReal *restrict dx,
                              PetscReal *restrict dy, PetscReal *restrict l, PetscInt64 *restrict id)
{
  for (PetscInt e = 0; e < n; e++) {
    const PetscReal x = ax[e] - xi, y = ay[e] - yi, d2 = x * x + y * y;
    dx[nn] = x, dy[nn] = y, l[nn] = ri + ar[e], id[nn] = aid[e];
    nn += (d2 < Ri2) & (aid[e] != idi);
  }
  return nn;
}

#if defined(__x86_64__) && defined(__GNUC__)
#  include <immintrin.h>
#  define CSM_HAVE_512 1
/* Gather with AVX-512, eight candidates at a time: the kept ones are packed by a
   compress and stored whole (up to 7 slots past the last kept one are overwritten, hence
   NbReserve's slack).  Same candidates, same order, same arithmetic as Gather. */
__attribute__((target("avx512f,avx512dq"))) static inline PetscInt
Gather512(PetscInt n, const PetscReal *restrict ax, const PetscReal *restrict ay, const PetscReal *restrict ar,
          const PetscInt64 *restrict aid, PetscReal xi, PetscReal yi, PetscReal ri, PetscReal Ri2, PetscInt64 idi,
          PetscInt nn, PetscReal *restrict dx, PetscReal *restrict dy, PetscReal *restrict l, PetscInt64 *restrict id)
{
  const __m512d vx = _mm512_set1_pd(xi), vy = _mm512_set1_pd(yi), vr = _mm512_set1_pd(ri), vR = _mm512_set1_pd(Ri2);
  const __m512i vid = _mm512_set1_epi64(idi);
  for (PetscInt e = 0; e < n; e += 8) {
    const __mmask8 live = n - e >= 8 ? (__mmask8)0xff : (__mmask8)((1u << (n - e)) - 1);
    const __m512d  x    = _mm512_sub_pd(_mm512_maskz_loadu_pd(live, ax + e), vx);
    const __m512d  y    = _mm512_sub_pd(_mm512_maskz_loadu_pd(live, ay + e), vy);
    const __m512d  d2   = _mm512_add_pd(_mm512_mul_pd(x, x), _mm512_mul_pd(y, y));
    const __m512i  ie   = _mm512_maskz_loadu_epi64(live, aid + e);
    const __mmask8 keep =
      _mm512_mask_cmp_pd_mask(live, d2, vR, _CMP_LT_OQ) & _mm512_mask_cmpneq_epi64_mask(live, ie, vid);
    _mm512_storeu_pd(dx + nn, _mm512_maskz_compress_pd(keep, x));
    _mm512_storeu_pd(dy + nn, _mm512_maskz_compress_pd(keep, y));
    _mm512_storeu_pd(l + nn, _mm512_maskz_compress_pd(keep, _mm512_add_pd(vr, _mm512_maskz_loadu_pd(live, ar + e))));
    _mm512_storeu_si512(id + nn, _mm512_maskz_compress_epi64(keep, ie));
    nn += __builtin_popcount((unsigned)keep);
  }
  return nn;
}
#else
#  define CSM_HAVE_512 0
#endif

static inline PetscInt WallCell(const Csm *m, PetscReal x, PetscReal y)
{
  const PetscReal fx = (x - m->w0[0]) * m->whinv,
                  fy = (y - m->w0[1]) * m->whinv; /* cells of a superset: rounding is harmless */
  const PetscInt kx  = !(fx >= 0) ? 0 : (fx >= (PetscReal)m->wn[0] ? m->wn[0] - 1 : (PetscInt)fx);
  const PetscInt ky  = !(fy >= 0) ? 0 : (fy >= (PetscReal)m->wn[1] ? m->wn[1] - 1 : (PetscInt)fy);
  return ky * m->wn[0] + kx;
}

#define CSM_PAD   8   /* each agent's neighbours padded to a multiple of 8: whole vectors */
#define CSM_BLOCK 256 /* agents per block: their neighbours (~50 each) stay in L2 */

/* The direction normalised, the spacing ahead, the lateral avoidance and the speed, for
   the agents of a block (vectorised over each agent's neighbours; one clone for
   AVX-512, the same bits). */
static inline __attribute__((always_inline)) void AheadBody(Agent *ag, PetscInt na, const PetscInt *beg, const Nb *b,
                                                            PetscReal kappa, PetscReal avoid)
{
  for (PetscInt k = 0; k < na; k++) {
    Agent          *a  = &ag[k];
    const PetscInt  k0 = beg[k], n = beg[k + 1] - k0;
    const PetscReal v0 = a->v0, T = a->T, *dx = b->dx + k0, *dy = b->dy + k0, *q = b->q + k0, *l = b->l + k0;
    PetscReal       ex = a->ex, ey = a->ey, sp;
    {
      const PetscReal en = PetscSqrtReal(ex * ex + ey * ey);
      if (en > 0) ex /= en, ey /= en;
      else ex = a->e0x, ey = a->e0y;
    }
    sp = Spacing(n, dx, dy, q, l, ex, ey, kappa);
    if (avoid > 0 && sp < v0 * T) { /* slowed: turn away from the one ahead */
      const PetscInt  kb   = SpacingWho(n, dx, dy, q, l, b->id + k0, ex, ey, kappa, sp);
      const PetscReal side = ex * dy[kb] - ey * dx[kb] > 0 ? -1 : 1; /* on the left: turn right */
      const PetscReal w = avoid * (1 - PetscMax(sp, 0) / (v0 * T)), tx = ex - side * w * ey, ty = ey + side * w * ex;
      const PetscReal tn = PetscSqrtReal(tx * tx + ty * ty), sp0 = sp;
      ex = tx / tn, ey = ty / tn;
      sp =
        PetscMin(Spacing(n, dx, dy, q, l, ex, ey, kappa), sp0); /* turning aside must not lose sight of the one ahead */
    }
    {
      const PetscReal v = PetscMin(v0, PetscMax(0, sp / T));
      a->ex = v * ex, a->ey = v * ey;
    }
  }
}

/* The neighbours of a block of agents within their ranges (dx, dy, d^2, l, id), segment
   by segment, row of cells by row of cells: only the cells that meet the disc of radius
   Ri + skin (the rows computed without a branch: which rows meet it varies at random).
   One body, compiled twice: with AVX-512 (use512) and without. */
static inline __attribute__((always_inline)) void GatherBlockBody(const Reach *re, const Agent *ag, PetscInt na,
                                                                  const PetscReal *x, const PetscReal *y,
                                                                  const PetscReal *r, const PetscInt64 *id, Nb *b,
                                                                  PetscInt *beg, int use512)
{
  beg[0]              = 0;
  const PetscReal *ax = re->ax, *ay = re->ay, *ar = re->ar, gh = re->gh, ginv = re->ginv, g0x = re->g0[0],
                  g0y = re->g0[1], gxmax = (PetscReal)(re->gn[0] - 1);
  const PetscInt64 *aid = re->aid;
  for (PetscInt k = 0; k < na; k++) {
    const Agent     *a   = &ag[k];
    const PetscInt   i   = a->i;
    const PetscInt64 idi = id[i];
    const PetscReal  xi = x[i], yi = y[i], ri = r[i], Ri2 = a->Ri2, rho = PetscSqrtReal(Ri2) + re->skin;
    PetscInt         kx0, kx1, ky0, ky1, nn                             = beg[k];
    ReachCellsWithin(re, xi, yi, rho, &kx0, &kx1, &ky0, &ky1);
    for (PetscInt ky = ky0; ky <= ky1; ky++) { /* without a branch: which rows meet the disc varies */
      const PetscReal ylo = g0y + (PetscReal)ky * gh, dyc = PetscMax(PetscMax(ylo - yi, yi - ylo - gh), 0),
                      h2 = rho * rho - dyc * dyc, hw = PetscSqrtReal(h2 > 0 ? h2 : 0);
      const PetscReal fa = (xi - hw - g0x) * ginv, fb = (xi + hw - g0x) * ginv;
      const PetscInt  ka  = PetscMax((PetscInt)(fa > 0 ? PetscMin(fa, gxmax) : 0), kx0),
                     kb   = PetscMin((PetscInt)(fb > 0 ? PetscMin(fb, gxmax) : 0), kx1);
      const PetscInt *row = re->gbeg + ky * re->gn[0];
      const PetscInt  a0 = row[ka], a1 = h2 > 0 ? PetscMax(row[kb + 1], a0) : a0;
#if CSM_HAVE_512
      if (use512)
        nn =
          Gather512(a1 - a0, ax + a0, ay + a0, ar + a0, aid + a0, xi, yi, ri, Ri2, idi, nn, b->dx, b->dy, b->l, b->id);
      else
#endif
        nn = Gather(a1 - a0, ax + a0, ay + a0, ar + a0, aid + a0, xi, yi, ri, Ri2, idi, nn, b->dx, b->dy, b->l, b->id);
    }
    for (; nn % CSM_PAD; nn++) b->dx[nn] = b->dy[nn] = 0, b->l[nn] = -1, b->id[nn] = INT64_MAX;
    beg[k + 1] = nn;
  }
}

/* Each kernel three times: for AVX-512, for AVX2 and for the baseline processor (SSE2),
   the widest the processor has chosen at run time (-csm_vector_width lowers it); the
   same bits whichever runs (see the essay). */
#if CSM_HAVE_512
#  define CSM_KERNEL(name, body, params, args) \
    static void name##Any                                 params { body args; } \
    __attribute__((target("arch=x86-64-v3"))) static void name##256 params { body args; } \
    __attribute__((target("arch=x86-64-v4"))) static void name##512 params { body args; }
#  define CSM_CALL(m, name, args) \
    do { \
      if ((m)->width == 512) name##512 args; \
      else if ((m)->width == 256) name##256 args; \
      else name##Any args; \
    } while (0)
#else
#  define CSM_KERNEL(name, body, params, args) \
    static void name##Any params { body args; }
#  define CSM_CALL(m, name, args) name##Any args
#endif

CSM_KERNEL(Repulse, RepulseBody,
           (PetscInt n, const PetscReal *dx, const PetscReal *dy, PetscReal *q, const PetscReal *l, PetscReal A,
            PetscReal Dinv, PetscReal cut, PetscInt64 *tx, PetscInt64 *ty, PetscInt na, const PetscInt *beg, Agent *ag),
           (n, dx, dy, q, l, A, Dinv, cut, tx, ty, na, beg, ag))
CSM_KERNEL(Ahead, AheadBody,
           (Agent * ag, PetscInt na, const PetscInt *beg, const Nb *b, PetscReal kappa, PetscReal avoid),
           (ag, na, beg, b, kappa, avoid))
static void GatherBlockAny(const Reach *re, const Agent *ag, PetscInt na, const PetscReal *x, const PetscReal *y,
                           const PetscReal *r, const PetscInt64 *id, Nb *b, PetscInt *beg)
{
  GatherBlockBody(re, ag, na, x, y, r, id, b, beg, 0);
}
#if CSM_HAVE_512
static void GatherBlock256(const Reach *re, const Agent *ag, PetscInt na, const PetscReal *x, const PetscReal *y,
                           const PetscReal *r, const PetscInt64 *id, Nb *b, PetscInt *beg)
{
  GatherBlockBody(re, ag, na, x, y, r, id, b, beg, 0); /* no compress before AVX-512 */
}
__attribute__((target("arch=x86-64-v4"))) static void GatherBlock512(const Reach *re, const Agent *ag, PetscInt na,
                                                                     const PetscReal *x, const PetscReal *y,
                                                                     const PetscReal *r, const PetscInt64 *id, Nb *b,
                                                                     PetscInt *beg)
{
  GatherBlockBody(re, ag, na, x, y, r, id, b, beg, 1);
}
#endif

static PetscErrorCode CsmVelocity(const DriverTerm *t, PetscInt mm, const PetscReal *x, const PetscReal *y,
                                  const PetscInt64 *id, PetscReal *fx, PetscReal *fy)
{
  Sim             *s  = (Sim *)t->ctx;
  Crowd           *c  = CrowdOf(s);
  Csm             *m  = &c->csm;
  Reach           *re = &m->reach;
  const Geometry  *g  = c->geom;
  const PetscReal *r = s->P.r, R2 = m->range * m->range;
  const PetscReal  Aw = m->aw, Dwinv = 1 / m->Dw;
  Agent            ag[CSM_BLOCK];
  PetscInt         beg[CSM_BLOCK + 1];
  Nb               b = {0};

  PetscFunctionBeginUser;
  PetscCall(ReachRefresh(&s->dom, &s->P, re));
  PetscCall(PetscLogEventBegin(THRONG_EV.law, 0, 0, 0, 0));
  for (PetscInt i0 = 0; i0 < mm; i0 += CSM_BLOCK) {
    const PetscInt i1 = PetscMin(i0 + CSM_BLOCK, mm);
    PetscInt       na = 0, need = 0;

    /* 1. the desired direction (eikonal.c, route.c), the free speed and its zone, the range */
    PetscCall(PetscLogEventBegin(THRONG_EV.lawDir, 0, 0, 0, 0));
    for (PetscInt i = i0; i < i1; i++) {
      const PetscInt64 idi = id[i];
      Agent           *a   = &ag[na];
      PetscInt         kx0, kx1, ky0, ky1;
      if (CrowdWaiting(c, idi, s->time)) continue; /* pre-movement: it stands (population.c) */
      a->i  = i;
      a->T  = m->T[m->pop ? (PetscInt)m->pop[idi] : 0];
      a->wk = WallCell(m, x[i], y[i]);
      a->v0 = idi < c->nspeed ? (PetscReal)c->speed[idi] : InitFreeSpeed(&s->prm, idi);
      CrowdDirection(c, idi, x[i], y[i], &a->e0x, &a->e0y);
      a->v0 = ZoneSpeed(g, &s->prm, idi, a->v0, x[i], y[i], a->e0x, a->e0y); /* slow zones, stairs (zone.c) */
      {
        /* this agent's range: beyond l + v0 T no one slows it, beyond l + repCut no one
           turns it by more than 1e-4 (l <= r_i + r_max) */
        const PetscReal Ri = r[i] + m->rmax + PetscMax(a->v0 * a->T, m->repCut);
        a->Ri2             = PetscMin(Ri * Ri, R2);
      }
      ReachCellsWithin(re, x[i], y[i], PetscSqrtReal(a->Ri2) + re->skin, &kx0, &kx1, &ky0, &ky1);
      for (PetscInt ky = ky0; ky <= ky1; ky++)
        need += re->gbeg[ky * re->gn[0] + kx1 + 1] - re->gbeg[ky * re->gn[0] + kx0];
      need += CSM_PAD;
      na++;
    }
    PetscCall(NbReserve(m, need, &b));
    PetscCall(PetscLogEventEnd(THRONG_EV.lawDir, 0, 0, 0, 0));

    /* 2. the neighbours within Ri (dx, dy, d^2, l, id), row by row, only the cells that
       meet the disc of radius Ri + skin; without a branch: every candidate is written,
       and kept by counting it */
    PetscCall(PetscLogEventBegin(THRONG_EV.lawGather, 0, 0, 0, 0));
    CSM_CALL(m, GatherBlock, (re, ag, na, x, y, r, id, &b, beg));
    PetscCall(PetscLogEventEnd(THRONG_EV.lawGather, 0, 0, 0, 0));

    /* 3. near walls: the neighbours hidden by one (the segment between the two crosses a
       wall segment) neither repel nor slow the agent */
    PetscCall(PetscLogEventBegin(THRONG_EV.lawVisible, 0, 0, 0, 0));
    for (PetscInt k = 0; k < na; k++) {
      const PetscInt wb = m->wbeg[ag[k].wk], we = m->wbeg[ag[k].wk + 1], i = ag[k].i;
      if (wb == we) continue;
      for (PetscInt e = beg[k]; e < beg[k + 1]; e++) {
        const PetscReal qx = x[i] + b.dx[e], qy = y[i] + b.dy[e];
        PetscBool       hidden = PETSC_FALSE;
        for (PetscInt w = wb; w < we && !hidden; w++) hidden = Crosses(x[i], y[i], qx, qy, &g->wall[4 * m->widx[w]]);
        if (hidden) b.l[e] = -1;
      }
    }
    PetscCall(PetscLogEventEnd(THRONG_EV.lawVisible, 0, 0, 0, 0));

    /* 4. the repulsions, every neighbour of the block in one vector loop, then summed per
       agent in integer fixed point (exact in any order) */
    PetscCall(PetscLogEventBegin(THRONG_EV.lawRepulse, 0, 0, 0, 0));
    CSM_CALL(m, Repulse, (beg[na], b.dx, b.dy, b.q, b.l, m->a, 1 / m->D, m->repCut, b.tx, b.ty, na, beg, ag));
    PetscCall(PetscLogEventEnd(THRONG_EV.lawRepulse, 0, 0, 0, 0));

    /* 5. the walls, in file order */
    PetscCall(PetscLogEventBegin(THRONG_EV.lawWalls, 0, 0, 0, 0));
    for (PetscInt k = 0; k < na; k++) {
      const PetscInt  wb = m->wbeg[ag[k].wk], we = m->wbeg[ag[k].wk + 1], i = ag[k].i;
      const PetscReal xi = x[i], yi = y[i], ri = r[i];
      PetscReal       wx = 0, wy = 0;
      if (wb == we) continue;
      for (PetscInt w = wb; w < we; w++) {
        PetscReal       px, py;
        const PetscReal dw = SegmentDistance(&g->wall[4 * m->widx[w]], xi, yi, &px, &py);
        if (dw - ri < m->wallCut && dw > 0) {
          const PetscReal f = Aw * PetscExpReal((ri - dw) * Dwinv) / dw;
          wx += f * (xi - px);
          wy += f * (yi - py);
        }
      }
      ag[k].ex += wx, ag[k].ey += wy;
    }
    PetscCall(PetscLogEventEnd(THRONG_EV.lawWalls, 0, 0, 0, 0));

    /* 6. the direction normalised, the spacing ahead, the lateral avoidance, the speed */
    PetscCall(PetscLogEventBegin(THRONG_EV.lawSpacing, 0, 0, 0, 0));
    CSM_CALL(m, Ahead, (ag, na, beg, &b, m->kappa, m->avoid));
    if (g->nlinks) /* no step back over a link line (floors.c) */
      for (PetscInt k = 0; k < na; k++) {
        const PetscInt i = ag[k].i;
        FloorsHold(c, id[i], x[i], y[i], r[i], &ag[k].ex, &ag[k].ey);
      }
    for (PetscInt k = 0; k < na; k++) fx[ag[k].i] += ag[k].ex, fy[ag[k].i] += ag[k].ey;
    PetscCall(PetscLogEventEnd(THRONG_EV.lawSpacing, 0, 0, 0, 0));
  }
  PetscCall(PetscLogEventEnd(THRONG_EV.law, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscReal CsmRange(const Params *prm)
{
  const PetscReal vmax = ParamsSpeedMax(prm), Tmax = ParamsTimeGapMax(prm);
  return 2 * ParamsRadiusMax(prm) + PetscMax(vmax * Tmax, prm->csmRep[1] * PetscLogReal(prm->csmRep[0] / CSM_EPS));
}

PetscErrorCode CsmSetUp(Sim *s)
{
  Crowd        *c   = CrowdOf(s);
  Csm          *m   = &c->csm;
  const Params *prm = &s->prm;

  PetscFunctionBeginUser;
  m->range = CsmRange(prm);
  m->rmax  = s->rmax;
  m->a = prm->csmRep[0], m->D = prm->csmRep[1];
  m->aw = prm->csmWall[0], m->Dw = prm->csmWall[1];
  m->repCut  = m->a > 0 ? m->D * PetscLogReal(m->a / CSM_EPS) : -1;
  m->wallCut = m->aw > 0 ? m->Dw * PetscLogReal(m->aw / CSM_EPS) : -1;
  m->T[0] = prm->csmT[0], m->T[1] = prm->csmT[1];
  for (PetscInt k = 0; k < prm->npop; k++) m->T[k] = prm->pop[k].timeGap > 0 ? prm->pop[k].timeGap : prm->csmT[0];
  m->avoid         = prm->csmAvoid;
  m->kappa         = prm->csmCorridor;
  PetscBool differ = (PetscBool)(prm->frac2 > 0 && m->T[1] != m->T[0]);
  for (PetscInt k = 1; k < prm->npop; k++) differ = (PetscBool)(differ || m->T[k] != m->T[0]);
  if (differ) { /* the population of each id, once */
    PetscCall(PetscMalloc1(prm->n + 1, &m->pop));
    for (PetscInt64 i = 0; i < prm->n; i++) m->pop[i] = (char)InitPopulation(prm, i);
  }
  PetscCall(ReachCreate(m->range, 2 * s->rmax + prm->skin, prm->skin, &m->reach));
  PetscCall(WallLists(m, c->geom));
  {
    DriverTerm t = {"time-gap speed law", CsmVelocity, s};
    PetscCall(DriverAddTerm(&s->drv, &t));
  }
#if CSM_HAVE_512
  m->width = 128;
  if (prm->csmWidth >= 256 && __builtin_cpu_supports("avx2")) m->width = 256;
  if (prm->csmWidth >= 512 && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq")) m->width = 512;
#endif
  m->on = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode CsmRebinned(Sim *s)
{
  Csm *m = &CrowdOf(s)->csm;
  PetscFunctionBeginUser;
  if (m->on) PetscCall(ReachBuild(&s->dom, &s->P, &m->reach));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode CsmDestroy(Csm *m)
{
  PetscFunctionBeginUser;
  PetscCall(ReachDestroy(&m->reach));
  PetscCall(PetscFree(m->wbeg));
  PetscCall(PetscFree(m->widx));
  PetscCall(PetscFree(m->nb));
  PetscCall(PetscFree(m->pop));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* -csm_check_reach: compare, for every owned agent and ring ghost, the set of agents
   within R found through reach.c with a brute-force search over all agents (gathered on
   every rank): their number and a fingerprint of their ids (the sum of a 64-bit mix of
   each id, which does not depend on the order found), so a neighbour swapped for
   another is caught as well as one missed.  Collective; for tests only (O(N^2 / ranks)). */
static uint64_t MixId(PetscInt64 id)
{
  uint64_t z = (uint64_t)id + 0x9e3779b97f4a7c15ULL; /* splitmix64's finaliser */
  z          = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z          = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

PetscErrorCode CsmCheckReach(Sim *s)
{
  Csm             *m  = &CrowdOf(s)->csm;
  const Particles *p  = &s->P;
  Reach           *re = &m->reach;
  PetscMPIInt      size, cnt = (PetscMPIInt)(3 * p->n), *cnts, *dsp;
  PetscReal       *all, R2 = m->range * m->range, bad[3] = {0, 0, 0};
  PetscInt         tot = 0;

  PetscFunctionBeginUser;
  if (!m->on || !s->prm.csmCheck) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(ReachRefresh(&s->dom, p, re));
  PetscCallMPI(MPI_Comm_size(s->dom.comm, &size));
  PetscCall(PetscMalloc2(size, &cnts, size + 1, &dsp));
  PetscCallMPI(MPI_Allgather(&cnt, 1, MPI_INT, cnts, 1, MPI_INT, s->dom.comm));
  dsp[0] = 0;
  for (PetscMPIInt k = 0; k < size; k++) dsp[k + 1] = dsp[k] + cnts[k];
  tot = dsp[size] / 3;
  PetscCall(PetscMalloc1(3 * (size_t)tot + 1, &all));
  {
    PetscReal *mine; /* x, y, id (exact in a double below 2^53) */
    PetscCall(PetscMalloc1(3 * (size_t)p->n + 1, &mine));
    for (PetscInt i = 0; i < p->n; i++)
      mine[3 * i] = p->x[i], mine[3 * i + 1] = p->y[i], mine[3 * i + 2] = (PetscReal)p->id[i];
    PetscCallMPI(MPI_Allgatherv(mine, cnt, MPIU_REAL, all, cnts, dsp, MPIU_REAL, s->dom.comm));
    PetscCall(PetscFree(mine));
  }
  for (PetscInt i = 0; i < p->n + p->ng && !bad[0]; i++) {
    PetscInt brute = 0, found = 0, kx0, kx1, ky0, ky1;
    uint64_t fb = 0, ff = 0; /* the sets' fingerprints */
    for (PetscInt j = 0; j < tot; j++) {
      const PetscReal dx = all[3 * j] - p->x[i], dy = all[3 * j + 1] - p->y[i];
      if (dx * dx + dy * dy < R2) brute++, fb += MixId((PetscInt64)all[3 * j + 2]);
    }
    ReachCells(re, p->x[i], p->y[i], &kx0, &kx1, &ky0, &ky1);
    for (PetscInt ky = ky0; ky <= ky1; ky++)
      for (PetscInt a = re->gbeg[ky * re->gn[0] + kx0]; a < re->gbeg[ky * re->gn[0] + kx1 + 1]; a++) {
        const PetscReal dx = re->ax[a] - p->x[i], dy = re->ay[a] - p->y[i];
        if (dx * dx + dy * dy < R2) found++, ff += MixId(re->aid[a]);
      }
    if (found != brute || ff != fb) bad[0] = 1, bad[1] = (PetscReal)p->id[i], bad[2] = (PetscReal)(brute - found);
    m->compared++;
  }
  PetscCall(PetscFree(all));
  PetscCall(PetscFree2(cnts, dsp));
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, bad, 3, MPIU_REAL, MPI_MAX, s->dom.comm));
  PetscCheck(!bad[0], s->dom.comm, PETSC_ERR_PLIB,
             "-csm_check_reach: at step %" PetscInt_FMT
             " agent %.0f's neighbours within R = %g differ from a brute-force search (%.0f more found by brute "
             "force; 0: other agents)",
             s->step, bad[1], (double)m->range, bad[2]);
  m->checks++;
  PetscFunctionReturn(PETSC_SUCCESS);
}
