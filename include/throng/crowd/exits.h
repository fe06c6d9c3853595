/* exits — the doors of a crowd and the agents that leave (see src/crowd/exits.c). */
#pragma once
#include <throng/crowd/crowd.h>

/* The width of exit e (the sum of its segments' lengths); e < 0: of all exits. */
PetscReal ExitWidth(const Geometry *g, PetscInt e);
/* The doors' normals and lanes, at set-up. */
PetscErrorCode ExitSetUp(Sim *s);
/* At the end of a step: remove the agents that have left, record them, and rebin if any
   rank removed one.  Collective. */
PetscErrorCode CrowdExits(Sim *s);
