/* population — who is in the building: named populations of agents, each with its start
   region and count, and the distributions of its radii, free speeds, time gap and
   pre-movement times (see the essay at the top of src/crowd/population.c).  The records
   (Population) are part of Params (util/params.h). */
#pragma once
#include <throng/util/opt.h>

/* -populations and every -pop_NAME_* option (options.c calls it). */
PetscErrorCode PopulationSetFromOptions(Opt *o);
