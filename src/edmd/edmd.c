/* edmd — event-driven molecular dynamics of hard disks (seed 003), O(log N) per event.
 *
 * Disks fly on straight lines between events, and an event is exact: a pair touches
 * (Lemma 1: the first root of |dr + t dv| = sigma), a disk meets a wall (Lemma 2), and
 * the bounce is elastic with masses (Lemma 3: the impulse J = 2 mu (dv . n) along the
 * line of centres keeps momentum and energy).  Seed 003's SIMULATE keeps every predicted
 * event in one queue and drops those made stale by a later bounce, through per-disk
 * collision counts.  This engine keeps its guarantees and makes each event cost O(log N):
 *
 * Lazy states.  Disk i stores (x, v) at its own time t_i and moves only when an event
 * involves it.  A pair is predicted from the two stored states brought to
 * t_ref = max(t_i, t_j), so a prediction depends on the states alone, never on when it
 * is made: the brute-force and the cell engine compute bitwise the same event times.
 *
 * One event per disk (Lubachevsky 1991).  Each disk holds only its earliest predicted
 * event (partner, time, the partner's collision count then), and a tournament tree
 * orders the disks by that time: N leaves, no stale entries piling up.  The top disk's
 * event is
 *   - stale if its partner has bounced since (counts differ): the disk predicts again;
 *   - else processed: both disks move to the event time and bounce, their counts rise,
 *     and both predict again.
 * Why nothing is missed: when disk p predicted, every partner's contact was at or after
 * p's chosen time; a partner whose path changed since has predicted again, with p among
 * its candidates.  So the true next contact of the system is, at the latest, the event
 * of one of its two disks, or a stale event before it triggers the prediction that finds
 * it (the invariant (I) of seed 003's theorem, with "in Q" read as "in the event of one
 * of the two disks, or found at a stale pop that comes before it").
 *
 * Cell lists.  The box is cut into cells at least sigma_max wide; a disk predicts only
 * against the 3 x 3 cells around its own, and a cell crossing is one more kind of event
 * (the disk's path does not change: no count rises, no state moves, the disk changes
 * list and predicts against its new neighbours).  Two disks can touch only when in
 * neighbouring cells, so each prediction costs O(1) and each event O(log N) for the
 * queue.  A cell keeps its disks in a small array (its capacity is a packing bound), so
 * the neighbours' states are loaded independently, not by chasing list pointers.
 * The cell index is kept unwrapped (it changes only by crossing events), so round-off
 * at a cell border can never disagree with the lists.  -edmd_brute predicts against all
 * disks instead: the O(N) oracle of the tests, which must process the same collisions
 * and bounces in the same order.
 *
 * Memory.  Each event lands at a random place in the box, so its loads miss the cache;
 * once the engine's data outgrow the last-level cache (about 10^5 disks on a machine
 * with ~10 MB of it) they come from main memory, 5-10 times slower.  The layout is
 * therefore chosen for bytes per disk (docs/edmd.md has the measurements):
 *   - a disk's state is one 64-byte line, all a candidate pair reads;
 *   - its event (time, partner, the partner's count) is 16 bytes and is itself a leaf
 *     of the queue, four to a line; the masses, read only at bounces, are apart;
 *   - a cell of equal disks is 4 slots of 16 bytes (-1 marks the free ones), gathered
 *     by one 16-byte copy each;
 *   - a crossing scans all 9 cells again rather than keeping the disk's best pair from
 *     its last prediction (16 more bytes per disk cost more in misses than they saved).
 *
 * Boundaries.  Walls (seed 003's box, Lemma 2 on each side) or periodic (minimum image of
 * dr; a position is wrapped back into the box when the disk moves, and its unwrapped cell
 * index with it).  Periodic boxes need 3 cells per direction for the cell engine.
 *
 * Ties: the queue orders by (time, disk), and a disk picks among equal times the lowest
 * partner code, so the order is deterministic; simultaneous contacts have no unique
 * physical answer in the hard-disk model (seed 003), this is one of them.
 *
 * Minimum images: the difference is brought into [-L/2, L/2] by adding or subtracting L
 * (a loop: the lazy positions lie within a few L of the box), the same arithmetic in
 * every engine.
 *
 * Measurements: collisions, wall bounces, and the collision virial sum |r_ij| |J|, from
 * which the pressure follows (edmd_run.c).                                              */
