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
 * in the last step.  A step is
 *   1. PBD's prediction y = x + h f(x);
 *   2. the warm start: each disk moves by W_i, formed at the end of the last step;
 *   3. one sweep in PBD's order, where each constraint takes the clamped increment
 *      (project.h: ClampedIncrement)
 *          delta = max(-gap, -lambda_c),   lambda_c <- lambda_c + delta,
 *      moving the disk(s) by delta along the normal: an overlap is removed as PBD does,
 *      and a gap that the warm start opened is closed again, by at most what the
 *      contact's own multiplier pushed, so that a contact that opens lets its disks go;
 *   4. the next warm start, W_i = theta (D_i + a_i (G_i - D_i)): D_i = x_i - y_i is what
 *      the warm start and the constraints moved the disk in this step; G_i =
 *      sum_c lambda_c n_c its multipliers along the normals the last sweep projected
 *      them on (half of a pair's to each disk); a_i = min(1, kappa r_i / lambda_max,i)
 *      with lambda_max,i the largest multiplier the disk holds; theta = -pbdw_warm
 *      (default 1) and kappa = -pbdw_blend (default 0.1); theta also scales every lambda.
 * With every lambda and W zero a step is PBD's: the prediction and one sweep.
 *
 * -pbdw_sweeps 2, the symmetric step and the default since issue 46 (issue 30's first form,
 * PBDWStepSymmetric): after the prediction a pass that moves no disk sums G along the
 * normals at the predicted positions, the warm start W = theta (D + a (G - D)) is formed
 * from the last step's D, and the sweep runs forward, then exactly backward.  It costs
 * 2.3 times the one-sweep step.  Why it is the default: with frozen contacts a sweep is a
 * linear map of the disks' displacements whose eigenvalues mu give the step the roots of
 * z^2 - 2 mu z + mu = 0.  A symmetric sweep has real mu in [0, 1), and the roots then
 * lie inside the unit circle with |z| = sqrt(mu); a forward sweep has complex mu, and a
 * phase of 10^-3 near |mu| = 1 already puts a root outside it (jobs/warm_model.py).  In
 * piles wider than a few tens of disks the one-sweep step bursts: 100 x 400 and 400 x 100
 * disks and the 10^6 pile stop within 2600 steps, where the symmetric step holds 0.27 %
 * of a diameter over 10^4 (docs/algorithm.md, "Wide piles").  In a deep crowd queue it
 * also stays closer to PNGS's flow (docs/algorithm.md, "Crowds").
 *
 * Cost.  The last sweep sums G and finds lambda_max as it goes, so a step is PBD's
 * passes plus the two streaming passes of steps 2 and 4.  The sweep projects every
 * contact that holds a multiplier (about 3 per disk in a pile, where PBD's sweep projects
 * the overlapping ones only), and each projection is a chain of a square root and a
 * division that the next projection of the same disk waits for: the last sweep runs two
 * cell rows as two lanes, entry by entry, so that two such chains overlap (WarmTileLast).
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
 * halo), and drops the rest.  Then the contact list is built (WarmListBuild): for each
 * owned disk, in the order the disks are stored, its walls and half-stencil pairs closer
 * than the skin at the binning positions, each with its slot and a copy of its
 * multiplier (a float, as the slot keeps it).  The sweeps read and write the list only;
 * the slots are written back before a rebinning, a checkpoint, a digest and the
 * modules' stepEnd hooks, which may remove or add disks (the module's sync, modules.c).
 * G is summed into per-disk arrays, the ghosts' too: those sums ride the sweep's halo
 * exchanges with their own reference (halo.h: HaloForwardPair), so that a ghost's share
 * reaches its owner in the same order on any number of ranks.  W is a field, warm_w:
 * between steps it holds W (the symmetric step: D); within a step it holds W - (x after
 * the warm start), so that adding x gives D at the end.  Before a rebinning (which may
 * wrap a disk across a periodic side) x is added, and after it subtracted again.
 *
 * The skin.  The warm start (and the first of two sweeps) can move disks further than a
 * prediction; after it the disks are rebinned (and the multipliers rehomed) if one is
 * further than -rebin_fraction x skin from its binning position, so that every sweep
 * starts inside the skin, as PBD's does.
 *
 * The promises.  The slots and W are fields (particles.c) that migrate and are
 * checkpointed, and they are in the state digest: restarts are exact.  The sweeps run in
 * the order of PBDSweepCells (pbd.c), which depends on the binning only, so the
 * trajectory is bitwise the same on any number of ranks (ctest -R
 * "pile|decomposition").  What is proved and what is only measured: docs/algorithm.md. */
