/* drivers — the unconstrained velocity field f(q) of dq/dt ∈ f(q) − N(S, q). */
#pragma once
#include <throng/throng.h>
#include <throng/util/params.h>

/* A further term of f (e.g. a crowd's desired velocity U_i = v_i w(q_i)): it adds its
   velocity for disks [0, m) to (fx, fy).  Terms must depend only on a disk's own state
   (position, id, radius), so a ghost and its owner predict bit-identically.            */
typedef struct DriverTerm {
  const char *name;
  PetscErrorCode (*add)(const struct DriverTerm *t, PetscInt m, const PetscReal *x, const PetscReal *y,
                        const PetscInt64 *id, PetscReal *fx, PetscReal *fy);
  void *ctx;
} DriverTerm;

#define THRONG_MAX_DRIVER_TERMS 4
typedef struct {
  PetscReal  gamma, c[2], g[2]; /* affine part f = -gamma (q - c) + g, fused in the loop */
  PetscInt   nterm;
  DriverTerm term[THRONG_MAX_DRIVER_TERMS];
  PetscReal *fx, *fy; /* scratch for the further terms                      */
  PetscInt   cap;
  /* Brownian noise (-noise D): the prediction adds sqrt(2 D h) xi, xi ~ N(0, I) drawn
     from Philox keyed by (-seed, id, step): the same on an owner and its ghosts, on any
     rank count, and after a restart.  The stepper sets step before each prediction.   */
  PetscReal  noise, h;
  PetscInt64 seed, step;
} Driver;

PetscErrorCode DriverSetUp(const Params *prm, Driver *drv);
PetscErrorCode DriverDestroy(Driver *drv);
PetscErrorCode DriverAddTerm(Driver *drv, const DriverTerm *t);
/* The standard normal pair of disk id at step (the noise term's draw). */
void DriverNoise(PetscInt64 seed, PetscInt64 id, PetscInt64 step, PetscReal g[2]);
/* Explicit Euler prediction q <- q + h f(q), in place, for disks [0, m). Not collective.
   For the first nown disks it also returns, fused into the same pass, the largest squared
   distance from (xb, yb) before (d2[0]) and after (d2[1]) the prediction.  With sx not
   NULL, q before the prediction is kept in (sx, sy), also in the same pass (pbd.c).    */
PetscErrorCode DriverPredict(Driver *drv, PetscReal h, PetscInt m, PetscReal *x, PetscReal *y, const PetscInt64 *id,
                             PetscInt nown, const PetscReal *xb, const PetscReal *yb, PetscReal *sx, PetscReal *sy,
                             PetscReal d2[2]);