#include <throng/edmd/edmd.h>
#if defined(__SSE2__)
#  include <emmintrin.h>
#endif

/* ---- event queue: a 4-ary tournament tree over the disks, in index order ------------
   The leaves are the disks' events themselves: ev[i] holds disk i's event time beside its
   partner and the partner's count, so scheduling writes one 16-byte leaf, and four
   sibling leaves share a 64-byte line.  Above them, inner node k holds the (time, disk)
   of the earliest event below it (children of k: 4k+1 .. 4k+4, counted with the leaves
   numbered from leaf0, again one line), so the root is the next event.  Changing disk
   i's time rewrites the path from its leaf up and stops where a node keeps its value.
   Unlike a heap it needs no "where is disk i" array, and each level costs one line.    */

/* The first of four times with the least one (a tournament of two rounds, with no branch
   to mispredict: the times are random, so a running minimum's branches would fail about
   half the time). */
#define EDMD_MIN4(c) \
  ({ \
    const int w01_ = (c)[1].t < (c)[0].t, w23_ = 2 + ((c)[3].t < (c)[2].t); \
    (c)[w23_].t < (c)[w01_].t ? w23_ : w01_; \
  })

/* Disk i's event time (in ev[i].t) changed.  Among equal times the lower index wins at
   each round, so the order is (time, disk) without comparing disks. */
static inline void QueueUpdate(EDMD *e, PetscInt i)
{
  EDMDSlot        *q = e->tree;
  PetscInt         k = (e->leaf0 + i - 1) / 4;
  const PetscInt   j = 4 * k + 1 - e->leaf0; /* the first of the four sibling leaves */
  const EDMDEvent *c = &e->ev[j];
  const int        w = EDMD_MIN4(c);
  if (q[k].disk == j + w && q[k].t == c[w].t) return; /* unchanged from here up */
  q[k] = (EDMDSlot){c[w].t, j + w};
  while (k > 0) {
    k                  = (k - 1) / 4;
    const EDMDSlot *cc = &q[4 * k + 1];
    const int       ww = EDMD_MIN4(cc);
    if (cc[ww].disk == q[k].disk && cc[ww].t == q[k].t) break;
    q[k] = cc[ww];
  }
}

/* ---- cells ------------------------------------------------------------------------- */

static inline PetscInt Wrap(PetscInt k, PetscInt n) /* k is within a few n of [0, n) */
{
  while (k < 0) k += n;
  while (k >= n) k -= n;
  return k;
}

/* Minimum image of a difference in a periodic direction of length L (hL = L / 2); the
   lazy positions lie within a few L of the box, so a loop beats a division. */
static inline PetscReal Image(PetscReal d, PetscReal L, PetscReal hL)
{
  while (d > hL) d -= L;
  while (d < -hL) d += L;
  return d;
}

static inline PetscInt CellOf(const EDMD *e, const EDMDDisk *q)
{
  return Wrap(q->ky, e->nc[1]) * e->nc[0] + Wrap(q->kx, e->nc[0]);
}

/* A cell is cap slots holding its disks' indices from the front, -1 after the last. */
static void CellInsert(EDMD *e, PetscInt i)
{
  EDMDDisk *q = &e->d[i];
  int      *c = &e->cell[CellOf(e, q) * e->cap];
  int       k = 0;
  while (c[k] >= 0) k++; /* the bound on cap leaves a free slot unless disks overlap */
  c[k]    = (int)i;
  q->slot = k;
}

