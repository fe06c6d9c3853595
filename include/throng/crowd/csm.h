/* csm — the collision-free speed model, the time-gap law of the crowd (-crowd_model csm;
   see src/crowd/csm.c).  Its state (Csm) is the crowd's. */
#pragma once
#include <throng/crowd/crowd.h>

PetscErrorCode CsmSetUp(Sim *s);
PetscErrorCode CsmRebinned(Sim *s);
PetscErrorCode CsmDestroy(Csm *m);
PetscErrorCode CsmCheckReach(Sim *s);
