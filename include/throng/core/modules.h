/* modules — modules plugged into the loop: their hooks (SimModule) and the loop's calls
   of them (modules.c). */
#pragma once
#include <throng/app/options.h>
#include <throng/core/digest.h>
#include <hdf5.h>

typedef struct Sim Sim;

/* A module plugged into the loop (modules.c lists them; crowd.c is one).  The core calls
   its hooks at fixed points and never names the module; ctx is the module's own state.
   Every hook may be NULL.                                                              */
typedef struct {
  const char *name;
  void       *ctx;
  /* set-up: may an initial disk sit at (x, y) (margin: its radius)? the first module
     with a filter decides; then the initial disks exist, binned with their ghosts      */
  PetscErrorCode (*setUp)(Sim *, void *); /* after the driver, before the walls   */
  PetscBool (*siteOK)(const Sim *, void *, PetscReal x, PetscReal y, PetscReal margin);
  PetscErrorCode (*created)(Sim *, void *);
  PetscErrorCode (*restored)(Sim *, void *);    /* a checkpoint's disks are binned      */
  PetscErrorCode (*beforeStep)(Sim *, void *);  /* before a step's prediction (deform.c) */
  PetscErrorCode (*beforeRebin)(Sim *, void *); /* before migration moves any disk      */
  PetscErrorCode (*afterRebin)(Sim *, void *);  /* after the binning and the ghosts     */
  /* after every step (it may remove disks: then s->ndisks falls); *stop: why the run
     must end now, or left NULL                                                        */
  PetscErrorCode (*stepEnd)(Sim *, void *, const char **stop);
  PetscErrorCode (*finish)(Sim *, void *, PetscBool writeFiles, hid_t file, hid_t dxpl);
  PetscErrorCode (*checkpointWrite)(const Sim *, void *, hid_t grp, hid_t dxpl);
  PetscErrorCode (*checkpointRead)(Sim *, void *, hid_t grp, const char *path);
  PetscErrorCode (*digest)(const Sim *, void *, Digest *); /* records beyond the disks  */
  /* state kept outside the fields during the steps, written back into them before a
     checkpoint or a digest reads them and before the stepEnd hooks, which may remove,
     add or reorder disks (warm.c's multipliers); not collective                      */
  PetscErrorCode (*sync)(const Sim *, void *);
  /* the simulated time the module expects the run still to need before it ends it
     (a crowd's last agents out), < 0 unknown; for the progress line's ETA (rank 0)  */
  PetscReal (*timeLeft)(const Sim *, void *);
  PetscErrorCode (*destroy)(Sim *, void *);
} SimModule;
#define SIM_MAX_MODULES 4

/* Set up the modules the options ask for; the hooks of every module, in
   order.  SimModulesStepEnd returns in *stop the first module's reason to end the run.  */
PetscErrorCode SimModulesSetUp(Sim *s);
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
#define SIM_MODULES_CALL(s, hook) \
  do { \
    for (PetscInt k_ = 0; k_ < (s)->nmod; k_++) \
      if ((s)->mod[k_].hook) PetscCall((s)->mod[k_].hook((s), (s)->mod[k_].ctx)); \
  } while (0)
