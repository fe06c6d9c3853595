/* warm — PBD with a warm start (-solver pbdw): a constraint error that does not grow with
 * the depth of the contact network.
 *
 * Why.  One PBD sweep (pbd.c) removes each overlap once, in the sweep's order.  In a pile
 * under gravity every disk is predicted down by h g, and only the floor is violated: the
 * correction must travel up through every layer within one sweep.  In the sweep's order
 * (colours, tiles, rows by parity) it travels a few layers, so overlaps build up until
 * their corrections carry the weight above: the error grows with the depth and the time
 * (a 200-layer pile at h = 1e-3, g = 1: 14 % of a diameter after 4000 steps).
 *
 * The scheme.  Each contact c (a pair, or a disk and a wall) carries a multiplier
 * lambda_c >= 0: the separation, in length, that the constraints made along its normal
 * in the last step; each disk carries D_i, the displacement its constraints made in the
 * last step (x_{k+1} - y_k).  A step is
 *   1. PBD's prediction y = x + h f(x);
 *   2. the warm start: each disk moves by theta (D_i + a_i (G_i - D_i)), where
 *      G_i = sum_c lambda_c n_c is its multipliers along the normals of the predicted
 *      positions (half of a pair's to each disk), a_i = min(1, kappa r_i / lambda_max,i)
 *      with lambda_max,i the largest multiplier the disk holds, theta = -pbdw_warm
 *      (default 1) and kappa = -pbdw_blend (default 0.1); theta also scales every lambda;
 *   3. a symmetric sweep: PBD's order, then exactly the reverse order, where each
 *      constraint takes the clamped increment (project.h: ClampedIncrement)
 *          delta = max(-gap, -lambda_c),   lambda_c <- lambda_c + delta,
 *      moving the disk(s) by delta along the normal: an overlap is removed as PBD does,
 *      and a gap that the warm start opened is closed again, by at most what the
 *      contact's own multiplier pushed, so that a contact that opens lets its disks go.
 * With every lambda and D zero a step is PBD's prediction and two sweeps.
 *
 * Why the blend (docs/algorithm.md has the analysis and the measurements).
 *   - G alone (issue 18's warm start) is consistent, but the push it applies depends on
 *     the current normals: at the bottom of a 1000-layer pile lambda is about 0.6 of a
 *     diameter per step, and a sideways error dx turns into a push lambda dx / d — the
 *     geometric stiffness of a compressed chain, which buckles it.  At theta = 1 the
 *     1000-layer column diverged within 1000 steps; theta = 0.98 held it longer but
 *     leaked (1 - theta) lambda per step, an error that grew with the depth.
 *   - D alone does not depend on the current positions at all: a static pile is an exact
 *     fixed point whatever the size of lambda, and the 1000- and 2000-layer columns stay
 *     at 0.25 % of a diameter.  But D keeps the direction of old normals: where contacts
 *     rotate (disks sliding round each other) that memory acts like inertia, and seed
 *     000's 40 disks end in another arrangement (errors of 0.2-0.5 that do not shrink).
 *   - The blend lets a disk follow G where its multipliers are small against its radius
 *     (sliding crowds, seed 000's tests: a = 1, the consistent scheme) and D where they
 *     are large (deep static piles: a ~ kappa r / lambda).  The difference D - G then
 *     decays by a factor 1 - a per step, so D's memory is bounded and the step stays
 *     first order (ctest -R "sliding|disks40_order_pbdw").
 *
 * The bookkeeping.  A contact's multiplier lives with its base disk: the disk of the
 * pair that the sweep visits first, i.e. the one whose cell holds the pair in its half
 * stencil (cells.h).  That disk is owned by the rank that sweeps the pair, so the sweep
 * reads and writes multipliers locally; between rebinnings the base of a pair does not
 * change.  Each disk has WARM_SLOTS slots, one 8-byte field each: the key (partner id +
 * 1, or WARM_WALL + the wall's index) in the high 32 bits and lambda as a float in the
 * low ones; 0 is an empty slot.  A contact that finds no free slot goes on without a
 * multiplier (as in PBD) and is counted (slot_overflow, in the summary).  After every
 * rebinning each owned disk gathers the multipliers of the pairs it is now the base of,
 * from its own slots or its partner's (a ghost's slots are its owner's, copied with the
 * halo), and drops the rest.  G is summed by a pass in the sweep's order that moves no
 * disk: its sums ride on the sweep's halo exchanges in place of the positions, so a
 * ghost's share reaches its owner in the same order on any number of ranks.  D is a
 * field; within a step the position after the warm start (Z) is kept, and what the
 * constraints moved is added to D before any rebinning (which may wrap a disk across a
 * periodic side) and at the end.
 *
 * The skin.  The warm start and the first sweep can move disks further than a prediction;
 * after each the disks are rebinned (and the multipliers rehomed) if one is further than
 * -rebin_fraction x skin from its binning position, so that every sweep starts inside the
 * skin, as PBD's does.
 *
 * The promises.  The slots and D are fields (particles.c) that migrate and are
 * checkpointed, and they are in the state digest: restarts are exact.  The passes run in
 * the order of PBDSweepCells (pbd.c), which depends on the binning only, so the
 * trajectory is bitwise the same on any number of ranks (ctest -R
 * "pile|decomposition").  What is proved and what is only measured: docs/algorithm.md. */