#include <throng/core/sim.h>
#include <throng/step/pbd.h>
#include <throng/util/project.h>
#include <throng/step/warm.h>
#include <throng/step/warm_list.h>
#include <string.h>

/* The clamped increment of wall entry E of disk i at (xi, yi).  gs (the last sweep of
   a step): its multiplier along the normal is added to gs[0], gs[1]. */
/* Wall t (half-planes, then segments): the distance of the centre (x, y) from it and its
   normal there, or PETSC_INFINITY (a segment the centre is not in front of). */
static inline double WallDistance(const Walls *wl, PetscInt t, double x, double y, double *nx, double *ny)
{
  if (t < wl->n) {
    const double *h = &wl->w[3 * t];
    *nx = h[0], *ny = h[1];
    return h[0] * x + h[1] * y - h[2];
  }
  const PetscInt sg = t - wl->n;
  return SegmentGapNormal(&wl->seg[4 * sg], &wl->nrm[2 * sg], wl->depth, x, y, nx, ny);
}

static inline void ListWall(const Walls *wl, WarmEntry *E, double ri, double *xi, double *yi, double *gs)
{
  double       nx, ny;
  const double dd = WallDistance(wl, -1 - E->j, *xi, *yi, &nx, &ny);
  if (!(dd < PETSC_INFINITY)) return;
  const double g   = dd - ri;
  const double lam = EntryLambda(E);
  if (!(lam > 0) && g >= 0) return;
  const double delta = ClampedIncrement(g, lam);
  *xi += delta * nx;
  *yi += delta * ny;
  EntrySet(E, lam + delta);
  if (gs) {
    const double ln = EntryLambda(E);
    gs[0] += ln * nx;
    gs[1] += ln * ny;
  }
}

/* The sweep's operation on cell k (the symmetric step's sweeps): for each disk in id
   order, its walls, then its pairs of the half stencil, each with its clamped increment
   (contact list order).  The reverse sweep visits the same constraints in exactly the
   opposite order. */
static inline void WarmCellDir(Sim *s, Warm *wm, PetscInt k, PetscBool rev)
{
  const Cells      *c  = &s->cells;
  const Walls      *wl = &s->walls;
  Particles        *p  = &s->P;
  PetscReal        *x = p->x, *y = p->y;
  const PetscReal  *r  = p->r;
  const PetscInt64 *id = p->id;
  const PetscInt    b = c->beg[k], e = c->end[k];
  for (PetscInt ii = b; ii < e; ii++) {
    const PetscInt i  = rev ? e - 1 - (ii - b) : ii;
    const PetscInt wb = wm->lr[2 * i], pb = wm->lr[2 * i + 1], pe = wm->lr[2 * i + 2];
    WarmEntry     *E  = wm->ent;
    double         xi = x[i], yi = y[i];
    if (!rev)
      for (PetscInt t = wb; t < pb; t++) ListWall(wl, &E[t], r[i], &xi, &yi, NULL);
    for (PetscInt tt = 0; tt < pe - pb; tt++) {
      WarmEntry     *en = &E[rev ? pe - 1 - tt : pb + tt];
      const PetscInt j  = en->j;
      const double   dx = x[j] - xi, dy = y[j] - yi, d2 = dx * dx + dy * dy, sum = r[i] + r[j];
      const double   lam = EntryLambda(en);
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
      EntrySet(en, lam + delta);
    }
    if (rev)
      for (PetscInt t = pb - 1; t >= wb; t--) ListWall(wl, &E[t], r[i], &xi, &yi, NULL);
    x[i] = xi;
    y[i] = yi;
  }
}

static void WarmCell(Sim *s, void *ctx, PetscInt k) { WarmCellDir(s, (Warm *)ctx, k, PETSC_FALSE); }

/* The last forward sweep in two lanes.  The disks of one cell row of a tile are stored
   one after the other (domain.c: slot), and so are their entries; two rows of one
   parity (cy, cy + 2) touch disjoint disks.  A lane walks one row's entries, disk by
   disk, exactly as WarmCellDir does; the two lanes advance one entry each in turn, which
   gives the processor two independent chains of square roots and divisions to overlap
   (a cell-by-cell interleave is too coarse for its reorder window).  The result is that
   of the rows one after the other. */
