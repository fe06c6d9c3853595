/* crowd_module — the crowd as a module of the loop (see src/crowd/crowd_module.c). */
#pragma once
#include <throng/core/sim.h>

/* On with -geometry and -walk; its hooks are crowd_module.c's own. */
PetscErrorCode CrowdModuleCreate(const Params *prm, SimModule *m, PetscBool *on);
