/* balance — dynamic load balancing: moving the borders of the rank blocks.
 *
 * Why.  Work follows the disks, and the disks move: a crowd drains towards its exits and
 * leaves the far rooms empty, a granular pile settles to the floor.  With fixed blocks
 * the ranks that own the crowded part do all the work while the others wait at every
 * halo exchange.
 *
 * The work measure.  A step costs each rank about 70 ns per owned disk (prediction and
 * ~6 candidate pairs) and about 2.5 ns per owned cell, empty or not (the sweep visits
 * every cell): measured on the evacuation hall with 200 and 5000 agents.  So the work of
 * a tile is its disks + w x its cells, with w = -balance_cell_weight (0.03); without the
 * cells' share a nearly empty hall at the end of an evacuation looks badly balanced when
 * its cost is in fact the cells.  The imbalance is the max/mean of that work over the
 * ranks.  Each rank's busy time (prediction and sweep, without the waits) is measured
 * beside it, to show the effect.
 *
 * What moves.  The blocks stay a p[0] x p[1] grid of rectangles of whole tiles; the cuts
 * between them move, and the grid itself may change shape (2 x 1 to 1 x 2, say) when
 * that balances better (a rectilinear partition, domain.c).  This keeps everything the
 * rest of the code relies on: at most 8 neighbours per rank on one graph communicator,
 * the one-cell ghost ring, and above all the sweep order: every tile lies inside one
 * block whatever the cuts, so the sweep is the same sequence of projections and the
 * trajectory is bitwise the same with balancing on or off (tested by the digest).  Only
 * -solver pgs differs (within its tolerance): its Gauss-Seidel order follows the row
 * ownership, as it does across rank counts.  Recursive bisection with independent cuts
 * per strip (or Zoltan's partitioners) can balance a load concentrated in one corner
 * better, but its blocks have any number of neighbours; the rectilinear partition cannot
 * split a hot tile row or column finer than the tiles.
 *
 * How the cuts are found.  Along one axis, with the other axis' cuts fixed, the problem
 * is a chains-on-chains partition: split the tile columns 0..nt-1 into p consecutive
 * strips, each of at least one column, minimising the largest block weight, where a
 * strip's cost is the heaviest of its blocks (one per band of the other axis).  A cost
 * grows when a strip grows, so for a bound B the greedy sweep that extends each strip as
 * far as B allows (leaving one column for each later strip) succeeds exactly when some
 * partition meets B; a binary search over the integer B gives the optimum, in
 * O(nt x bands x log total).  Alternating the two axes, each half-step optimal given the
 * other axis, never makes the heaviest block heavier (Nicol, J. Parallel Distrib.
 * Comput. 23 (1994) 119, "Rectilinear partitioning of irregular data parallel
 * computations"); we stop when a round gains nothing, after at most 8 rounds.  Every
 * factorisation p[0] p[1] = size that fits the tiles is tried (the current grid from its
 * current cuts, the others from even cuts) unless -rank_grid fixed the grid; another
 * grid must be strictly better than the current one.
 *
 * When.  At every rebinning, after migration, two reductions give the max and the sum of
 * the work, the owned disks and the busy seconds (rank 0 records them:
 * PREFIX.balance.csv).  If the work's max/mean exceeds -balance_threshold and at least
 * -balance_interval checks have passed since the last attempt, the disks per tile are
 * summed over the ranks, every rank computes the same partition from them, and if the
 * heaviest block becomes at least 2 % lighter the domain takes it: cells and the wall
 * mask are rebuilt for the new local grid (with a new grid shape also the neighbour
 * communicator, halo and migrator) and every disk goes to its new owner (one
 * all-to-all); the rebinning then bins them and builds the ghosts as usual.            */
#include <throng/core/balance.h>
#include <stdlib.h>

PetscInt64 BalanceHeaviest(const PetscInt nt[2], const PetscInt64 *W, const PetscMPIInt p[2], const PetscInt *cx,
                           const PetscInt *cy)
{
  PetscInt64 worst = 0;
  for (PetscMPIInt by = 0; by < p[1]; by++)
    for (PetscMPIInt bx = 0; bx < p[0]; bx++) {
      PetscInt64 w = 0;
      for (PetscInt ty = cy[by]; ty < cy[by + 1]; ty++)
        for (PetscInt tx = cx[bx]; tx < cx[bx + 1]; tx++) w += W[ty * nt[0] + tx];
      worst = PetscMax(worst, w);
    }
  return worst;
}

