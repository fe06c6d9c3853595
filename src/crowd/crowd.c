/* crowd — the state of a crowd and the queries its parts share.
 *
 * A crowd's state (Crowd, crowd.h) holds every part's: the travel-time field, the
 * time-gap law's neighbour sets, routes, floors, sources, the stall detector, the
 * per-id tables (free speeds, pre-movement times, radii) and the records.  The parts
 * (floors.c, route.c, source.c, stall.c, csm.c, agents.c, exits.c, sensors.c,
 * records.c) each read and write their own piece, and crowd_module.c plugs them into
 * the loop.  This file holds what several parts ask of the crowd as a whole: the crowd
 * of a run, when an agent starts to walk, which door an agent has gone through, and the
 * area an agent may be in (for the trajectory files and the floors' checks).            */
#include <throng/crowd/crowd.h>
#include <throng/core/modules.h>

Crowd *CrowdOf(const Sim *s) { return (Crowd *)SimModuleContext(s, "crowd"); }

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
