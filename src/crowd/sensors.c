/* sensors — line sensors and the density map of a crowd.
 *
 * Line sensors (`sensor LINESTRING` lines of the geometry) count crossings; the density
 * map sums the agents per cell at fixed times.  Both are exact (whole counts, ordered
 * records), so they are the same on any rank count; the method is described in
 * crowd_module.c's essay.  crowd_module.c calls these at its hooks, records.c reports
 * them.                                                                                */
#include <throng/crowd/sensors.h>

/* ---- line sensors ------------------------------------------------------------------- */

/* Crossings of the sensor segments by the owned agents since the last mark (pending:
   timed at the end of the step).  Collective only in that every rank calls it at the same
   points of a step. */
PetscErrorCode CrowdSensorsAdvance(Sim *s)
{
  Crowd           *c = CrowdOf(s);
  const Geometry  *g = c->geom;
  const Particles *p = &s->P;

  PetscFunctionBeginUser;
  if (!c || !(g->nsensor || c->exitCross) || !c->marked) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCheck(c->capMark >= p->n, PETSC_COMM_SELF, PETSC_ERR_PLIB,
             "sensor marks for %" PetscInt_FMT " agents, %" PetscInt_FMT " owned", c->capMark, p->n);
  for (PetscInt k = 0; k < g->nsensor; k++) {
    const PetscReal *q = &g->sensor[4 * k], dx = q[2] - q[0], dy = q[3] - q[1], l2 = dx * dx + dy * dy;
    const PetscReal  lo[2] = {PetscMin(q[0], q[2]), PetscMin(q[1], q[3])},
                    hi[2]  = {PetscMax(q[0], q[2]), PetscMax(q[1], q[3])};
    for (PetscInt i = 0; i < p->n; i++) {
      const PetscReal x0 = c->px[i], y0 = c->py[i], x1 = p->x[i], y1 = p->y[i];
      if ((x0 < lo[0] && x1 < lo[0]) || (x0 > hi[0] && x1 > hi[0]) || (y0 < lo[1] && y1 < lo[1]) ||
          (y0 > hi[1] && y1 > hi[1]))
        continue;
      const PetscReal s0 = dx * (y0 - q[1]) - dy * (x0 - q[0]), s1 = dx * (y1 - q[1]) - dy * (x1 - q[0]);
      if ((s0 > 0) == (s1 > 0)) continue; /* same side of the line   */
      const PetscReal t = s0 / (s0 - s1), X = x0 + t * (x1 - x0), Y = y0 + t * (y1 - y0);
      const PetscReal u = ((X - q[0]) * dx + (Y - q[1]) * dy) / l2; /* where, along it   */
      if (!(u >= 0 && u < 1)) continue;
      PetscCall(ThrongGrow(&c->cross, sizeof(CrossRec), c->ncross, &c->capCross));
      c->cross[c->ncross++] = (CrossRec){p->id[i], 0, g->sensorId[k], s0 > 0 ? 1 : -1};
      c->pending++;
    }
  }
  /* passages through the doors: the centre's path crosses an exit segment from the
     inside (outward distance <= 0) to the outside (> 0); the same half-open rule.  A
     crossing back is recorded too (exit -1 - e): Passages() keeps the last forward one */
  for (PetscInt k = 0; c->exitCross && k < g->nexit; k++) {
    const PetscReal *q = &g->exit[4 * k], dx = q[2] - q[0], dy = q[3] - q[1], l2 = dx * dx + dy * dy;
    const PetscReal  nx = c->exitNormal[2 * k], ny = c->exitNormal[2 * k + 1];
    for (PetscInt i = 0; i < p->n; i++) {
      const PetscReal x0 = c->px[i], y0 = c->py[i], x1 = p->x[i], y1 = p->y[i];
      const PetscReal s0 = nx * (x0 - q[0]) + ny * (y0 - q[1]), s1 = nx * (x1 - q[0]) + ny * (y1 - q[1]);
      if ((s0 > 0) == (s1 > 0)) continue;
      const PetscReal t = s0 / (s0 - s1), X = x0 + t * (x1 - x0), Y = y0 + t * (y1 - y0);
      const PetscReal u = ((X - q[0]) * dx + (Y - q[1]) * dy) / l2;
      if (!(u >= 0 && u <= 1)) continue;
      PetscCall(ThrongGrow(&c->left, sizeof(ExitRec), c->nleft, &c->capLeft));
      c->left[c->nleft++] = (ExitRec){p->id[i], 0, s1 > 0 ? g->exitId[k] : -1 - g->exitId[k]};
      c->pendingLeft++;
    }
  }
  c->marked = PETSC_FALSE; /* each mark is used once: the next search needs a new mark */
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Remember the owned agents' positions (after a rebin, at a step's end, after a restart). */
PetscErrorCode CrowdSensorsMark(Sim *s)
{
  Crowd           *c = CrowdOf(s);
  const Particles *p = &s->P;

  PetscFunctionBeginUser;
  if (!c || !(c->geom->nsensor || c->exitCross)) PetscFunctionReturn(PETSC_SUCCESS);
  if (p->n > c->capMark) {
    c->capMark = p->n + p->n / 4 + 16;
    PetscCall(PetscFree2(c->px, c->py));
    PetscCall(PetscMalloc2(c->capMark, &c->px, c->capMark, &c->py));
  }
  PetscCall(PetscArraycpy(c->px, p->x, p->n));
  PetscCall(PetscArraycpy(c->py, p->y, p->n));
  c->marked = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---- density map ----------------------------------------------------------------- */

PetscErrorCode DensitySetUp(Sim *s)
{
  Crowd          *c = CrowdOf(s);
  const Geometry *g = c->geom;
  PetscReal       nx, ny;

  PetscFunctionBeginUser;
  c->dlast = -1;
  if (!(s->prm.densH > 0)) PetscFunctionReturn(PETSC_SUCCESS);
  c->dh  = s->prm.densH;
  c->dx0 = g->bbox[0], c->dy0 = g->bbox[1];
  nx = PetscCeilReal((g->bbox[2] - g->bbox[0]) / c->dh);
  ny = PetscCeilReal((g->bbox[3] - g->bbox[1]) / c->dh);
  PetscCheck(
    nx * ny <= 5e7, s->dom.comm, PETSC_ERR_USER_INPUT,
    "-density_h %g: the density map of the %g m x %g m area would have %.3g cells; raise -density_h (or 0: no map)",
    (double)c->dh, (double)(g->bbox[2] - g->bbox[0]), (double)(g->bbox[3] - g->bbox[1]), (double)(nx * ny));
  c->dnx = (PetscInt)PetscMax(nx, 1), c->dny = (PetscInt)PetscMax(ny, 1);
  PetscCall(PetscCalloc1((size_t)c->dnx * c->dny, &c->dens));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Add the owned agents to the map if a new -density_dt interval has begun. */
PetscErrorCode DensitySample(Sim *s)
{
  Crowd           *c = CrowdOf(s);
  const Particles *p = &s->P;
  PetscInt64       k;

  PetscFunctionBeginUser;
  if (!c->dens) PetscFunctionReturn(PETSC_SUCCESS);
  k = (PetscInt64)PetscFloorReal(s->time / s->prm.densDt * (1 + 1e-12));
  if (k <= c->dlast) PetscFunctionReturn(PETSC_SUCCESS);
  c->dlast = k;
  c->dsamples++;
  for (PetscInt i = 0; i < p->n; i++) {
    const PetscReal fx = PetscFloorReal((p->x[i] - c->dx0) / c->dh), fy = PetscFloorReal((p->y[i] - c->dy0) / c->dh);
    if (fx >= 0 && fx < c->dnx && fy >= 0 && fy < c->dny)
      c->dens[(size_t)fy * c->dnx + (size_t)fx] += 1; /* false for NaN: no conversion of it */
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The density map summed on rank 0 (NULL elsewhere; counts, not yet densities). */
PetscErrorCode GatherDensity(Sim *s, PetscReal **sum)
{
  Crowd      *c = CrowdOf(s);
  PetscMPIInt rank;
  size_t      m = (size_t)c->dnx * c->dny;

  PetscFunctionBeginUser;
  *sum = NULL;
  if (!c->dens) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCallMPI(MPI_Comm_rank(s->dom.comm, &rank));
  if (!rank) PetscCall(PetscMalloc1(m, sum));
  for (size_t o = 0; o < m; o += 1 << 26) { /* MPI counts are int */
    const int cnt = (int)PetscMin((size_t)1 << 26, m - o);
    PetscCallMPI(MPI_Reduce(c->dens + o, rank ? NULL : *sum + o, cnt, MPIU_REAL, MPI_SUM, 0, s->dom.comm));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
