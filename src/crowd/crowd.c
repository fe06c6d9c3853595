/* crowd — pedestrians leaving a venue (seed 001 §4.2).
 *
 * A module of the loop (modules.c): on with -geometry and -walk, its hooks at the end of
 * this file.  The core calls them and never names the crowd.
 *
 * The crowd model of Maury and Venel: each agent i has a desired velocity
 *     U_i = v_i w(q_i),   w = -grad phi / |grad phi|,
 * phi the travel distance to the nearest exit (eikonal.c) or to the agent's own target
 * (an assigned route or a chosen exit, route.c), and its actual velocity is
 * the projection of U onto the feasible velocities — which is exactly what the time
 * steppers do with f = U (a PBD step: prediction q + h U, then the sweep).  U enters as a
 * driver term (drivers.h): it depends only on the agent's own position and id, so ghosts
 * and owners predict bit-identically and the run stays independent of the rank count.
 *
 * Agents: disks of radius -radius (0.2 m in the crowd configs), placed by the usual
 * initial conditions in -init_region; free speeds v_i from a normal distribution
 * (-speed mean,sd,min,max; default N(1.34, 0.26) m/s clipped to [0.5, 2.2], after
 * Weidmann 1993, see docs/crowd.md), drawn per id from Random123 like the radii.  Every
 * agent must start inside the walkable area, clear of the walls, and be able to reach
 * an exit (finite phi): otherwise the run stops with the agent's id and position.
 *
 * Walls: the wall segments of the geometry (with the doors cut out) are constraints of
 * the sweep (walls.c).  Exits: after each step an agent whose centre comes within its
 * radius of an exit segment, or that is already outside the walkable area within
 * r_max + skin of it (a large step carried it through), has passed the door and is
 * removed; its id, time and exit are recorded.  If any rank removed agents, all rebin (the ghosts are rebuilt).  The
 * evacuation curve N(t) is kept on rank 0 at every change; the run ends when the last
 * agent has left.  At the end: PREFIX.exits.csv (id, time, exit, sorted by time then
 * id) and PREFIX.evacuation.csv (time, agents remaining), and a summary line with the
 * evacuation time and the mean flow through each exit.
 *
 * Line sensors (`sensor LINESTRING` lines of the geometry): a crossing is a change of
 * side of an agent's centre, from its position at the last mark to its position now,
 * through the sensor segment.  Marks are taken after every rebin and at the end of every
 * step; the crossings are looked for just before a rebin (migration would separate an
 * agent from its marked position, which stays on the rank that marked it) and at the end
 * of the step.  The path tested is therefore the step's path through its rebin points
 * (x_old -> prediction -> x_new when the prediction triggered a rebin).  Rebins are
 * decided by global reductions of rank-independent values, so the crossings are the same
 * on any number of ranks.  Side is taken half-open (left means cross > 0), so an agent
 * that stops exactly on the line and turns back is counted once each way; a polyline's
 * interior vertex belongs to the segment that starts there, so it is never counted
 * twice.  Each crossing is recorded (id, end time of the step, sensor, direction).
 *
 * Density map: every -density_dt seconds of simulated time each rank adds its owned
 * agents to a grid of -density_h cells over the walkable area's bounding box (whole
 * counts in doubles: sums are exact, so the map is the same on any rank count).  At the
 * end the grids are summed on rank 0 and written as the mean density (agents / m^2).
 *
 * Records, the curve, the map and the sensor counts go to PREFIX.h5 (group /crowd, see
 * docs/crowd.md) and to CSV files; a checkpoint carries them, so a restarted run reports
 * the whole evacuation.                                                               */
#include <throng/crowd/crowd.h>
#include <throng/core/init.h>
#include <throng/io/io.h>

static PetscErrorCode DensitySetUp(Sim *s);
static PetscErrorCode DensitySample(Sim *s);
static PetscErrorCode ExitSetUp(Sim *s);
static PetscErrorCode CrowdSensorsAdvance(Sim *s);
static PetscErrorCode CrowdSensorsMark(Sim *s);
static PetscErrorCode CrowdRebinned(Sim *s);

