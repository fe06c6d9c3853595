/* zone — slow zones and stairs: where agents walk slower, and the travel-time field that
   knows it (see the essay at the top of src/crowd/zone.c). */
#pragma once
#include <throng/util/opt.h>
#include <throng/core/geometry.h>

/* -stair_up, -stair_down (options.c calls it). */
PetscErrorCode ZoneSetFromOptions(Opt *o);
/* The travel-time field's speed factors of every zone of g (fUp, fDown): a slow zone's
   factor; a stair's mean speed up and down along the slope, times its cosine, over the
   agents' mean free speed on the level. */
void ZoneFieldSpeeds(Geometry *g, const Params *prm);
/* -stair_up and -stair_down need stairs in the scene (collective: one error). */
PetscErrorCode ZoneCheck(MPI_Comm comm, const Geometry *g, const Params *prm);
/* The speed of agent id, free speed v0 on the level, at (x, y) walking in the direction
   (wx, wy): v0 outside the zones, v0 times a slow zone's factor, or on a stair
   min(v0, its speed up or down the stair) times the stair's cosine (a speed in the plan). */
static inline PetscReal ZoneSpeed(const Geometry *g, const Params *prm, PetscInt64 id, PetscReal v0, PetscReal x,
                                  PetscReal y, PetscReal wx, PetscReal wy);
PetscReal ZoneStairSpeed(const GeomZone *z, const Params *prm, PetscInt64 id, PetscReal v0, PetscReal wx, PetscReal wy);

static inline PetscReal ZoneSpeed(const Geometry *g, const Params *prm, PetscInt64 id, PetscReal v0, PetscReal x,
                                  PetscReal y, PetscReal wx, PetscReal wy)
{
  PetscInt k;
  if (!g->nzones || (k = GeometryZoneAt(g, x, y)) < 0) return v0;
  if (!g->zone[k].stair) return v0 * g->zone[k].factor;
  return ZoneStairSpeed(&g->zone[k], prm, id, v0, wx, wy);
}
