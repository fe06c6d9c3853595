/* exits — the doors of a crowd: their lanes and normals, and the agents that leave.
 *
 * After each step an agent whose centre comes within its radius of an exit segment, or
 * that is already outside the walkable area within r_max + skin of it, has passed the
 * door and is removed (-exit_rule reach); with -exit_rule pass (the time-gap law) it
 * walks on through the door's lane and is removed ParamsExitDepth beyond the door's
 * line.  Its id, time and exit are recorded; if any rank removed agents, all rebin.
 * See crowd_module.c's essay for the whole model.                                      */
#include <throng/crowd/exits.h>
#include <throng/crowd/sensors.h>
#include <throng/crowd/direction.h>
#include <throng/crowd/csm.h>
#include <throng/crowd/route.h>

/* ---- exits ----------------------------------------------------------------------- */

/* The outward unit normal of each exit segment: the side of its midpoint that is not
   walkable (tested a millimetre off the line). */
/* The width of exit e (the sum of its segments' lengths); e < 0: of all exits. */
PetscReal ExitWidth(const Geometry *g, PetscInt e)
{
  PetscReal w = 0;
  for (PetscInt k = 0; k < g->nexit; k++)
    if (e < 0 || g->exitId[k] == e)
      w += PetscSqrtReal(PetscSqr(g->exit[4 * k + 2] - g->exit[4 * k]) +
                         PetscSqr(g->exit[4 * k + 3] - g->exit[4 * k + 1]));
  return w;
}

PetscErrorCode ExitSetUp(Sim *s)
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

PetscErrorCode CrowdExits(Sim *s)
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
