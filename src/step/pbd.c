/* pbd — one step of first-order position-based dynamics, distributed.
 *
 * The scheme (seed 000, eq. 6):   x_{k+1} = P_{S_m} ∘ ... ∘ P_{S_1} (x_k + h f(x_k)),
 * a prediction followed by ONE sweep of projections onto the single constraints S_j
 * (pairs |q_i - q_j| >= r_i + r_j and walls), in a fixed order.
 *
 * The distributed sweep is a sequential sweep.  Tiles of one colour have disjoint
 * footprints (domain.c), so projecting them in any order, or at the same time on
 * different ranks, gives the same result as projecting them one after the other.  The
 * four colours run in sequence and between colours the halo brings every rank's ghosts
 * up to date (reverse, then forward exchange: halo.c).  Inside a tile the order is: the
 * even cell rows, then the odd ones (each row west to east; rows of one parity touch
 * disjoint disks, see SweepTile), disk by disk in id order inside a cell: walls of each
 * disk of the cell, then for each disk its pairs with later disks of the same cell and
 * with the disks of the cells E, NW, N, NE.  This order depends on the binning only — never on the rank count —
 * and so does every floating-point operation: the trajectory is bitwise the same on any
 * number of ranks.
 *
 * Which constraints: all of them.  The sweep visits the candidate pairs (disks in the
 * same or neighbouring cells at the last binning).  Cells are at least 2 r_max + skin
 * wide, so a pair that is not a candidate was more than r_i + r_j + skin apart when
 * binned.  As long as every disk stays within skin/2 of where it was binned, such a
 * pair cannot overlap, and its projection is the identity wherever it stands in the
 * order — put all of them at the end of the sweep.  The sweep is therefore exactly
 * P_{S_m} ∘ ... ∘ P_{S_1} over ALL pair and wall constraints, for an order that depends
 * on the state through the binning.  Seed 000's estimates (Lemma 3.2, Th. 3.7: the
 * constants eps_P and L_P < 1) hold for each of the finitely many orders of the m
 * constraints, so they hold uniformly with the worst of them, and Th. 3.11/3.13
 * (consistency, stability, convergence) cover this scheme.  After every sweep the largest
 * distance from the binning position is reduced over all ranks (fused into the next
 * prediction's pass, which also keeps the positions the sweep left).  If it reached
 * skin/2 the candidate set may have been incomplete: the prediction is undone, and the
 * pairs that overlap are counted among the old candidates and, rebinned, among all pairs
 * (CheckBeyondSkin).  Equal counts: no pair was missed, the sweep was the method's, and
 * the step is predicted again from the new binning (beyond_half_skin in the summary).
 * More: the sweep missed a pair, and main.c stops the run with an error — a result that
 * is not the method's is never written (as LAMMPS's neigh_modify check yes, but checked
 * after the fact rather than by rebinning every step).  The disks are rebinned when a
 * prediction takes one further than -rebin_fraction x skin from its binning position,
 * which leaves the sweep (1/2 - rebin_fraction) x skin of room.
 *
 * Cost per step: one streaming pass for the prediction (owned disks and ghosts: f
 * depends on a disk's own state, so ghosts are predicted locally, bit-identically), one
 * sweep touching each disk's ~6 candidates, one reduction for the displacement check,
 * and 2 x 4 neighbour exchanges of the ghost positions.                                      */
#include <throng/core/sim.h>
#include <throng/step/pbd.h>
#include <throng/util/project.h>
#include <throng/core/stress.h>

