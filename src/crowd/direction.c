/* direction — where an agent wants to go.
 *
 * The crowd model's desired velocity is U_i = v_i w(q_i) (crowd_module.c), w a unit
 * vector.  It is, in order of precedence:
 *   - straight on, out along the door's normal, once the agent's centre has passed a
 *     door's line (-exit_rule pass with the time-gap law: it walks on to clear the door);
 *   - down the travel-time field of the agent's own target (an assigned route's waypoint
 *     or a chosen exit, route.c), or of the nearest exit (the crowd's field, eikonal.c);
 *   - near a link between floors, steered through its line or along it (floors.c).
 * It depends only on the agent's position and id, so that owners and ghosts agree to the
 * bit and the run is the same on any rank count.                                       */
#include <throng/crowd/direction.h>
#include <throng/crowd/floors.h>

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
