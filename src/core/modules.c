/* modules — the loop's calls of the modules' hooks.
 *
 * The core (sim.c, main.c, checkpoint.c) knows modules only through SimModule (sim.h):
 * a set of hooks at fixed points of a run — set-up, the initial sites and disks, before
 * and after every rebinning, the end of every step, the end of the run, checkpoints and
 * the state digest — and a context pointer to the module's own state.  Each module has a
 * create function that says, from the options, whether the run needs it, and fills in
 * its hooks; sim.c asks every registered one at set-up (SimModuleRegister), and
 * app/register.c is the only place that names them.
 *
 * The hooks are called in the order of registration, on every rank, so that the result
 * stays the same on any rank count.                                                     */
#include <throng/core/modules.h>
#include <string.h>

PetscReal SimModulesTimeLeft(const Sim *s, PetscBool *early)
{
  PetscReal t = -1;
  *early      = PETSC_FALSE;
  for (PetscInt k = 0; k < s->nmod; k++)
    if (s->mod[k].timeLeft) {
      const PetscReal u = s->mod[k].timeLeft(s, s->mod[k].ctx);
      *early            = PETSC_TRUE;
      if (u >= 0 && (t < 0 || u < t)) t = u;
    }
  return t;
}

void *SimModuleContext(const Sim *s, const char *name)
{
  for (PetscInt k = 0; k < s->nmod; k++)
    if (!strcmp(s->mod[k].name, name)) return s->mod[k].ctx;
  return NULL;
}

PetscErrorCode SimModulesStepEnd(Sim *s, const char **stop)
{
  PetscFunctionBeginUser;
  *stop = NULL;
  for (PetscInt k = 0; k < s->nmod; k++) /* a stepEnd may remove, add or reorder disks: */
    if (s->mod[k].stepEnd) {             /* the fields must hold the whole state first  */
      PetscCall(SimModulesSync(s));
      break;
    }
  for (PetscInt k = 0; k < s->nmod; k++) {
    const char *why = NULL;
    if (s->mod[k].stepEnd) PetscCall(s->mod[k].stepEnd(s, s->mod[k].ctx, &why));
    if (why && !*stop) *stop = why;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SimModulesFinish(Sim *s, PetscBool writeFiles, hid_t file, hid_t dxpl)
{
  PetscFunctionBeginUser;
  for (PetscInt k = 0; k < s->nmod; k++)
    if (s->mod[k].finish) PetscCall(s->mod[k].finish(s, s->mod[k].ctx, writeFiles, file, dxpl));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SimModulesSync(const Sim *s)
{
  PetscFunctionBeginUser;
  for (PetscInt k = 0; k < s->nmod; k++)
    if (s->mod[k].sync) PetscCall(s->mod[k].sync(s, s->mod[k].ctx));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SimModulesCheckpointWrite(const Sim *s, hid_t grp, hid_t dxpl)
{
  PetscFunctionBeginUser;
  for (PetscInt k = 0; k < s->nmod; k++)
    if (s->mod[k].checkpointWrite) PetscCall(s->mod[k].checkpointWrite(s, s->mod[k].ctx, grp, dxpl));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SimModulesCheckpointRead(Sim *s, hid_t grp, const char *path)
{
  PetscFunctionBeginUser;
  for (PetscInt k = 0; k < s->nmod; k++)
    if (s->mod[k].checkpointRead) PetscCall(s->mod[k].checkpointRead(s, s->mod[k].ctx, grp, path));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SimModulesDigest(const Sim *s, Digest *dg)
{
  PetscFunctionBeginUser;
  PetscCall(SimModulesSync(s));
  for (PetscInt k = 0; k < s->nmod; k++)
    if (s->mod[k].digest) PetscCall(s->mod[k].digest(s, s->mod[k].ctx, dg));
  PetscFunctionReturn(PETSC_SUCCESS);
}
