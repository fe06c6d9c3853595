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
 * integer fixed point (2^-32, each term clamped to 1e6), exact in any order, so the
 * order in which reach.c lists the neighbours — which depends on the decomposition —
 * cannot change a bit.  The wall sum runs over the wall segments in file order.        */
#include <throng/crowd.h>
#include <throng/init.h>
#include <math.h>

#define CSM_EPS    1e-4
#define CSM_FIX    4294967296.0 /* 2^32 */
#define CSM_FIXMAX 1e6

static inline int64_t Fix(PetscReal v)
{
  v = v > CSM_FIXMAX ? CSM_FIXMAX : (v < -CSM_FIXMAX ? -CSM_FIXMAX : v);
  return (int64_t)(v * CSM_FIX);
}

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

#define NB 5 /* per neighbour: dx, dy, distance, l, id; stored as 5 arrays of m->cap */

/* The spacing along the unit direction e: the smallest d - l of the neighbours ahead
   (e . d >= 0) in the corridor (|e^perp . d| <= l), and which one (-1: none); of equal
   spacings, the smaller id, so that the choice does not depend on the order.  The test
   is done without a branch (it fails for about half of the neighbours, at random); the
   minimum's branch is rarely taken. */
static inline void Spacing(const PetscReal *nb, PetscInt cap, PetscInt nn, PetscReal ex, PetscReal ey, PetscReal kappa,
                           PetscReal *sp, PetscInt *kb)
{
  const PetscReal *qx = nb, *qy = nb + cap, *qd = nb + 2 * cap, *ql = nb + 3 * cap, *qi = nb + 4 * cap;
  PetscReal        best  = PETSC_MAX_REAL;
  PetscInt         kbest = -1;
  for (PetscInt k = 0; k < nn; k++) {
    const int       ok = (ex * qx[k] + ey * qy[k] >= 0) & (PetscAbsReal(ex * qy[k] - ey * qx[k]) <= kappa * ql[k]);
    const PetscReal s  = ok ? qd[k] - ql[k] : PETSC_MAX_REAL;
    if (s <= best) {
      if (s < best || (kbest >= 0 && qi[k] < qi[kbest])) best = s, kbest = k;
    }
  }
  *sp = best, *kb = kbest;
}

static inline PetscInt WallCell(const Csm *m, PetscReal x, PetscReal y)
{
  const PetscReal fx = (x - m->w0[0]) / m->wh, fy = (y - m->w0[1]) / m->wh;
  const PetscInt  kx = !(fx >= 0) ? 0 : (fx >= (PetscReal)m->wn[0] ? m->wn[0] - 1 : (PetscInt)fx);
  const PetscInt  ky = !(fy >= 0) ? 0 : (fy >= (PetscReal)m->wn[1] ? m->wn[1] - 1 : (PetscInt)fy);
  return ky * m->wn[0] + kx;
}

