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
 * check, view, monitor and report.  ThrongRegisterAll (app/register.c) adds the built-in
 * ones by name to a PetscFunctionList, as PETSc registers its own types; -solver NAME looks the name up.
 * A new stepper is one file and one SolverRegister line.
 *
 * Work, the x-axis of seed 000's precision-work diagrams, is counted in single-constraint
 * evaluations: candidate pairs visited by a sweep (pbd: one sweep; pngs: each sweep),
 * pair and wall terms (penalty: each pair from both sides), candidate tests plus one
 * per linearised constraint and Gauss-Seidel iteration (pgs).  The summary prints it per
 * step, with iterations, residuals and gaps; -solver_monitor prints them every step.  */
#include <throng/core/solver.h>
#include <string.h>

static PetscFunctionList solverList       = NULL;
static char              solverHelp[1024] = "Time stepper:";
static char              solverNames[256] = "";

/* At PetscFinalize: the registry goes (a later PetscInitialize registers anew). */
static PetscErrorCode SolverRegistryFree(void)
{
  PetscFunctionBeginUser;
  PetscCall(PetscFunctionListDestroy(&solverList));
  solverHelp[strlen("Time stepper:")] = 0;
  solverNames[0]                      = 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SolverRegister(const char *name, const char *help, PetscErrorCode (*create)(SolverOps *))
{
  PetscFunctionBeginUser;
  if (!solverList) PetscCall(PetscRegisterFinalize(SolverRegistryFree));
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

const char *SolverHelp(void) { return solverHelp; }

PetscErrorCode SolverGetOps(MPI_Comm comm, const char *name, SolverOps *ops)
{
  PetscErrorCode (*create)(SolverOps *) = NULL;
  PetscFunctionBeginUser;
  PetscCheck(solverList, comm, PETSC_ERR_PLIB, "no time stepper is registered (ThrongRegisterAll, app/register.c)");
  PetscCall(PetscFunctionListFind(solverList, name, &create));
  PetscCheck(create, comm, PETSC_ERR_USER_INPUT, "Unknown option %s for -solver: the solvers are %s", name,
             solverNames);
  PetscCall(PetscMemzero(ops, sizeof(*ops)));
  PetscCall(create(ops));
  PetscFunctionReturn(PETSC_SUCCESS);
}