typedef struct {
  PetscInt i, ie, t, pw, pe; /* disk, end of the row, entry, first pair entry, end */
  double   xi, yi, g[2];
} WarmLane;

static inline void LaneLoad(const Warm *wm, const PetscReal *x, const PetscReal *y, WarmLane *L)
{
  const PetscInt i = L->i;
  L->xi = x[i], L->yi = y[i], L->g[0] = L->g[1] = 0;
  L->t = wm->lr[2 * i], L->pw = wm->lr[2 * i + 1], L->pe = wm->lr[2 * i + 2];
}

/* One entry of the lane, or the end of its disk (then the next disk). */
static inline void LaneStep(Sim *s, Warm *wm, WarmLane *L)
{
  Particles        *p = &s->P;
  PetscReal        *x = p->x, *y = p->y, *gx = wm->gx, *gy = wm->gy;
  const PetscReal  *r  = p->r;
  const PetscInt64 *id = p->id;
  const PetscInt    i  = L->i;
  if (L->t == L->pe) { /* the disk is done: as WarmCellDir's end of a disk */
    const double theta = s->prm.warm;
    double       lmax  = 0;
    x[i]               = L->xi;
    y[i]               = L->yi;
    gx[i] += L->g[0];
    gy[i] += L->g[1];
    for (PetscInt t = wm->lr[2 * i]; t < L->pe; t++) {
      const double l = EntryLambda(&wm->ent[t]);
      lmax           = l > lmax ? l : lmax;
      if (theta != 1 && l > 0) EntrySet(&wm->ent[t], theta * l);
    }
    wm->lm[i] = lmax;
    if (++L->i < L->ie) LaneLoad(wm, x, y, L);
    return;
  }
  WarmEntry *en = &wm->ent[L->t++];
  if (L->t <= L->pw) {
    ListWall(&s->walls, en, r[i], &L->xi, &L->yi, L->g);
    return;
  }
  const PetscInt j  = en->j;
  const double   dx = x[j] - L->xi, dy = y[j] - L->yi, d2 = dx * dx + dy * dy, sum = r[i] + r[j];
  const double   lam = EntryLambda(en);
  if (!(lam > 0) && d2 >= sum * sum) return;
  const double d = sqrt(d2), inv = 1 / d, delta = ClampedIncrement(d - sum, lam);
  if (d > 0) {
    const double cc = 0.5 * delta * inv;
    L->xi -= cc * dx;
    L->yi -= cc * dy;
    x[j] += cc * dx;
    y[j] += cc * dy;
  } else {
    const double h = 0.5 * delta;
    if (id[i] < id[j]) L->xi -= h, x[j] += h;
    else L->xi += h, x[j] -= h;
  }
  EntrySet(en, lam + delta);
  if (d > 0) {
    const double h = 0.5 * EntryLambda(en) * inv;
    L->g[0] -= h * dx;
    L->g[1] -= h * dy;
    gx[j] += h * dx;
    gy[j] += h * dy;
  }
}

/* The disks [b, e) of owned cell row cy of the tile [x0, x1). */
static inline void RowRange(const Sim *s, PetscInt x0, PetscInt x1, PetscInt cy, PetscInt *b, PetscInt *e)
{
  const Domain *d = &s->dom;
  *b              = s->cells.beg[DomainLocalCell(d, x0, cy)];
  *e              = s->cells.end[DomainLocalCell(d, x1 - 1, cy)];
}

static void WarmTileLast(Sim *s, void *ctx, PetscInt tx, PetscInt ty, PetscBool reverse)
{
  Warm          *wm = (Warm *)ctx;
  const Domain  *d  = &s->dom;
  const PetscInt x0 = tx * d->tile, x1 = PetscMin(x0 + d->tile, d->nc[0]);
  const PetscInt y0 = ty * d->tile, y1 = PetscMin(y0 + d->tile, d->nc[1]);
  (void)reverse;
  for (PetscInt parity = 0; parity < 2; parity++)
    for (PetscInt cy = y0 + parity; cy < y1; cy += 4) {
      WarmLane A = {0}, B = {0};
      RowRange(s, x0, x1, cy, &A.i, &A.ie);
      if (cy + 2 < y1) RowRange(s, x0, x1, cy + 2, &B.i, &B.ie);
      if (A.i < A.ie) LaneLoad(wm, s->P.x, s->P.y, &A);
      if (B.i < B.ie) LaneLoad(wm, s->P.x, s->P.y, &B);
      while (A.i < A.ie && B.i < B.ie) {
        LaneStep(s, wm, &A);
        LaneStep(s, wm, &B);
      }
      while (A.i < A.ie) LaneStep(s, wm, &A);
      while (B.i < B.ie) LaneStep(s, wm, &B);
    }
}