/* Can nt columns (column t of band b weighs S[b nt + t]) be cut into p strips of at
   least one column each, no block heavier than B?  If so, cut[0..p] is the greedy cut. */
static PetscBool Feasible(PetscInt nt, PetscInt nb, const PetscInt64 *S, PetscMPIInt p, PetscInt64 B, PetscInt *cut,
                          PetscInt64 *acc)
{
  PetscInt pos = 0;
  cut[0]       = 0;
  for (PetscMPIInt k = 0; k < p; k++) {
    const PetscInt last = nt - (p - 1 - k); /* each later strip needs a column */
    PetscInt       e    = pos;
    for (PetscInt b = 0; b < nb; b++) acc[b] = 0;
    while (e < last) {
      PetscBool fits = PETSC_TRUE;
      for (PetscInt b = 0; b < nb && fits; b++) fits = acc[b] + S[b * nt + e] <= B ? PETSC_TRUE : PETSC_FALSE;
      if (!fits) break;
      for (PetscInt b = 0; b < nb; b++) acc[b] += S[b * nt + e];
      e++;
    }
    if (e == pos || (k == p - 1 && e < nt)) return PETSC_FALSE;
    cut[k + 1] = e;
    pos        = e;
  }
  return PETSC_TRUE;
}

/* The optimal cut of nt columns into p strips, bands S (nb x nt). */
static void Cut1D(PetscInt nt, PetscInt nb, const PetscInt64 *S, PetscMPIInt p, PetscInt *cut, PetscInt64 *acc)
{
  PetscInt64 lo = 0, hi = 0;
  for (PetscInt k = 0; k < nb * nt; k++) hi += S[k];
  while (lo < hi) { /* the smallest feasible bound; hi (everything) is always feasible */
    const PetscInt64 mid = lo + (hi - lo) / 2;
    if (Feasible(nt, nb, S, p, mid, cut, acc)) hi = mid;
    else lo = mid + 1;
  }
  (void)Feasible(nt, nb, S, p, hi, cut, acc);
}