static PetscErrorCode DesiredVelocity(const DriverTerm *t, PetscInt m, const PetscReal *x, const PetscReal *y,
                                      const PetscInt64 *id, PetscReal *fx, PetscReal *fy)
{
  const Sim   *s = (const Sim *)t->ctx;
  const Crowd *c = CrowdOf(s);
  PetscFunctionBeginUser;
  for (PetscInt i = 0; i < m; i++) {
    PetscReal wx, wy, v = id[i] < c->nspeed ? (PetscReal)c->speed[id[i]] : InitFreeSpeed(&s->prm, id[i]);
    if (CrowdWaiting(c, id[i], s->time)) continue; /* pre-movement: it stands */
    CrowdDirection(c, id[i], x[i], y[i], &wx, &wy);
    v = ZoneSpeed(c->geom, &s->prm, id[i], v, x[i], y[i], wx, wy);
    fx[i] += v * wx;
    fy[i] += v * wy;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

void CrowdDirection(const Crowd *c, PetscInt64 id, PetscReal x, PetscReal y, PetscReal *wx, PetscReal *wy)
{
  PetscReal      out;
  const PetscInt k = c->exitCross && c->exitDepth > 0 ? CrowdExitBeyond(c, x, y, &out) : -1;
  if (k >= 0) *wx = c->exitNormal[2 * k], *wy = c->exitNormal[2 * k + 1]; /* through a door: straight on */
  else {
    if (!RouterDirection(&c->route, id, x, y, wx, wy)) EikonalDirection(&c->eik, x, y, wx, wy);
    if (c->geom->nlinks) FloorsSteer(c, id, x, y, wx, wy); /* at a link line (floors.c) */
  }
}

/* The module's set-up (the geometry is read: the core's walls come from it, and they are
   set up after this, since the doors' jambs add walls). */
static PetscErrorCode CrowdSetUp(Sim *s, void *ctx)
{
  Crowd *c = (Crowd *)ctx;
  PetscFunctionBeginUser;
  c->geom = &s->geom;
  PetscCall(ZoneCheck(s->dom.comm, c->geom, &s->prm));
  ZoneFieldSpeeds(c->geom, &s->prm); /* the speed map of the travel-time fields (zone.c) */
  PetscCall(EikonalSolve(s->dom.comm, c->geom, s->prm.eikH, s->prm.eikWall, &c->eik));
  /* the free speeds, drawn once per id (rounded to float: a table of 4 bytes per agent
     instead of a Philox draw, a log and a cosine per agent and step) */
  c->nspeed = c->n0 = s->prm.n;
  c->capId          = c->nspeed + 1;
  PetscCall(PetscMalloc1(c->capId, &c->speed));
  PetscCall(PetscMalloc2(c->capId, &c->radius, c->capId, &c->origin)); /* agents.c */
  for (PetscInt64 i = 0; i < c->nspeed; i++) c->speed[i] = (float)InitFreeSpeed(&s->prm, i);
  if (s->prm.premoveOn) { /* pre-movement times, in double: an agent starts at its step exactly */
    PetscCall(PetscMalloc1(c->capId, &c->premove));
    for (PetscInt64 i = 0; i < c->nspeed; i++) c->premove[i] = (double)InitPremove(&s->prm, i);
  }
  for (PetscInt k = s->prm.npop - 1; k >= 0; k--) { /* the populations' routes (population.c), first */
    const Population *q = &s->prm.pop[k];
    char              what[64];
    if (!q->route[0]) continue;
    PetscCall(PetscSNPrintf(what, sizeof(what), "-pop_%s_route", q->name));
    PetscCall(GeometryAddRoute(s->dom.comm, c->geom, what, q->route, q->first, q->first + q->count - 1));
  }
  for (PetscInt k = 0, r = 0; k < THRONG_MAX_POPS; k++) /* route r of the first ones: population k's */
    c->popRoute[k] = k < s->prm.npop && s->prm.pop[k].route[0] ? r++ : -1;
  PetscCall(RouterSetUp(s, &c->route, c->geom));
  PetscCall(ExitSetUp(s)); /* before the law's wall lists: it may add walls */
  if (s->prm.crowdModel == CROWD_CSM) PetscCall(CsmSetUp(s));
  else {
    DriverTerm t = {"desired velocity", DesiredVelocity, s};
    PetscCall(DriverAddTerm(&s->drv, &t));
  }
  PetscCall(FloorsSetUp(s, &c->floors)); /* floors.c: after the law's wall lists (its lanes are the sweep's) */
  PetscCall(DensitySetUp(s));
  PetscCall(SourcesSetUp(s, c)); /* source.c: after the field (a spot must reach an exit) */
  PetscCall(StallSetUp(s, &c->stall));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode CrowdAgentsAdd(Sim *s, Crowd *c, PetscInt m, const ParticleRec *recs, const PetscInt *pops)
{
  const Params *prm = &s->prm;
  PetscInt     *route;
  PetscFunctionBeginUser;
  if (c->nspeed + m >= c->capId) { /* the per-id tables grow by half */
    const PetscInt64 cap = c->nspeed + m + c->nspeed / 2 + 16;
    PetscCall(PetscRealloc(sizeof(float) * (size_t)cap, &c->speed));
    {
      float *r;
      int   *o;
      PetscCall(PetscMalloc2(cap, &r, cap, &o));
      PetscCall(PetscArraycpy(r, c->radius, c->nspeed));
      PetscCall(PetscArraycpy(o, c->origin, c->nspeed));
      PetscCall(PetscFree2(c->radius, c->origin));
      c->radius = r, c->origin = o;
    }
    if (c->premove) PetscCall(PetscRealloc(sizeof(double) * (size_t)cap, &c->premove));
    if (c->csm.pop) PetscCall(PetscRealloc((size_t)cap, &c->csm.pop));
    c->capId = cap;
  }
  PetscCall(PetscMalloc1(m + 1, &route));
  for (PetscInt a = 0; a < m; a++) {
    const PetscInt64 id = c->nspeed + a;
    const PetscInt   k  = pops[a];
    PetscCheck(recs[a].id == id, PETSC_COMM_SELF, PETSC_ERR_PLIB, "arrival id out of order");
    c->speed[id] = (float)InitFreeSpeedOf(prm, k, id);
    if (c->premove) c->premove[id] = (double)(s->time + InitPremoveOf(prm, k, id)); /* from its entry */
    if (c->csm.pop) c->csm.pop[id] = (char)PetscMax(k, 0);
    route[a] = k >= 0 ? c->popRoute[k] : -1;
    AgentsArrived(c, &recs[a], GeometryFloorAt(c->geom, recs[a].x, recs[a].y));
  }
  PetscCall(RouterArrived(&c->route, c->geom, m, recs, route));
  PetscCall(PetscFree(route));
  c->nspeed += m;
  c->total += m;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Initial-condition filter: (x, y) inside the walkable area, margin from every wall. */
static PetscBool CrowdSiteOK(const Sim *s, void *ctx, PetscReal x, PetscReal y, PetscReal margin)
{
  const Geometry *g = &s->geom;
  (void)ctx;
  if (!GeometryInside(g, x, y)) return PETSC_FALSE;
  for (PetscInt k = 0; k < g->nring; k++) {
    PetscReal cx, cy;
    if (SegmentDistance(&g->ring[4 * k], x, y, &cx, &cy) < margin) return PETSC_FALSE;
  }
  return PETSC_TRUE;
}

static PetscErrorCode CrowdCreated(Sim *s, void *ctx)
{
  Crowd           *c      = CrowdOf(s);
  const Particles *p      = &s->P;
  PetscReal        bad[4] = {-1, 0, 0, 0}, /* id, x, y, kind (1 outside, 2 on a wall, 3 no exit,
                                              4 every way out narrower than the smallest agent) */
    rmin                  = PETSC_MAX_REAL;
  GeometryPassable pass;

  PetscFunctionBeginUser;
  if (!c) PetscFunctionReturn(PETSC_SUCCESS);
  for (PetscInt i = 0; i < p->n; i++) rmin = PetscMin(rmin, p->r[i]);
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &rmin, 1, MPIU_REAL, MPI_MIN, s->dom.comm));
  PetscCall(GeometryPassableCreate(c->geom, rmin < PETSC_MAX_REAL ? rmin : s->rmax, &pass));
  for (PetscInt i = 0; i < p->n && bad[0] < 0; i++) {
    PetscReal kind = 0;
    if (!GeometryInside(c->geom, p->x[i], p->y[i])) kind = 1;
    else {
      for (PetscInt k = 0; k < c->geom->nwall && !kind; k++) {
        PetscReal cx, cy;
        if (SegmentDistance(&c->geom->wall[4 * k], p->x[i], p->y[i], &cx, &cy) < p->r[i]) kind = 2;
      }
      if (!kind && !isfinite(EikonalValue(&c->eik, p->x[i], p->y[i]))) kind = 3;
      if (!kind && !GeometryPassableHas(pass, p->x[i], p->y[i])) kind = 4;
    }
    if (kind) bad[0] = (PetscReal)p->id[i], bad[1] = p->x[i], bad[2] = p->y[i], bad[3] = kind;
  }
  PetscCall(GeometryPassableDestroy(&pass)); /* before an error below */
  {                                          /* the lowest bad id over all ranks is reported */
    struct {
      double v;
      int    r;
    } in = {bad[0] < 0 ? 1e300 : bad[0], 0}, out;
    PetscCallMPI(MPI_Comm_rank(s->dom.comm, &in.r));
    PetscCallMPI(MPI_Allreduce(&in, &out, 1, MPI_DOUBLE_INT, MPI_MINLOC, s->dom.comm));
    if (out.v < 1e300) {
      PetscCallMPI(MPI_Bcast(bad, 4, MPIU_REAL, out.r, s->dom.comm));
      PetscCheck(bad[3] != 1, s->dom.comm, PETSC_ERR_USER_INPUT,
                 "agent %.0f at (%g, %g) is outside the walkable area of '%s': check -init_region", bad[0], bad[1],
                 bad[2], s->prm.geometry);
      PetscCheck(bad[3] != 2, s->dom.comm, PETSC_ERR_USER_INPUT,
                 "agent %.0f at (%g, %g) overlaps a wall of '%s': check -init_region and -radius", bad[0], bad[1],
                 bad[2], s->prm.geometry);
      PetscCheck(bad[3] != 4, s->dom.comm, PETSC_ERR_USER_INPUT,
                 "agent %.0f at (%g, %g) cannot reach any exit of '%s': every way out is narrower than the smallest "
                 "agent (diameter %g m)",
                 bad[0], bad[1], bad[2], s->prm.geometry, (double)(2 * rmin));
      SETERRQ(s->dom.comm, PETSC_ERR_USER_INPUT,
              "agent %.0f at (%g, %g) cannot reach any exit of '%s' (a region closed off by walls, or narrower than "
              "-eikonal_h)",
              bad[0], bad[1], bad[2], s->prm.geometry);
    }
  }
  c->total = s->prm.n;
  PetscCall(AgentsCreated(s, c));
  PetscCall(RouterCreated(s, &c->route, c->geom));
  PetscCall(FloorsCreated(s, &c->floors));
  PetscCall(CrowdSensorsMark(s));
  PetscCall(DensitySample(s)); /* t = 0 */
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---- line sensors ------------------------------------------------------------------- */

/* Crossings of the sensor segments by the owned agents since the last mark (pending:
   timed at the end of the step).  Collective only in that every rank calls it at the same
   points of a step. */
static PetscErrorCode CrowdSensorsAdvance(Sim *s)
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
static PetscErrorCode CrowdSensorsMark(Sim *s)
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

static PetscErrorCode DensitySetUp(Sim *s)
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
static PetscErrorCode DensitySample(Sim *s)
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

/* ---- exits ----------------------------------------------------------------------- */

/* The outward unit normal of each exit segment: the side of its midpoint that is not
   walkable (tested a millimetre off the line). */
/* The width of exit e (the sum of its segments' lengths); e < 0: of all exits. */
static PetscReal ExitWidth(const Geometry *g, PetscInt e)
{
  PetscReal w = 0;
  for (PetscInt k = 0; k < g->nexit; k++)
    if (e < 0 || g->exitId[k] == e)
      w += PetscSqrtReal(PetscSqr(g->exit[4 * k + 2] - g->exit[4 * k]) +
                         PetscSqr(g->exit[4 * k + 3] - g->exit[4 * k + 1]));
  return w;
}

static PetscErrorCode ExitSetUp(Sim *s)
{
  Crowd          *c = CrowdOf(s);
  const Geometry *g = c->geom;
  PetscFunctionBeginUser;
  for (PetscInt e = 0; e < g->nexits; e++) { /* every door must let an agent through */
    const PetscReal w = ExitWidth(g, e);
    char            opt[64], name[GEOM_NAME_LEN + 16];
    ParamsRadiusOption(&s->prm, opt, sizeof(opt));
    PetscCheck(w > 2 * s->rmax, s->dom.comm, PETSC_ERR_USER_INPUT,
               "%s of '%s' is %g m wide, not wider than the largest agent (diameter %g m): no one could pass it; widen "
               "it or lower %s",
               GeometryTargetName(g, e, name, sizeof(name)), s->prm.geometry, (double)w, (double)(2 * s->rmax), opt);
  }
  c->exitCross = s->prm.exitRule == EXIT_PASS ? PETSC_TRUE : PETSC_FALSE;
  c->exitDepth = ParamsExitDepth(&s->prm); /* beyond l + v0 T no one is slowed by it */
  PetscCall(PetscMalloc1(2 * (size_t)g->nexit + 1, &c->exitNormal));
  for (PetscInt k = 0; k < g->nexit; k++) {
    const PetscReal *q = &g->exit[4 * k], dx = q[2] - q[0], dy = q[3] - q[1], l = PetscSqrtReal(dx * dx + dy * dy);
    const PetscReal  nx = dy / l, ny = -dx / l, mx = 0.5 * (q[0] + q[2]), my = 0.5 * (q[1] + q[3]);
    const PetscBool  in      = GeometryInside(g, mx + 1e-3 * nx, my + 1e-3 * ny);
    c->exitNormal[2 * k]     = in ? -nx : nx;
    c->exitNormal[2 * k + 1] = in ? -ny : ny;
  }
  if (c->exitDepth > 0) { /* the jambs go on beyond the door, as walls outside the area, so
                             that whoever walks on through it stays in front of the door
                             (and never in the strip behind a wall, which would push it
                             back in) until it is removed */
    const PetscInt  n0 = g->nwall, n = n0 + 2 * g->nexit;
    const PetscReal L = c->exitDepth + 2 * s->rmax;
    PetscCall(PetscRealloc(4 * sizeof(PetscReal) * (size_t)n, &c->geom->wall));
    PetscCall(PetscRealloc(2 * sizeof(PetscReal) * (size_t)n + sizeof(PetscReal), &c->geom->wallNormal));
    for (PetscInt k = 0; k < g->nexit; k++) {
      const PetscReal *q = &g->exit[4 * k], dx = q[2] - q[0], dy = q[3] - q[1], l = PetscSqrtReal(dx * dx + dy * dy);
      const PetscReal  ox = L * c->exitNormal[2 * k], oy = L * c->exitNormal[2 * k + 1];
      { /* the lane must lead out of the building: not into an obstacle (a hole) or back
           into the area (a notch), where agents walking on would meet walls from behind */
        const PetscReal quad[8] = {q[0], q[1], q[2], q[3], q[2] + ox, q[3] + oy, q[0] + ox, q[1] + oy};
        PetscReal       inside;
        PetscCall(GeometryShellOverlap(g, quad, &inside));
        PetscCheck(inside <= 1e-6 * l * L, s->dom.comm, PETSC_ERR_USER_INPUT,
                   "exit %" PetscInt_FMT " of '%s' (%g %g, %g %g) has no free space behind it: agents walk on %g m "
                   "beyond a door before they leave (-exit_rule pass with the time-gap law), but %.3g m^2 of that "
                   "lane lies inside the building (an obstacle, or the area again). Put the door on the outer "
                   "boundary with open space behind it, or give -exit_rule reach",
                   g->exitId[k], s->prm.geometry, (double)q[0], (double)q[1], (double)q[2], (double)q[3], (double)L,
                   (double)inside);
      }
      for (int e = 0; e < 2; e++) {
        PetscReal *w = &c->geom->wall[4 * (n0 + 2 * k + e)], *m = &c->geom->wallNormal[2 * (n0 + 2 * k + e)];
        w[0] = q[2 * e], w[1] = q[2 * e + 1], w[2] = q[2 * e] + ox, w[3] = q[2 * e + 1] + oy;
        m[0] = (e ? -dx : dx) / l, m[1] = (e ? -dy : dy) / l; /* into the door's lane */
      }
    }
    c->geom->nwall = n;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The exit segment whose opening an agent at (x, y) has gone through, or -1, and how far
   beyond the door's line it is (*out).  Beyond means: out of the walkable area, on the
   outer side of the line, and within the opening's extent (its projection on the line
   falls between the door's ends).  The walls and their ends (the jambs) are constraints
   of the sweep, so an agent can only get there through the opening. */
PetscInt CrowdExitBeyond(const Crowd *c, PetscReal x, PetscReal y, PetscReal *out)
{
  const Geometry *g      = c->geom;
  PetscInt        inside = -1; /* unknown yet: the inside test is the costly part */
  for (PetscInt k = 0; k < g->nexit; k++) {
    const PetscReal *q = &g->exit[4 * k], dx = q[2] - q[0], dy = q[3] - q[1];
    const PetscReal  o = c->exitNormal[2 * k] * (x - q[0]) + c->exitNormal[2 * k + 1] * (y - q[1]);
    if (!(o > 0)) continue;
    const PetscReal t = ((x - q[0]) * dx + (y - q[1]) * dy) / (dx * dx + dy * dy);
    if (!(t >= 0 && t <= 1)) continue;
    if (inside < 0) inside = GeometryInside(g, x, y) ? 1 : 0;
    if (inside) return -1;
    *out = o;
    return k;
  }
  return -1;
}

/* The walkable area and, beyond each door, its lane: the rectangle between the jambs'
   extensions (ExitSetUp), where agents walk on until their removal; and the lanes behind
   the link lines (floors.c), where agents wait for room on the far side.  Trajectories name
   it as the walkable area, so that every row lies inside it. */
PetscErrorCode CrowdAreaWKT(const Sim *s, PetscInt floor, char **wkt, PetscInt *parts)
{
  const Crowd    *c = CrowdOf(s);
  const Geometry *g = c->geom;
  const PetscInt  n = c->exitDepth > 0 ? g->nexit : 0;
  const PetscReal L = c->exitDepth + 2 * s->rmax;
  PetscReal      *quad;
  PetscInt        m = 0;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc1(8 * (size_t)(n + 2 * g->nlinks) + 1, &quad));
  for (PetscInt k = 0; k < 2 * g->nlinks; k++) { /* the lanes behind the link lines (floors.c) */
    const PetscReal *q = g->link[k >> 1].seg[k & 1], *o = g->link[k >> 1].out[k & 1], d = c->floors.depth;
    PetscReal       *r = &quad[8 * m];
    if (floor >= 0 && g->link[k >> 1].floor[k & 1] != floor) continue;
    r[0] = q[0], r[1] = q[1], r[2] = q[2], r[3] = q[3];
    r[4] = q[2] + d * o[0], r[5] = q[3] + d * o[1], r[6] = q[0] + d * o[0], r[7] = q[1] + d * o[1];
    m++;
  }
  for (PetscInt k = 0; k < n; k++) {
    const PetscReal *q = &g->exit[4 * k], ox = L * c->exitNormal[2 * k], oy = L * c->exitNormal[2 * k + 1];
    PetscReal       *r = &quad[8 * m];
    if (floor >= 0 && GeometryFloorAt(g, 0.5 * (q[0] + q[2]) - 1e-4 * c->exitNormal[2 * k],
                                      0.5 * (q[1] + q[3]) - 1e-4 * c->exitNormal[2 * k + 1]) != floor)
      continue; /* another floor's door */
    r[0] = q[0], r[1] = q[1], r[2] = q[2], r[3] = q[3];
    r[4] = q[2] + ox, r[5] = q[3] + oy, r[6] = q[0] + ox, r[7] = q[1] + oy;
    m++;
  }
  PetscCall(GeometryUnionWKT(g, floor, m, quad, wkt, parts));
  PetscCall(PetscFree(quad));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Is the agent at (x, y) to be removed, and through which exit?  -exit_rule pass: once it
   is exitDepth beyond the door's line (its passage was recorded when its centre crossed
   the line: CrowdSensorsAdvance); with the time-gap law it walks on, straight out, until
   then, so that whoever follows still keeps the time gap to it.  -exit_rule reach: as
   soon as its disk touches the door line (or it is just through it); the passage is
   recorded then.  Both depend on the agent's position alone: the same on any rank count
   and after a restart. */
static PetscInt ExitRemove(const Sim *s, PetscReal x, PetscReal y, PetscReal r)
{
  const Crowd    *c = CrowdOf(s);
  const Geometry *g = c->geom;
  PetscReal       out;
  PetscInt        k;
  if (s->prm.exitRule == EXIT_REACH) {
    for (k = 0; k < g->nexit; k++) {
      PetscReal       cx, cy;
      const PetscReal d = SegmentDistance(&g->exit[4 * k], x, y, &cx, &cy);
      if (d <= r || (d <= s->walls.depth && !GeometryInside(g, x, y))) return g->exitId[k];
    }
    return -1;
  }
  k = CrowdExitBeyond(c, x, y, &out);
  return k >= 0 && out >= c->exitDepth ? g->exitId[k] : -1;
}

static PetscErrorCode CrowdExits(Sim *s)
{
  Crowd     *c    = CrowdOf(s);
  Particles *p    = &s->P;
  PetscInt   keep = 0;
  PetscInt64 removed;

  PetscFunctionBeginUser;
  if (!c) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(CsmCheckReach(s));
  PetscCall(CrowdSensorsAdvance(s));
  for (PetscInt k = c->ncross - c->pending; k < c->ncross; k++) c->cross[k].time = s->time;
  c->pending = 0;
  for (PetscInt k = c->nleft - c->pendingLeft; k < c->nleft; k++) c->left[k].time = s->time;
  c->pendingLeft = 0;
  for (PetscInt i = 0; i < p->n; i++) {
    const PetscInt ex = ExitRemove(s, p->x[i], p->y[i], p->r[i]);
    if (ex >= 0) {
      if (!c->exitCross) { /* reach: the passage is the removal */
        PetscCall(ThrongGrow(&c->left, sizeof(ExitRec), c->nleft, &c->capLeft));
        c->left[c->nleft++] = (ExitRec){p->id[i], s->time, ex};
      }
      continue;
    }
    if (keep != i) ParticlesCopy(p, keep, i, PETSC_TRUE);
    keep++;
  }
  removed = p->n - keep;
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &removed, 1, MPIU_INT64, MPI_SUM, s->dom.comm));
  if (removed) {
    p->n  = keep;
    p->ng = 0;
    s->ndisks -= removed;
    PetscCall(SimRebin(s));
    PetscCall(IdFingerprint(s->dom.comm, p, &s->idPrint)); /* the id set changed on purpose */
  }
  PetscCall(RouterStep(s, &c->route, c->geom, c->speed));
  PetscCall(CrowdSensorsMark(s));
  PetscCall(DensitySample(s));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---- records: gathered on rank 0 in a fixed order ----------------------------------- */

static int CompareExit(const void *a, const void *b)
{
  const ExitRec *x = (const ExitRec *)a, *y = (const ExitRec *)b;
  if (x->time != y->time) return x->time < y->time ? -1 : 1;
  return (x->id > y->id) - (x->id < y->id);
}

static int CompareCross(const void *a, const void *b)
{
  const CrossRec *x = (const CrossRec *)a, *y = (const CrossRec *)b;
  if (x->time != y->time) return x->time < y->time ? -1 : 1;
  if (x->sensor != y->sensor) return x->sensor < y->sensor ? -1 : 1;
  if (x->id != y->id) return x->id < y->id ? -1 : 1;
  return x->dir < y->dir ? -1 : x->dir > y->dir;
}

/* All ranks' n records of `size` bytes, sorted, on rank 0 (*all); *tot on every rank. */
static PetscErrorCode GatherRecords(MPI_Comm comm, const void *mine, PetscInt n, size_t size,
                                    int (*cmp)(const void *, const void *), void **all, PetscInt *tot)
{
  PetscMPIInt  nsize, rank, cnt = (PetscMPIInt)n, *cnts = NULL, *dsp = NULL;
  MPI_Datatype t;
  PetscInt64   sum = n;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_size(comm, &nsize));
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &sum, 1, MPIU_INT64, MPI_SUM, comm));
  PetscCheck(sum < PETSC_MPI_INT_MAX, comm, PETSC_ERR_SUP,
             "%" PetscInt64_FMT " crowd records: too many to gather on one rank", sum);
  *tot = (PetscInt)sum;
  *all = NULL;
  if (!rank) {
    PetscCall(PetscMalloc2(nsize, &cnts, nsize, &dsp));
    PetscCall(PetscMalloc(size * (size_t)(sum + 1), all));
  }
  PetscCallMPI(MPI_Gather(&cnt, 1, MPI_INT, cnts, 1, MPI_INT, 0, comm));
  if (!rank)
    for (PetscMPIInt k = 0, o = 0; k < nsize; o += cnts[k], k++) dsp[k] = o;
  PetscCallMPI(MPI_Type_contiguous((int)size, MPI_BYTE, &t));
  PetscCallMPI(MPI_Type_commit(&t));
  PetscCallMPI(MPI_Gatherv(mine, cnt, t, *all, cnts, dsp, t, 0, comm));
  PetscCallMPI(MPI_Type_free(&t));
  if (!rank) {
    qsort(*all, (size_t)sum, size, cmp);
    PetscCall(PetscFree2(cnts, dsp));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The density map summed on rank 0 (NULL elsewhere; counts, not yet densities). */
static PetscErrorCode GatherDensity(Sim *s, PetscReal **sum)
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

/* ---- HDF5 tables ----------------------------------------------------------------- */

static hid_t PetscIntH5(void) { return sizeof(PetscInt) == 8 ? H5T_NATIVE_INT64 : H5T_NATIVE_INT32; }

static hid_t ExitType(void)
{
  hid_t t = H5Tcreate(H5T_COMPOUND, sizeof(ExitRec));
  H5Tinsert(t, "id", HOFFSET(ExitRec, id), H5T_NATIVE_INT64);
  H5Tinsert(t, "time", HOFFSET(ExitRec, time), H5T_NATIVE_DOUBLE);
  H5Tinsert(t, "exit", HOFFSET(ExitRec, exit), PetscIntH5());
  return t;
}

static hid_t ArrivalType(void)
{
  hid_t t = H5Tcreate(H5T_COMPOUND, sizeof(ArrivalRec));
  H5Tinsert(t, "id", HOFFSET(ArrivalRec, id), H5T_NATIVE_INT64);
  H5Tinsert(t, "time", HOFFSET(ArrivalRec, time), H5T_NATIVE_DOUBLE);
  H5Tinsert(t, "source", HOFFSET(ArrivalRec, source), PetscIntH5());
  H5Tinsert(t, "floor", HOFFSET(ArrivalRec, floor), PetscIntH5());
  return t;
}

static hid_t CrossType(void)
{
  hid_t t = H5Tcreate(H5T_COMPOUND, sizeof(CrossRec));
  H5Tinsert(t, "id", HOFFSET(CrossRec, id), H5T_NATIVE_INT64);
  H5Tinsert(t, "time", HOFFSET(CrossRec, time), H5T_NATIVE_DOUBLE);
  H5Tinsert(t, "sensor", HOFFSET(CrossRec, sensor), PetscIntH5());
  H5Tinsert(t, "direction", HOFFSET(CrossRec, dir), PetscIntH5());
  return t;
}

/* Exit and sensor records of all ranks on rank 0 (sorted), the density map summed there. */
static int CompareExitById(const void *a, const void *b)
{
  const ExitRec *x = (const ExitRec *)a, *y = (const ExitRec *)b;
  if (x->id != y->id) return x->id < y->id ? -1 : 1;
  if (x->time != y->time) return x->time < y->time ? -1 : 1;
  return (x->exit < 0) - (y->exit < 0); /* at one time: forward, then back */
}

/* The passages, one per agent, from the door-line crossings (-exit_rule pass): a crossing
   back inside (exit < 0: -1 - exit) cancels the forward one before it; an agent's passage
   is its last forward crossing.  On rank 0, *n records in, *n out, sorted by time. */
static void Passages(ExitRec *r, PetscInt *n)
{
  PetscInt out = 0;
  qsort(r, (size_t)*n, sizeof(ExitRec), CompareExitById);
  for (PetscInt k = 0; k < *n;) {
    PetscInt cand = -1, j = k;
    for (; j < *n && r[j].id == r[k].id; j++) cand = r[j].exit >= 0 ? j : -1;
    if (cand >= 0) r[out++] = r[cand];
    k = j;
  }
  *n = out;
  qsort(r, (size_t)*n, sizeof(ExitRec), CompareExit);
}

/* passages: the exit records reduced to one passage per agent (the report), or as they
   are (a checkpoint, so that a restart goes on with the same records) */
static PetscErrorCode GatherAll(const Sim *s, PetscBool passages, ExitRec **all, PetscInt *tot, CrossRec **crs,
                                PetscInt *ncr, PetscReal **dens)
{
  const Crowd *c = CrowdOf(s);
  PetscFunctionBeginUser;
  PetscCall(GatherRecords(s->dom.comm, c->left, c->nleft, sizeof(ExitRec), CompareExit, (void **)all, tot));
  if (passages) {
    if (*all) Passages(*all, tot);
    PetscCallMPI(MPI_Bcast(tot, 1, MPIU_INT, 0, s->dom.comm));
  }
  PetscCall(GatherRecords(s->dom.comm, c->cross, c->ncross, sizeof(CrossRec), CompareCross, (void **)crs, ncr));
  PetscCall(GatherDensity((Sim *)s, dens));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The tables `exits` and `sensors` in group g (collective; rank 0's rows). */
static PetscErrorCode WriteTables(MPI_Comm comm, hid_t g, hid_t dxpl, const ExitRec *all, PetscInt tot,
                                  const CrossRec *crs, PetscInt ncr)
{
  hid_t   t;
  hsize_t d[1] = {(hsize_t)tot};
  PetscFunctionBeginUser;
  t = ExitType();
  PetscCall(IoWriteRoot(comm, g, dxpl, "exits", t, 1, d, all));
  H5Tclose(t);
  d[0] = (hsize_t)ncr;
  t    = CrossType();
  PetscCall(IoWriteRoot(comm, g, dxpl, "sensors", t, 1, d, crs));
  H5Tclose(t);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---- the final report -------------------------------------------------------------- */

static void Flow(PetscInt n, PetscReal first, PetscReal last, PetscReal *flow)
{
  *flow = n > 1 && last > first ? (PetscReal)(n - 1) / (last - first) : 0;
}

/* The crowd's records on rank 0 at the end: exit passages and sensor crossings in time
   order, the evacuation curve N(t), the mean density map. */
typedef struct {
  PetscReal  time;
  PetscInt64 remaining, moving; /* agents inside; of them, those whose pre-movement is over */
} CurveRow;

typedef struct {
  ExitRec   *all;
  CrossRec  *crs;
  PetscReal *dens;
  CurveRow  *curve;
  PetscInt   tot, ncr, ncurve;
} Report;

/* The summary lines (rank 0): agents out, each exit's flow, the doors' capacity, each
   sensor's crossings, the density map's peak. */
static PetscErrorCode ReportLines(const Sim *s, const Crowd *c, const Report *r)
{
  PetscFunctionBeginUser;
  PetscInt  *per;
  PetscReal *first, *last, fl;
  PetscCall(PetscCalloc3(c->geom->nexits, &per, c->geom->nexits, &first, c->geom->nexits, &last));
  for (PetscInt k = 0; k < r->tot; k++) {
    const PetscInt e = r->all[k].exit;
    if (!per[e]) first[e] = r->all[k].time;
    per[e]++;
    last[e] = r->all[k].time;
  }
  PetscCall(PetscPrintf(PETSC_COMM_SELF,
                        "summary: crowd: %" PetscInt_FMT " of %" PetscInt64_FMT " agents left, %s %g s\n", r->tot,
                        c->total, r->tot == c->total ? "evacuation time" : "still inside at",
                        r->tot == c->total && r->tot ? (double)r->all[r->tot - 1].time : (double)s->time));
  if (c->csm.checks > 0)
    PetscCall(PetscPrintf(PETSC_COMM_SELF,
                          "summary: crowd: -csm_check_reach: %" PetscInt64_FMT
                          " neighbour sets within R (owned agents and ring ghosts of rank 0) over %" PetscInt64_FMT
                          " steps, each equal to a brute-force search's\n",
                          c->csm.compared, c->csm.checks));
  for (PetscInt e = 0; e < c->geom->nexits; e++) {
    char name[GEOM_NAME_LEN + 8] = "";
    if (c->geom->name[e][0]) PetscCall(PetscSNPrintf(name, sizeof(name), " (%s)", c->geom->name[e]));
    Flow(per[e], first[e], last[e], &fl);
    PetscCall(PetscPrintf(
      PETSC_COMM_SELF,
      "summary: crowd: exit %" PetscInt_FMT "%s: %" PetscInt_FMT " agents, first %g s, last %g s, mean flow %.4g /s\n",
      e, name, per[e], per[e] ? (double)first[e] : 0.0, per[e] ? (double)last[e] : 0.0, (double)fl));
  }
  { /* what the doors could pass at the flow measured in laboratory bottlenecks: r->all
       doors shared evenly, and each door with the agents that chose it in this run */
    const PetscReal W = ExitWidth(c->geom, -1), t1 = r->tot ? r->all[0].time : 0;
    PetscReal       Tdoor = 0;
    for (PetscInt e = 0; e < c->geom->nexits; e++)
      if (per[e]) Tdoor = PetscMax(Tdoor, first[e] + (PetscReal)per[e] / (CROWD_LAB_FLOW * ExitWidth(c->geom, e)));
    PetscCall(PetscPrintf(
      PETSC_COMM_SELF,
      "summary: crowd: door capacity at %.2g /(m s): %.4g s with the doors shared evenly (%.4g m of "
      "doors, from the first passage at %g s); %.4g s for the agents each door had in this run\n",
      CROWD_LAB_FLOW, (double)(t1 + (PetscReal)c->total / (CROWD_LAB_FLOW * W)), (double)W, (double)t1, (double)Tdoor));
  }
  PetscCall(PetscFree3(per, first, last));
  for (PetscInt k = 0; k < c->geom->nsensors; k++) { /* per sensor: crossings each way, flow of the positive ones */
    PetscInt  np = 0, nm = 0;
    PetscReal t0 = 0, t1 = 0;
    for (PetscInt j = 0; j < r->ncr; j++) {
      if (r->crs[j].sensor != k) continue;
      if (r->crs[j].dir < 0) {
        nm++;
        continue;
      }
      if (!np) t0 = r->crs[j].time;
      np++;
      t1 = r->crs[j].time;
    }
    Flow(np, t0, t1, &fl);
    PetscCall(PetscPrintf(PETSC_COMM_SELF,
                          "summary: crowd: sensor %" PetscInt_FMT ": %" PetscInt_FMT
                          " crossings forward, %" PetscInt_FMT " back, net %" PetscInt_FMT
                          "; forward first %g s, last %g s, mean flow %.4g /s\n",
                          k, np, nm, np - nm, (double)t0, (double)t1, (double)fl));
  }
  if (r->dens) {
    PetscReal mx = 0;
    for (size_t k = 0; k < (size_t)c->dnx * c->dny; k++) mx = PetscMax(mx, r->dens[k]);
    PetscCall(PetscPrintf(PETSC_COMM_SELF,
                          "summary: crowd: density map %" PetscInt_FMT " x %" PetscInt_FMT
                          " cells of %g m, %" PetscInt_FMT " samples, peak mean density %.4g /m^2\n",
                          c->dnx, c->dny, (double)c->dh, c->dsamples, (double)mx));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* PREFIX.exits.csv, PREFIX.evacuation.csv, PREFIX.sensors.csv: rank 0 writes them, and
   the ranks agree on whether it could (collective). */
static PetscErrorCode ReportCSV(const Sim *s, const Crowd *c, const Report *r)
{
  MPI_Comm    comm = s->dom.comm;
  PetscMPIInt rank;
  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  char name[PETSC_MAX_PATH_LEN] = "";
  int  bad                      = 0;
  if (!rank) {
    FILE *f;
    PetscCall(PetscSNPrintf(name, sizeof(name), "%s.exits.csv", s->prm.output));
    if ((f = IoInjectFault(comm, "crowd-csv") ? NULL : fopen(name, "w"))) {
      fprintf(f, "id,time,exit,start,exit_name\n"); /* the name last: scripts read the first four by place */
      for (PetscInt k = 0; k < r->tot; k++)
        fprintf(f, "%lld,%.10g,%d,%.10g,%s\n", (long long)r->all[k].id, (double)r->all[k].time, (int)r->all[k].exit,
                (double)CrowdStartTime(s, c, r->all[k].id), c->geom->name[r->all[k].exit]);
      bad = fclose(f) != 0;
    } else bad = 1;
    if (!bad) {
      PetscCall(PetscSNPrintf(name, sizeof(name), "%s.evacuation.csv", s->prm.output));
      if ((f = fopen(name, "w"))) {
        fprintf(f, "time,remaining,moving\n");
        for (PetscInt k = 0; k < r->ncurve; k++)
          fprintf(f, "%.10g,%lld,%lld\n", (double)r->curve[k].time, (long long)r->curve[k].remaining,
                  (long long)r->curve[k].moving);
        bad = fclose(f) != 0;
      } else bad = 1;
    }
    if (!bad && c->nsrc) {
      PetscCall(PetscSNPrintf(name, sizeof(name), "%s.arrivals.csv", s->prm.output));
      if ((f = fopen(name, "w"))) {
        fprintf(f, "id,time,source\n");
        for (PetscInt64 k = 0; k < c->narr; k++)
          fprintf(f, "%lld,%.10g,%s\n", (long long)c->arr[k].id, (double)c->arr[k].time,
                  s->prm.src[c->arr[k].source].name);
        bad = fclose(f) != 0;
      } else bad = 1;
    }
    if (!bad) {
      PetscCall(PetscSNPrintf(name, sizeof(name), "%s.agents.csv", s->prm.output));
      if ((f = fopen(name, "w"))) {
        PetscCall(AgentsTableWrite(s, c, r->all, r->tot, f));
        bad = fclose(f) != 0;
      } else bad = 1;
    }
    if (!bad && c->geom->nsensors) {
      PetscCall(PetscSNPrintf(name, sizeof(name), "%s.sensors.csv", s->prm.output));
      if ((f = fopen(name, "w"))) {
        fprintf(f, "id,time,sensor,direction\n");
        for (PetscInt k = 0; k < r->ncr; k++)
          fprintf(f, "%lld,%.10g,%d,%d\n", (long long)r->crs[k].id, (double)r->crs[k].time, (int)r->crs[k].sensor,
                  (int)r->crs[k].dir);
        bad = fclose(f) != 0;
      } else bad = 1;
    }
  }
  PetscCall(IoAgree(comm, &bad));
  PetscCallMPI(MPI_Bcast(name, sizeof(name), MPI_CHAR, 0, comm));
  PetscCheck(!bad, comm, PETSC_ERR_FILE_WRITE, "cannot write the crowd table '%s'", name);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The same in PREFIX.h5, group /crowd (collective). */
static PetscErrorCode ReportGroup(const Sim *s, const Crowd *c, const Report *r, hid_t file, hid_t dxpl)
{
  MPI_Comm comm = s->dom.comm;
  PetscFunctionBeginUser;
  hid_t   g, t;
  hsize_t d[2];
  if (H5Lexists(file, "crowd", H5P_DEFAULT) > 0)
    PetscCallHDF5(comm, H5Ldelete(file, "crowd", H5P_DEFAULT)); /* a restarted run reports anew */
  PetscCallHDF5(comm, g = H5Gcreate2(file, "crowd", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
  {
    const long long n0 = (long long)c->total;
    const PetscReal W = ExitWidth(c->geom, -1), js = CROWD_LAB_FLOW;
    PetscCall(IoWriteAttr(comm, g, "agents", H5T_NATIVE_LLONG, 0, &n0));
    PetscCall(IoWriteAttr(comm, g, "door_width", H5T_NATIVE_DOUBLE, 0, &W));
    PetscCall(IoWriteAttr(comm, g, "lab_specific_flow", H5T_NATIVE_DOUBLE, 0, &js));
    PetscCall(IoWriteStringAttr(comm, g, "description",
                                "exits: one row per agent that left (id, time s, exit); exits_start: the time each "
                                "one started to walk (its pre-movement over); evacuation: agents inside, and those "
                                "of them walking, after each time one left, arrived or started; arrivals (with "
                                "sources): id, time s, source; sensors: one row per crossing "
                                "of a sensor line (direction +1 "
                                "from its left to its right); density: mean agents per m^2"));
  }
  PetscCall(WriteTables(comm, g, dxpl, r->all, r->tot, r->crs, r->ncr));
  { /* each passage's agent's start time (its pre-movement over), row for row */
    PetscReal *st;
    PetscCall(PetscMalloc1(r->tot + 1, &st));
    for (PetscInt k = 0; r->all && k < r->tot; k++) st[k] = CrowdStartTime(s, c, r->all[k].id);
    d[0] = (hsize_t)r->tot;
    PetscCall(IoWriteRoot(comm, g, dxpl, "exits_start", H5T_NATIVE_DOUBLE, 1, d, st));
    PetscCall(PetscFree(st));
  }
  if (c->nsrc) { /* the arrivals (replicated: rank 0's rows) */
    d[0] = (hsize_t)c->narr;
    t    = ArrivalType();
    PetscCall(IoWriteRoot(comm, g, dxpl, "arrivals", t, 1, d, c->arr));
    H5Tclose(t);
  }
  t = H5Tcreate(H5T_COMPOUND, sizeof(CurveRow));
  H5Tinsert(t, "time", HOFFSET(CurveRow, time), H5T_NATIVE_DOUBLE);
  H5Tinsert(t, "remaining", HOFFSET(CurveRow, remaining), H5T_NATIVE_INT64);
  H5Tinsert(t, "moving", HOFFSET(CurveRow, moving), H5T_NATIVE_INT64);
  d[0] = (hsize_t)r->ncurve;
  PetscCall(IoWriteRoot(comm, g, dxpl, "evacuation", t, 1, d, r->curve));
  H5Tclose(t);
  if (c->dens) {
    hid_t           ds;
    const PetscReal origin[2] = {c->dx0, c->dy0};
    const PetscInt  ns        = c->dsamples;
    d[0] = (hsize_t)c->dny, d[1] = (hsize_t)c->dnx;
    PetscCall(IoWriteRoot(comm, g, dxpl, "density", H5T_NATIVE_DOUBLE, 2, d, r->dens));
    PetscCallHDF5(comm, ds = H5Dopen2(g, "density", H5P_DEFAULT));
    PetscCall(IoWriteAttr(comm, ds, "origin", H5T_NATIVE_DOUBLE, 2, origin));
    PetscCall(IoWriteAttr(comm, ds, "cell", H5T_NATIVE_DOUBLE, 0, &c->dh));
    PetscCall(IoWriteAttr(comm, ds, "interval", H5T_NATIVE_DOUBLE, 0, &s->prm.densDt));
    PetscCall(IoWriteAttr(comm, ds, "samples", PetscIntH5(), 0, &ns));
    PetscCall(IoWriteStringAttr(comm, ds, "layout",
                                "value[iy][ix] is the mean number of agents per m^2 in the cell [x0 + ix h, x0 + "
                                "(ix+1) h) x [y0 + iy h, y0 + (iy+1) h), (x0, y0) = origin, h = cell"));
    PetscCallHDF5(comm, H5Dclose(ds));
  }
  PetscCallHDF5(comm, H5Gclose(g));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* When agent id starts to walk: the first step time k h >= its pre-movement time (0
   without one).  The quotient is off by at most one step after rounding; the times are
   bounded (THRONG_MAX_TIME), and so are the corrections, which cannot loop even where
   k h no longer changes with k. */
PetscReal CrowdStartTime(const Sim *s, const Crowd *c, PetscInt64 id)
{
  const PetscReal h = s->prm.dt;
  PetscReal       k;
  if (!c->premove || id >= c->nspeed || !(c->premove[id] > 0)) return 0;
  k = PetscCeilReal(c->premove[id] / h);
  for (int a = 0; a < 4 && k > 0 && h * (k - 1) >= c->premove[id]; a++) k--;
  for (int a = 0; a < 4 && h * k < c->premove[id]; a++) k++;
  return h * k;
}

static int CompareReal(const void *a, const void *b)
{
  const PetscReal x = *(const PetscReal *)a, y = *(const PetscReal *)b;
  return (x > y) - (x < y);
}

/* The curve (rank 0): the agents inside (the initial ones, plus arrivals, minus
   departures), and of them those walking, at t = 0 and after every time at which agents
   left, arrived or started to walk. */
static PetscErrorCode Curve(const Sim *s, const Crowd *c, Report *r)
{
  PetscReal *start, *arrive;
  PetscInt64 ns = 0, na = c->narr, js = 0, ja = 0, moving = 0, inside = c->n0;
  PetscInt   je = 0;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc2(c->nspeed + 1, &start, na + 1, &arrive));
  for (PetscInt64 i = 0; i < c->nspeed; i++) { /* when each one starts to walk */
    const PetscReal t0 = i < c->n0 ? 0 : c->arr[i - c->n0].time;
    start[ns++]        = PetscMax(t0, CrowdStartTime(s, c, i));
  }
  for (PetscInt64 a = 0; a < na; a++) arrive[a] = c->arr[a].time;
  qsort(start, (size_t)ns, sizeof(PetscReal), CompareReal);
  qsort(arrive, (size_t)na, sizeof(PetscReal), CompareReal);
  while (js < ns && start[js] <= 0) js++, moving++;
  while (ja < na && arrive[ja] <= 0) ja++, inside++;
  PetscCall(PetscMalloc1(r->tot + ns + na + 1, &r->curve));
  r->curve[r->ncurve++] = (CurveRow){0, inside, moving};
  while (je < r->tot || js < ns || ja < na) {
    PetscReal t = PETSC_INFINITY;
    if (je < r->tot) t = PetscMin(t, r->all[je].time);
    if (js < ns) t = PetscMin(t, start[js]);
    if (ja < na) t = PetscMin(t, arrive[ja]);
    for (; je < r->tot && r->all[je].time == t; je++) moving--, inside--;
    for (; js < ns && start[js] == t; js++) moving++;
    for (; ja < na && arrive[ja] == t; ja++) inside++;
    r->curve[r->ncurve++] = (CurveRow){t, inside, moving};
  }
  PetscCall(PetscFree2(start, arrive));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Per source (rank 0): its arrivals, and those still waiting to enter. */
static PetscErrorCode ReportSources(const Sim *s, const Crowd *c, PetscInt passages)
{
  PetscFunctionBeginUser;
  for (PetscInt si = 0; si < c->nsrc; si++) {
    PetscInt64 n  = 0;
    PetscReal  t0 = 0, t1 = 0, fl;
    for (PetscInt64 a = 0; a < c->narr; a++)
      if (c->arr[a].source == si) {
        if (!n) t0 = c->arr[a].time;
        t1 = c->arr[a].time;
        n++;
      }
    Flow((PetscInt)n, t0, t1, &fl);
    PetscCall(PetscPrintf(PETSC_COMM_SELF,
                          "summary: crowd: source %s: %" PetscInt64_FMT " arrivals, first %g s, last %g s, mean rate "
                          "%.4g /s; %s\n",
                          s->prm.src[si].name, n, (double)t0, (double)t1, (double)fl,
                          !isfinite(c->src[si].next)   ? "no more to come"
                          : c->src[si].next <= s->time ? "some waiting to enter at the end (every spot taken)"
                                                       : "more to come after the end"));
  }
  if (c->nsrc)
    PetscCall(PetscPrintf(PETSC_COMM_SELF,
                          "summary: crowd: occupancy: %" PetscInt64_FMT " at the start, %" PetscInt64_FMT
                          " arrivals, %" PetscInt64_FMT " departures, %" PetscInt64_FMT " inside at the end\n",
                          c->n0, (PetscInt64)c->narr, (PetscInt64)passages, c->total - passages));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The pre-movement times drawn, per population, next to the distribution asked for;
   and each population's free speeds (rank 0). */
static PetscErrorCode ReportPopulations(const Sim *s, const Crowd *c)
{
  const Params  *prm = &s->prm;
  const PetscInt np  = PetscMax(prm->npop, 1);
  PetscFunctionBeginUser;
  if (!prm->npop && !c->premove) PetscFunctionReturn(PETSC_SUCCESS);
  for (PetscInt k = 0; k < np; k++) {
    const PetscInt64 first = prm->npop ? prm->pop[k].first : 0, n = prm->npop ? prm->pop[k].count : c->total;
    const Dist      *pre = prm->npop ? &prm->pop[k].premove : &prm->premove;
    char             want[128], name[64] = "";
    PetscReal       *v, sum = 0, vs = 0, vlo = PETSC_MAX_REAL, vhi = 0;
    if (n <= 0 || first + n > c->nspeed) continue;
    if (prm->npop) PetscCall(PetscSNPrintf(name, sizeof(name), " of population %s", prm->pop[k].name));
    if (prm->npop) {
      for (PetscInt64 i = first; i < first + n; i++) {
        vs += c->speed[i];
        vlo = PetscMin(vlo, c->speed[i]), vhi = PetscMax(vhi, c->speed[i]);
      }
      DistText(&prm->pop[k].speed, want, sizeof(want));
      PetscCall(PetscPrintf(PETSC_COMM_SELF,
                            "summary: crowd: population %s: %" PetscInt64_FMT " agents (ids %" PetscInt64_FMT
                            " to %" PetscInt64_FMT "), free speed drawn mean %.4g, min %.4g, max %.4g m/s; asked %s\n",
                            prm->pop[k].name, n, first, first + n - 1, (double)(vs / (PetscReal)n), (double)vlo,
                            (double)vhi, want));
    }
    if (!c->premove) continue;
    PetscCall(PetscMalloc1(n, &v));
    for (PetscInt64 i = 0; i < n; i++) sum += (v[i] = c->premove[first + i]);
    qsort(v, (size_t)n, sizeof(PetscReal), CompareReal);
    DistText(pre, want, sizeof(want));
    PetscCall(PetscPrintf(PETSC_COMM_SELF,
                          "summary: crowd: pre-movement%s: %" PetscInt64_FMT
                          " agents, drawn mean %.4g s, median %.4g s, min %.4g s, max %.4g s; asked %s\n",
                          name, n, (double)(sum / (PetscReal)n),
                          (double)(n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2])), (double)v[0], (double)v[n - 1],
                          want));
    PetscCall(PetscFree(v));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CrowdFinish(Sim *s, void *ctx, PetscBool writeFiles, hid_t file, hid_t dxpl)
{
  Crowd      *c    = CrowdOf(s);
  MPI_Comm    comm = s->dom.comm;
  PetscMPIInt rank;
  Report      rep = {NULL, NULL, NULL, NULL, 0, 0, 0};
  Report     *r   = &rep;

  PetscFunctionBeginUser;
  if (!c) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCall(GatherAll(s, PETSC_TRUE, &r->all, &r->tot, &r->crs, &r->ncr, &r->dens));
  /* every agent removed has had its passage recorded, once */
  PetscCheck(s->ndisks > 0 || r->tot == c->total, comm, PETSC_ERR_PLIB,
             "%" PetscInt64_FMT " agents left the scene but %" PetscInt_FMT " passages were recorded", c->total,
             r->tot);
  if (!rank) PetscCall(Curve(s, c, r)); /* N(t) and the agents moving */
  if (!rank) {
    if (r->dens)
      for (size_t k = 0; k < (size_t)c->dnx * c->dny; k++) r->dens[k] /= PetscMax(c->dsamples, 1) * c->dh * c->dh;
  }
  PetscCallMPI(MPI_Bcast(&r->ncurve, 1, MPIU_INT, 0, comm));
  if (!rank) PetscCall(ReportLines(s, c, r));
  if (!rank) PetscCall(ReportPopulations(s, c));
  if (!rank) PetscCall(ReportSources(s, c, r->tot)); /* departures: passages, as the line above */
  PetscCall(RouterReport(s, &c->route));
  PetscCall(FloorsReport(s, &c->floors, r->tot, r->all, writeFiles));
  if (writeFiles) PetscCall(ReportCSV(s, c, r));
  if (writeFiles && file >= 0) PetscCall(ReportGroup(s, c, r, file, dxpl));
  PetscCall(PetscFree(r->curve));
  PetscCall(PetscFree(r->all));
  PetscCall(PetscFree(r->crs));
  PetscCall(PetscFree(r->dens));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---- checkpoints: the records and the map travel with the disks --------------------- */

static PetscErrorCode CrowdCheckpointWrite(const Sim *s, void *ctx, hid_t grp, hid_t dxpl)
{
  const Crowd *c    = CrowdOf(s);
  MPI_Comm     comm = s->dom.comm;
  ExitRec     *all  = NULL;
  CrossRec    *crs  = NULL;
  PetscReal   *dens = NULL;
  PetscInt     tot, ncr;
  hid_t        g;
  hsize_t      d[2];

  PetscFunctionBeginUser;
  if (!c) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(GatherAll(s, PETSC_FALSE, &all, &tot, &crs, &ncr, &dens));
  PetscCallHDF5(comm, g = H5Gcreate2(grp, "crowd", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
  {
    const long long v[5] = {(long long)c->total, (long long)c->dlast, (long long)c->dsamples, (long long)c->dnx,
                            (long long)c->dny};
    PetscCall(IoWriteAttr(comm, g, "total,dlast,dsamples,dnx,dny", H5T_NATIVE_LLONG, 5, v));
  }
  PetscCall(WriteTables(comm, g, dxpl, all, tot, crs, ncr));
  if (c->dens) {
    d[0] = (hsize_t)c->dny * c->dnx;
    PetscCall(IoWriteRoot(comm, g, dxpl, "density_counts", H5T_NATIVE_DOUBLE, 1, d, dens));
  }
  if (c->nsrc) { /* the arrivals, and each source's next arrival */
    hid_t           t = ArrivalType();
    PetscReal       st[2 * THRONG_MAX_SOURCES];
    const long long na = (long long)c->narr;
    d[0]               = (hsize_t)c->narr;
    PetscCall(IoWriteRoot(comm, g, dxpl, "arrivals", t, 1, d, c->arr));
    H5Tclose(t);
    for (PetscInt si = 0; si < c->nsrc; si++) st[2 * si] = (PetscReal)c->src[si].k, st[2 * si + 1] = c->src[si].next;
    PetscCall(IoWriteAttr(comm, g, "sources_k_next", H5T_NATIVE_DOUBLE, 2 * c->nsrc, st));
    PetscCall(IoWriteAttr(comm, g, "narrivals", H5T_NATIVE_LLONG, 0, &na));
  }
  if (c->premove) { /* the pre-movement times, so that a restart goes on with these */
    d[0] = (hsize_t)c->nspeed;
    PetscCall(IoWriteRoot(comm, g, dxpl, "premove", H5T_NATIVE_DOUBLE, 1, d, c->premove));
  }
  PetscCall(RouterCheckpointWrite((Sim *)s, &c->route, g, dxpl));
  PetscCall(FloorsCheckpointWrite(s, &c->floors, g, dxpl));
  PetscCall(StallCheckpointWrite(s, &c->stall, g));
  PetscCall(AgentsCheckpointWrite(s, c, g, dxpl));
  PetscCallHDF5(comm, H5Gclose(g));
  PetscCall(PetscFree(all));
  PetscCall(PetscFree(crs));
  PetscCall(PetscFree(dens));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The arrivals of a checkpoint (group g) and the sources' states; the arrivals are let
   in again, positions aside (the particles come from the checkpoint): the per-id tables
   and the routes' states grow as they did.  Collective. */
static PetscErrorCode RestoreArrivals(Sim *s, Crowd *c, hid_t g, const char *path)
{
  MPI_Comm     comm = s->dom.comm;
  PetscMPIInt  rank;
  long long    na = 0;
  PetscReal    st[2 * THRONG_MAX_SOURCES];
  int          ok = 1;
  ParticleRec *recs;
  PetscInt    *pops;

  PetscFunctionBeginUser;
  if (!c->nsrc) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  if (!rank) {
    hid_t a;
    ok = H5Aexists(g, "narrivals") > 0 && H5Aexists(g, "sources_k_next") > 0;
    if (ok && (a = H5Aopen(g, "narrivals", H5P_DEFAULT)) >= 0) {
      ok = H5Aread(a, H5T_NATIVE_LLONG, &na) >= 0;
      H5Aclose(a);
    }
    if (ok && (a = H5Aopen(g, "sources_k_next", H5P_DEFAULT)) >= 0) {
      hid_t    sp = H5Aget_space(a);
      hssize_t n  = H5Sget_simple_extent_npoints(sp);
      ok          = n == 2 * c->nsrc && H5Aread(a, H5T_NATIVE_DOUBLE, st) >= 0;
      H5Sclose(sp);
      H5Aclose(a);
    }
  }
  PetscCallMPI(MPI_Bcast(&ok, 1, MPI_INT, 0, comm));
  PetscCheck(ok, comm, PETSC_ERR_FILE_UNEXPECTED,
             "restart file '%s' lacks the arrivals of %" PetscInt_FMT " sources (/checkpoint/crowd/arrivals): it was "
             "written without -sources, or with others",
             path, c->nsrc);
  PetscCallMPI(MPI_Bcast(&na, 1, MPI_LONG_LONG, 0, comm));
  PetscCallMPI(MPI_Bcast(st, 2 * (PetscMPIInt)c->nsrc, MPIU_REAL, 0, comm));
  c->capArr = (PetscInt)na + 16;
  PetscCall(PetscFree(c->arr));
  PetscCall(PetscMalloc1(c->capArr, &c->arr));
  if (!rank) {
    hid_t t = ArrivalType();
    ok      = IoReadRoot(g, "arrivals", t, (hsize_t)na, c->arr) >= 0;
    H5Tclose(t);
  }
  PetscCallMPI(MPI_Bcast(&ok, 1, MPI_INT, 0, comm));
  PetscCheck(ok, comm, PETSC_ERR_FILE_READ, "restart file '%s': the arrivals (/checkpoint/crowd/arrivals) are damaged",
             path);
  PetscCallMPI(MPI_Bcast(c->arr, (PetscMPIInt)(na * (long long)sizeof(ArrivalRec)), MPI_BYTE, 0, comm));
  c->narr = (PetscInt)na;
  PetscCall(PetscMalloc2(na + 1, &recs, na + 1, &pops));
  for (PetscInt64 k = 0; k < na; k++) {
    PetscCheck(c->arr[k].id == c->n0 + k && c->arr[k].source >= 0 && c->arr[k].source < c->nsrc, comm,
               PETSC_ERR_FILE_UNEXPECTED, "restart file '%s': arrival %" PetscInt64_FMT " is not of this run's sources",
               path, k);
    recs[k] = (ParticleRec){0, 0, 0, c->arr[k].id};
    pops[k] = s->prm.src[c->arr[k].source].popIndex;
  }
  {
    const PetscReal t = s->time;
    PetscCall(CrowdAgentsAdd(s, c, (PetscInt)na, recs, pops)); /* pre-movement: read below */
    s->time = t;
  }
  PetscCall(PetscFree2(recs, pops));
  for (PetscInt si = 0; si < c->nsrc; si++) {
    c->src[si].k    = (PetscInt64)st[2 * si];
    c->src[si].next = st[2 * si + 1];
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CrowdCheckpointRead(Sim *s, void *ctx, hid_t grp, const char *path)
{
  Crowd      *c    = CrowdOf(s);
  MPI_Comm    comm = s->dom.comm;
  PetscMPIInt rank;
  long long   v[5] = {0, -1, 0, 0, 0};
  int         ok   = 1;
  hid_t       g = -1, a = -1;

  PetscFunctionBeginUser;
  if (!c) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  if (H5Lexists(grp, "crowd", H5P_DEFAULT) > 0) g = H5Gopen2(grp, "crowd", H5P_DEFAULT);
  if (g >= 0 && H5Aexists(g, "total,dlast,dsamples,dnx,dny") > 0 &&
      (a = H5Aopen(g, "total,dlast,dsamples,dnx,dny", H5P_DEFAULT)) >= 0)
    ok = H5Aread(a, H5T_NATIVE_LLONG, v) >= 0;
  else ok = 0;
  if (a >= 0) H5Aclose(a);
  { /* every rank read it: all must have, and all take rank 0's values */
    int bad = !ok;
    PetscCall(IoAgree(comm, &bad));
    ok = !bad;
  }
  if (!ok && g >= 0) H5Gclose(g);
  PetscCheck(ok, comm, PETSC_ERR_FILE_UNEXPECTED,
             "restart file '%s' lacks the crowd records (group /checkpoint/crowd): it was not written by a crowd run",
             path);
  PetscCallMPI(MPI_Bcast(v, 5, MPI_LONG_LONG, 0, comm));
  PetscCheck(v[3] == c->dnx && v[4] == c->dny, comm, PETSC_ERR_USER_INPUT,
             "restart file '%s' has a density map of %lld x %lld cells, this run %" PetscInt_FMT " x %" PetscInt_FMT
             ": give the original -density_h",
             path, v[3], v[4], c->dnx, c->dny);
  {
    PetscErrorCode ierr = RestoreArrivals(s, c, g, path); /* the per-id tables grow with them */
    if (ierr) H5Gclose(g);
    PetscCall(ierr);
  }
  c->total    = (PetscInt64)v[0];
  c->dlast    = (PetscInt64)v[1];
  c->dsamples = (PetscInt)v[2];
  if (!rank) { /* rank 0 keeps the records of the run so far */
    hsize_t n[2] = {0, 0};
    hid_t   ds;
    for (int k = 0; k < 2; k++) {
      if ((ds = H5Dopen2(g, k ? "sensors" : "exits", H5P_DEFAULT)) >= 0) {
        hid_t sp = H5Dget_space(ds);
        H5Sget_simple_extent_dims(sp, &n[k], NULL);
        H5Sclose(sp);
        H5Dclose(ds);
      } else ok = 0;
    }
    if (ok) {
      hid_t te = ExitType(), tc = CrossType();
      c->capLeft  = (PetscInt)n[0] + 16;
      c->capCross = (PetscInt)n[1] + 16;
      PetscCall(PetscMalloc1(c->capLeft, &c->left));
      PetscCall(PetscMalloc1(c->capCross, &c->cross));
      c->nleft  = (PetscInt)n[0];
      c->ncross = (PetscInt)n[1];
      ok        = !IoInjectFault(comm, "crowd-records") && IoReadRoot(g, "exits", te, n[0], c->left) >= 0 &&
           IoReadRoot(g, "sensors", tc, n[1], c->cross) >= 0;
      if (ok && c->dens)
        ok = IoReadRoot(g, "density_counts", H5T_NATIVE_DOUBLE, (hsize_t)c->dnx * c->dny, c->dens) >= 0;
      if (ok && c->premove) ok = IoReadRoot(g, "premove", H5T_NATIVE_DOUBLE, (hsize_t)c->nspeed, c->premove) >= 0;
      H5Tclose(te);
      H5Tclose(tc);
    }
  }
  PetscCallMPI(MPI_Bcast(&ok, 1, MPI_INT, 0, comm));
  if (!ok) H5Gclose(g);
  PetscCheck(ok, comm, PETSC_ERR_FILE_READ, "restart file '%s': the crowd records (/checkpoint/crowd) are damaged",
             path);
  if (c->premove) PetscCallMPI(MPI_Bcast(c->premove, (PetscMPIInt)c->nspeed, MPI_DOUBLE, 0, comm));
  {
    PetscErrorCode ierr = RouterCheckpointRead(s, &c->route, g, path);
    if (!ierr) ierr = FloorsCheckpointRead(s, &c->floors, g, path);
    if (!ierr) ierr = StallCheckpointRead(s, &c->stall, g, path);
    if (!ierr) ierr = AgentsCheckpointRead(s, c, g, path); /* after the arrivals: the tables have grown */
    H5Gclose(g);
    PetscCall(ierr);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CrowdDestroy(Sim *s, void *ctx)
{
  Crowd *c = (Crowd *)ctx;
  PetscFunctionBeginUser;
  (void)s;
  PetscCall(EikonalDestroy(&c->eik));
  PetscCall(RouterDestroy(&c->route));
  PetscCall(FloorsDestroy(&c->floors));
  PetscCall(PetscFree(c->left));
  PetscCall(PetscFree(c->cross));
  PetscCall(PetscFree2(c->px, c->py));
  PetscCall(PetscFree(c->dens));
  PetscCall(PetscFree(c->speed));
  PetscCall(PetscFree2(c->radius, c->origin));
  PetscCall(PetscFree(c->premove));
  PetscCall(PetscFree(c->exitNormal));
  PetscCall(CsmDestroy(&c->csm));
  PetscCall(SourcesDestroy(c));
  PetscCall(PetscFree(c));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CrowdDigest(const Sim *s, void *ctx, Digest *dg)
{
  const Crowd *c    = CrowdOf(s);
  uint64_t     h[2] = {0, 0};
  PetscFunctionBeginUser;
  if (!c) PetscFunctionReturn(PETSC_SUCCESS);
  for (PetscInt k = 0; k < c->nleft; k++)
    DigestRecord((uint64_t)c->left[k].id, c->left[k].time, (uint64_t)c->left[k].exit, h);
  for (PetscInt k = 0; k < c->ncross; k++)
    DigestRecord((uint64_t)c->cross[k].id, c->cross[k].time,
                 (uint64_t)(2 * c->cross[k].sensor + (c->cross[k].dir > 0)) + (1ULL << 40), h);
  for (PetscInt64 k = 0; k < c->narr; k++) /* replicated: rank 0's count once */
    if (!s->dom.rank)
      DigestRecord((uint64_t)c->arr[k].id, c->arr[k].time, (uint64_t)c->arr[k].source + (2ULL << 40), h);
  RouterDigest(s, &c->route, h);
  FloorsDigest(s, &c->floors, h);
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, h, 2, MPI_UINT64_T, MPI_SUM, s->dom.comm));
  dg->h[0] += h[0];
  dg->h[1] += h[1];
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscReal CrowdTimeLeft(const Sim *s, void *ctx) { return StallTimeLeft(s, &((Crowd *)ctx)->stall); }

static PetscErrorCode CrowdRebinned(Sim *s)
{
  PetscFunctionBeginUser;
  PetscCall(CsmRebinned(s));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---- the module: hooks the loop calls (sim.h, modules.c) --------------------------- */

Crowd *CrowdOf(const Sim *s) { return (Crowd *)SimModuleContext(s, "crowd"); }

static PetscErrorCode CrowdRestored(Sim *s, void *ctx)
{
  Crowd *c = (Crowd *)ctx;
  PetscFunctionBeginUser;
  if (!c->total) c->total = s->ndisks; /* else: from the checkpoint's crowd records */
  c->floors.known = 0;                 /* the floors are no checkpoint field: looked up again */
  PetscCall(FloorsUpdateFields(s, &c->floors));
  PetscCall(CrowdSensorsMark(s));
  PetscCall(CrowdRebinned(s));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CrowdBeforeRebin(Sim *s, void *ctx)
{
  PetscFunctionBeginUser;
  (void)ctx;
  PetscCall(CrowdSensorsAdvance(s)); /* before migration separates agents from their marks */
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CrowdAfterRebin(Sim *s, void *ctx)
{
  PetscFunctionBeginUser;
  (void)ctx;
  PetscCall(CrowdSensorsMark(s));
  PetscCall(CrowdRebinned(s));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CrowdStepEnd(Sim *s, void *ctx, const char **stop)
{
  PetscFunctionBeginUser;
  (void)ctx;
  PetscCall(CrowdExits(s));
  PetscCall(FloorsStep(s, &CrowdOf(s)->floors));         /* floors.c: through the links */
  PetscCall(SourcesStep(s, CrowdOf(s)));                 /* source.c: arrivals */
  PetscCall(FloorsUpdateFields(s, &CrowdOf(s)->floors)); /* each agent's floor, for the snapshots */
  if (s->ndisks == 0 && !SourcesPending(CrowdOf(s))) *stop = "every agent has left";
  else PetscCall(StallStep(s, &CrowdOf(s)->stall, stop)); /* stall.c: a crowd that no longer moves */
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode CrowdModuleCreate(const Params *prm, SimModule *m, PetscBool *on)
{
  Crowd *c;
  PetscFunctionBeginUser;
  *on = prm->geometry[0] && prm->walk ? PETSC_TRUE : PETSC_FALSE; /* -walk false: walls only */
  if (!*on) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscNew(&c));
  m->name            = "crowd";
  m->ctx             = c;
  m->setUp           = CrowdSetUp;
  m->siteOK          = CrowdSiteOK;
  m->created         = CrowdCreated;
  m->restored        = CrowdRestored;
  m->beforeRebin     = CrowdBeforeRebin;
  m->afterRebin      = CrowdAfterRebin;
  m->stepEnd         = CrowdStepEnd;
  m->finish          = CrowdFinish;
  m->checkpointWrite = CrowdCheckpointWrite;
  m->checkpointRead  = CrowdCheckpointRead;
  m->digest          = CrowdDigest;
  m->timeLeft        = CrowdTimeLeft;
  m->destroy         = CrowdDestroy;
  PetscFunctionReturn(PETSC_SUCCESS);
}
