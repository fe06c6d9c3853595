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
 * saves a halo exchange per step.
 *
 * Brownian noise (-noise D) is such a term: f_i = sqrt(2 D / h) xi_i, so the prediction
 * moves a free disk by sqrt(2 D h) xi_i, xi_i ~ N(0, I), and the projections make it
 * reflected Brownian motion of hard disks (mean squared displacement 4 D t while free).
 * xi_i is a function of (-seed, id, step) alone (Philox-4x32-10 and Box-Muller), so
 * owners and ghosts agree bit for bit, and so do runs on any number of ranks and
 * restarted runs.                                                                       */
#include <throng/core/drivers.h>
#include <throng/util/random.h>

void DriverNoise(PetscInt64 seed, PetscInt64 id, PetscInt64 step, PetscReal g[2])
{
  const uint64_t t = (uint64_t)step;
  RandomNormal2(seed, id, (uint32_t)(RANDOM_STREAM_NOISE | ((t >> 32) << 8)), (uint32_t)t, g);
}

static PetscErrorCode NoiseAdd(const DriverTerm *t, PetscInt m, const PetscReal *x, const PetscReal *y,
                               const PetscInt64 *id, PetscReal *fx, PetscReal *fy)
{
  const Driver   *drv = (const Driver *)t->ctx;
  const PetscReal a   = PetscSqrtReal(2 * drv->noise / drv->h);
  (void)x, (void)y;
  for (PetscInt i = 0; i < m; i++) {
    PetscReal g[2];
    DriverNoise(drv->seed, id[i], drv->step, g);
    fx[i] += a * g[0];
    fy[i] += a * g[1];
  }
  return PETSC_SUCCESS;
}

/* The noise term, when -noise D > 0. */
static PetscErrorCode NoiseCreate(const Params *prm, Driver *drv, DriverTerm *t, PetscBool *on)
{
  PetscFunctionBeginUser;
  drv->noise = prm->noise;
  drv->seed  = prm->seed;
  *on        = drv->noise > 0 ? PETSC_TRUE : PETSC_FALSE;
  *t         = (DriverTerm){"noise", NoiseAdd, drv};
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The terms of f beyond the fused affine part, in the order they are summed.  A new term
   is a function that adds its velocity (depending on the disk's own state only), a
   create function that says from the options whether the run has it, and a line here.
   (Modules add their own terms at their set-up: the crowd's desired velocity.)        */
static const struct {
  const char *name;
  PetscErrorCode (*create)(const Params *, Driver *, DriverTerm *, PetscBool *);
} terms[] = {
  {"noise", NoiseCreate},
};

PetscErrorCode DriverSetUp(const Params *prm, Driver *drv)
{
  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(drv, sizeof(*drv)));
  drv->gamma = prm->gamma;
  drv->c[0]  = prm->center[0];
  drv->c[1]  = prm->center[1];
  drv->g[0]  = prm->gravity[0];
  drv->g[1]  = prm->gravity[1];
  for (size_t k = 0; k < sizeof(terms) / sizeof(terms[0]); k++) {
    DriverTerm t;
    PetscBool  on;
    PetscCall(terms[k].create(prm, drv, &t, &on));
    if (on) PetscCall(DriverAddTerm(drv, &t));
  }
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
  PetscCheck(drv->nterm < THRONG_MAX_DRIVER_TERMS, PETSC_COMM_SELF, PETSC_ERR_SUP, "at most %d driver terms",
             THRONG_MAX_DRIVER_TERMS);
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

PetscErrorCode DriverPredict(Driver *drv, PetscReal h, PetscInt m, PetscReal *x, PetscReal *y, const PetscInt64 *id,
                             PetscInt nown, const PetscReal *xb, const PetscReal *yb, PetscReal *sx, PetscReal *sy,
                             PetscReal d2[2])
{
  const PetscReal  gam = drv->gamma, cx = drv->c[0], cy = drv->c[1], gx = drv->g[0], gy = drv->g[1];
  PetscReal        before = 0, after = 0, chk = 0;
  const PetscReal *ex, *ey;

  PetscFunctionBeginUser;
  drv->h = h;
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
  /* The owned disks, fused with the displacement check: one loop per case, without a
     branch inside, vectorised (omp simd: the maxima are exact in any order, and each
     disk's operations are those of the scalar loop, so the trajectory is unchanged).
     A plain max skips a NaN, since every comparison with it is false: chk sums d - d,
     which is 0 for every finite d and NaN for a NaN or infinite one.  d2[1] is then
     +inf (which survives MPI_MAX, where a NaN may not): the caller rebins, and Migrate
     stops the run with "no longer a finite number".  The check costs a few per cent of
     this loop; the vectorisation made it 1.7 times faster (docs/performance.md).       */
  /* clang-format off */ /* (the pragma must stay in front of its loop) */
#define PREDICT_OWNED(extra_x, extra_y, save) \
  _Pragma("omp simd reduction(max : before, after) reduction(+ : chk)") \
  for (PetscInt i = 0; i < nown; i++) { \
    PetscReal dx = x[i] - xb[i], dy = y[i] - yb[i], d; \
    save; \
    d      = dx * dx + dy * dy; \
    before = d > before ? d : before; \
    PREDICT_ONE(i, extra_x, extra_y); \
    dx    = x[i] - xb[i]; \
    dy    = y[i] - yb[i]; \
    d     = dx * dx + dy * dy; \
    after = d > after ? d : after; \
    chk += d - d; \
  }
#define SAVE_ONE (sx[i] = x[i], sy[i] = y[i])
  if (drv->nterm && sx) {
    PREDICT_OWNED(ex[i], ey[i], SAVE_ONE)
  } else if (drv->nterm) {
    PREDICT_OWNED(ex[i], ey[i], (void)0)
  } else if (sx) {
    PREDICT_OWNED(0, 0, SAVE_ONE)
  } else {
    PREDICT_OWNED(0, 0, (void)0)
  }
  /* clang-format on */
#undef PREDICT_OWNED
#undef SAVE_ONE
  if (sx) { /* the ghosts' */
    PetscCall(PetscArraycpy(sx + nown, x + nown, m - nown));
    PetscCall(PetscArraycpy(sy + nown, y + nown, m - nown));
  }
  for (PetscInt i = nown; i < m; i++) {
    if (drv->nterm) PREDICT_ONE(i, ex[i], ey[i]);
    else PREDICT_ONE(i, 0, 0);
  }
  d2[0] = before;
  d2[1] = chk == 0 ? after : PETSC_INFINITY;
  PetscFunctionReturn(PETSC_SUCCESS);
}
