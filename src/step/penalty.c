/* penalty — explicit Euler on the penalised ODE of seed 000, eq. 107.
 *
 *     dq/dt = f(q) - gamma sum_j d_{S_j}(q) grad d_{S_j}(q),
 *
 * the comparison scheme that needs no projection at all: overlaps are allowed and pushed
 * back by a force proportional to them.  For a closed set S_j with a unique nearest
 * point, d grad d = q - P_{S_j}(q), so the penalty term is gamma times the sum of the
 * single-constraint corrections that PBD applies one after the other — here they are
 * all evaluated at the same state q (a Jacobi step) and scaled by h gamma:
 *
 *     q_{k+1} = q_k + h f(q_k) + h gamma sum_j (P_{S_j}(q_k) - q_k).
 *
 * For a pair (i, j) with overlap o = r_i + r_j - |q_i - q_j| > 0 the correction moves
 * q_i by -(o/2) e and q_j by +(o/2) e (e the unit vector from i to j); for a wall it moves
 * q_i along the wall normal by the deficit.  h gamma < 1 is needed for stability of a
 * single contact (the correction of a pair decays by 1 - h gamma per step); with many
 * contacts per disk the bound is smaller.  A small gamma lets disks sink into each other
 * (the error stops converging at O(|f| / gamma)); a large one needs small h — seed 000
 * Figures 8 and 10 show both, and jobs/study_solvers.sh reproduces them.
 *
 * Distribution: each rank evaluates, for each of its disks, all pairs with disks of the
 * 9 surrounding cells (owned or ghost) in a fixed order — cells south-west to north-east,
 * disks in id order inside a cell — so every sum is formed in the same order on any
 * number of ranks and the trajectory stays bitwise independent of the rank count.  No
 * reverse exchange is needed (each pair is evaluated from both sides); the ghosts are
 * refreshed, or the disks rebinned, after the update (PBDSettle).
 *
 * Forces (-stress, -contact_output, -barostat).  The springs are the contact forces: a
 * pair's h gamma (P(q) - q) is the displacement it gives its ends over the step, recorded
 * from the end with the smaller id only (the other end sums the same spring), so each
 * contact is counted once on any rank count.                                          */
#include <throng/core/sim.h>
#include <throng/step/pbd.h>
#include <throng/core/geometry.h>
#include <throng/util/project.h>
#include <throng/core/stress.h>
#include <throng/step/penalty.h>