static PetscErrorCode CsmVelocity(const DriverTerm *t, PetscInt mm, const PetscReal *x, const PetscReal *y,
                                  const PetscInt64 *id, PetscReal *fx, PetscReal *fy)
{
  Sim             *s  = (Sim *)t->ctx;
  Crowd           *c  = CrowdOf(s);
  Csm             *m  = &c->csm;
  Reach           *re = &m->reach;
  const Geometry  *g  = c->geom;
  const PetscReal *r = s->P.r, R2 = m->range * m->range;
  const PetscReal  A = m->a, Dinv = 1 / m->D, Aw = m->aw, Dwinv = 1 / m->Dw;

  PetscFunctionBeginUser;
  PetscCall(ReachRefresh(&s->dom, &s->P, re));
  PetscCall(PetscLogEventBegin(THRONG_EV.law, 0, 0, 0, 0));
  for (PetscInt i = 0; i < mm; i++) {
    const PetscReal  xi = x[i], yi = y[i], ri = r[i];
    const PetscInt64 idi = id[i];
    const PetscReal  T   = m->T[m->pop ? (PetscInt)m->pop[idi] : 0];
    const PetscInt   wk = WallCell(m, xi, yi), wb = m->wbeg[wk], we = m->wbeg[wk + 1];
    PetscReal        v0 = idi < c->nspeed ? (PetscReal)c->speed[idi] : InitFreeSpeed(&s->prm, idi);
    PetscReal        e0x, e0y, ex, ey, wx = 0, wy = 0, sp = PETSC_MAX_REAL;
    int64_t          sx = 0, sy = 0;
    PetscInt         kx0, kx1, ky0, ky1, nn = 0, bound = 0, kb;

    if (CrowdWaiting(c, idi, s->time)) continue; /* pre-movement: it stands (population.c) */
    CrowdDirection(c, idi, xi, yi, &e0x, &e0y);
    v0 = ZoneSpeed(g, &s->prm, idi, v0, xi, yi, e0x, e0y); /* slow zones, stairs (zone.c) */

    /* this agent's range: beyond l + v0 T no one slows it, beyond l + repCut no one
       turns it by more than 1e-4 (l <= r_i + r_max) */
    const PetscReal Ri = ri + m->rmax + PetscMax(v0 * T, m->repCut), Ri2 = PetscMin(Ri * Ri, R2),
                    rho = PetscSqrtReal(Ri2) + re->skin;
    ReachCells(re, xi, yi, &kx0, &kx1, &ky0, &ky1);
    for (PetscInt ky = ky0; ky <= ky1; ky++)
      bound += re->gbeg[ky * re->gn[0] + kx1 + 1] - re->gbeg[ky * re->gn[0] + kx0];
    if (bound > m->cap) {
      PetscCall(PetscFree(m->nb));
      m->cap = bound + bound / 2 + 16;
      PetscCall(PetscMalloc1(NB * (size_t)m->cap, &m->nb));
    }
    /* the neighbours within Ri, not hidden by a wall, gathered (dx, dy, d^2, l, id).
       Row by row, only the cells that meet the disc of radius Ri + skin.  Away from the
       walls, without a branch: every candidate is written, and kept by counting it. */
    {
      PetscReal *qx = m->nb, *qy = m->nb + m->cap, *qd = m->nb + 2 * m->cap, *ql = m->nb + 3 * m->cap,
                *qi = m->nb + 4 * m->cap;
      for (PetscInt ky = ky0; ky <= ky1; ky++) {
        const PetscReal ylo = re->g0[1] + (PetscReal)ky * re->gh,
                        dyc = yi < ylo ? ylo - yi : (yi > ylo + re->gh ? yi - ylo - re->gh : 0);
        if (!(dyc < rho)) continue;
        const PetscReal hw = PetscSqrtReal(rho * rho - dyc * dyc);
        PetscInt        ka, kb;
        ReachCells1(re, xi - hw, xi + hw, &ka, &kb);
        ka = PetscMax(ka, kx0), kb = PetscMin(kb, kx1);
        if (ka > kb) continue;
        const PetscInt a0 = re->gbeg[ky * re->gn[0] + ka], a1 = re->gbeg[ky * re->gn[0] + kb + 1];
        if (wb == we) {
          for (PetscInt a = a0; a < a1; a++) {
            const PetscReal dx = re->ax[a] - xi, dy = re->ay[a] - yi, d2 = dx * dx + dy * dy;
            qx[nn] = dx, qy[nn] = dy, qd[nn] = d2, ql[nn] = ri + re->ar[a], qi[nn] = (PetscReal)re->aid[a];
            nn += (d2 < Ri2) & (re->aid[a] != idi);
          }
        } else {
          for (PetscInt a = a0; a < a1; a++) {
            const PetscReal dx = re->ax[a] - xi, dy = re->ay[a] - yi, d2 = dx * dx + dy * dy;
            PetscBool       hidden = PETSC_FALSE;
            if (!(d2 < Ri2) || re->aid[a] == idi) continue;
            for (PetscInt k = wb; k < we && !hidden; k++)
              hidden = Crosses(xi, yi, re->ax[a], re->ay[a], &g->wall[4 * m->widx[k]]);
            if (hidden) continue;
            qx[nn] = dx, qy[nn] = dy, qd[nn] = d2, ql[nn] = ri + re->ar[a], qi[nn] = (PetscReal)re->aid[a];
            nn++;
          }
        }
      }
      /* their repulsion (d^2 becomes d, kept for the spacing) */
      for (PetscInt k = 0; k < nn; k++) {
        const PetscReal d = PetscSqrtReal(qd[k]), l = ql[k];
        qd[k] = d;
        if (d - l < m->repCut && d > 0) {
          const PetscReal f = -A * PetscExpReal((l - d) * Dinv) / d;
          sx += Fix(f * qx[k]);
          sy += Fix(f * qy[k]);
        }
      }
    }
    for (PetscInt k = wb; k < we; k++) { /* walls, in file order */
      PetscReal       px, py;
      const PetscReal dw = SegmentDistance(&g->wall[4 * m->widx[k]], xi, yi, &px, &py);
      if (dw - ri < m->wallCut && dw > 0) {
        const PetscReal f = Aw * PetscExpReal((ri - dw) * Dwinv) / dw;
        wx += f * (xi - px);
        wy += f * (yi - py);
      }
    }
    ex = e0x + (PetscReal)sx / CSM_FIX + wx;
    ey = e0y + (PetscReal)sy / CSM_FIX + wy;
    {
      const PetscReal en = PetscSqrtReal(ex * ex + ey * ey);
      if (en > 0) ex /= en, ey /= en;
      else ex = e0x, ey = e0y;
    }
    Spacing(m->nb, m->cap, nn, ex, ey, m->kappa, &sp, &kb);
    if (m->avoid > 0 && kb >= 0 && sp < v0 * T) { /* slowed: turn away from the one ahead */
      const PetscReal qx = m->nb[kb], qy = m->nb[m->cap + kb],
                      side = ex * qy - ey * qx > 0 ? -1 : 1; /* on the left: turn right */
      const PetscReal w = m->avoid * (1 - PetscMax(sp, 0) / (v0 * T)), tx = ex - side * w * ey, ty = ey + side * w * ex;
      const PetscReal tn = PetscSqrtReal(tx * tx + ty * ty), sp0 = sp;
      ex = tx / tn, ey = ty / tn;
      Spacing(m->nb, m->cap, nn, ex, ey, m->kappa, &sp, &kb);
      sp = PetscMin(sp, sp0); /* turning aside must not lose sight of the one ahead */
    }
    {
      const PetscReal v = PetscMin(v0, PetscMax(0, sp / T));
      fx[i] += v * ex;
      fy[i] += v * ey;
    }
  }
  PetscCall(PetscLogEventEnd(THRONG_EV.law, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscReal CsmRange(const Params *prm)
{
  const PetscReal vmax = ParamsSpeedMax(prm), Tmax = ParamsTimeGapMax(prm);
  return 2 * InitRadiusMax(prm) + PetscMax(vmax * Tmax, prm->csmRep[1] * PetscLogReal(prm->csmRep[0] / CSM_EPS));
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
