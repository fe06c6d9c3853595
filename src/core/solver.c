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
 * The registry.  Each stepper is a file with a create function that fills a SolverOps
 * (solver.h): step (or run, for a stepper with a loop of its own: edmd), and optionally
 * check, view, monitor and report.  SolverRegisterAll adds the built-in ones by name to
 * a PetscFunctionList, as PETSc registers its own types; -solver NAME looks the name up.
 * A new stepper is one file and one SolverRegister line.
 *
 * Work, the x-axis of seed 000's precision-work diagrams, is counted in single-constraint
 * evaluations: candidate pairs visited by a sweep (pbd: one sweep; pngs: each sweep),
 * pair and wall terms (penalty: each pair from both sides), candidate tests plus one
 * per linearised constraint and Gauss-Seidel iteration (pgs).  The summary prints it per
 * step, with iterations, residuals and gaps; -solver_monitor prints them every step.  */
#include <throng/core/sim.h>
#include <string.h>

static PetscFunctionList solverList       = NULL;
static char              solverHelp[1024] = "Time stepper:";
static char              solverNames[256] = "";

PetscErrorCode SolverRegister(const char *name, const char *help, PetscErrorCode (*create)(SolverOps *))
{
  PetscFunctionBeginUser;
  PetscCall(PetscFunctionListAdd(&solverList, name, create));
  PetscCall(PetscStrlcat(solverHelp, solverNames[0] ? ", " : " ", sizeof(solverHelp)));
  PetscCall(PetscStrlcat(solverHelp, name, sizeof(solverHelp)));
  PetscCall(PetscStrlcat(solverHelp, " (", sizeof(solverHelp)));
  PetscCall(PetscStrlcat(solverHelp, help, sizeof(solverHelp)));
  PetscCall(PetscStrlcat(solverHelp, ")", sizeof(solverHelp)));
  PetscCall(PetscStrlcat(solverNames, solverNames[0] ? ", " : "", sizeof(solverNames)));
  PetscCall(PetscStrlcat(solverNames, name, sizeof(solverNames)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The built-in steppers: a create function in each stepper's own file, and a line below. */
PetscErrorCode SolverCreate_PBD(SolverOps *ops);     /* pbd.c      */
PetscErrorCode SolverCreate_PNGS(SolverOps *ops);    /* pbd.c      */
PetscErrorCode SolverCreate_PBDW(SolverOps *ops);    /* warm.c     */
PetscErrorCode SolverCreate_Penalty(SolverOps *ops); /* penalty.c  */
PetscErrorCode SolverCreate_PGS(SolverOps *ops);     /* pgs.c      */
PetscErrorCode SolverCreate_EDMD(SolverOps *ops);    /* edmd_run.c */

static PetscBool registered = PETSC_FALSE;

/* At PetscFinalize: the registry goes (a later PetscInitialize registers anew). */
static PetscErrorCode SolverRegistryFree(void)
{
  PetscFunctionBeginUser;
  PetscCall(PetscFunctionListDestroy(&solverList));
  solverHelp[strlen("Time stepper:")] = 0;
  solverNames[0]                      = 0;
  registered                          = PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SolverRegisterAll(void)
{
  PetscFunctionBeginUser;
  if (registered) PetscFunctionReturn(PETSC_SUCCESS);
  registered = PETSC_TRUE;
  PetscCall(PetscRegisterFinalize(SolverRegistryFree));
  PetscCall(SolverRegister("pbd", "one sweep", SolverCreate_PBD));
  PetscCall(SolverRegister("pbdw", "one sweep, contact multipliers carried between steps", SolverCreate_PBDW));
  PetscCall(SolverRegister("pngs", "sweeps to convergence", SolverCreate_PNGS));
  PetscCall(SolverRegister("penalty", "explicit Euler, seed 000 eq. 107", SolverCreate_Penalty));
  PetscCall(SolverRegister("pgs", "linearised, PETSc-assembled, seed 001 eq. 10", SolverCreate_PGS));
  PetscCall(SolverRegister("edmd", "event-driven elastic hard disks, seed 003; -dt is then the reporting interval",
                           SolverCreate_EDMD));
  PetscFunctionReturn(PETSC_SUCCESS);
}

const char *SolverHelp(void) { return solverHelp; }

PetscErrorCode SolverGetOps(MPI_Comm comm, const char *name, SolverOps *ops)
{
  PetscErrorCode (*create)(SolverOps *) = NULL;
  PetscFunctionBeginUser;
  PetscCall(SolverRegisterAll());
  PetscCall(PetscFunctionListFind(solverList, name, &create));
  PetscCheck(create, comm, PETSC_ERR_USER_INPUT, "Unknown option %s for -solver: the solvers are %s", name,
             solverNames);
  PetscCall(PetscMemzero(ops, sizeof(*ops)));
  PetscCall(create(ops));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SolverStep(Sim *s)
{
  PetscFunctionBeginUser;
  for (PetscInt k = 0; k < s->prm.nsched; k++) /* the field of a piecewise-constant schedule */
    if (s->time >= s->prm.sched[3 * k]) s->drv.g[0] = s->prm.sched[3 * k + 1], s->drv.g[1] = s->prm.sched[3 * k + 2];
  s->drv.step = s->step; /* the noise's draw of this step */
  PetscCheck(s->ops.step, s->dom.comm, PETSC_ERR_PLIB, "-solver %s has no step of the time loop", s->prm.solver);
  SIM_MODULES_CALL(s, beforeStep); /* a deforming box (deform.c) */
  PetscCall(s->ops.step(s));
  s->step++; /* the clock of every stepper, here only */
  s->time = s->prm.dt * (PetscReal)s->step;
  if (s->prm.monitor && s->ops.monitor) PetscCall(s->ops.monitor(s));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SolverReport(Sim *s)
{
  const SolverStats *st    = &s->sol;
  PetscInt64         w[2]  = {st->work, s->pairChecks};
  const PetscReal    steps = (PetscReal)PetscMax(1, s->step);

  PetscFunctionBeginUser;
  PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, w, 2, MPIU_INT64, MPI_SUM, s->dom.comm));
  PetscCall(
    PetscPrintf(s->dom.comm,
                "summary: solver %s%s  work %.6e constraint evaluations (%.4e per step)  iterations %" PetscInt64_FMT
                " (max %" PetscInt_FMT " per step)",
                s->prm.solver, s->ops.variant ? s->ops.variant(&s->prm) : "", (double)(w[0] + w[1]),
                (double)((PetscReal)(w[0] + w[1]) / steps), st->iterations, st->maxIts));
  if (s->ops.report) PetscCall(s->ops.report(s));
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
