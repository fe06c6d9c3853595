/* crowd — pedestrians: desired velocity from the eikonal field, exits, evacuation records. */
#pragma once
#include <throng/geometry.h>
#include <throng/eikonal.h>

typedef struct {
  PetscInt64 id;
  PetscReal  time;
  PetscInt   exit;
} ExitRec;

/* An agent's centre crossed a sensor line: dir +1 from the line's left to its right
   (looking from its first point to its last), -1 the other way.                        */
typedef struct {
  PetscInt64 id;
  PetscReal  time;
  PetscInt   sensor, dir;
} CrossRec;

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
  /* line sensors: the owned agents' positions at the last mark (after the last rebin or
     step end); crossings found since, waiting for the step's end time, and recorded   */
  PetscReal *px, *py;
  PetscInt   capMark;
  PetscBool  marked;
  CrossRec  *cross;
  PetscInt   ncross, capCross, pending; /* the last `pending` records have no time yet */
  /* density map: agents per cell of a grid over the walkable area, summed over samples
     taken every -density_dt seconds of simulated time                                 */
  PetscReal *dens;
  PetscInt   dnx, dny, dsamples;
  PetscReal  dx0, dy0, dh;
  PetscInt64 dlast; /* index of the last sample, floor(t / density_dt); -1 before any */
} Crowd;
