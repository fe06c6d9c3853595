/* floors — buildings of several floors joined by links (stairs, see src/floors.c).
   Part of the crowd module: crowd.c calls it. */
#pragma once
#include <throng/core/geometry.h>
#include <hdf5.h>

typedef struct Sim Sim;

/* An agent went through a link: from line `side` & 1 of link `side` >> 1 to the other. */
typedef struct {
  PetscInt64 id;
  PetscReal  time;
  PetscInt   side;
} LinkRec;

typedef struct {
  PetscBool   on;           /* the scene has floors                                              */
  PetscReal   depth;        /* how far the lane behind a link line goes (m)                      */
  PetscInt    kfloor;       /* the per-disk fields "floor" and "z" of the snapshots (-1: none)   */
  PetscInt    kz, kxs, kys; /* ... "xs", "ys": the position in the building's plan (less the floor's shift) */
  LinkRec    *rec;          /* every passage through a link so far, in order (replicated)           */
  PetscInt    nrec, cap;
  PetscInt64 *start;  /* per floor: the agents on it at the start (replicated)             */
  PetscInt64  waits;  /* agent-steps an agent through a link waited for room on the far side */
  PetscReal   storey; /* -storey_height: z = level x this in the snapshots (m)             */
  PetscInt64  known;  /* the agents below this id have their floor in the field "floor"   */
} Floors;

/* The module's parts (crowd.c calls them): the lanes behind the links and the checks,
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
