/* crowd_module — the crowd as a module of the loop (see src/crowd/crowd_module.c). */
#pragma once
#include <throng/core/sim.h>
#include <throng/util/opt.h>

/* On with -geometry and -walk; its hooks are crowd_module.c's own. */
PetscErrorCode CrowdModuleCreate(const Params *prm, SimModule *m, PetscBool *on);
/* The crowd's options (-geometry, -walk, -speed, the time-gap law's, routes, exits, the
   density map), and their checks once every option is read (options.c calls them). */
PetscErrorCode CrowdSetFromOptions(Opt *o);
PetscErrorCode CrowdCheck(MPI_Comm comm, Params *p);
