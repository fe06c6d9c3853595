/* barostat — a pressure-controlled periodic box (-barostat p, -barostat_tau). */
#pragma once
#include <throng/util/opt.h>
#include <throng/core/sim.h>

PetscErrorCode BarostatSetFromOptions(Opt *o);
PetscErrorCode BarostatCheck(MPI_Comm comm, const Params *p);
PetscErrorCode BarostatModuleCreate(const Params *prm, SimModule *m, PetscBool *on);
/* The box's rate for the next step, from the last step's pressure (0 without -barostat). */
PetscReal BarostatRate(const Sim *s);