static inline void SweepCell(PetscInt k, const PetscInt fwd[4], const Cells *c, PetscReal *restrict x,
                             PetscReal *restrict y, const PetscReal *restrict r, const PetscInt64 *restrict id,
                             const Walls *wl, const char *wallMask)
{
  const PetscInt b = c->beg[k], e = c->end[k];
  if (b == e) return;
  if (wallMask[k])
    for (PetscInt i = b; i < e; i++) {
      for (PetscInt w = 0; w < wl->n; w++) ProjectHalfPlane(&x[i], &y[i], r[i], &wl->w[3 * w]);
      for (PetscInt j = wl->segBeg[k]; j < wl->segBeg[k + 1]; j++)
        ProjectSegment(&x[i], &y[i], r[i], &wl->seg[4 * wl->segIdx[j]], &wl->nrm[2 * wl->segIdx[j]], wl->depth);
    }
  for (PetscInt i = b; i < e; i++) {
    PetscReal        xi = x[i], yi = y[i];
    const PetscReal  ri  = r[i];
    const PetscInt64 idi = id[i];
    for (PetscInt j = i + 1; j < e; j++) ProjectPair(&xi, &yi, &x[j], &y[j], ri + r[j], idi, &id[j]);
    for (int f = 0; f < 4; f++) {
      const PetscInt nk = k + fwd[f], je = c->end[nk];
      for (PetscInt j = c->beg[nk]; j < je; j++) ProjectPair(&xi, &yi, &x[j], &y[j], ri + r[j], idi, &id[j]);
    }
    x[i] = xi;
    y[i] = yi;
  }
}

/* A tile's cells in the sweep order: first the cell rows y0, y0+2, ..., then y0+1,
   y0+3, ...; in a row, west to east.  A row's footprint is itself and the row above, so
   rows of one parity are independent of each other: we run two of them at once, cell by
   cell, which gives the processor two independent Gauss-Seidel chains to overlap.  The
   result is that of sweeping those rows one after the other.                          */
static void SweepTile(const Domain *d, const Cells *c, Particles *p, const Walls *wl, const char *wallMask, PetscInt tx,
                      PetscInt ty)
{
  const PetscInt L = d->ln[0];
  PetscInt       fwd[4];
  DomainForwardOffsets(L, fwd);
  const PetscInt x0 = tx * d->tile, x1 = PetscMin(x0 + d->tile, d->nc[0]);
  const PetscInt y0 = ty * d->tile, y1 = PetscMin(y0 + d->tile, d->nc[1]);
  for (PetscInt parity = 0; parity < 2; parity++)
    for (PetscInt cy = y0 + parity; cy < y1; cy += 4) {
      const PetscInt ka = DomainLocalCell(d, x0, cy);
      if (cy + 2 < y1) {
        const PetscInt kb = ka + 2 * L;
        for (PetscInt cx = 0; cx < x1 - x0; cx++) {
          SweepCell(ka + cx, fwd, c, p->x, p->y, p->r, p->id, wl, wallMask);
          SweepCell(kb + cx, fwd, c, p->x, p->y, p->r, p->id, wl, wallMask);
        }
      } else
        for (PetscInt cx = 0; cx < x1 - x0; cx++) SweepCell(ka + cx, fwd, c, p->x, p->y, p->r, p->id, wl, wallMask);
    }
}

/* The colour loop every sweep shares: tiles of one colour (any order: their footprints
   are disjoint), the colours in order (reverse: in the opposite order) with the halo
   exchanges between them.  tile(s, ctx, tx, ty, reverse) sweeps one tile.            */