static void CellRemove(EDMD *e, PetscInt i)
{
  EDMDDisk *q = &e->d[i];
  int      *c = &e->cell[CellOf(e, q) * e->cap];
  int       l = q->slot;
  while (l + 1 < e->cap && c[l + 1] >= 0) l++;
  const int last = c[l]; /* the last disk of the cell takes the hole */
  c[l]           = -1;
  if (l != q->slot) c[q->slot] = last, e->d[last].slot = q->slot;
}

/* The disks in a 4-slot cell: its used slots come first, so with SSE2 the sign bits of
   the four slots (1 for each empty one) have as many trailing zeros as the cell has disks. */
static inline int Used4(const int *c)
{
#if defined(__SSE2__)
  return __builtin_ctz((unsigned)_mm_movemask_ps(_mm_castsi128_ps(_mm_loadu_si128((const __m128i *)c))) | 16u);
#else
  return (c[0] >= 0) + (c[1] >= 0) + (c[2] >= 0) + (c[3] >= 0);
#endif
}

/* ---- prediction --------------------------------------------------------------------- */

/* Candidate (t, partner) better than the best so far? Lowest time, then lowest code. */
static inline void Consider(PetscReal t, PetscInt p, PetscReal *bt, PetscInt *bp)
{
  if (t < *bt || (t == *bt && p < *bp)) *bt = t, *bp = p;
}

static inline void PairCandidate(const EDMD *e, const EDMDDisk *a, const EDMDDisk *b, PetscInt j, PetscReal *bt,
                                 PetscInt *bp)
{
  const PetscReal tr = PetscMax(a->t, b->t);
  const PetscReal xi = a->x + a->vx * (tr - a->t), yi = a->y + a->vy * (tr - a->t);
  const PetscReal xj = b->x + b->vx * (tr - b->t), yj = b->y + b->vy * (tr - b->t);
  PetscReal       dx = xj - xi, dy = yj - yi;
  if (e->periodic) {
    dx = Image(dx, e->L[0], e->hL[0]);
    dy = Image(dy, e->L[1], e->hL[1]);
  }
  const PetscReal tau = EDMDPairTime(dx, dy, b->vx - a->vx, b->vy - a->vy, a->r + b->r);
  if (tau < INFINITY) Consider(tr + tau, j, bt, bp);
}

/* Disk i's own candidates: the walls (Lemma 2) and, with cells, leaving its cell. */
static void OwnCandidates(const EDMD *e, const EDMDDisk *a, PetscReal *bt, PetscInt *bp)
{
  PetscInt side;
  if (!e->periodic) { /* Lemma 2 on the four walls */
    PetscReal tau = EDMDWallTime(a->x, a->vx, e->lo[0] + a->r, e->lo[0] + e->L[0] - a->r, &side);
    if (side >= 0) Consider(a->t + tau, EDMD_WALL - side, bt, bp);
    tau = EDMDWallTime(a->y, a->vy, e->lo[1] + a->r, e->lo[1] + e->L[1] - a->r, &side);
    if (side >= 0) Consider(a->t + tau, EDMD_WALL - 2 - side, bt, bp);
  }
  if (e->brute) return;
  for (int d = 0; d < 2; d++) { /* the next cell border along each axis (none beyond walls) */
    const PetscReal v = d ? a->vy : a->vx, q = d ? a->y : a->x;
    const PetscInt  k = d ? a->ky : a->kx;
    if (v == 0) continue;
    if (!e->periodic && ((v > 0 && k == e->nc[d] - 1) || (v < 0 && k == 0))) continue;
    const PetscReal border = e->lo[d] + (PetscReal)(k + (v > 0)) * e->w[d];
    Consider(a->t + PetscMax((border - q) / v, 0), EDMD_CROSS - 2 * d - (v > 0), bt, bp);
  }
}

