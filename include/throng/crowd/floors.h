/* floors — buildings of several floors joined by links (stairs, see src/crowd/floors.c).
   A part of the crowd: crowd_module.c calls it; its state (Floors) is the crowd's. */
#pragma once
#include <throng/crowd/crowd.h>
#include <throng/util/opt.h>

/* -storey_height (options.c calls it). */
PetscErrorCode FloorsSetFromOptions(Opt *o);
/* The module's parts (crowd_module.c calls them): the lanes behind the links and the checks,
   after the travel-time field; the start; the passages at the end of a step
   (collective); the report; checkpoints; the digest. */
PetscErrorCode FloorsSetUp(Sim *s, Floors *f);
PetscErrorCode FloorsCreated(Sim *s, Floors *f);
PetscErrorCode FloorsStep(Sim *s, Floors *f);
PetscErrorCode FloorsUpdateFields(Sim *s, Floors *f);
/* The link line an agent at (x, y) has gone through (2 l + q: line q of link l; -1 none). */
PetscInt       FloorsBeyond(const Geometry *g, const Floors *f, PetscReal x, PetscReal y);
PetscErrorCode FloorsReport(Sim *s, Floors *f, PetscInt nexit, const void *exits, PetscBool writeFiles);
PetscErrorCode FloorsCheckpointWrite(const Sim *s, const Floors *f, hid_t grp, hid_t dxpl);
PetscErrorCode FloorsCheckpointRead(Sim *s, Floors *f, hid_t grp, const char *path);
void           FloorsDigest(const Sim *s, const Floors *f, uint64_t h[2]);
PetscErrorCode FloorsDestroy(Floors *f);
/* Does agent id at (x, y), beyond link line k, want to go through it (its target's
   travel time is lower beyond the link than on this side)? */
PetscBool FloorsWants(const Crowd *c, PetscInt64 id, PetscInt k, PetscReal x, PetscReal y);
/* The desired direction (wx, wy) of agent id at (x, y) near a link line: straight on
   through the line if it goes through, else along it (and back in, from beyond it). */
void FloorsSteer(const Crowd *c, PetscInt64 id, PetscReal x, PetscReal y, PetscReal *wx, PetscReal *wy);
/* The velocity (vx, vy) of agent id at (x, y), radius r, with its component out over a
   link line that it does not go through removed: the time-gap law's neighbours would
   push an agent that has just come through a link back over its line (a step back up a
   flight's head), and the lane beyond is for passing only. */
void FloorsHold(const Crowd *c, PetscInt64 id, PetscReal x, PetscReal y, PetscReal r, PetscReal *vx, PetscReal *vy);
