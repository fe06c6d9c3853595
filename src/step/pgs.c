/* pgs — the catching-up scheme of Maury and Venel, linearised and PETSc-assembled.
 *
 * Seed 001, eq. 10 (= seed 000, eq. 110 up to the point of linearisation): the new state
 * is the projection of the prediction y = q + h f(q) onto the constraints linearised at
 * the current state q,
 *
 *     q' = argmin |p - y|^2   over   K(q) = { p : g_k(q) + G_k (p - q) >= 0  for all k },
 *
 * with g_k the gap of constraint k (pair: |q_i - q_j| - r_i - r_j; wall: n.q_i - b - r_i)
 * and G_k its gradient, a row of the constraint Jacobian G (columns: the 2 coordinates
 * of every disk).  Seed 001 Theorem 3.3 gives first-order convergence to the solution of
 * the differential inclusion.  K(q) is a polyhedron, so the projection is a convex QP;
 * its dual is the linear complementarity problem
 *
 *     mu >= 0,   W mu + b >= 0,   mu . (W mu + b) = 0,    W = G G^T,  b = g + G (y - q),
 *
 * and then q' = y + G^T mu.  Only the constraints that can become active in one step
 * are linearised: pairs and walls with a gap below -pgs_active (default: the skin, the
 * distance up to which candidates are complete).
 *
 * Assembly.  G is a parallel AIJ matrix (MATMPIAIJ on several ranks): rows are this
 * rank's constraints (the pairs found from its own cells, each pair once, as in the PBD
 * sweep's half stencil, and the walls of its own disks); columns are 2 id and 2 id + 1.
 * Columns by id need no global renumbering: PETSc moves the entries of the vectors of
 * that layout to where they belong (VecSetValues with off-process entries, a VecScatter
 * back).  W = G G^T is formed by MatMatTransposeMult.
 *
 * Solution.  Projected Gauss-Seidel on the LCP: row by row,
 *     mu_k <- max(0, mu_k - (W mu + b)_k / W_kk),
 * run as PETSc runs SOR on a parallel matrix: each outer iteration forms r = W mu + b
 * with one MatMult (the off-process coupling, from the previous iterate), then sweeps its
 * own rows in order with the local diagonal block, using the values updated so far.
 * Stopping rule: the natural residual ||min(mu, W mu + b)||_inf <= atol + rtol ||b||_inf
 * (zero exactly at a solution of the LCP), or -solver_max_it.  Reported per step
 * (-solver_monitor): iterations, that residual, and the complementarity gap
 * max_k |mu_k (W mu + b)_k|.  With -pgs_tao the same QP, min 1/2 mu.W mu + b.mu over
 * mu >= 0, goes to a PETSc TAO bound-constrained solver (-tao_type, default tron, a Newton
 * trust-region method given W as the Hessian; bqnls, blmvm, gpcg, bnls... also work).
 * Its iterations are TAO's outer ones (tron's inner KSP iterations are not counted).
 *
 * Rank-count dependence.  Unlike pbd, pngs and penalty, pgs does NOT give the same
 * trajectory on different numbers of ranks: (1) the Gauss-Seidel order follows PETSc's
 * row ownership, and rows on other ranks enter with their previous iterate (a block
 * Jacobi coupling between ranks), so the iterates — and the point at which the stopping
 * rule is met — differ; (2) MatMult and the parallel product G G^T sum in an order that
 * depends on the distribution.  Both only change the result within the solver
 * tolerance (the LCP's solution for mu is unique when G has full row rank, and q' is
 * unique always, being a projection onto a convex set), so trajectories agree to about
 * rtol; the tests check agreement, not identity.                                     */
#include <throng/core/sim.h>
#include <throng/step/pbd.h>
#include <throng/step/pgs.h>
#include <petsctao.h>
#include <throng/core/geometry.h>
#include <throng/util/project.h>

