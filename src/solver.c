/* solver — which time stepper advances dq/dt ∈ f(q) − N(S, q), and what it cost.
 *
 * throng's method is PBD (pbd.c): a prediction and ONE sweep of projections onto the
 * single constraints, covered by seed 000's convergence theorem.  For comparison, as in
 * seed 000 §4.1 and seed 001 §3, -solver also offers
 *   pngs     the sweep repeated until it changes the state by at most
 *            atol + rtol max|q| (seed 000 eq. 108): the nonlinear Gauss-Seidel
 *            projection onto S itself, to a tolerance;
 *   penalty  explicit Euler on the penalised ODE (seed 000 eq. 107), parameter gamma;
 *   pgs      the catching-up scheme (seed 001 eq. 10): the projection onto the
 *            constraints linearised at q, through its dual, assembled as PETSc parallel
 *            matrices and solved by projected Gauss-Seidel or by TAO.
 * All four use the same drivers, walls, cells, halo and rebinning, so every scene runs
 * with every stepper.  pbd, pngs and penalty give trajectories that are bitwise the same
 * on any number of ranks (their stopping decisions are max-reductions); pgs depends on the
 * rank count within its tolerance (pgs.c says why).
 *
 * Work, the x-axis of seed 000's precision-work diagrams, is counted in single-constraint
 * evaluations: candidate pairs visited by a sweep (pbd: one sweep; pngs: each sweep),
 * pair and wall terms (penalty: each pair from both sides), candidate tests plus one
 * per linearised constraint and Gauss-Seidel iteration (pgs).  The summary prints it per
 * step, with iterations, residuals and gaps; -solver_monitor prints them every step.  */
#include <throng/sim.h>

PetscErrorCode SolverStep(Sim *s)
{
  PetscFunctionBeginUser;
  for (PetscInt k = 0; k < s->prm.nsched; k++) /* the field of a piecewise-constant schedule */
    if (s->time >= s->prm.sched[3 * k]) s->drv.g[0] = s->prm.sched[3 * k + 1], s->drv.g[1] = s->prm.sched[3 * k + 2];
  s->drv.step = s->step; /* the noise's draw of this step */
  switch (s->prm.solver) {
  case SOLVER_PBD:
    PetscCall(PBDStep(s));
    break;
  case SOLVER_PNGS:
    PetscCall(PNGSStep(s));
    break;
  case SOLVER_PENALTY:
    PetscCall(PenaltyStep(s));
    break;
  case SOLVER_PGS:
    PetscCall(PGSStep(s));
    break;
  case SOLVER_EDMD: /* not a time stepper of this loop: edmd_run.c has its own */
    SETERRQ(s->dom.comm, PETSC_ERR_PLIB, "-solver edmd reached the PBD loop");
  }
  if (s->prm.monitor) {
    const SolverStats *st = &s->sol;
    if (s->prm.solver == SOLVER_PGS)
      PetscCall(PetscPrintf(s->dom.comm, "solver: step %" PetscInt_FMT " its %" PetscInt_FMT " rows %" PetscInt64_FMT " residual %.3e gap %.3e\n", s->step, st->lastIts, st->lastRows, (double)st->lastResidual, (double)st->lastGap));
    else if (s->prm.solver == SOLVER_PNGS) PetscCall(PetscPrintf(s->dom.comm, "solver: step %" PetscInt_FMT " sweeps %" PetscInt_FMT " change %.3e\n", s->step, st->lastIts, (double)st->lastResidual));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SolverReport(Sim *s)
{
  const SolverStats *st = &s->sol;
  PetscInt64         w[2] = {st->work, s->pairChecks};
  const PetscReal    steps = (PetscReal)PetscMax(1, s->step);

  PetscFunctionBeginUser;
  PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, w, 2, MPIU_INT64, MPI_SUM, s->dom.comm));
  PetscCall(PetscPrintf(s->dom.comm, "summary: solver %s%s  work %.6e constraint evaluations (%.4e per step)  iterations %" PetscInt64_FMT " (max %" PetscInt_FMT " per step)", SolverKinds[s->prm.solver], s->prm.solver == SOLVER_PGS && s->prm.tao ? "/tao" : "",
                        (double)(w[0] + w[1]), (double)((PetscReal)(w[0] + w[1]) / steps), st->iterations, st->maxIts));
  if (s->prm.solver == SOLVER_PNGS) PetscCall(PetscPrintf(s->dom.comm, "  max_change %.3e  unconverged %" PetscInt_FMT, (double)st->maxResidual, st->unconverged));
  if (s->prm.solver == SOLVER_PGS) PetscCall(PetscPrintf(s->dom.comm, "  max_residual %.3e  max_gap %.3e  max_rows %" PetscInt64_FMT "  unconverged %" PetscInt_FMT, (double)st->maxResidual, (double)st->maxGap, st->maxRows, st->unconverged));
  PetscCall(PetscPrintf(s->dom.comm, "\n"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SolverScratch(Sim *s)
{
  SolverStats *st = &s->sol;
  PetscFunctionBeginUser;
  if (st->cap < s->P.n) { /* contents need not be kept */
    PetscCall(PetscFree(st->save));
    st->cap = PetscMax(s->P.n, 2 * st->cap);
    PetscCall(PetscMalloc1(2 * st->cap, &st->save));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SolverDestroy(Sim *s)
{
  PetscFunctionBeginUser;
  PetscCall(PetscFree(s->sol.save));
  s->sol.cap = 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}