/* Schedule disk i's event (time bt, partner bp). */
static void Schedule(EDMD *e, PetscInt i, PetscReal bt, PetscInt bp)
{
  if (bt < e->now) bt = e->now; /* round-off: never schedule into the past */
  e->ev[i] = (EDMDEvent){bt, (int)bp, bp >= 0 ? e->d[bp].count : 0};
  QueueUpdate(e, i);
}

/* The cell indices k - 1, k, k + 1 (k in [0, n)) along one direction: wrapped if
   periodic, else those inside [0, n); returns how many. */
static inline PetscInt Around(PetscInt k, PetscInt n, PetscBool periodic, PetscInt out[3])
{
  PetscInt m = 0;
  for (PetscInt c = k - 1; c <= k + 1; c++) {
    if (c >= 0 && c < n) out[m++] = c;
    else if (periodic) out[m++] = c < 0 ? c + n : c - n;
  }
  return m;
}

/* Gather into nb the disks of the 3 x 3 cells around disk a (cell engine; a periodic box
   has >= 3 cells in each direction); returns their number (disk a among them).  The
   wrapped columns and rows are found once.  A cell of 4 slots (equal disks) is copied
   whole in one 16-byte move and the count advanced by its used slots, so that the gather
   has no branch per disk; the slots past the count are overwritten by the next cell or
   ignored.  nb has room for 9 cap + 4 entries. */
static inline PetscInt Gather(const EDMD *e, const EDMDDisk *a, int *nb)
{
  const PetscInt nx = e->nc[0], stride = e->cap;
  PetscInt       col[3], row[3], m = 0;
  const PetscInt ncol = Around(Wrap(a->kx, nx), nx, e->periodic, col),
                 nrow = Around(Wrap(a->ky, e->nc[1]), e->nc[1], e->periodic, row);

  for (PetscInt r = 0; r < nrow; r++) row[r] *= nx;
  if (stride == 4) {
    for (PetscInt r = 0; r < nrow; r++)
      for (PetscInt c = 0; c < ncol; c++) {
        const int *cell = &e->cell[(row[r] + col[c]) * 4];
        memcpy(&nb[m], cell, 4 * sizeof(int));
        m += Used4(cell);
      }
  } else {
    for (PetscInt r = 0; r < nrow; r++)
      for (PetscInt c = 0; c < ncol; c++) {
        const int *cell = &e->cell[(row[r] + col[c]) * stride];
        for (PetscInt k = 0; k < stride && cell[k] >= 0; k++) nb[m++] = cell[k];
      }
  }
  return m;
}

/* Schedule disk i's earliest event: its walls and crossings, and the pairs with every
   neighbour (or every disk, brute).  The neighbours are gathered first and their states
   prefetched, so that the cache misses overlap instead of queueing behind each
   candidate's arithmetic. */
static void Predict(EDMD *e, PetscInt i)
{
  const EDMDDisk *a  = &e->d[i];
  PetscReal       pt = INFINITY;
  PetscInt        pp = EDMD_NONE;

  if (e->brute) {
    for (PetscInt j = 0; j < e->n; j++)
      if (j != i) PairCandidate(e, a, &e->d[j], j, &pt, &pp);
  } else {
    int           *nb = e->nb;
    const PetscInt m  = Gather(e, a, nb);
    for (PetscInt k = 0; k < m; k++) __builtin_prefetch(&e->d[nb[k]]);
    for (PetscInt k = 0; k < m; k++)
      PairCandidate(e, a, &e->d[nb[k]], nb[k], &pt, &pp); /* a disk with itself: receding (b = 0), INFINITY */
  }
  OwnCandidates(e, a, &pt, &pp);
  Schedule(e, i, pt, pp);
}

/* Bring disk i to time t (a straight flight), wrapped into a periodic box. */
static void Move(EDMD *e, PetscInt i, PetscReal t)
{
  EDMDDisk *q = &e->d[i];
  q->x += q->vx * (t - q->t);
  q->y += q->vy * (t - q->t);
  q->t = t;
  if (!e->periodic) return;
  const PetscReal sx = PetscFloorReal((q->x - e->lo[0]) / e->L[0]), sy = PetscFloorReal((q->y - e->lo[1]) / e->L[1]);
  if (sx != 0) q->x -= sx * e->L[0], q->kx -= (int)sx * (int)e->nc[0];
  if (sy != 0) q->y -= sy * e->L[1], q->ky -= (int)sy * (int)e->nc[1];
}