PetscErrorCode BalanceRectilinear(const PetscInt nt[2], const PetscInt64 *W, const PetscMPIInt p[2], PetscInt *cx,
                                  PetscInt *cy, PetscInt64 *heaviest)
{
  PetscInt64 *S, *acc, best;
  PetscInt   *nx, *ny;

  PetscFunctionBeginUser;
  PetscCheck(p[0] >= 1 && p[1] >= 1 && nt[0] >= p[0] && nt[1] >= p[1], PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
             "%d x %d blocks need at least as many tiles, not %" PetscInt_FMT " x %" PetscInt_FMT, p[0], p[1], nt[0],
             nt[1]);
  PetscCall(PetscMalloc2(PetscMax(p[0] * nt[1], p[1] * nt[0]) + 1, &S, PetscMax(p[0], p[1]) + 1, &acc));
  PetscCall(PetscMalloc2(p[0] + 1, &nx, p[1] + 1, &ny));
  best = BalanceHeaviest(nt, W, p, cx, cy);
  for (int round = 0; round < 8; round++) {
    /* x given the bands of y */
    PetscCall(PetscArrayzero(S, p[1] * nt[0]));
    for (PetscMPIInt b = 0; b < p[1]; b++)
      for (PetscInt ty = cy[b]; ty < cy[b + 1]; ty++)
        for (PetscInt tx = 0; tx < nt[0]; tx++) S[b * nt[0] + tx] += W[ty * nt[0] + tx];
    Cut1D(nt[0], p[1], S, p[0], nx, acc);
    /* y given the new strips of x */
    PetscCall(PetscArrayzero(S, p[0] * nt[1]));
    for (PetscMPIInt b = 0; b < p[0]; b++)
      for (PetscInt ty = 0; ty < nt[1]; ty++)
        for (PetscInt tx = nx[b]; tx < nx[b + 1]; tx++) S[b * nt[1] + ty] += W[ty * nt[0] + tx];
    Cut1D(nt[1], p[0], S, p[1], ny, acc);
    const PetscInt64 w = BalanceHeaviest(nt, W, p, nx, ny);
    if (w >= best) break;
    best = w;
    PetscCall(PetscArraycpy(cx, nx, p[0] + 1));
    PetscCall(PetscArraycpy(cy, ny, p[1] + 1));
  }
  *heaviest = best;
  PetscCall(PetscFree2(S, acc));
  PetscCall(PetscFree2(nx, ny));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Rank 0 keeps one record per check. */
static PetscErrorCode Record(Balance *b, const BalanceRec *r)
{
  PetscFunctionBeginUser;
  PetscCall(ThrongGrow(&b->rec, sizeof(BalanceRec), b->nrec, &b->caprec));
  b->rec[b->nrec++] = *r;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Work of the tiles: WORK_UNIT per disk and cell weight x WORK_UNIT per cell (integers,
   so that the partition is exact and the same on every rank). */
#define WORK_UNIT 1000

static PetscInt64 CellWork(const Params *prm) { return (PetscInt64)nearbyint(prm->balanceCell * WORK_UNIT); }

/* The best grid and cuts for the tile work W: every factorisation of the ranks that fits
   the tiles (only the current one with -rank_grid), the current grid first so that
   another must be strictly better. */
static PetscErrorCode BestPartition(const Domain *d, const PetscInt64 *W, PetscMPIInt p[2], PetscInt **cx,
                                    PetscInt **cy, PetscInt64 *heaviest)
{
  PetscInt *tx, *ty;
  PetscFunctionBeginUser;
  PetscCall(PetscMalloc2(d->size + 1, cx, d->size + 1, cy));
  PetscCall(PetscMalloc2(d->size + 1, &tx, d->size + 1, &ty));
  p[0] = d->p[0], p[1] = d->p[1];
  PetscCall(PetscArraycpy(*cx, d->cut[0], p[0] + 1));
  PetscCall(PetscArraycpy(*cy, d->cut[1], p[1] + 1));
  PetscCall(BalanceRectilinear(d->nt, W, p, *cx, *cy, heaviest));
  for (PetscMPIInt px = 1; px <= d->size && !d->gridFixed; px++) {
    const PetscMPIInt q[2] = {px, d->size / px};
    PetscInt64        h;
    if (d->size % px || (px == d->p[0]) || q[0] > d->nt[0] || q[1] > d->nt[1]) continue;
    for (int a = 0; a < 2; a++)
      for (PetscMPIInt b = 0; b <= q[a]; b++) (a ? ty : tx)[b] = (d->nt[a] * b) / q[a];
    PetscCall(BalanceRectilinear(d->nt, W, q, tx, ty, &h));
    if (h < *heaviest) {
      *heaviest = h, p[0] = q[0], p[1] = q[1];
      PetscCall(PetscArraycpy(*cx, tx, q[0] + 1));
      PetscCall(PetscArraycpy(*cy, ty, q[1] + 1));
    }
  }
  PetscCall(PetscFree2(tx, ty));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode BalanceCheck(Balance *b, const Params *prm, const Domain *d, const Particles *P, PetscLogDouble busy,
                            PetscInt step, PetscReal time, PetscBool *repartition, PetscMPIInt p[2], PetscInt **cx,
                            PetscInt **cy)
{
  const PetscInt64 cw    = CellWork(prm);
  const PetscReal  cells = (PetscReal)((d->c1[0] - d->c0[0]) * (d->c1[1] - d->c0[1]));
  PetscReal v[3] = {(PetscReal)P->n * WORK_UNIT + (PetscReal)cw * cells, (PetscReal)P->n, (PetscReal)busy}, mx[3],
            sm[3];
  BalanceRec r;

  PetscFunctionBeginUser;
  *repartition = PETSC_FALSE;
  *cx = *cy = NULL;
  if (d->size == 1) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCallMPI(MPI_Allreduce(v, mx, 3, MPIU_REAL, MPI_MAX, d->comm));
  PetscCallMPI(MPI_Allreduce(v, sm, 3, MPIU_REAL, MPI_SUM, d->comm));
#define RATIO(k) (sm[k] > 0 ? mx[k] * (PetscReal)d->size / sm[k] : 1)
  r = (BalanceRec){step, time, RATIO(0), RATIO(1), RATIO(2), 0};
#undef RATIO
  b->checks++;
  if (prm->balance > 0 && r.work > prm->balance && b->sinceTry >= prm->balanceInterval) {
    const PetscInt nt = d->nt[0] * d->nt[1];
    PetscInt64    *W, best;
    b->sinceTry = 0;
    PetscCall(PetscCalloc1(nt, &W));
    for (PetscInt i = 0; i < P->n; i++) {
      PetscInt ci, cj;
      DomainCellOf(d, P->x[i], P->y[i], &ci, &cj);
      W[(cj / d->tile) * d->nt[0] + ci / d->tile] += WORK_UNIT;
    }
    PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, W, (PetscMPIInt)nt, MPIU_INT64, MPI_SUM, d->comm));
    for (PetscInt ty = 0; ty < d->nt[1]; ty++) /* the cells' share, the same on every rank */
      for (PetscInt tx = 0; tx < d->nt[0]; tx++)
        W[ty * d->nt[0] + tx] +=
          cw * (PetscMin(d->tile, d->nc[0] - tx * d->tile) * PetscMin(d->tile, d->nc[1] - ty * d->tile));
    PetscCall(BestPartition(d, W, p, cx, cy, &best));
    if ((PetscReal)best < 0.98 * mx[0]) { /* the loop repartitions (sim.c) */
      *repartition = PETSC_TRUE;
      b->repartitions++;
      r.moved = 1;
      r.work  = (PetscReal)best * (PetscReal)d->size / sm[0];
    } else PetscCall(PetscFree2(*cx, *cy));
    PetscCall(PetscFree(W));
  } else b->sinceTry++;
  if (!d->rank) PetscCall(Record(b, &r));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* PREFIX.balance.csv, by rank 0 (main.c writes it at every checkpoint and at the end): a
   restarted run (from >= 0) keeps the rows of the file up to the checkpoint's step and
   adds its own after it, so that the file covers the whole run, also after a kill;
   written to NAME.tmp and renamed, so that a failure leaves the old file as it was. */
PetscErrorCode BalanceWriteCSV(const Balance *b, const Params *prm, const Domain *d, PetscInt from)
{
  char  name[PETSC_MAX_PATH_LEN], tmp[PETSC_MAX_PATH_LEN + 8], line[512];
  FILE *f, *old;
  int   bad;
  PetscFunctionBeginUser;
  if (d->size == 1 || d->rank) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscSNPrintf(name, sizeof(name), "%s.balance.csv", prm->output));
  PetscCall(PetscSNPrintf(tmp, sizeof(tmp), "%s.tmp", name));
  f = fopen(tmp, "w");
  PetscCheck(f, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "cannot write '%s'", tmp);
  fprintf(f, "step,time,work_max_over_mean,disks_max_over_mean,busy_max_over_mean,repartitioned\n");
  if (from >= 0 && (old = fopen(name, "r"))) {
    while (fgets(line, sizeof(line), old)) {
      char     *end;
      long long st = strtoll(line, &end, 10);
      if (end != line && *end == ',' && st <= from) fputs(line, f);
    }
    fclose(old);
  }
  for (PetscInt k = 0; k < b->nrec; k++)
    if (b->rec[k].step > from)
      fprintf(f, "%lld,%.10g,%.6g,%.6g,%.6g,%d\n", (long long)b->rec[k].step, (double)b->rec[k].time,
              (double)b->rec[k].work, (double)b->rec[k].disks, (double)b->rec[k].busy, b->rec[k].moved);
  bad = fclose(f) != 0 || rename(tmp, name) != 0;
  PetscCheck(!bad, PETSC_COMM_SELF, PETSC_ERR_FILE_WRITE, "cannot write '%s'", name);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode BalanceReport(const Balance *b, const Params *prm, const Domain *d, PetscBool writeFile, PetscInt from)
{
  PetscInt64 routed = b->routed;

  PetscFunctionBeginUser;
  if (d->size == 1) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &routed, 1, MPIU_INT64, MPI_SUM, d->comm));
  if (!d->rank) {
    PetscReal m[3] = {0, 0, 0}, x[3] = {0, 0, 0};
    for (PetscInt k = 0; k < b->nrec; k++) {
      const PetscReal v[3] = {b->rec[k].work, b->rec[k].disks, b->rec[k].busy};
      for (int j = 0; j < 3; j++) m[j] += v[j], x[j] = PetscMax(x[j], v[j]);
    }
    for (int j = 0; j < 3 && b->nrec; j++) m[j] /= (PetscReal)b->nrec;
    PetscCall(PetscPrintf(PETSC_COMM_SELF,
                          "summary: balance: threshold %.3f, %" PetscInt_FMT " checks, %" PetscInt_FMT
                          " repartitions (%" PetscInt64_FMT
                          " disks moved by them), grid %d x %d at the end; imbalance (max/mean over the ranks, mean "
                          "and max over the checks): work %.3f %.3f, disks %.3f %.3f, busy time %.3f %.3f\n",
                          (double)prm->balance, b->checks, b->repartitions, routed, d->p[0], d->p[1], (double)m[0],
                          (double)x[0], (double)m[1], (double)x[1], (double)m[2], (double)x[2]));
    if (writeFile) PetscCall(BalanceWriteCSV(b, prm, d, from));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