#include <throng/sim.h>
#include <throng/pbd.h>
#include <throng/project.h>
#include <throng/warm.h>
#include <string.h>

#define WARM_SLOTS 6
#define WARM_WALL  0x80000000u /* keys from here on: walls (half-planes, then segments) */

typedef struct {
  int32_t j; /* a pair: the partner's index; a wall: -1 - its index (half-planes, then segments) */
  int32_t q; /* the contact's slot in its base disk, or -1 (none was free) */
} WarmEntry;

typedef struct {
  PetscInt   ks[WARM_SLOTS];   /* fields: the contact slots */
  uint64_t  *slot[WARM_SLOTS]; /* their arrays during a sweep */
  PetscInt   fwd[4];           /* forward cell offsets of the local grid */
  PetscInt64 overflow;         /* contacts that found no free slot (this rank, the run) */
  PetscInt   kd[2];            /* fields: the constraint displacement of the last step, D */
  PetscInt   kz[2];            /* fields: where the warm start left the disk (within a step) */
  PetscBool  inStep;           /* between the warm start and the end of the sweeps */
  PetscReal *gx, *gy;          /* J^T lambda of every local disk (this step), capacity cap */
  PetscInt   cap;
  PetscReal *px, *py; /* the positions, while (p->x, p->y) point at (gx, gy) */
  WarmEntry *ent;     /* the contact list, in the sweep's order (WarmListBuild) */
  PetscInt   ecap, lcap;
  int32_t   *lb, *lw, *le; /* owned disk i's entries: walls [lb, lw), pairs [lw, le) */
  PetscBool  listOK;       /* built since the last binning */
} Warm;

static inline uint32_t SlotKey(uint64_t w) { return (uint32_t)(w >> 32); }
static inline double   SlotLambda(uint64_t w)
{
  const uint32_t b = (uint32_t)w;
  float          f;
  memcpy(&f, &b, sizeof(f));
  return (double)f;
}
static inline uint64_t SlotWord(uint32_t key, double lambda)
{
  const float f = (float)lambda;
  uint32_t    b;
  if (!(f > 0)) return 0; /* no multiplier left: the slot is free */
  memcpy(&b, &f, sizeof(b));
  return ((uint64_t)key << 32) | b;
}

/* The multiplier of `key` among a disk's slots (0 if none); *at: its slot, or -1. */
static inline double SlotFind(const uint64_t *sl, uint32_t key, int *at)
{
  for (int k = 0; k < WARM_SLOTS; k++)
    if (SlotKey(sl[k]) == key) {
      *at = k;
      return SlotLambda(sl[k]);
    }
  *at = -1;
  return 0;
}

static inline void SlotStore(uint64_t *sl, int at, uint32_t key, double lambda, PetscInt64 *overflow)
{
  const uint64_t w = SlotWord(key, lambda);
  if (at >= 0) {
    sl[at] = w;
    return;
  }
  if (!w) return;
  for (int k = 0; k < WARM_SLOTS; k++)
    if (!sl[k]) {
      sl[k] = w;
      return;
    }
  (*overflow)++;
}

static inline uint32_t PairKey(int64_t id) { return (uint32_t)(id + 1); }
static void            WarmRefresh(Sim *s, Warm *wm);

/* A slot's word that keeps its key whatever lambda is: a contact of the list keeps its
   slot until the next rebinning, also while its multiplier is 0. */
static inline uint64_t KeyWord(uint64_t old, double lambda)
{
  float    f = (float)lambda;
  uint32_t b;
  if (!(f > 0)) f = 0;
  memcpy(&b, &f, sizeof(b));
  return (old & 0xffffffff00000000ull) | b;
}

/* The slot of `key` among disk i's, reserved (with lambda 0) if it has none; -1 if all
   are taken (the contact is then projected without a multiplier, as in PBD). */
static int SlotReserve(uint64_t *const *slot, PetscInt i, uint32_t key, PetscInt64 *overflow)
{
  for (int q = 0; q < WARM_SLOTS; q++)
    if (SlotKey(slot[q][i]) == key) return q;
  for (int q = 0; q < WARM_SLOTS; q++)
    if (!slot[q][i]) {
      slot[q][i] = (uint64_t)key << 32;
      return q;
    }
  (*overflow)++;
  return -1;
}

