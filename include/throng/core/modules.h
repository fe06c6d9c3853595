/* modules — the loop's calls of the modules' hooks (src/core/modules.c).  A module is a
   SimModule (sim.h) that a create function, registered with SimModuleRegister, fills in. */
#pragma once
#include <throng/core/sim.h>

/* The hooks of every module of the run, in the order of registration.
   SimModulesStepEnd returns in *stop the first module's reason to end the run.          */
PetscErrorCode SimModulesStepEnd(Sim *s, const char **stop);
PetscErrorCode SimModulesFinish(Sim *s, PetscBool writeFiles, hid_t file, hid_t dxpl);
PetscErrorCode SimModulesSync(const Sim *s);
PetscErrorCode SimModulesCheckpointWrite(const Sim *s, hid_t grp, hid_t dxpl);
PetscErrorCode SimModulesCheckpointRead(Sim *s, hid_t grp, const char *path);
PetscErrorCode SimModulesDigest(const Sim *s, Digest *dg);
/* The shortest time left that a module expects (< 0: none knows); *early: some module
   may end the run before -steps (it has the hook). */
PetscReal SimModulesTimeLeft(const Sim *s, PetscBool *early);
/* A module's state by name (NULL: the module is not in this run). */
void *SimModuleContext(const Sim *s, const char *name);