static PetscErrorCode PenaltyStep(Sim *s)
{
  Particles      *p     = &s->P;
  const Domain   *d     = &s->dom;
  const Cells    *c     = &s->cells;
  const Walls    *wl    = &s->walls;
  SolverStats    *st    = &s->sol;
  const PetscInt  L     = d->ln[0];
  const PetscReal hg    = s->prm.dt * s->prm.penalty;
  const PetscBool rec   = s->stress.on; /* -stress, -contact_output, -barostat (contacts.c) */
  PetscInt64      evals = 0;
  PetscReal       d2[2];

  PetscFunctionBeginUser;
  PetscCall(PetscLogEventBegin(THRONG_EV.sweep, 0, 0, 0, 0));
  PetscCall(SimScratch(s));
  for (PetscInt cy = d->c0[1]; cy < d->c1[1]; cy++)
    for (PetscInt cx = d->c0[0]; cx < d->c1[0]; cx++) {
      const PetscInt k = DomainLocalCell(d, cx, cy);
      for (PetscInt i = c->beg[k]; i < c->end[k]; i++) {
        const PetscReal xi = p->x[i], yi = p->y[i], ri = p->r[i];
        PetscReal       px = 0, py = 0;
        for (PetscInt oy = -1; oy <= 1; oy++)
          for (PetscInt ox = -1; ox <= 1; ox++) {
            const PetscInt nk = k + oy * L + ox;
            for (PetscInt j = c->beg[nk]; j < c->end[nk]; j++) { /* P_ij(q) - q, for disk i */
              PetscReal qx = xi, qy = yi, qjx = p->x[j], qjy = p->y[j];
              if (j == i) continue;
              evals++;
              if (ProjectPair(&qx, &qy, &qjx, &qjy, ri + p->r[j], p->id[i], &p->id[j])) {
                px += qx - xi, py += qy - yi;
                if (rec && p->id[i] < p->id[j]) /* the step's displacement of j by this spring, once */
                  StressAddContact(s, i, p->id[i], p->id[j], hg * (qjx - p->x[j]), hg * (qjy - p->y[j]), p->x[j] - xi,
                                   p->y[j] - yi, 0.5 * (p->y[j] + yi));
              }
            }
          }
        if (s->wallMask[k]) { /* the walls' P(q) - q */
          for (PetscInt w = 0; w < wl->n; w++) {
            PetscReal qx = xi, qy = yi;
            ProjectHalfPlane(&qx, &qy, ri, &wl->w[3 * w]);
            evals++;
            px += qx - xi, py += qy - yi;
            if (rec) StressAddWall(s, i, w, xi, yi, xi + hg * (qx - xi), yi + hg * (qy - yi), ri);
          }
          for (PetscInt j = wl->segBeg[k]; j < wl->segBeg[k + 1]; j++) {
            const PetscInt sj = wl->segIdx[j];
            PetscReal      qx = xi, qy = yi;
            ProjectSegment(&qx, &qy, ri, &wl->seg[4 * sj], &wl->nrm[2 * sj], wl->depth);
            evals++;
            px += qx - xi, py += qy - yi;
            if (rec) StressAddWall(s, i, wl->n + sj, xi, yi, xi + hg * (qx - xi), yi + hg * (qy - yi), ri);
          }
        }
        st->save[2 * i]     = px;
        st->save[2 * i + 1] = py;
      }
    }
  PetscCall(PetscLogEventEnd(THRONG_EV.sweep, 0, 0, 0, 0));
  PetscCall(PetscLogEventBegin(THRONG_EV.predict, 0, 0, 0, 0));
  PetscCall(DriverPredict(&s->drv, s->prm.dt, p->n, p->x, p->y, p->id, p->n, p->xb, p->yb, NULL, NULL, d2));
  for (PetscInt i = 0; i < p->n; i++) {
    p->x[i] += hg * st->save[2 * i];
    p->y[i] += hg * st->save[2 * i + 1];
  }
  PetscCall(PetscLogEventEnd(THRONG_EV.predict, 0, 0, 0, 0));
  PetscCall(PBDSettle(s));
  st->work += evals;
  st->iterations++;
  st->lastIts = 1;
  st->maxIts  = 1;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PenaltyCheck(MPI_Comm comm, Params *p)
{
  PetscFunctionBeginUser;
  PetscCheck(p->penalty > 0 && PetscIsNormalReal(p->penalty), comm, PETSC_ERR_USER_INPUT,
             "-penalty_gamma %g: must be > 0", (double)p->penalty);
  if (p->dt * p->penalty > 0.5) /* explicit Euler on the penalty springs: docs/solvers.md */
    PetscCall(PetscFPrintf(comm, PETSC_STDERR,
                           "throng: warning: -solver penalty with -dt %g and -penalty_gamma %g: h gamma = %g is above "
                           "1/2, where the explicit penalty step is stable (docs/solvers.md); expect the overlaps to "
                           "grow until -overlap_abort stops the run\n",
                           (double)p->dt, (double)p->penalty, (double)(p->dt * p->penalty)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PenaltyView(MPI_Comm comm, const Params *p)
{
  PetscFunctionBeginUser;
  PetscCall(PetscPrintf(comm, "throng: solver=penalty penalty_gamma=%g\n", (double)p->penalty));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SolverCreate_Penalty(SolverOps *ops)
{
  PetscFunctionBeginUser;
  ops->step  = PenaltyStep;
  ops->check = PenaltyCheck;
  ops->view  = PenaltyView;
  PetscFunctionReturn(PETSC_SUCCESS);
}
