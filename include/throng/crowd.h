/* crowd — pedestrians: desired velocity from the eikonal field, exits, evacuation records. */
#pragma once
#include <throng/geometry.h>
#include <throng/eikonal.h>

typedef struct {
  PetscInt64 id;
  PetscReal  time;
  PetscInt   exit;
} ExitRec;

typedef struct {
  PetscBool  on;        /* -geometry given                                             */
  Geometry   geom;
  Eikonal    eik;
  ExitRec   *left;      /* agents that left through an exit on this rank               */
  PetscInt   nleft, capLeft;
  PetscInt64 remaining; /* agents in the scene (all ranks)                              */
  PetscInt64 total;     /* agents at the start                                         */
  float     *speed;     /* free speed of each id (replicated: 4 bytes per agent)       */
  PetscInt64 nspeed;
} Crowd;
