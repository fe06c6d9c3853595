/* barostat — a pressure-controlled periodic box (-barostat p, -barostat_tau). */
#pragma once
#include <throng/app/optdecl.h>
#include <throng/core/modules.h>

PetscErrorCode BarostatSetFromOptions(Opt *o);
PetscErrorCode BarostatCheck(MPI_Comm comm, const Params *p);
PetscErrorCode BarostatModuleCreate(const Params *prm, SimModule *m, PetscBool *on);
/* The weights of sigma_xx and sigma_yy in the measured pressure (1 on a deformed axis;
   0, 0 without -barostat). */
void BarostatAxes(const Params *p, PetscReal w[2]);
/* The box's rate for the next step, from the last step's pressure (0 without -barostat). */
PetscReal BarostatRate(const Sim *s);
