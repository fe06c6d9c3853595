/* direction — where an agent wants to go (see src/crowd/direction.c). */
#pragma once
#include <throng/crowd/crowd.h>

/* The desired direction of agent id at (x, y): down the travel-distance field of its
   target (route.c) or of the nearest exit, or straight on through a door whose line the
   agent has passed (-exit_rule pass with csm), or a link's steering (floors.c). */
void CrowdDirection(const Crowd *c, PetscInt64 id, PetscReal x, PetscReal y, PetscReal *wx, PetscReal *wy);
