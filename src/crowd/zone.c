/* zone — slow zones and stairs.
 *
 * A building is not walked at one speed.  People slow down on stairs, on ramps, in
 * rough or crowded-with-furniture areas.  The scene file marks such areas (geometry.c):
 *
 *     zone 0.5 POLYGON ((...))                                   a slow zone
 *     stair 6 LINESTRING (0 1, 8 1) POLYGON ((...))              a stair, foot to head
 *
 * Speeds.  In a slow zone an agent's free speed v0 is multiplied by the zone's factor.
 * On a stair the speed depends on the direction of travel along its axis u: an agent
 * whose desired direction w has w . u >= 0 walks up, else down, at
 *     v = min(v0, v_stair) cos(theta),   cos(theta) = L / sqrt(L^2 + H^2),
 * v_stair its own speed along the slope, drawn per (seed, id) from -stair_up or
 * -stair_down, L the plan length (the axis) and H the rise.  So a stair walked at
 * 0.5 m/s along a 10 m slope (8 m plan, 6 m rise) takes 20 s, as RiMEA's tests 2 and 3
 * count it.  The defaults:
 *   - up: normal, mean 0.675 m/s, sd 0.04, clipped to [0.3, 1.2]: the choice JuPedSim's
 *     RiMEA test 13 makes from the handbook values Burghardt et al. (2014, Table 1)
 *     compare (0.63, 0.61, 0.80 and 0.55 m/s);
 *   - down: normal, mean 0.694 m/s, sd 0.04, clipped to [0.3, 1.2]: Weidmann's (1993)
 *     mean speed down stairs.
 * A stair's speeds are documented choices, not data of this stair: set -stair_up and
 * -stair_down for the stair type of the study (riser and tread change them).
 * The speed enters the law as the free speed (the time-gap law's v0, or the projection
 * model's desired speed), so the time gap, the spacing and the queue in front of a
 * stair follow from it.  The agent's position and id alone decide it: the same on any
 * rank count.
 *
 * The travel-time field (eikonal.c) marches |grad phi| F = 1 with the speed map F of the
 * zones: a slow zone's factor, a stair's mean speed up or down (times its cosine) over
 * the agents' mean level speed.  So phi is a travel time in level-walking metres, and a
 * route round a stair can be quicker than one over it.  A stair's direction is the one
 * the field walks it: a first march takes the mean of up and down, the direction of
 * -grad phi along the axis then picks up or down for each of its nodes, and a second
 * march uses those.  Route choice by expected travel time (route.c) uses these fields.*/
#include <throng/crowd/zone.h>
#include <throng/util/opt.h>
#include <throng/util/random.h>

PetscErrorCode ZoneSetFromOptions(Opt *o)
{
  Params   *p = o->p;
  PetscBool set[2];
  PetscFunctionBeginUser;
  p->stairUp   = (Dist){DIST_NORMAL, 0.675, 0.04, 0.3, 1.2};
  p->stairDown = (Dist){DIST_NORMAL, 0.694, 0.04, 0.3, 1.2};
  PetscCall(OptDist(o, OPT_PHYS, "-stair_up",
                    "Crowd: speed up a stair along its slope (m/s), a distribution (default: Burghardt et al. 2014)",
                    p->stairText[0], sizeof(p->stairText[0]), &p->stairUp, &set[0]));
  PetscCall(OptDist(o, OPT_PHYS, "-stair_down",
                    "Crowd: speed down a stair along its slope (m/s), a distribution (default: Weidmann 1993)",
                    p->stairText[1], sizeof(p->stairText[1]), &p->stairDown, &set[1]));
  for (int k = 0; k < 2; k++) {
    const char *name = k ? "-stair_down" : "-stair_up";
    const Dist *d    = k ? &p->stairDown : &p->stairUp;
    PetscCheck(!set[k] || (p->geometry[0] && p->walk), o->comm, PETSC_ERR_USER_INPUT,
               "%s describes a crowd: it needs a crowd scene (-geometry FILE) with stairs", name);
    PetscCheck(DistMin(d) > 0 && DistMax(d) <= 10, o->comm, PETSC_ERR_USER_INPUT,
               "%s '%s': speeds on stairs must lie in (0, 10] m/s", name, p->stairText[k]);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscReal ZoneStairSpeed(const GeomZone *z, const Params *prm, PetscInt64 id, PetscReal v0, PetscReal wx, PetscReal wy)
{
  const PetscBool up = (PetscBool)(wx * z->ux + wy * z->uy >= 0);
  const PetscReal vs = up ? DistDraw(&prm->stairUp, prm->seed, id, RANDOM_STREAM_STAIR_UP)
                          : DistDraw(&prm->stairDown, prm->seed, id, RANDOM_STREAM_STAIR_DN);
  return PetscMin(v0, vs) * z->cosine;
}

void ZoneFieldSpeeds(Geometry *g, const Params *prm)
{
  PetscReal vref = prm->speed[0];
  if (prm->npop) { /* the agents' mean level speed */
    PetscReal sum = 0, n = 0;
    for (PetscInt k = 0; k < prm->npop; k++) {
      sum += (PetscReal)prm->pop[k].count * DistMean(&prm->pop[k].speed);
      n += (PetscReal)prm->pop[k].count;
    }
    if (n > 0 && sum > 0) vref = sum / n;
  }
  for (PetscInt k = 0; k < g->nzones; k++) {
    GeomZone *z = &g->zone[k];
    if (!z->stair) z->fUp = z->fDown = z->factor;
    else {
      z->fUp   = PetscMin(vref, DistMean(&prm->stairUp)) * z->cosine / vref;
      z->fDown = PetscMin(vref, DistMean(&prm->stairDown)) * z->cosine / vref;
    }
  }
}

PetscErrorCode ZoneCheck(MPI_Comm comm, const Geometry *g, const Params *prm)
{
  PetscBool stair = PETSC_FALSE;
  PetscFunctionBeginUser;
  for (PetscInt k = 0; k < g->nzones; k++) stair = (PetscBool)(stair || g->zone[k].stair);
  for (int k = 0; k < 2; k++)
    PetscCheck(stair || !ParamsGiven(prm, k ? "stair_down" : "stair_up"), comm, PETSC_ERR_USER_INPUT,
               "-%s: '%s' has no stairs ('stair' lines), whose speeds it would give; the run would ignore it",
               k ? "stair_down" : "stair_up", prm->geometry);
  PetscFunctionReturn(PETSC_SUCCESS);
}