/* The warm start (the essay): each owned disk moves by W, the field; F becomes W - x. */
static PetscErrorCode WarmStart(Sim *s, Warm *wm)
{
  Particles *p = &s->P;
  PetscReal *fx, *fy;

  PetscFunctionBeginUser;
  PetscCall(PetscLogEventBegin(THRONG_EV.predict, 0, 0, 0, 0));
  WarmField(s, wm, &fx, &fy);
  for (PetscInt i = 0; i < p->n; i++) {
    p->x[i] += fx[i];
    p->y[i] += fy[i];
    fx[i] -= p->x[i];
    fy[i] -= p->y[i];
  }
  PetscCall(PetscLogEventEnd(THRONG_EV.predict, 0, 0, 0, 0));
  wm->inStep = PETSC_TRUE;
  PetscCall(PBDSettle(s)); /* the sweep starts within the skin, and the ghosts follow */
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* G's sums for the step's last sweep: zero for every local disk, and the halo's
   reference of the ghosts' sums. */
static PetscErrorCode WarmZeroG(Sim *s, Warm *wm, PBDPair *pair)
{
  const Particles *p = &s->P;
  const PetscInt   n = p->n + p->ng, nr = 2 * s->halo.nrecv;

  PetscFunctionBeginUser;
  if (n > wm->cap) {
    PetscCall(PetscFree3(wm->gx, wm->gy, wm->lm));
    wm->cap = PetscMax(n, wm->cap + wm->cap / 2);
    PetscCall(PetscMalloc3(wm->cap, &wm->gx, wm->cap, &wm->gy, wm->cap, &wm->lm));
  }
  if (nr > wm->rcap) {
    PetscCall(PetscFree(wm->aref));
    wm->rcap = PetscMax(nr, wm->rcap + wm->rcap / 2);
    PetscCall(PetscMalloc1(wm->rcap, &wm->aref));
  }
  PetscCall(PetscArrayzero(wm->gx, n));
  PetscCall(PetscArrayzero(wm->gy, n));
  PetscCall(PetscArrayzero(wm->aref, nr));
  pair->ax = wm->gx, pair->ay = wm->gy, pair->aref = wm->aref;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The end of a step: D = F + x, and the next step's warm start
   W = theta (D + a (G - D)), a = min(1, kappa r_i / lambda_max,i), into F. */
static void WarmFinish(Sim *s, Warm *wm)
{
  const PetscReal theta = s->prm.warm, kappa = s->prm.warmBlend;
  Particles      *p = &s->P;
  PetscReal      *fx, *fy;
  WarmField(s, wm, &fx, &fy);
  for (PetscInt i = 0; i < p->n; i++) {
    const double dx = fx[i] + p->x[i], dy = fy[i] + p->y[i], lmax = wm->lm[i];
    const double a = kappa * p->r[i] < lmax ? kappa * p->r[i] / lmax : 1;
    fx[i]          = theta * (dx + a * (wm->gx[i] - dx));
    fy[i]          = theta * (dy + a * (wm->gy[i] - dy));
  }
}

/* -pbdw_sweeps 2, the symmetric step: G and lambda_max at the predicted positions,
   summed by a pass of their own before the warm start (it moves no disk; its sums ride
   the halo as the sweep's do), then a forward and an exactly backward sweep.  Between
   steps the field holds D, not W. */
static void WarmGatherCell(Sim *s, void *ctx, PetscInt k)
{
  Warm            *wm = (Warm *)ctx;
  const Cells     *c  = &s->cells;
  const Walls     *wl = &s->walls;
  Particles       *p  = &s->P;
  const PetscReal *x = p->x, *y = p->y;
  PetscReal       *gx = wm->gx, *gy = wm->gy;
  const double     theta = s->prm.warm;
  for (PetscInt i = c->beg[k]; i < c->end[k]; i++) {
    const PetscInt wb = wm->lr[2 * i], pb = wm->lr[2 * i + 1], pe = wm->lr[2 * i + 2];
    const double   xi = x[i], yi = y[i];
    double         sx = 0, sy = 0, lmax = 0;
    for (PetscInt t = wb; t < pe; t++) {
      WarmEntry   *en  = &wm->ent[t];
      const double lam = EntryLambda(en);
      if (!(lam > 0)) continue;
      lmax = lam > lmax ? lam : lmax;
      if (theta != 1) EntrySet(en, theta * lam);
      if (t < pb) {
        double nx, ny;
        if (!(WallDistance(wl, -1 - en->j, xi, yi, &nx, &ny) < PETSC_INFINITY)) continue;
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
    wm->lm[i] = lmax;
  }
}

static void WarmCellRev(Sim *s, void *ctx, PetscInt k) { WarmCellDir(s, (Warm *)ctx, k, PETSC_TRUE); }

static PetscErrorCode PBDWStepSymmetric(Sim *s)
{
  Warm   *wm = WarmOf(s);
  PBDPair pair;

  PetscFunctionBeginUser;
  WarmRefresh(s, wm);
  PetscCall(PBDPredict(s));
  WarmRefresh(s, wm);
  if (!wm->listOK) PetscCall(WarmListBuild(s, wm));
  wm->dirty = PETSC_TRUE;
  PetscCall(WarmZeroG(s, wm, &pair));
  PetscCall(PBDSweepCellsPair(s, WarmGatherCell, wm, PETSC_FALSE, &pair));
  WarmShift(s, wm, -1); /* F held D: now F + x = D, as WarmFinish reads it */
  WarmFinish(s, wm);    /* F = W */
  PetscCall(WarmStart(s, wm));
  if (!wm->listOK) PetscCall(WarmListBuild(s, wm));
  wm->dirty = PETSC_TRUE;
  PetscCall(PBDSweepCells(s, WarmCell, wm, PETSC_FALSE));
  PetscCall(PBDRebinIfFar(s));
  if (!wm->listOK) PetscCall(WarmListBuild(s, wm));
  wm->dirty = PETSC_TRUE;
  PetscCall(PBDSweepCells(s, WarmCellRev, wm, PETSC_TRUE));
  WarmShift(s, wm, +1); /* F = D until the next step */
  wm->inStep = PETSC_FALSE;
  s->sol.iterations += 2;
  s->sol.lastIts = 2;
  s->sol.maxIts  = 2;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PBDWStep(Sim *s)
{
  Warm   *wm = WarmOf(s);
  PBDPair pair;

  PetscFunctionBeginUser;
  if (s->prm.warmSweeps == 2) {
    PetscCall(PBDWStepSymmetric(s));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  WarmRefresh(s, wm);       /* after a restore, which does not rebin */
  PetscCall(PBDPredict(s)); /* may rebin: then the slots are rehomed (afterRebin) */
  WarmRefresh(s, wm);
  PetscCall(WarmStart(s, wm));
  if (!wm->listOK) PetscCall(WarmListBuild(s, wm)); /* a rebinning since the binning */
  wm->dirty = PETSC_TRUE;
  PetscCall(WarmZeroG(s, wm, &pair));
  PetscCall(PBDSweepTilesPair(s, WarmTileLast, wm, PETSC_FALSE, &pair));
  PetscCall(PetscLogEventBegin(THRONG_EV.predict, 0, 0, 0, 0));
  WarmFinish(s, wm);
  PetscCall(PetscLogEventEnd(THRONG_EV.predict, 0, 0, 0, 0));
  wm->inStep = PETSC_FALSE;
  s->sol.iterations += 1;
  s->sol.lastIts = 1;
  s->sol.maxIts  = 1;
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
  PetscCall(WarmSyncSlots(s, wm));
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
          const PetscInt t   = (PetscInt)(key - WARM_WALL);
          const double   lam = SlotLambda(sl[q]), ri = p->r[i];
          double         nx, ny;
          if (!(WallDistance(wl, t, p->x[i], p->y[i], &nx, &ny) < PETSC_INFINITY)) continue;
          if (lam > 0)
            add(s, i, -1 - (PetscInt64)t, p->id[i], lam * nx, lam * ny, ri * nx, ri * ny, p->y[i] - 0.5 * ri * ny);
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
  PetscCall(WarmSyncSlots(s, wm));
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
                        "throng: solver=pbdw warm=%g blend=%g sweeps=%" PetscInt_FMT
                        " (contact multipliers carried between steps, %d slots per disk; %s)\n",
                        (double)p->warm, (double)p->warmBlend, p->warmSweeps, WARM_SLOTS,
                        p->warmSweeps == 2 ? "a symmetric sweep"
                                           : "one forward sweep: unstable in wide piles, docs/algorithm.md"));
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