static PetscErrorCode WarmListAdd(Warm *wm, PetscInt *ne, int32_t j, int q)
{
  PetscFunctionBeginUser;
  if (*ne == wm->ecap) {
    wm->ecap = PetscMax(1024, 2 * wm->ecap);
    PetscCall(PetscRealloc(sizeof(WarmEntry) * (size_t)wm->ecap, &wm->ent));
  }
  wm->ent[*ne].j = j;
  wm->ent[*ne].q = q;
  (*ne)++;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The contact list (the essay): for each owned disk, in the order of the sweep, the
   walls and then the pairs of its half stencil that are closer than the skin at the
   binning positions (the ghosts' too: halo.c), each with its slot. */
static PetscErrorCode WarmListBuild(Sim *s, Warm *wm)
{
  const Domain    *d    = &s->dom;
  const Cells     *c    = &s->cells;
  const Walls     *wl   = &s->walls;
  const Particles *p    = &s->P;
  const PetscReal  skin = s->prm.skin, *xb = p->xb, *yb = p->yb, *r = p->r;
  PetscInt         ne = 0;

  PetscFunctionBeginUser;
  WarmRefresh(s, wm);
  if (p->n + 1 > wm->lcap) {
    PetscCall(PetscFree3(wm->lb, wm->lw, wm->le));
    wm->lcap = PetscMax(p->n + 1, wm->lcap + wm->lcap / 2);
    PetscCall(PetscMalloc3(wm->lcap, &wm->lb, wm->lcap, &wm->lw, wm->lcap, &wm->le));
  }
  for (PetscInt cy = d->c0[1]; cy < d->c1[1]; cy++)
    for (PetscInt cx = d->c0[0]; cx < d->c1[0]; cx++) {
      const PetscInt k = DomainLocalCell(d, cx, cy);
      for (PetscInt i = c->beg[k]; i < c->end[k]; i++) {
        wm->lb[i] = (int32_t)ne;
        if (s->wallMask[k]) {
          const PetscInt nh = wl->n;
          for (PetscInt t = 0; t < nh; t++) {
            const double *h = &wl->w[3 * t];
            if (h[0] * xb[i] + h[1] * yb[i] - h[2] - r[i] < skin)
              PetscCall(WarmListAdd(wm, &ne, (int32_t)(-1 - t),
                                    SlotReserve(wm->slot, i, WARM_WALL + (uint32_t)t, &wm->overflow)));
          }
          for (PetscInt q = wl->segBeg[k]; q < wl->segBeg[k + 1]; q++) {
            const PetscInt g = wl->segIdx[q];
            double         nx, ny;
            const double   dd = SegmentGapNormal(&wl->seg[4 * g], &wl->nrm[2 * g], wl->depth, xb[i], yb[i], &nx, &ny);
            if (dd < PETSC_INFINITY && dd - r[i] < skin)
              PetscCall(WarmListAdd(wm, &ne, (int32_t)(-1 - (nh + g)),
                                    SlotReserve(wm->slot, i, WARM_WALL + (uint32_t)(nh + g), &wm->overflow)));
          }
        }
        wm->lw[i] = (int32_t)ne;
        CELLS_FOR_PARTNERS(c, k, wm->fwd, i, j)
        {
          const double dx = xb[j] - xb[i], dy = yb[j] - yb[i], cut = r[i] + r[j] + skin;
          if (dx * dx + dy * dy < cut * cut)
            PetscCall(WarmListAdd(wm, &ne, (int32_t)j, SlotReserve(wm->slot, i, PairKey(p->id[j]), &wm->overflow)));
        }
        wm->le[i] = (int32_t)ne;
      }
    }
  PetscCheck(ne < INT32_MAX, PETSC_COMM_SELF, PETSC_ERR_SUP, "-solver pbdw: more than 2^31 contacts on one rank");
  wm->listOK = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The clamped increment of wall entry t (-1 - its code) of disk i at (xi, yi). */
static inline void ListWall(const Walls *wl, uint64_t *const *slot, const WarmEntry *E, PetscInt i, double ri,
                            double *xi, double *yi)
{
  const PetscInt t = -1 - E->j;
  double         g, nx, ny;
  if (t < wl->n) {
    const double *h = &wl->w[3 * t];
    nx = h[0], ny = h[1], g = h[0] * *xi + h[1] * *yi - h[2] - ri;
  } else {
    const PetscInt sg = t - wl->n;
    const double   dd = SegmentGapNormal(&wl->seg[4 * sg], &wl->nrm[2 * sg], wl->depth, *xi, *yi, &nx, &ny);
    if (!(dd < PETSC_INFINITY)) return;
    g = dd - ri;
  }
  const double lam = E->q >= 0 ? SlotLambda(slot[E->q][i]) : 0;
  if (!(lam > 0) && g >= 0) return;
  const double delta = ClampedIncrement(g, lam);
  *xi += delta * nx;
  *yi += delta * ny;
  if (E->q >= 0) slot[E->q][i] = KeyWord(slot[E->q][i], lam + delta);
}

/* The sweep's operation on cell k: for each disk in id order, its walls, then its pairs
   of the half stencil, each with its clamped increment (contact list order).  The
   reverse sweep visits the same constraints in exactly the opposite order. */
static inline void WarmCellDir(Sim *s, Warm *wm, PetscInt k, PetscBool rev)
{
  const Cells      *c  = &s->cells;
  const Walls      *wl = &s->walls;
  Particles        *p  = &s->P;
  PetscReal        *x = p->x, *y = p->y;
  const PetscReal  *r    = p->r;
  const PetscInt64 *id   = p->id;
  uint64_t *const  *slot = wm->slot;
  const PetscInt    b = c->beg[k], e = c->end[k];
  for (PetscInt ii = b; ii < e; ii++) {
    const PetscInt   i  = rev ? e - 1 - (ii - b) : ii;
    const PetscInt   wb = wm->lb[i], pb = wm->lw[i], pe = wm->le[i];
    const WarmEntry *E  = wm->ent;
    double           xi = x[i], yi = y[i];
    if (!rev)
      for (PetscInt t = wb; t < pb; t++) ListWall(wl, slot, &E[t], i, r[i], &xi, &yi);
    for (PetscInt tt = 0; tt < pe - pb; tt++) {
      const WarmEntry *en = &E[rev ? pe - 1 - tt : pb + tt];
      const PetscInt   j  = en->j;
      const double     dx = x[j] - xi, dy = y[j] - yi, d2 = dx * dx + dy * dy, sum = r[i] + r[j];
      const double     lam = en->q >= 0 ? SlotLambda(slot[en->q][i]) : 0;
      if (!(lam > 0) && d2 >= sum * sum) continue;
      const double d = sqrt(d2), delta = ClampedIncrement(d - sum, lam);
      if (d > 0) {
        const double cc = 0.5 * delta / d;
        xi -= cc * dx;
        yi -= cc * dy;
        x[j] += cc * dx;
        y[j] += cc * dy;
      } else { /* coincident centres: along x, the lower id to -x (as ProjectPair) */
        const double h = 0.5 * delta;
        if (id[i] < id[j]) xi -= h, x[j] += h;
        else xi += h, x[j] -= h;
      }
      if (en->q >= 0) slot[en->q][i] = KeyWord(slot[en->q][i], lam + delta);
    }
    if (rev)
      for (PetscInt t = pb - 1; t >= wb; t--) ListWall(wl, slot, &E[t], i, r[i], &xi, &yi);
    x[i] = xi;
    y[i] = yi;
  }
}

/* The multipliers along the current normals, J^T lambda, summed into (gx, gy) for the
   disks of cell k and their partners: a pass in the sweep's order that moves no disk.
   (p->x, p->y) point at (gx, gy) during the pass, so that the halo exchanges between the
   colours carry the sums of the ghosts back to their owners exactly as they carry the
   positions of a sweep; the positions are in wm->px, wm->py. */
static void WarmGatherCell(Sim *s, void *ctx, PetscInt k)
{
  Warm            *wm = (Warm *)ctx;
  const Cells     *c  = &s->cells;
  const Walls     *wl = &s->walls;
  Particles       *p  = &s->P;
  const PetscReal *x = wm->px, *y = wm->py;
  PetscReal       *gx = p->x, *gy = p->y;
  uint64_t *const *slot = wm->slot;
  for (PetscInt i = c->beg[k]; i < c->end[k]; i++) {
    const PetscInt wb = wm->lb[i], pb = wm->lw[i], pe = wm->le[i];
    const double   xi = x[i], yi = y[i];
    double         sx = 0, sy = 0;
    for (PetscInt t = wb; t < pe; t++) {
      const WarmEntry *en = &wm->ent[t];
      if (en->q < 0) continue;
      const double lam = SlotLambda(slot[en->q][i]);
      if (!(lam > 0)) continue;
      if (t < pb) {                                   /* a wall */
        const PetscInt w = -1 - en->j, g = w - wl->n; /* g >= 0: segment g */
        double         nx, ny;
        if (g < 0) nx = wl->w[3 * w], ny = wl->w[3 * w + 1];
        else if (!(SegmentGapNormal(&wl->seg[4 * g], &wl->nrm[2 * g], wl->depth, xi, yi, &nx, &ny) < PETSC_INFINITY))
          continue;
        sx += lam * nx;
        sy += lam * ny;
      } else {
        const PetscInt j  = en->j;
        const double   dx = x[j] - xi, dy = y[j] - yi, d = sqrt(dx * dx + dy * dy);
        if (!(d > 0)) continue;
        const double h = 0.5 * lam / d;
        sx -= h * dx;
        sy -= h * dy;
        gx[j] += h * dx;
        gy[j] += h * dy;
      }
    }
    gx[i] += sx;
    gy[i] += sy;
  }
}

static void WarmCell(Sim *s, void *ctx, PetscInt k) { WarmCellDir(s, (Warm *)ctx, k, PETSC_FALSE); }
static void WarmCellRev(Sim *s, void *ctx, PetscInt k) { WarmCellDir(s, (Warm *)ctx, k, PETSC_TRUE); }

static Warm *WarmOf(const Sim *s) { return (Warm *)SimModuleContext(s, "warm"); }

static void WarmArrays(Sim *s, Warm *wm)
{
  for (int q = 0; q < WARM_SLOTS; q++) wm->slot[q] = (uint64_t *)ParticlesField(&s->P, wm->ks[q]);
}

/* The slot arrays and the forward offsets of the current grid; set again by afterRebin
   whenever a rebinning (inside a step too) moves disks or changes the grid. */
static void WarmRefresh(Sim *s, Warm *wm)
{
  WarmArrays(s, wm);
  DomainForwardOffsets(s->dom.ln[0], wm->fwd);
}

/* The displacement the constraints have made since the warm start, added to D: at the
   end of the step, and before a rebinning (which may wrap a disk across a periodic side:
   afterwards Z is set again from the wrapped position). */
static void WarmAccumulate(Sim *s, Warm *wm, PetscBool reset)
{
  Particles *p  = &s->P;
  PetscReal *dx = (PetscReal *)ParticlesField(p, wm->kd[0]), *dy = (PetscReal *)ParticlesField(p, wm->kd[1]);
  PetscReal *zx = (PetscReal *)ParticlesField(p, wm->kz[0]), *zy = (PetscReal *)ParticlesField(p, wm->kz[1]);
  for (PetscInt i = 0; i < p->n; i++) {
    if (!reset) {
      dx[i] += p->x[i] - zx[i];
      dy[i] += p->y[i] - zy[i];
    }
    zx[i] = p->x[i];
    zy[i] = p->y[i];
  }
}

/* The warm start (the essay above): each owned disk moves by theta times a blend of D,
   its constraints' displacement of the last step, and G = J^T lambda, the multipliers
   along the current normals, with the weight a = min(1, kappa r_i / lambda_max,i) on G;
   the same fraction theta of the multipliers is kept.  The ghosts follow. */
static PetscErrorCode WarmStart(Sim *s, Warm *wm)
{
  const PetscReal theta = s->prm.warm, kappa = s->prm.warmBlend;
  Particles      *p = &s->P;
  const PetscInt  n = p->n + p->ng;

  PetscFunctionBeginUser;
  if (n > wm->cap) {
    PetscCall(PetscFree2(wm->gx, wm->gy));
    wm->cap = PetscMax(n, wm->cap + wm->cap / 2);
    PetscCall(PetscMalloc2(wm->cap, &wm->gx, wm->cap, &wm->gy));
  }
  PetscCall(PetscArrayzero(wm->gx, n));
  PetscCall(PetscArrayzero(wm->gy, n));
  if (!wm->listOK) PetscCall(WarmListBuild(s, wm));
  wm->px = p->x, wm->py = p->y; /* G rides on the halo exchanges of a sweep: */
  p->x = wm->gx, p->y = wm->gy;
  if (s->dom.nnbr) PetscCall(HaloForward(&s->dom, p, &s->halo)); /* the ghosts' G and its reference */
  PetscCall(PBDSweepCells(s, WarmGatherCell, wm, PETSC_FALSE));
  p->x = wm->px, p->y = wm->py;

  PetscCall(PetscLogEventBegin(THRONG_EV.predict, 0, 0, 0, 0));
  PetscReal *dx = (PetscReal *)ParticlesField(p, wm->kd[0]), *dy = (PetscReal *)ParticlesField(p, wm->kd[1]);
  PetscReal *zx = (PetscReal *)ParticlesField(p, wm->kz[0]), *zy = (PetscReal *)ParticlesField(p, wm->kz[1]);
  for (PetscInt i = 0; i < p->n; i++) {
    double lmax = 0;
    for (int q = 0; q < WARM_SLOTS; q++) {
      const uint64_t w = wm->slot[q][i];
      if (w) {
        const double l = SlotLambda(w);
        lmax           = l > lmax ? l : lmax;
        if (theta != 1) wm->slot[q][i] = KeyWord(w, theta * l);
      }
    }
    const double a = kappa * p->r[i] < lmax ? kappa * p->r[i] / lmax : 1;
    dx[i]          = theta * (dx[i] + a * (wm->gx[i] - dx[i]));
    dy[i]          = theta * (dy[i] + a * (wm->gy[i] - dy[i]));
    p->x[i] += dx[i];
    p->y[i] += dy[i];
    zx[i] = p->x[i];
    zy[i] = p->y[i];
  }
  PetscCall(PetscLogEventEnd(THRONG_EV.predict, 0, 0, 0, 0));
  wm->inStep = PETSC_TRUE;
  PetscCall(PBDSettle(s)); /* the sweep starts within the skin, and the ghosts follow */
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PBDWStep(Sim *s)
{
  Warm *wm = WarmOf(s);

  PetscFunctionBeginUser;
  WarmRefresh(s, wm);       /* after a restore, which does not rebin */
  PetscCall(PBDPredict(s)); /* may rebin: then the slots are rehomed (afterRebin) */
  WarmRefresh(s, wm);
  if (s->prm.warm > 0) PetscCall(WarmStart(s, wm));
  else wm->inStep = PETSC_TRUE, WarmAccumulate(s, wm, PETSC_TRUE);
  if (!wm->listOK) PetscCall(WarmListBuild(s, wm)); /* a rebinning since the last pass */
  PetscCall(PBDSweepCells(s, WarmCell, wm, PETSC_FALSE));
  PetscCall(PBDRebinIfFar(s));
  if (!wm->listOK) PetscCall(WarmListBuild(s, wm));
  PetscCall(PBDSweepCells(s, WarmCellRev, wm, PETSC_TRUE));
  WarmAccumulate(s, wm, PETSC_FALSE);
  wm->inStep = PETSC_FALSE;
  s->sol.iterations += 2;
  s->sol.lastIts = 2;
  s->sol.maxIts  = 2;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode WarmContacts(Sim *s, void (*add)(Sim *, PetscInt, PetscInt64, PetscInt64, PetscReal, PetscReal,
                                                PetscReal, PetscReal, PetscReal))
{
  Warm            *wm = WarmOf(s);
  const Domain    *d  = &s->dom;
  const Cells     *c  = &s->cells;
  const Walls     *wl = &s->walls;
  const Particles *p  = &s->P;
  PetscFunctionBeginUser;
  WarmRefresh(s, wm);
  for (PetscInt cy = d->c0[1]; cy < d->c1[1]; cy++)
    for (PetscInt cx = d->c0[0]; cx < d->c1[0]; cx++) {
      const PetscInt k = DomainLocalCell(d, cx, cy);
      for (PetscInt i = c->beg[k]; i < c->end[k]; i++) {
        uint64_t sl[WARM_SLOTS];
        for (int q = 0; q < WARM_SLOTS; q++) sl[q] = wm->slot[q][i];
        for (int q = 0; q < WARM_SLOTS; q++) { /* walls: the disk moved by lambda along the normal */
          const uint32_t key = SlotKey(sl[q]);
          if (!sl[q] || key < WARM_WALL) continue;
          const PetscInt t = (PetscInt)(key - WARM_WALL), g = t - wl->n;
          const double   lam = SlotLambda(sl[q]), ri = p->r[i];
          double         nx, ny;
          if (g < 0) nx = wl->w[3 * t], ny = wl->w[3 * t + 1];
          else if (!(SegmentGapNormal(&wl->seg[4 * g], &wl->nrm[2 * g], wl->depth, p->x[i], p->y[i], &nx, &ny) <
                     PETSC_INFINITY))
            continue;
          if (lam > 0) add(s, i, -1 - (PetscInt64)t, p->id[i], lam * nx, lam * ny, ri * nx, ri * ny, p->y[i] - 0.5 * ri * ny);
        }
        CELLS_FOR_PARTNERS(c, k, wm->fwd, i, j)
        {
          int          at;
          const double lam = SlotFind(sl, PairKey(p->id[j]), &at);
          if (at < 0 || !(lam > 0)) continue;
          const double dx = p->x[j] - p->x[i], dy = p->y[j] - p->y[i], dd = sqrt(dx * dx + dy * dy);
          if (!(dd > 0)) continue;
          add(s, i, p->id[i], p->id[j], 0.5 * lam * dx / dd, 0.5 * lam * dy / dd, dx, dy, 0.5 * (p->y[i] + p->y[j]));
        }
      }
    }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PBDWReport(Sim *s)
{
  Warm      *wm   = WarmOf(s);
  PetscInt64 v[2] = {wm->overflow, 0};

  PetscFunctionBeginUser;
  WarmArrays(s, wm);
  for (PetscInt i = 0; i < s->P.n; i++)
    for (int q = 0; q < WARM_SLOTS; q++) v[1] += (uint32_t)wm->slot[q][i] != 0; /* lambda > 0 */
  PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, v, 2, MPIU_INT64, MPI_SUM, s->dom.comm));
  PetscCall(PetscPrintf(s->dom.comm, "  contacts %" PetscInt64_FMT "  slot_overflow %" PetscInt64_FMT, v[1], v[0]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PBDWView(MPI_Comm comm, const Params *p)
{
  PetscFunctionBeginUser;
  PetscCall(PetscPrintf(comm,
                        "throng: solver=pbdw warm=%g (contact multipliers carried between steps, %d slots per disk; "
                        "a symmetric sweep)\n",
                        (double)p->warm, WARM_SLOTS));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SolverCreate_PBDW(SolverOps *ops)
{
  PetscFunctionBeginUser;
  ops->step   = PBDWStep;
  ops->view   = PBDWView;
  ops->report = PBDWReport;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---- the module: fields, rehoming, digest ---- */

static PetscErrorCode WarmSetUp(Sim *s, void *ctx)
{
  Warm          *wm    = (Warm *)ctx;
  const unsigned flags = FIELD_MIGRATES | FIELD_GHOSTED | FIELD_CHECKPOINT;

  PetscFunctionBeginUser;
  for (int q = 0; q < WARM_SLOTS; q++) {
    char name[16];
    PetscCall(PetscSNPrintf(name, sizeof(name), "warm_c%d", q));
    PetscCall(ParticlesRegisterField(&s->P, name, FIELD_INT64, flags, &wm->ks[q]));
  }
  PetscCall(ParticlesRegisterField(&s->P, "warm_dx", FIELD_REAL, FIELD_MIGRATES | FIELD_CHECKPOINT, &wm->kd[0]));
  PetscCall(ParticlesRegisterField(&s->P, "warm_dy", FIELD_REAL, FIELD_MIGRATES | FIELD_CHECKPOINT, &wm->kd[1]));
  PetscCall(ParticlesRegisterField(&s->P, "warm_zx", FIELD_REAL, FIELD_MIGRATES, &wm->kz[0]));
  PetscCall(ParticlesRegisterField(&s->P, "warm_zy", FIELD_REAL, FIELD_MIGRATES, &wm->kz[1]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* After a rebinning: each owned disk keeps the multipliers of the pairs it is now the
   base of, found in its own slots or its partner's, and of its walls; the rest go. */
/* Contacts are keyed in 32 bits: ids below 2^31 - 1 and fewer than 2^31 walls.  Ids do
   not change during a run: checked once the disks exist (created, restored). */
static PetscErrorCode WarmCheckKeys(Sim *s, void *ctx)
{
  const Particles *p   = &s->P;
  PetscInt64       big = 0;
  (void)ctx;
  PetscFunctionBeginUser;
  for (PetscInt i = 0; i < p->n; i++) big = PetscMax(big, p->id[i]);
  PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, &big, 1, MPIU_INT64, MPI_MAX, s->dom.comm));
  PetscCheck(big < (PetscInt64)WARM_WALL - 1 && (PetscInt64)s->walls.n + s->walls.nseg < (PetscInt64)WARM_WALL,
             s->dom.comm, PETSC_ERR_SUP,
             "-solver pbdw keys contacts in 32 bits: disk ids below 2^31 - 1 and fewer than 2^31 walls (largest id "
             "%" PetscInt64_FMT ")",
             big);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Before a rebinning inside a step: what the constraints moved so far goes into D (the
   migration may wrap the positions); after it, Z is the wrapped position. */
static PetscErrorCode WarmBeforeRebin(Sim *s, void *ctx)
{
  Warm *wm = (Warm *)ctx;
  PetscFunctionBeginUser;
  if (wm->inStep) WarmAccumulate(s, wm, PETSC_FALSE);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode WarmBinned(Sim *s, void *ctx)
{
  Warm *wm = (Warm *)ctx;
  PetscFunctionBeginUser;
  wm->listOK = PETSC_FALSE; /* the cells, or the disks, are new */
  PetscCall(WarmCheckKeys(s, ctx));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode WarmAfterRebin(Sim *s, void *ctx)
{
  Warm         *wm = (Warm *)ctx;
  const Domain *d  = &s->dom;
  const Cells  *c  = &s->cells;
  const Walls  *wl = &s->walls;
  Particles    *p  = &s->P;

  PetscFunctionBeginUser;
  uint64_t *tmp; /* the new slots, for this rehoming only */
  PetscCall(PetscCalloc1((size_t)WARM_SLOTS * p->n + 1, &tmp));
  WarmRefresh(s, wm);
  for (PetscInt cy = d->c0[1]; cy < d->c1[1]; cy++) /* the owned cells */
    for (PetscInt cx = d->c0[0]; cx < d->c1[0]; cx++) {
      const PetscInt k = DomainLocalCell(d, cx, cy);
      for (PetscInt i = c->beg[k]; i < c->end[k]; i++) {
        uint64_t *nw = tmp + (size_t)WARM_SLOTS * i, old[WARM_SLOTS];
        int       at;
        for (int q = 0; q < WARM_SLOTS; q++) old[q] = wm->slot[q][i];
        if (s->wallMask[k]) {
          for (PetscInt w = 0; w < wl->n; w++) {
            const uint32_t key = WARM_WALL + (uint32_t)w;
            SlotStore(nw, -1, key, SlotFind(old, key, &at), &wm->overflow);
          }
          for (PetscInt q = wl->segBeg[k]; q < wl->segBeg[k + 1]; q++) {
            const uint32_t key = WARM_WALL + (uint32_t)(wl->n + wl->segIdx[q]);
            SlotStore(nw, -1, key, SlotFind(old, key, &at), &wm->overflow);
          }
        }
        CELLS_FOR_PARTNERS(c, k, wm->fwd, i, j)
        {
          double lam = SlotFind(old, PairKey(p->id[j]), &at);
          if (at < 0) {
            uint64_t sj[WARM_SLOTS];
            for (int q = 0; q < WARM_SLOTS; q++) sj[q] = wm->slot[q][j];
            lam = SlotFind(sj, PairKey(p->id[i]), &at);
          }
          SlotStore(nw, -1, PairKey(p->id[j]), lam, &wm->overflow);
        }
      }
    }
  for (PetscInt i = 0; i < p->n; i++)
    for (int q = 0; q < WARM_SLOTS; q++) wm->slot[q][i] = tmp[(size_t)WARM_SLOTS * i + q];
  PetscCall(PetscFree(tmp));
  wm->listOK = PETSC_FALSE;
  if (wm->inStep) WarmAccumulate(s, wm, PETSC_TRUE);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The carried state in the state digest: p_old bitwise, and the slots of each disk as a
   set (their order in the slots is immaterial). */
static PetscErrorCode WarmDigest(const Sim *s, void *ctx, Digest *dg)
{
  Warm            *wm   = (Warm *)ctx;
  const Particles *p    = &s->P;
  uint64_t         h[2] = {0, 0};

  PetscFunctionBeginUser;
  for (int q = 0; q < WARM_SLOTS; q++) {
    const uint64_t *sl = (const uint64_t *)ParticlesField(p, wm->ks[q]);
    for (PetscInt i = 0; i < p->n; i++)
      if ((uint32_t)sl[i]) DigestRecord((uint64_t)p->id[i] + (1ULL << 42), 0, sl[i], h); /* lambda > 0 */
  }
  for (int a = 0; a < 2; a++) { /* D, bitwise */
    const PetscReal *v = (const PetscReal *)ParticlesField(p, wm->kd[a]);
    for (PetscInt i = 0; i < p->n; i++) {
      uint64_t b;
      memcpy(&b, &v[i], sizeof(b));
      if (b) DigestRecord((uint64_t)p->id[i] + ((uint64_t)(a + 1) << 44), 0, b, h);
    }
  }
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, h, 2, MPI_UINT64_T, MPI_SUM, s->dom.comm));
  dg->h[0] += h[0];
  dg->h[1] += h[1];
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode WarmDestroy(Sim *s, void *ctx)
{
  Warm *wm = (Warm *)ctx;
  (void)s;
  PetscFunctionBeginUser;
  PetscCall(PetscFree2(wm->gx, wm->gy));
  PetscCall(PetscFree3(wm->lb, wm->lw, wm->le));
  PetscCall(PetscFree(wm->ent));
  PetscCall(PetscFree(wm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode WarmModuleCreate(const Params *prm, SimModule *m, PetscBool *on)
{
  Warm *wm;
  PetscFunctionBeginUser;
  *on = strcmp(prm->solver, "pbdw") == 0 ? PETSC_TRUE : PETSC_FALSE;
  if (!*on) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscNew(&wm));
  m->name        = "warm";
  m->ctx         = wm;
  m->setUp       = WarmSetUp;
  m->created     = WarmBinned;
  m->restored    = WarmBinned;
  m->beforeRebin = WarmBeforeRebin;
  m->afterRebin  = WarmAfterRebin;
  m->digest      = WarmDigest;
  m->destroy     = WarmDestroy;
  PetscFunctionReturn(PETSC_SUCCESS);
}
