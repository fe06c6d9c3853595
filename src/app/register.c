/* register — the plug board: the steppers and the modules a run can have.
 *
 * The lower layers know steppers and modules only through their registries: the core
 * looks a stepper up by the name -solver gives (core/solver.c: a SolverOps that its
 * create function fills in) and asks each registered module, in order, whether the run
 * needs it (core/sim.c: a SimModule of hooks at fixed points of the run, core/modules.c
 * calls them).  This file is the only one that names them all, so a new stepper or
 * module is a file in its folder and one line here (docs/contributing.md).
 *
 * The order of the modules matters where they interact, and it is the order below, on
 * every rank, so that a run is the same on any rank count: the RMS speed's bookkeeping
 * (it moves no disk); the crowd; pbdw's carried state; the deforming box; the barostat
 * after it (it sets the box's rate from the pressure of the last step).                */
#include <throng/app/register.h>
#include <throng/core/speed.h>
#include <throng/step/pbd.h>
#include <throng/step/warm.h>
#include <throng/step/warm_list.h>
#include <throng/step/penalty.h>
#include <throng/step/pgs.h>
#include <throng/edmd/edmd_run.h>
#include <throng/crowd/crowd_module.h>
#include <throng/granular/deform.h>
#include <throng/granular/barostat.h>

static PetscBool registered = PETSC_FALSE;

static PetscErrorCode RegisteredFree(void)
{
  PetscFunctionBeginUser;
  registered = PETSC_FALSE; /* the solver registry is gone: a later PetscInitialize registers anew */
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode ThrongRegisterAll(void)
{
  PetscFunctionBeginUser;
  if (registered) PetscFunctionReturn(PETSC_SUCCESS);
  registered = PETSC_TRUE;
  PetscCall(PetscRegisterFinalize(RegisteredFree));
  /* the time steppers (-solver) */
  PetscCall(SolverRegister("pbd", "one sweep", SolverCreate_PBD));
  PetscCall(SolverRegister("pbdw", "one sweep, contact multipliers carried between steps", SolverCreate_PBDW));
  PetscCall(SolverRegister("pngs", "sweeps to convergence", SolverCreate_PNGS));
  PetscCall(SolverRegister("penalty", "explicit Euler, seed 000 eq. 107", SolverCreate_Penalty));
  PetscCall(SolverRegister("pgs", "linearised, PETSc-assembled, seed 001 eq. 10", SolverCreate_PGS));
  PetscCall(SolverRegister("edmd", "event-driven elastic hard disks, seed 003; -dt is then the reporting interval",
                           SolverCreate_EDMD));
  /* the modules of the loop, in the order of their hooks */
  PetscCall(SimModuleRegister("speed", SpeedModuleCreate));       /* the ids of a measured step that rebins (core/speed.c) */
  PetscCall(SimModuleRegister("crowd", CrowdModuleCreate));       /* pedestrians (crowd/crowd_module.c) */
  PetscCall(SimModuleRegister("warm", WarmModuleCreate));         /* -solver pbdw: carried multipliers (step/warm.c) */
  PetscCall(SimModuleRegister("deform", DeformModuleCreate));     /* -deform_rate, -shear_rate (granular/deform.c) */
  PetscCall(SimModuleRegister("barostat", BarostatModuleCreate)); /* -barostat, after deform (granular/barostat.c) */
  PetscFunctionReturn(PETSC_SUCCESS);
}