/* ---- the main loop ------------------------------------------------------------------ */

PetscErrorCode EDMDAdvance(EDMD *e, PetscReal limit)
{
  PetscFunctionBeginUser;
  while (e->n && e->tree[0].t <= limit) {
    const PetscInt  i = e->tree[0].disk, p = e->ev[i].partner;
    const PetscReal t = e->tree[0].t;
    e->now            = t;
    e->events++;
    if (p >= 0) {
      if (e->d[p].count != e->ev[i].count) { /* the partner bounced since: look again */
        e->stale++;
        Predict(e, i);
        continue;
      }
      EDMDDisk *a = &e->d[i], *b = &e->d[p];
      Move(e, i, t);
      Move(e, p, t);
      PetscReal dx = b->x - a->x, dy = b->y - a->y;
      if (e->periodic) {
        dx = Image(dx, e->L[0], e->hL[0]);
        dy = Image(dy, e->L[1], e->hL[1]);
      }
      const PetscReal J = EDMDBounce(e->m[i], e->m[p], dx, dy, &a->vx, &a->vy, &b->vx, &b->vy),
                      l = PetscSqrtReal(dx * dx + dy * dy);
      e->virial += l * PetscAbsReal(J);
      e->contact = PetscMax(e->contact, PetscAbsReal(1 - l / (a->r + b->r))); /* |dr| = sigma? */
      a->count++, b->count++;
      e->collisions++;
      if (e->log) fprintf(e->log, "%a c %d %d\n", (double)t, (int)PetscMin(i, p), (int)PetscMax(i, p));
      Predict(e, i);
      Predict(e, p);
    } else if (p <= EDMD_WALL && p > EDMD_CROSS) { /* a wall: reverse the normal velocity */
      const PetscInt k = EDMD_WALL - p;
      EDMDDisk      *a = &e->d[i];
      Move(e, i, t);
      if (k < 2) {
        e->wallImpulse += 2 * e->m[i] * PetscAbsReal(a->vx);
        a->vx = -a->vx;
      } else {
        e->wallImpulse += 2 * e->m[i] * PetscAbsReal(a->vy);
        a->vy = -a->vy;
      }
      a->count++;
      e->bounces++;
      if (e->log) fprintf(e->log, "%a w %d %d\n", (double)t, (int)i, (int)k);
      Predict(e, i);
    } else if (p <= EDMD_CROSS && p > EDMD_NONE) { /* into the next cell: same path, new neighbours */
      const PetscInt k = EDMD_CROSS - p;
      CellRemove(e, i);
      if (k < 2) e->d[i].kx += k ? 1 : -1;
      else e->d[i].ky += k == 3 ? 1 : -1;
      CellInsert(e, i);
      e->crossings++;
      Predict(e, i); /* all 9 cells: see Memory above */
    } else break;    /* EDMD_NONE has time INFINITY */
  }
  e->now = PetscMax(e->now, limit);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---- set-up, queries ---------------------------------------------------------------- */

PetscErrorCode EDMDCreate(PetscInt n, const PetscReal *x, const PetscReal *y, const PetscReal *vx, const PetscReal *vy,
                          const PetscReal *r, const PetscReal *m, const PetscReal lo[2], const PetscReal L[2],
                          PetscBool periodic, PetscBool brute, EDMD *e)
{
  PetscReal smax = 0, smin = INFINITY, ovl;

  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(e, sizeof(*e)));
  PetscCheck(n < 2147483647, PETSC_COMM_SELF, PETSC_ERR_SUP, "edmd: at most 2^31 - 1 disks");
  e->n = n, e->periodic = periodic, e->brute = brute;
  e->lo[0] = lo[0], e->lo[1] = lo[1], e->L[0] = L[0], e->L[1] = L[1], e->hL[0] = L[0] / 2, e->hL[1] = L[1] / 2;
  PetscCall(PetscMalloc1(n + 2, &e->dRaw)); /* disks on 64-byte lines: one line each */
  e->d = e->dRaw;
  while (((uintptr_t)e->d) % 64) e->d = (EDMDDisk *)((char *)e->d + 16);
  PetscCall(PetscMalloc1(n + 1, &e->m));
  { /* 4-ary tree: P leaves (a power of 4 >= max(n, 4)), each line of four aligned on 64
       bytes, under (P - 1) / 3 inner nodes whose groups of four children are aligned too */
    PetscInt P = 4;
    while (P < n) P *= 4;
    e->leaf0 = (P - 1) / 3;
    PetscCall(PetscMalloc1(P + 4, &e->evRaw));
    e->ev = e->evRaw;
    while (((uintptr_t)e->ev) % 64) e->ev++;
    for (PetscInt k = 0; k < P; k++)
      e->ev[k] = (EDMDEvent){INFINITY, EDMD_NONE, 0}; /* leaves of absent disks never win */
    PetscCall(PetscMalloc1(e->leaf0 + 4, &e->treeRaw));
    e->tree = e->treeRaw;
    while (((uintptr_t)(e->tree + 1)) % 64) e->tree++;
    for (PetscInt k = 0; k < e->leaf0; k++) e->tree[k] = (EDMDSlot){INFINITY, -1};
  }
  for (PetscInt i = 0; i < n; i++) {
    EDMDDisk *q = &e->d[i];
    PetscCheck(m[i] > 0 && r[i] > 0, PETSC_COMM_SELF, PETSC_ERR_USER_INPUT,
               "edmd: disk %" PetscInt_FMT " has mass %g and radius %g; both must be > 0", i, (double)m[i],
               (double)r[i]);
    *q      = (EDMDDisk){x[i], y[i], vx[i], vy[i], 0, r[i], 0, 0, 0, 0};
    e->m[i] = m[i];
    smax    = PetscMax(smax, 2 * r[i]);
    smin    = PetscMin(smin, 2 * r[i]);
    if (periodic) {
      q->x -= L[0] * PetscFloorReal((q->x - lo[0]) / L[0]);
      q->y -= L[1] * PetscFloorReal((q->y - lo[1]) / L[1]);
    } else
      PetscCheck(x[i] - r[i] >= lo[0] && x[i] + r[i] <= lo[0] + L[0] && y[i] - r[i] >= lo[1] &&
                   y[i] + r[i] <= lo[1] + L[1],
                 PETSC_COMM_SELF, PETSC_ERR_USER_INPUT,
                 "edmd: disk %" PetscInt_FMT " at (%g, %g) sticks out of the box", i, (double)x[i], (double)y[i]);
  }
  for (int d = 0; d < 2; d++) { /* cells at least sigma_max (and a hair) wide */
    e->nc[d] = smax > 0 ? (PetscInt)PetscMin(PetscFloorReal(L[d] / (smax * (1 + 1e-10))), 1 << 15) : 1;
    e->nc[d] = PetscMax(1, e->nc[d]);
    e->w[d]  = L[d] / (PetscReal)e->nc[d];
  }
  if (periodic && (e->nc[0] < 3 || e->nc[1] < 3)) e->brute = PETSC_TRUE; /* too small for cells */
  PetscCall(EDMDMaxOverlap(e, 0, &ovl, NULL)); /* once, before the cells: their capacity bound needs it */
  PetscCheck(ovl < 0, PETSC_COMM_SELF, PETSC_ERR_USER_INPUT,
             "edmd: disks overlap or touch at the start (largest overlap %g of a diameter); hard disks need gaps: "
             "lower the packing (-init_phi) or use -init lattice",
             (double)ovl);
  if (!e->brute) {
    /* disks in a cell: sub-squares of side < sigma_min / sqrt 2 hold at most one centre
       of non-overlapping disks, so ceil(sqrt 2 w / sigma_min)^2 bounds the count */
    const PetscInt  nc = e->nc[0] * e->nc[1];
    const PetscReal k  = PetscCeilReal(PetscSqrtReal(2.0) * PetscMax(e->w[0], e->w[1]) / smin * (1 + 1e-9));
    e->cap             = (PetscInt)(k * k);
    PetscCheck((PetscReal)nc * (PetscReal)e->cap < 2e9, PETSC_COMM_SELF, PETSC_ERR_SUP,
               "edmd: %" PetscInt_FMT " cells of %" PetscInt_FMT
               " slots: too many (radii too different, or the box too large)",
               nc, e->cap);
    PetscCall(PetscMalloc1((size_t)nc * e->cap, &e->cell));
    memset(e->cell, 0xff, sizeof(int) * (size_t)nc * e->cap); /* every slot -1: empty */
    PetscCall(PetscMalloc1(
      9 * e->cap + 4, &e->nb)); /* a 3 x 3 neighbourhood holds at most 9 cap, and a 16-byte copy may write 4 past */
    for (PetscInt i = 0; i < n; i++) {
      e->d[i].kx = (int)PetscMin(e->nc[0] - 1, PetscMax(0, (PetscInt)PetscFloorReal((e->d[i].x - lo[0]) / e->w[0])));
      e->d[i].ky = (int)PetscMin(e->nc[1] - 1, PetscMax(0, (PetscInt)PetscFloorReal((e->d[i].y - lo[1]) / e->w[1])));
      CellInsert(e, i);
    }
  }
  for (PetscInt i = 0; i < n; i++) Predict(e, i);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode EDMDDestroy(EDMD *e)
{
  PetscFunctionBeginUser;
  PetscCall(PetscFree(e->dRaw));
  PetscCall(PetscFree(e->evRaw));
  PetscCall(PetscFree(e->m));
  PetscCall(PetscFree(e->treeRaw));
  PetscCall(PetscFree(e->cell));
  PetscCall(PetscFree(e->nb));
  PetscFunctionReturn(PETSC_SUCCESS);
}

void EDMDStateAt(const EDMD *e, PetscReal t, PetscReal *x, PetscReal *y, PetscReal *vx, PetscReal *vy)
{
  for (PetscInt i = 0; i < e->n; i++) {
    const EDMDDisk *q = &e->d[i];
    PetscReal       X = q->x + q->vx * (t - q->t), Y = q->y + q->vy * (t - q->t);
    if (e->periodic) {
      X -= e->L[0] * PetscFloorReal((X - e->lo[0]) / e->L[0]);
      Y -= e->L[1] * PetscFloorReal((Y - e->lo[1]) / e->L[1]);
    }
    x[i] = X, y[i] = Y;
    if (vx) vx[i] = q->vx, vy[i] = q->vy;
  }
}

PetscErrorCode EDMDMaxOverlap(const EDMD *e, PetscReal t, PetscReal *ovl, PetscReal *wallOvl)
{
  PetscReal *X, *Y, worst = -INFINITY, wworst = -INFINITY;
  PetscInt  *order = NULL, *start = NULL, nb[2];
  PetscReal  bw[2];

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc2(e->n + 1, &X, e->n + 1, &Y));
  EDMDStateAt(e, t, X, Y, NULL, NULL);
  /* bins of >= sigma_max from the positions at t (the engine's lists are at other times) */
  for (int d = 0; d < 2; d++) {
    nb[d] = PetscMax(1, e->nc[d]);
    bw[d] = e->L[d] / (PetscReal)nb[d];
  }
  const PetscInt nbin = nb[0] * nb[1];
  PetscCall(PetscCalloc1(nbin + 1, &start));
  PetscCall(PetscMalloc1(e->n + 1, &order));
#define BIN(i) \
  (PetscMin(nb[1] - 1, PetscMax(0, (PetscInt)PetscFloorReal((Y[i] - e->lo[1]) / bw[1]))) * nb[0] + \
   PetscMin(nb[0] - 1, PetscMax(0, (PetscInt)PetscFloorReal((X[i] - e->lo[0]) / bw[0]))))
  for (PetscInt i = 0; i < e->n; i++) start[BIN(i) + 1]++;
  for (PetscInt b = 0; b < nbin; b++) start[b + 1] += start[b];
  {
    PetscInt *fill;
    PetscCall(PetscMalloc1(nbin + 1, &fill));
    PetscCall(PetscArraycpy(fill, start, nbin + 1));
    for (PetscInt i = 0; i < e->n; i++) order[fill[BIN(i)]++] = i;
    PetscCall(PetscFree(fill));
  }
  for (PetscInt i = 0; i < e->n; i++) {
    const PetscInt b = BIN(i), bx = b % nb[0], by = b / nb[0];
    if (!e->periodic) { /* walls */
      wworst = PetscMax(wworst, (e->lo[0] + e->d[i].r - X[i]) / (2 * e->d[i].r));
      wworst = PetscMax(wworst, (X[i] + e->d[i].r - e->lo[0] - e->L[0]) / (2 * e->d[i].r));
      wworst = PetscMax(wworst, (e->lo[1] + e->d[i].r - Y[i]) / (2 * e->d[i].r));
      wworst = PetscMax(wworst, (Y[i] + e->d[i].r - e->lo[1] - e->L[1]) / (2 * e->d[i].r));
    }
    const PetscBool all = e->periodic && (nb[0] < 3 || nb[1] < 3); /* tiny box: every pair */
    for (PetscInt dy = -1; dy <= 1; dy++)
      for (PetscInt dx = -1; dx <= 1; dx++) {
        PetscInt cx = bx + dx, cy = by + dy, k0, k1;
        if (all) {
          if (dx || dy) continue;
          k0 = 0, k1 = e->n;
        } else {
          if (e->periodic) cx = Wrap(cx, nb[0]), cy = Wrap(cy, nb[1]);
          else if (cx < 0 || cy < 0 || cx >= nb[0] || cy >= nb[1]) continue;
          k0 = start[cy * nb[0] + cx], k1 = start[cy * nb[0] + cx + 1];
        }
        for (PetscInt k = k0; k < k1; k++) {
          const PetscInt j = all ? k : order[k];
          if (j <= i) continue;
          PetscReal ddx = X[j] - X[i], ddy = Y[j] - Y[i];
          if (e->periodic) {
            ddx -= e->L[0] * nearbyint(ddx / e->L[0]);
            ddy -= e->L[1] * nearbyint(ddy / e->L[1]);
          }
          worst = PetscMax(worst, 1 - PetscSqrtReal(ddx * ddx + ddy * ddy) / (e->d[i].r + e->d[j].r));
        }
      }
  }
#undef BIN
  PetscCall(PetscFree2(X, Y));
  PetscCall(PetscFree(order));
  PetscCall(PetscFree(start));
  *ovl = e->n > 1 ? worst : -1;
  if (wallOvl) *wallOvl = e->periodic || !e->n ? -1 : wworst;
  PetscFunctionReturn(PETSC_SUCCESS);
}

void EDMDEnergy(const EDMD *e, PetscReal *ekin, PetscReal p[2])
{
  PetscReal k = 0, px = 0, py = 0;
  for (PetscInt i = 0; i < e->n; i++) {
    k += 0.5 * e->m[i] * (e->d[i].vx * e->d[i].vx + e->d[i].vy * e->d[i].vy);
    px += e->m[i] * e->d[i].vx;
    py += e->m[i] * e->d[i].vy;
  }
  *ekin = k, p[0] = px, p[1] = py;
}
