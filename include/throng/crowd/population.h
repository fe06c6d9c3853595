/* population — who is in the building: named populations of agents, each with its start
   region and count, and the distributions of its radii, free speeds, time gap and
   pre-movement times (see the essay at the top of src/population.c). */
#pragma once
#include <throng/throng.h>

/* A distribution of one per-agent quantity, drawn per (seed, id) (population.c):
     const      a
     uniform    on [lo, hi]
     normal     mean a, standard deviation b, clipped to [lo, hi]
     lognormal  median a, b the standard deviation of its logarithm, clipped to [lo, hi] */
typedef enum { DIST_CONST, DIST_UNIFORM, DIST_NORMAL, DIST_LOGNORMAL } DistKind;
typedef struct {
  DistKind  kind;
  PetscReal a, b, lo, hi;
} Dist;

#define THRONG_MAX_POPS      16
#define THRONG_MAX_POP_VERTS 16
#define THRONG_POP_NAME_LEN  24
#define THRONG_POP_ROUTE_LEN 128

typedef struct {
  char       name[THRONG_POP_NAME_LEN];
  PetscInt64 first, count; /* its agents are the ids first .. first + count - 1 */
  PetscReal  density;      /* -1, or agents per m^2 of its region (the count)   */
  int        place;        /* -pop_NAME_place: 0 spread, 1 fill (row by row)   */
  PetscInt   ngiven;       /* the region as given: ngiven points                */
  PetscReal  given[2 * THRONG_MAX_POP_VERTS];
  PetscInt   nvert;                          /* the start region: a polygon of nvert vertices     */
  PetscReal  vert[2 * THRONG_MAX_POP_VERTS]; /* (2 points given: a rectangle)                     */
  PetscReal  bbox[4];
  Dist       radius, speed, premove;
  char       text[3][64];                 /* their options' text: radius, speed, premove       */
  PetscReal  timeGap;                     /* -1: -csm_time_gap                                 */
  char       route[THRONG_POP_ROUTE_LEN]; /* targets T1,T2,... ("": the crowd's own choice)    */
} Population;

/* Draw of d for agent id from the stream (stream, sub) of the run's key. */
PetscReal DistDraw(const Dist *d, PetscInt64 seed, PetscInt64 id, uint32_t stream);
/* The largest and the smallest value d can give. */
PetscReal DistMax(const Dist *d);
PetscReal DistMin(const Dist *d);
/* The mean of d, clipping left out (what the travel-time field assumes for a stair). */
PetscReal DistMean(const Dist *d);
/* "normal:1.34,0.26,0.5,2.2" and the like, as it is given. */
void DistText(const Dist *d, char *buf, size_t len);
/* Parse the value of option `opt` (text) into d; every number must be finite and >= 0. */
PetscErrorCode DistParse(MPI_Comm comm, const char *opt, const char *text, Dist *d);
/* Is (x, y) in the start region of population k? */
PetscBool PopulationHolds(const Population *q, PetscReal x, PetscReal y);