typedef struct {
  PetscInt  i, j;   /* disk indices on this rank (j = -1: a wall) */
  PetscReal ex, ey; /* unit normal: q_j - q_i direction, or the wall's normal */
  PetscReal g;      /* gap */
} Row;

typedef struct {
  Mat W;
  Vec b;
} QP;

static PetscErrorCode QPObjectiveGradient(Tao tao, Vec mu, PetscReal *f, Vec grad, void *ctx)
{
  QP         *qp = (QP *)ctx;
  PetscScalar a, c;
  PetscFunctionBeginUser;
  (void)tao;
  PetscCall(MatMult(qp->W, mu, grad));
  PetscCall(VecDot(mu, grad, &a));
  PetscCall(VecDot(mu, qp->b, &c));
  *f = 0.5 * a + c;
  PetscCall(VecAXPY(grad, 1.0, qp->b));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode QPHessian(Tao tao, Vec mu, Mat H, Mat P, void *ctx)
{
  PetscFunctionBeginUser;
  (void)tao, (void)mu, (void)H, (void)P, (void)ctx; /* constant: W itself */
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* r = W mu + b; natural residual and complementarity gap, max over all ranks. */
static PetscErrorCode Residual(Mat W, Vec b, Vec mu, Vec r, PetscReal *res, PetscReal *gap)
{
  const PetscScalar *m, *rr;
  PetscInt           n;
  PetscReal          v[2] = {0, 0};
  PetscFunctionBeginUser;
  PetscCall(MatMult(W, mu, r));
  PetscCall(VecAXPY(r, 1.0, b));
  PetscCall(VecGetLocalSize(r, &n));
  PetscCall(VecGetArrayRead(mu, &m));
  PetscCall(VecGetArrayRead(r, &rr));
  for (PetscInt k = 0; k < n; k++) {
    v[0] = PetscMax(v[0], PetscAbsReal(PetscMin(m[k], rr[k])));
    v[1] = PetscMax(v[1], PetscAbsReal(m[k] * rr[k]));
  }
  PetscCall(VecRestoreArrayRead(r, &rr));
  PetscCall(VecRestoreArrayRead(mu, &m));
  PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, v, 2, MPIU_REAL, MPI_MAX, PetscObjectComm((PetscObject)W)));
  *res = v[0];
  *gap = v[1];
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Projected Gauss-Seidel (see the essay); returns the outer iterations. */
static PetscErrorCode SolvePGS(Mat W, Vec b, Vec mu, PetscReal tol, PetscInt maxIt, PetscInt *its, PetscReal *res,
                               PetscReal *gap)
{
  Mat                Ad;
  Vec                r, dg;
  const PetscInt    *ia, *ja;
  const PetscScalar *aa, *diag;
  PetscInt           nr, it = 0;
  PetscBool          done;
  PetscScalar       *m, *delta;

  PetscFunctionBeginUser;
  PetscCall(MatGetDiagonalBlock(W, &Ad));
  PetscCall(MatGetRowIJ(Ad, 0, PETSC_FALSE, PETSC_FALSE, &nr, &ia, &ja, &done));
  PetscCheck(done, PETSC_COMM_SELF, PETSC_ERR_SUP, "pgs: no CSR access to the diagonal block");
  PetscCall(MatSeqAIJGetArrayRead(Ad, &aa));
  PetscCall(VecDuplicate(b, &r));
  PetscCall(VecDuplicate(b, &dg));
  PetscCall(MatGetDiagonal(W, dg));
  PetscCall(PetscMalloc1(nr + 1, &delta));
  for (;;) {
    PetscCall(Residual(W, b, mu, r, res, gap));
    if (*res <= tol || it >= maxIt) break;
    const PetscScalar *rr;
    PetscCall(VecGetArrayRead(r, &rr));
    PetscCall(VecGetArrayRead(dg, &diag));
    PetscCall(VecGetArray(mu, &m));
    for (PetscInt k = 0; k < nr; k++) {
      PetscScalar w = rr[k];
      for (PetscInt p = ia[k]; p < ia[k + 1]; p++)
        if (ja[p] < k) w += aa[p] * delta[ja[p]]; /* rows before k already updated */
      const PetscScalar v = PetscMax(0.0, m[k] - w / diag[k]);
      delta[k]            = v - m[k];
      m[k]                = v;
    }
    PetscCall(VecRestoreArray(mu, &m));
    PetscCall(VecRestoreArrayRead(dg, &diag));
    PetscCall(VecRestoreArrayRead(r, &rr));
    it++;
  }
  PetscCall(PetscFree(delta));
  PetscCall(VecDestroy(&dg));
  PetscCall(VecDestroy(&r));
  PetscCall(MatSeqAIJRestoreArrayRead(Ad, &aa));
  PetscCall(MatRestoreRowIJ(Ad, 0, PETSC_FALSE, PETSC_FALSE, &nr, &ia, &ja, &done));
  *its = it;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode SolveTAO(Mat W, Vec b, Vec mu, PetscReal atol, PetscReal rtol, PetscInt maxIt, PetscInt *its,
                               PetscReal *res, PetscReal *gap)
{
  Tao tao;
  Vec lo, hi, r;
  QP  qp = {W, b};
  PetscFunctionBeginUser;
  PetscCall(TaoCreate(PetscObjectComm((PetscObject)W), &tao));
  PetscCall(TaoSetType(tao, TAOTRON));
  PetscCall(TaoSetSolution(tao, mu));
  PetscCall(TaoSetObjectiveAndGradient(tao, NULL, QPObjectiveGradient, &qp));
  PetscCall(TaoSetHessian(tao, W, W, QPHessian, NULL));
  PetscCall(VecDuplicate(mu, &lo));
  PetscCall(VecDuplicate(mu, &hi));
  PetscCall(VecSet(lo, 0.0));
  PetscCall(VecSet(hi, PETSC_INFINITY));
  PetscCall(TaoSetVariableBounds(tao, lo, hi));
  PetscCall(TaoSetTolerances(tao, atol, rtol, 0.0));
  PetscCall(TaoSetMaximumIterations(tao, maxIt));
  PetscCall(TaoSetFromOptions(tao));
  PetscCall(TaoSolve(tao));
  PetscCall(TaoGetIterationNumber(tao, its));
  PetscCall(VecDuplicate(b, &r));
  PetscCall(Residual(W, b, mu, r, res, gap));
  PetscCall(VecDestroy(&r));
  PetscCall(VecDestroy(&lo));
  PetscCall(VecDestroy(&hi));
  PetscCall(TaoDestroy(&tao));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The linearised constraints of this rank at the current state. */
static PetscErrorCode FindRows(Sim *s, Row **rows, PetscInt *nrows, PetscInt64 *tests)
{
  const Domain    *d  = &s->dom;
  const Cells     *c  = &s->cells;
  const Particles *p  = &s->P;
  const Walls     *wl = &s->walls;
  const PetscInt   L  = d->ln[0];
  PetscInt         fwd[4];
  DomainForwardOffsets(L, fwd);
  const PetscReal act = s->prm.active;
  PetscInt        n = 0, cap = 0;
  Row            *R = NULL;

  PetscFunctionBeginUser;
#define PGS_PUSH(row) \
  do { \
    PetscCall(ThrongGrow(&R, sizeof(Row), n, &cap)); \
    R[n++] = (row); \
  } while (0)
  for (PetscInt cy = d->c0[1]; cy < d->c1[1]; cy++)
    for (PetscInt cx = d->c0[0]; cx < d->c1[0]; cx++) {
      const PetscInt k = DomainLocalCell(d, cx, cy);
      for (PetscInt i = c->beg[k]; i < c->end[k]; i++) {
        if (s->wallMask[k]) {
          for (PetscInt w = 0; w < wl->n; w++) {
            const PetscReal *nv = &wl->w[3 * w], g = nv[0] * p->x[i] + nv[1] * p->y[i] - nv[2] - p->r[i];
            (*tests)++;
            if (g < act) PGS_PUSH(((Row){i, -1, nv[0], nv[1], g}));
          }
          for (PetscInt j = wl->segBeg[k]; j < wl->segBeg[k + 1]; j++) { /* segments: the gap and its gradient */
            const PetscInt  sj = wl->segIdx[j];
            PetscReal       ex, ey;
            const PetscReal gap =
              SegmentGapNormal(&wl->seg[4 * sj], &wl->nrm[2 * sj], wl->depth, p->x[i], p->y[i], &ex, &ey);
            (*tests)++;
            if (gap - p->r[i] < act) PGS_PUSH(((Row){i, -1, ex, ey, gap - p->r[i]}));
          }
        }
        CELLS_FOR_PARTNERS(c, k, fwd, i, j)
        {
          const PetscReal dx = p->x[j] - p->x[i], dy = p->y[j] - p->y[i], dist = PetscSqrtReal(dx * dx + dy * dy),
                          g = dist - p->r[i] - p->r[j];
          (*tests)++;
          if (g >= act) continue;
          if (dist > 0) PGS_PUSH(((Row){i, j, dx / dist, dy / dist, g}));
          else PGS_PUSH(((Row){i, j, p->id[i] < p->id[j] ? 1.0 : -1.0, 0.0, g})); /* project.h's choice */
        }
      }
    }
#undef PGS_PUSH
  *rows  = R;
  *nrows = n;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PGSStep(Sim *s)
{
  MPI_Comm     comm = s->dom.comm;
  Particles   *p    = &s->P;
  SolverStats *st   = &s->sol;
  Row         *R;
  PetscInt     nrows = 0, its = 0;
  PetscInt64   M = 0, tests = 0, total;
  PetscReal    res = 0, gap = 0, d2[2];

  PetscFunctionBeginUser;
  PetscCall(PetscLogEventBegin(THRONG_EV.pgsAssemble, 0, 0, 0, 0));
  PetscCall(FindRows(s, &R, &nrows, &tests));
  for (PetscInt i = 0; i < p->n; i++) M = PetscMax(M, p->id[i] + 1);
  {
    PetscInt64 v[2] = {M, nrows};
    PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, &v[0], 1, MPIU_INT64, MPI_MAX, comm));
    PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, &v[1], 1, MPIU_INT64, MPI_SUM, comm));
    M     = v[0];
    total = v[1];
  }
  PetscCheck(2 * M <= PETSC_MAX_INT, comm, PETSC_ERR_SUP,
             "pgs: 2 x (largest id + 1) = %" PetscInt64_FMT " columns exceed this PETSc build's PetscInt", 2 * M);
  /* the prediction y = q + h f(q), and y - q, for the owned disks */
  PetscCall(SimScratch(s));
  for (PetscInt i = 0; i < p->n; i++) st->save[2 * i] = p->x[i], st->save[2 * i + 1] = p->y[i];
  PetscCall(PetscLogEventEnd(THRONG_EV.pgsAssemble, 0, 0, 0, 0));
  PetscCall(PetscLogEventBegin(THRONG_EV.predict, 0, 0, 0, 0));
  PetscCall(DriverPredict(&s->drv, s->prm.dt, p->n, p->x, p->y, p->id, p->n, p->xb, p->yb, NULL, NULL, d2));
  PetscCall(PetscLogEventEnd(THRONG_EV.predict, 0, 0, 0, 0));
  if (total > 0) {
    Mat          G, W;
    Vec          D, b, g, mu, dq, loc;
    IS           is;
    VecScatter   sc;
    PetscInt     r0, *idx;
    PetscScalar *gv;

    PetscCall(PetscLogEventBegin(THRONG_EV.pgsAssemble, 0, 0, 0, 0));
    PetscCall(MatCreateAIJ(comm, nrows, PETSC_DECIDE, PETSC_DETERMINE, (PetscInt)(2 * M), 4, NULL, 4, NULL, &G));
    PetscCall(MatSetOption(G, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE));
    PetscCall(MatGetOwnershipRange(G, &r0, NULL));
    for (PetscInt k = 0; k < nrows; k++) {
      const PetscInt    row = r0 + k, ci[2] = {(PetscInt)(2 * p->id[R[k].i]), (PetscInt)(2 * p->id[R[k].i] + 1)};
      const PetscScalar vi[2] = {R[k].j < 0 ? R[k].ex : -R[k].ex, R[k].j < 0 ? R[k].ey : -R[k].ey};
      PetscCall(MatSetValues(G, 1, &row, 2, ci, vi, INSERT_VALUES));
      if (R[k].j >= 0) {
        const PetscInt    cj[2] = {(PetscInt)(2 * p->id[R[k].j]), (PetscInt)(2 * p->id[R[k].j] + 1)};
        const PetscScalar vj[2] = {R[k].ex, R[k].ey};
        PetscCall(MatSetValues(G, 1, &row, 2, cj, vj, INSERT_VALUES));
      }
    }
    PetscCall(MatAssemblyBegin(G, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(G, MAT_FINAL_ASSEMBLY));
    PetscCall(MatMatTransposeMult(G, G, MAT_INITIAL_MATRIX, PETSC_DEFAULT, &W));
    PetscCall(MatCreateVecs(G, &D, &b));
    PetscCall(VecDuplicate(b, &g));
    PetscCall(VecGetArray(g, &gv));
    for (PetscInt k = 0; k < nrows; k++) gv[k] = R[k].g;
    PetscCall(VecRestoreArray(g, &gv));
    PetscCall(PetscMalloc1(2 * p->n + 1, &idx));
    for (PetscInt i = 0; i < p->n; i++)
      idx[2 * i] = (PetscInt)(2 * p->id[i]), idx[2 * i + 1] = (PetscInt)(2 * p->id[i] + 1);
    for (PetscInt i = 0; i < p->n; i++)
      st->save[2 * i] = p->x[i] - st->save[2 * i], st->save[2 * i + 1] = p->y[i] - st->save[2 * i + 1];
    PetscCall(VecSet(D, 0.0));
    PetscCall(VecSetValues(D, 2 * p->n, idx, st->save, INSERT_VALUES));
    PetscCall(VecAssemblyBegin(D));
    PetscCall(VecAssemblyEnd(D));
    PetscCall(MatMult(G, D, b)); /* b = g + G (y - q) */
    PetscCall(VecAXPY(b, 1.0, g));
    PetscCall(PetscLogEventEnd(THRONG_EV.pgsAssemble, 0, 0, 0, 0));

    PetscCall(PetscLogEventBegin(THRONG_EV.pgsSolve, 0, 0, 0, 0));
    PetscCall(VecDuplicate(b, &mu));
    PetscCall(VecSet(mu, 0.0));
    {
      PetscReal bmax;
      PetscCall(VecNorm(b, NORM_INFINITY, &bmax));
      if (s->prm.tao) PetscCall(SolveTAO(W, b, mu, s->prm.atol, s->prm.rtol, s->prm.maxIt, &its, &res, &gap));
      else PetscCall(SolvePGS(W, b, mu, s->prm.atol + s->prm.rtol * bmax, s->prm.maxIt, &its, &res, &gap));
      if (!(res <= s->prm.atol + s->prm.rtol * bmax)) st->unconverged++;
    }
    PetscCall(PetscLogEventEnd(THRONG_EV.pgsSolve, 0, 0, 0, 0));

    /* q' = y + G^T mu, brought back to the owners of the disks */
    PetscCall(PetscLogEventBegin(THRONG_EV.pgsAssemble, 0, 0, 0, 0));
    PetscCall(VecDuplicate(D, &dq));
    PetscCall(MatMultTranspose(G, mu, dq));
    PetscCall(ISCreateGeneral(PETSC_COMM_SELF, 2 * p->n, idx, PETSC_USE_POINTER, &is));
    PetscCall(VecCreateSeqWithArray(PETSC_COMM_SELF, 1, 2 * p->n, st->save, &loc));
    PetscCall(VecScatterCreate(dq, is, loc, NULL, &sc));
    PetscCall(VecScatterBegin(sc, dq, loc, INSERT_VALUES, SCATTER_FORWARD));
    PetscCall(VecScatterEnd(sc, dq, loc, INSERT_VALUES, SCATTER_FORWARD));
    for (PetscInt i = 0; i < p->n; i++) p->x[i] += st->save[2 * i], p->y[i] += st->save[2 * i + 1];
    PetscCall(VecScatterDestroy(&sc));
    PetscCall(VecDestroy(&loc));
    PetscCall(ISDestroy(&is));
    PetscCall(PetscFree(idx));
    PetscCall(VecDestroy(&dq));
    PetscCall(VecDestroy(&mu));
    PetscCall(VecDestroy(&g));
    PetscCall(VecDestroy(&b));
    PetscCall(VecDestroy(&D));
    PetscCall(MatDestroy(&W));
    PetscCall(MatDestroy(&G));
    PetscCall(PetscLogEventEnd(THRONG_EV.pgsAssemble, 0, 0, 0, 0));
  }
  PetscCall(PetscFree(R));
  PetscCall(PBDSettle(s));
  st->work += tests + (PetscInt64)its * nrows;
  st->iterations += its;
  st->lastIts      = its;
  st->maxIts       = PetscMax(st->maxIts, its);
  st->lastResidual = res;
  st->maxResidual  = PetscMax(st->maxResidual, res);
  st->lastGap      = gap;
  st->maxGap       = PetscMax(st->maxGap, gap);
  st->lastRows     = total;
  st->maxRows      = PetscMax(st->maxRows, total);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* TAO reads its -tao_* options now: checked at set-up, and not left unused */
static PetscErrorCode PGSCheck(MPI_Comm comm, Params *p)
{
  Tao tao;
  PetscFunctionBeginUser;
  if (!p->tao) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(TaoCreate(comm, &tao));
  PetscCall(TaoSetType(tao, TAOTRON));
  PetscCall(TaoSetFromOptions(tao));
  PetscCall(TaoDestroy(&tao));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PGSView(MPI_Comm comm, const Params *p)
{
  PetscFunctionBeginUser;
  PetscCall(PetscPrintf(
    comm, "throng: solver=pgs%s rtol=%g atol=%g max_it=%" PetscInt_FMT " (linearised pairs with gap < -pgs_active)\n",
    p->tao ? " (TAO)" : "", (double)p->rtol, (double)p->atol, p->maxIt));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PGSMonitor(Sim *s)
{
  const SolverStats *st = &s->sol;
  PetscFunctionBeginUser;
  PetscCall(PetscPrintf(s->dom.comm,
                        "solver: step %" PetscInt_FMT " its %" PetscInt_FMT " rows %" PetscInt64_FMT
                        " residual %.3e gap %.3e\n",
                        s->step, st->lastIts, st->lastRows, (double)st->lastResidual, (double)st->lastGap));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PGSReport(Sim *s)
{
  const SolverStats *st = &s->sol;
  PetscFunctionBeginUser;
  PetscCall(PetscPrintf(s->dom.comm,
                        "  max_residual %.3e  max_gap %.3e  max_rows %" PetscInt64_FMT "  unconverged %" PetscInt_FMT,
                        (double)st->maxResidual, (double)st->maxGap, st->maxRows, st->unconverged));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static const char *PGSVariant(const Params *p) { return p->tao ? "/tao" : ""; }

PetscErrorCode SolverCreate_PGS(SolverOps *ops)
{
  PetscFunctionBeginUser;
  ops->step    = PGSStep;
  ops->check   = PGSCheck;
  ops->view    = PGSView;
  ops->monitor = PGSMonitor;
  ops->report  = PGSReport;
  ops->variant = PGSVariant;
  PetscFunctionReturn(PETSC_SUCCESS);
}