static PetscErrorCode SweepColours(Sim *s, PBDTileFn tile, void *ctx, PetscBool reverse, const PBDPair *pair)
{
  const Domain *d = &s->dom;

  PetscFunctionBeginUser;
  for (int c = 0; c < THRONG_NCOLOURS; c++) {
    const int      colour = reverse ? THRONG_NCOLOURS - 1 - c : c;
    PetscLogDouble b0, b1;
    PetscCall(PetscLogEventBegin(THRONG_EV.sweep, 0, 0, 0, 0));
    PetscCall(PetscTime(&b0));
    for (PetscInt ty = DomainColourStart(d->t0[1], colour >> 1); ty < d->t1[1]; ty += 2)
      for (PetscInt tx = DomainColourStart(d->t0[0], colour & 1); tx < d->t1[0]; tx += 2) tile(s, ctx, tx, ty, reverse);
    PetscCall(PetscTime(&b1));
    s->busy += b1 - b0; /* work without the waits, for the balance records */
    PetscCall(PetscLogEventEnd(THRONG_EV.sweep, 0, 0, 0, 0));
    if (d->nnbr) { /* another rank, or this one across a periodic side */
      PetscCall(HaloReverse(d, &s->P, &s->halo));
      PetscCall(HaloForward(d, &s->P, &s->halo));
      if (pair) {
        PetscCall(HaloReversePair(d, &s->halo, pair->ax, pair->ay, pair->aref));
        PetscCall(HaloForwardPair(d, &s->halo, pair->ax, pair->ay, pair->aref));
      }
    }
  }
  s->pairChecks += s->cells.candidates;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static void ProjectionTile(Sim *s, void *ctx, PetscInt tx, PetscInt ty, PetscBool reverse)
{
  (void)ctx;
  (void)reverse;
  SweepTile(&s->dom, &s->cells, &s->P, &s->walls, s->wallMask, tx, ty);
}

/* SweepCell, recording (-stress, -contact_output, -barostat; core/stress.c): the same
   operations on the same values, in the same order. */
static void RecordCell(Sim *s, void *ctx, PetscInt k)
{
  const Cells      *c  = &s->cells;
  const Walls      *wl = &s->walls;
  Particles        *p  = &s->P;
  PetscReal        *x = p->x, *y = p->y;
  const PetscReal  *r  = p->r;
  const PetscInt64 *id = p->id;
  const PetscInt    b = c->beg[k], e = c->end[k];
  PetscInt          fwd[4];
  (void)ctx;
  if (b == e) return;
  DomainForwardOffsets(s->dom.ln[0], fwd);
  if (s->wallMask[k])
    for (PetscInt i = b; i < e; i++) {
      for (PetscInt w = 0; w < wl->n; w++) {
        const PetscReal x0 = x[i], y0 = y[i];
        ProjectHalfPlane(&x[i], &y[i], r[i], &wl->w[3 * w]);
        StressAddWall(s, i, w, x0, y0, x[i], y[i], r[i]);
      }
      for (PetscInt j = wl->segBeg[k]; j < wl->segBeg[k + 1]; j++) {
        const PetscReal x0 = x[i], y0 = y[i];
        ProjectSegment(&x[i], &y[i], r[i], &wl->seg[4 * wl->segIdx[j]], &wl->nrm[2 * wl->segIdx[j]], wl->depth);
        StressAddWall(s, i, wl->n + wl->segIdx[j], x0, y0, x[i], y[i], r[i]);
      }
    }
  for (PetscInt i = b; i < e; i++) {
    PetscReal        xi = x[i], yi = y[i];
    const PetscReal  ri  = r[i];
    const PetscInt64 idi = id[i];
    CELLS_FOR_PARTNERS(c, k, fwd, i, j)
    {
      const PetscReal xj0 = x[j], yj0 = y[j];
      if (ProjectPair(&xi, &yi, &x[j], &y[j], ri + r[j], idi, &id[j]))
        StressAddContact(s, i, idi, id[j], x[j] - xj0, y[j] - yj0, x[j] - xi, y[j] - yi, 0.5 * (y[j] + yi));
    }
    x[i] = xi;
    y[i] = yi;
  }
}

static PetscErrorCode RecordSweep(Sim *s)
{
  PetscFunctionBeginUser;
  PetscCall(PBDSweepCells(s, RecordCell, NULL, PETSC_FALSE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PBDSweep(Sim *s)
{
  PetscFunctionBeginUser;
  if (s->stress.on) PetscCall(RecordSweep(s)); /* the same sweep, recording (core/stress.c) */
  else PetscCall(SweepColours(s, ProjectionTile, NULL, PETSC_FALSE, NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* PBDSweepCells: the same order with a cell function of the caller's (pbdw: warm.c).
   As SweepTile, it interleaves the cells of two rows of one parity (cy and cy + 2 touch
   disjoint disks, so this is the same as one row after the other), which lets the
   processor overlap two chains of dependent projections; reverse visits the cells in
   exactly the opposite order of this one. */
typedef struct {
  PBDCellFn cell;
  void     *ctx;
} CellSweep;

#define CELLS_ROWS 2 /* rows of one parity interleaved (CellsTile) */

static void CellsTile(Sim *s, void *ctx, PetscInt tx, PetscInt ty, PetscBool reverse)
{
  const CellSweep *cs = (const CellSweep *)ctx;
  const Domain    *d  = &s->dom;
  const PetscInt   x0 = tx * d->tile, x1 = PetscMin(x0 + d->tile, d->nc[0]);
  const PetscInt   y0 = ty * d->tile, y1 = PetscMin(y0 + d->tile, d->nc[1]);
  const PetscInt   w = x1 - x0, L = d->ln[0];
  for (PetscInt q = 0; q < 2; q++) {
    const PetscInt parity = reverse ? 1 - q : q, nrow = (y1 - y0 - parity + 1) / 2; /* rows y0 + parity + 2 m */
    const PetscInt ng = (nrow + CELLS_ROWS - 1) / CELLS_ROWS;
    for (PetscInt gg = 0; gg < ng; gg++) {
      const PetscInt g = reverse ? ng - 1 - gg : gg, m0 = g * CELLS_ROWS, nm = PetscMin(CELLS_ROWS, nrow - m0);
      const PetscInt k0 = DomainLocalCell(d, x0, y0 + parity + 2 * m0);
      if (reverse)
        for (PetscInt cx = w - 1; cx >= 0; cx--)
          for (PetscInt m = nm - 1; m >= 0; m--) cs->cell(s, cs->ctx, k0 + 2 * m * L + cx);
      else
        for (PetscInt cx = 0; cx < w; cx++)
          for (PetscInt m = 0; m < nm; m++) cs->cell(s, cs->ctx, k0 + 2 * m * L + cx);
    }
  }
}

PetscErrorCode PBDSweepCells(Sim *s, PBDCellFn cell, void *ctx, PetscBool reverse)
{
  PetscFunctionBeginUser;
  PetscCall(PBDSweepCellsPair(s, cell, ctx, reverse, NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PBDSweepTilesPair(Sim *s, PBDTileFn tile, void *ctx, PetscBool reverse, const PBDPair *pair)
{
  PetscFunctionBeginUser;
  PetscCall(SweepColours(s, tile, ctx, reverse, pair));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PBDSweepCellsPair(Sim *s, PBDCellFn cell, void *ctx, PetscBool reverse, const PBDPair *pair)
{
  CellSweep cs = {cell, ctx};
  PetscFunctionBeginUser;
  PetscCall(SweepColours(s, CellsTile, &cs, reverse, pair));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A displacement from the binning positions measured after a sweep (reduced: the same
   on every rank), for the summary's largest. */
void PBDNoteDisplacement(Sim *s, PetscReal disp) { s->sweepDisp = PetscMax(s->sweepDisp, disp); }

/* A sweep (or the move of a step) that ended disp >= skin/2 from the binning may have
   missed a pair: two disks that were no candidates (binned in cells that are not
   neighbours) may have met.  Whether any did is counted: the pairs (and walls) that
   overlap now among the candidates of the binning the sweep used, then, with the disks
   rebinned at their positions, among all pairs; a pair that met and was no candidate
   makes the second count larger.  Then the step missed it, is not the method's, and
   main.c stops the run (s->skinStep); else the sweep was exact after all (a column
   that moves as one, say) and the run goes on from the new binning, which the check's
   place in the trajectory decides: the same on any rank count and after a restart.
   (A pair that met and parted again within the sweep is not seen.)  The ghosts are
   brought to their owners' positions first: a sweep leaves them as its last exchange
   did, and a warm start (warm.c) moves owned disks only, so that the first count, made
   with stale ghosts, depended on the rank count (issue 46: a crowd stopped on 2 ranks
   for 5 "missed" pairs that 1 and 3 ranks found to be candidates).  Collective. */
static PetscErrorCode CheckBeyondSkin(Sim *s, PetscReal disp)
{
  PetscInt64 c0, c1;
  PetscFunctionBeginUser;
  PetscCall(HaloForward(&s->dom, &s->P, &s->halo));
  PetscCall(SimCountContacts(s, &c0));
  PetscCall(SimRebin(s));
  PetscCall(SimCountContacts(s, &c1));
  s->skinChecks++;
  if (c1 > c0 && s->skinStep < 0) s->skinStep = s->step, s->skinDisp = disp, s->skinMissed = c1 - c0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static inline PetscBool BeyondHalfSkin(const Sim *s, PetscReal disp)
{
  return disp >= 0.5 * s->prm.skin && disp < PETSC_INFINITY ? PETSC_TRUE : PETSC_FALSE;
}

/* Largest distance of an owned disk from its binning position, over all ranks. */
static PetscErrorCode MaxDisplacement(Sim *s, PetscReal *disp)
{
  const Particles *p  = &s->P;
  PetscReal        m2 = 0;

  PetscFunctionBeginUser;
  PetscCall(PetscLogEventBegin(THRONG_EV.cells, 0, 0, 0, 0));
  for (PetscInt i = 0; i < p->n; i++) {
    const PetscReal dx = p->x[i] - p->xb[i], dy = p->y[i] - p->yb[i], d2 = dx * dx + dy * dy;
    m2 = MaxKeepNaN(m2, d2);
  }
  m2 = NaNAsInf(m2);
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &m2, 1, MPIU_REAL, MPI_MAX, s->dom.comm));
  *disp = PetscSqrtReal(m2);
  PetscCall(PetscLogEventEnd(THRONG_EV.cells, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PBDRebinIfFar(Sim *s)
{
  PetscReal disp;
  PetscFunctionBeginUser;
  PetscCall(MaxDisplacement(s, &disp));
  if (!(disp <= s->prm.rebin * s->prm.skin)) PetscCall(SimRebin(s)); /* the next sweep starts at the binning */
  else PBDNoteDisplacement(s, disp);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PBDPredict(Sim *s)
{
  Particles *p = &s->P;
  PetscReal  d2[3];

  PetscFunctionBeginUser;
  /* Prediction, fused with the displacement check: d2[0] is where the last sweep left
     the disks (exactness of that sweep), d2[1] where the prediction puts them (rebin?). */
  PetscLogDouble b0, b1;
  PetscCall(PetscLogEventBegin(THRONG_EV.predict, 0, 0, 0, 0));
  PetscCall(SimSaveReserve(s, 0)); /* where the last sweep left the disks (CheckBeyondSkin; speed.c) */
  PetscReal *saveX = s->saveX, *saveY = s->saveY;
  PetscCall(PetscTime(&b0));
  PetscCall(DriverPredict(&s->drv, s->prm.dt, p->n + p->ng, p->x, p->y, p->id, p->n, p->xb, p->yb, saveX, saveY, d2));
  PetscCall(PetscTime(&b1));
  s->busy += b1 - b0;
  d2[2] = s->control; /* requests (signals, wall clock) ride on the same reduction */
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, d2, 3, MPIU_REAL, MPI_MAX, s->dom.comm));
  s->control = d2[2];
  PetscCall(PetscLogEventEnd(THRONG_EV.predict, 0, 0, 0, 0));
  const PetscReal left = PetscSqrtReal(d2[0]); /* where the last sweep left the disks */
  PBDNoteDisplacement(s, left);
  if (BeyondHalfSkin(s, left)) { /* back to where the sweep left them, checked (and rebinned there), predicted again */
    const PetscInt m = p->n + p->ng;
    PetscCall(PetscArraycpy(p->x, saveX, m));
    PetscCall(PetscArraycpy(p->y, saveY, m));
    PetscCall(CheckBeyondSkin(s, left));
    PetscCall(DriverPredict(&s->drv, s->prm.dt, p->n + p->ng, p->x, p->y, p->id, p->n, p->xb, p->yb, NULL, NULL, d2));
    PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, d2, 2, MPIU_REAL, MPI_MAX, s->dom.comm));
  }
  /* written so that a NaN displacement (a blow-up) rebins too, and Migrate reports it */
  if (!(d2[1] <= PetscSqr(s->prm.rebin * s->prm.skin))) PetscCall(SimRebin(s));
  else if (s->dom.per[0] || s->dom.per[1]) PetscCall(HaloForward(&s->dom, p, &s->halo)); /* images: periodic.c */
  else PetscCall(HaloResetReference(p, &s->halo));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PBDStep(Sim *s)
{
  PetscFunctionBeginUser;
  PetscCall(PBDPredict(s));
  PetscCall(PBDSweep(s));
  s->sol.iterations++;
  s->sol.lastIts = 1;
  s->sol.maxIts  = 1;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* PNGS: the same sweep, repeated.  After each sweep one reduction gives the largest
   change of a coordinate in that sweep, the largest |coordinate| and the largest
   distance from the binning position; the first decides (identically on every rank)
   whether to stop, the last whether to rebin before the next sweep, so that every
   sweep is exact (all constraints, see above) and the result stays independent of
   the rank count.                                                                     */
static PetscErrorCode PNGSStep(Sim *s)
{
  Particles   *p  = &s->P;
  SolverStats *st = &s->sol;
  PetscInt     it = 0;
  PetscReal    m[3];

  PetscFunctionBeginUser;
  PetscCall(PBDPredict(s));
  do {
    PetscCall(SimScratch(s));
    for (PetscInt i = 0; i < p->n; i++) st->save[2 * i] = p->x[i], st->save[2 * i + 1] = p->y[i];
    PetscCall(PBDSweep(s));
    it++;
    m[0] = m[1] = m[2] = 0;
    for (PetscInt i = 0; i < p->n; i++) {
      const PetscReal dx = p->x[i] - p->xb[i], dy = p->y[i] - p->yb[i];
      m[0] =
        PetscMax(m[0], PetscMax(PetscAbsReal(p->x[i] - st->save[2 * i]), PetscAbsReal(p->y[i] - st->save[2 * i + 1])));
      m[1] = PetscMax(m[1], PetscMax(PetscAbsReal(p->x[i]), PetscAbsReal(p->y[i])));
      m[2] = MaxKeepNaN(m[2], dx * dx + dy * dy);
    }
    m[2] = NaNAsInf(m[2]); /* rebin below, where Migrate stops the run */
    PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, m, 3, MPIU_REAL, MPI_MAX, s->dom.comm));
    PBDNoteDisplacement(s, PetscSqrtReal(m[2]));
    if (BeyondHalfSkin(s, PetscSqrtReal(m[2]))) PetscCall(CheckBeyondSkin(s, PetscSqrtReal(m[2]))); /* it rebins */
    else if (!(m[2] < PETSC_INFINITY) || (!(m[0] <= s->prm.atol + s->prm.rtol * m[1]) && it < s->prm.maxIt &&
                                          !(m[2] <= PetscSqr(s->prm.rebin * s->prm.skin))))
      PetscCall(SimRebin(s));
  } while (!(m[0] <= s->prm.atol + s->prm.rtol * m[1]) && it < s->prm.maxIt);
  st->iterations += it;
  st->lastIts      = it;
  st->maxIts       = PetscMax(st->maxIts, it);
  st->lastResidual = m[0];
  st->maxResidual  = PetscMax(st->maxResidual, m[0]);
  if (!(m[0] <= s->prm.atol + s->prm.rtol * m[1])) st->unconverged++;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PBDSettle(Sim *s)
{
  Particles *p    = &s->P;
  PetscReal  m[2] = {0, s->control};

  PetscFunctionBeginUser;
  PetscCall(PetscLogEventBegin(THRONG_EV.cells, 0, 0, 0, 0));
  for (PetscInt i = 0; i < p->n; i++) {
    const PetscReal dx = p->x[i] - p->xb[i], dy = p->y[i] - p->yb[i], d2 = dx * dx + dy * dy;
    m[0] = MaxKeepNaN(m[0], d2);
  }
  m[0] = NaNAsInf(m[0]); /* MPI_MAX may drop a NaN; it keeps an infinity */
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, m, 2, MPIU_REAL, MPI_MAX, s->dom.comm));
  s->control = m[1];
  PBDNoteDisplacement(s, PetscSqrtReal(m[0])); /* the next step's candidates */
  PetscCall(PetscLogEventEnd(THRONG_EV.cells, 0, 0, 0, 0));
  if (BeyondHalfSkin(s, PetscSqrtReal(m[0]))) PetscCall(CheckBeyondSkin(s, PetscSqrtReal(m[0]))); /* it rebins */
  else if (!(m[0] <= PetscSqr(s->prm.rebin * s->prm.skin))) PetscCall(SimRebin(s));
  else PetscCall(HaloForward(&s->dom, p, &s->halo));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Displacement left by the last sweep, folded into sweepDisp (the step loop measures it
   at the next prediction; call this after the last step). Collective. */
PetscErrorCode PBDFinishDisplacement(Sim *s)
{
  PetscReal disp;
  PetscFunctionBeginUser;
  PetscCall(MaxDisplacement(s, &disp));
  PBDNoteDisplacement(s, disp);
  if (BeyondHalfSkin(s, disp)) PetscCall(CheckBeyondSkin(s, disp)); /* the run's end: a rebin changes nothing */
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PBDRelax(Sim *s, PetscReal tol, PetscInt maxSweeps, PetscInt *nsweeps, PetscReal *ovl)
{
  PetscInt k = 0;
  PetscFunctionBeginUser;
  PetscCall(SimMaxOverlap(s, ovl));
  while (*ovl > tol && k < maxSweeps) {
    PetscReal disp;
    PetscCall(PBDSweep(s));
    PetscCall(MaxDisplacement(s, &disp));
    if (disp > s->prm.rebin * s->prm.skin) PetscCall(SimRebin(s));
    k++;
    PetscCall(SimMaxOverlap(s, ovl));
  }
  s->sweepDisp = 0;
  *nsweeps     = k;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PNGSView(MPI_Comm comm, const Params *p)
{
  PetscFunctionBeginUser;
  PetscCall(PetscPrintf(comm, "throng: solver=pngs rtol=%g atol=%g max_it=%" PetscInt_FMT "\n", (double)p->rtol,
                        (double)p->atol, p->maxIt));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PNGSMonitor(Sim *s)
{
  PetscFunctionBeginUser;
  PetscCall(PetscPrintf(s->dom.comm, "solver: step %" PetscInt_FMT " sweeps %" PetscInt_FMT " change %.3e\n", s->step,
                        s->sol.lastIts, (double)s->sol.lastResidual));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PNGSReport(Sim *s)
{
  PetscFunctionBeginUser;
  PetscCall(PetscPrintf(s->dom.comm, "  max_change %.3e  unconverged %" PetscInt_FMT, (double)s->sol.maxResidual,
                        s->sol.unconverged));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SolverCreate_PBD(SolverOps *ops)
{
  PetscFunctionBeginUser;
  ops->step = PBDStep;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SolverCreate_PNGS(SolverOps *ops)
{
  PetscFunctionBeginUser;
  ops->step    = PNGSStep;
  ops->view    = PNGSView;
  ops->monitor = PNGSMonitor;
  ops->report  = PNGSReport;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PBDResolveInitialOverlaps(Sim *s)
{
  const Params *prm  = &s->prm;
  MPI_Comm      comm = s->dom.comm;
  PetscReal     ovl, tol = prm->overlapTol * 2 * s->rmax;
  PetscInt      sweeps;

  PetscFunctionBeginUser;
  PetscCall(SimMaxOverlap(s, &ovl));
  if (ovl <= tol) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCheck(prm->overlap == OVERLAP_PROJECT, comm, PETSC_ERR_USER_INPUT,
             "the initial state has overlapping disks (largest overlap %g, tolerance %g); use -init_overlap project to "
             "project them away, or a lattice initial condition",
             (double)ovl, (double)tol);
  const PetscReal before = ovl;
  PetscCall(PBDRelax(s, tol, prm->overlapMaxSweeps, &sweeps, &ovl));
  PetscCheck(ovl <= tol, comm, PETSC_ERR_NOT_CONVERGED,
             "the initial overlaps could not be projected away in %" PetscInt_FMT
             " sweeps (largest overlap still %g): the region is too crowded; lower -n or enlarge -init_region",
             sweeps, (double)ovl);
  if (!prm->quiet)
    PetscCall(PetscPrintf(
      comm, "throng: initial overlaps projected away: largest overlap %.3e -> %.3e in %" PetscInt_FMT " sweeps\n",
      (double)before, (double)ovl, sweeps));
  PetscFunctionReturn(PETSC_SUCCESS);
}
