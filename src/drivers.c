/* drivers — the unconstrained velocity f(q) and the prediction y = x + h f(x).
 *
 * f is a sum of terms.  The affine ones of seed 000 §4.3 and of granular settling,
 *   attraction  f_i = -gamma (q_i - c)      and      constant field  f_i = g,
 * are fused into the prediction loop (it streams x and y once).  Other terms — the
 * desired velocity of a crowd, which needs a field looked up at q_i — register a
 * callback with DriverAddTerm() and are evaluated into scratch arrays first.
 *
 * Every term depends on the disk's own state only, and the same code runs on owners and
 * on ghosts: a rank predicts its ghosts itself, bit-identically to their owners, and
 * saves a halo exchange per step.                                                       */
#include <throng/drivers.h>

PetscErrorCode DriverSetUp(const Params *prm, Driver *drv)
{
  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(drv, sizeof(*drv)));
  drv->gamma = prm->gamma;
  drv->c[0]  = prm->center[0];
  drv->c[1]  = prm->center[1];
  drv->g[0]  = prm->gravity[0];
  drv->g[1]  = prm->gravity[1];
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode DriverDestroy(Driver *drv)
{
  PetscFunctionBeginUser;
  PetscCall(PetscFree2(drv->fx, drv->fy));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode DriverAddTerm(Driver *drv, const DriverTerm *t)
{
  PetscFunctionBeginUser;
  PetscCheck(drv->nterm < THRONG_MAX_DRIVER_TERMS, PETSC_COMM_SELF, PETSC_ERR_SUP, "at most %d driver terms", THRONG_MAX_DRIVER_TERMS);
  drv->term[drv->nterm++] = *t;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The loop body, shared by the owned part (with the displacement check) and the ghosts. */
#define PREDICT_ONE(i, extra_x, extra_y) \
  do { \
    const PetscReal fx_ = -gam * (x[i] - cx) + gx + (extra_x), fy_ = -gam * (y[i] - cy) + gy + (extra_y); \
    x[i] += h * fx_; \
    y[i] += h * fy_; \
  } while (0)

PetscErrorCode DriverPredict(Driver *drv, PetscReal h, PetscInt m, PetscReal *x, PetscReal *y, const PetscInt64 *id, PetscInt nown, const PetscReal *xb, const PetscReal *yb, PetscReal d2[2])
{
  const PetscReal gam = drv->gamma, cx = drv->c[0], cy = drv->c[1], gx = drv->g[0], gy = drv->g[1];
  PetscReal       before = 0, after = 0;
  const PetscReal *ex, *ey;

  PetscFunctionBeginUser;
  if (drv->nterm) {
    if (m > drv->cap) {
      PetscCall(PetscFree2(drv->fx, drv->fy));
      drv->cap = PetscMax(m, drv->cap + drv->cap / 2);
      PetscCall(PetscMalloc2(drv->cap, &drv->fx, drv->cap, &drv->fy));
    }
    PetscCall(PetscArrayzero(drv->fx, m));
    PetscCall(PetscArrayzero(drv->fy, m));
    for (PetscInt t = 0; t < drv->nterm; t++) PetscCall(drv->term[t].add(&drv->term[t], m, x, y, id, drv->fx, drv->fy));
  }
  ex = drv->fx;
  ey = drv->fy;
  for (PetscInt i = 0; i < nown; i++) {
    PetscReal dx = x[i] - xb[i], dy = y[i] - yb[i], d;
    d      = dx * dx + dy * dy;
    before = d > before ? d : before;
    if (drv->nterm) PREDICT_ONE(i, ex[i], ey[i]);
    else PREDICT_ONE(i, 0, 0);
    dx    = x[i] - xb[i];
    dy    = y[i] - yb[i];
    d     = dx * dx + dy * dy;
    after = d > after ? d : after;
  }
  for (PetscInt i = nown; i < m; i++) {
    if (drv->nterm) PREDICT_ONE(i, ex[i], ey[i]);
    else PREDICT_ONE(i, 0, 0);
  }
  d2[0] = before;
  d2[1] = after;
  PetscFunctionReturn(PETSC_SUCCESS);
}
