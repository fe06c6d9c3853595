/* dist — a distribution of one per-agent quantity, parsed from its option text and drawn
   per (seed, id) (see src/util/dist.c). */
#pragma once
#include <throng/throng.h>

/* A distribution of one per-agent quantity, drawn per (seed, id) (dist.c):
     const      a
     uniform    on [lo, hi]
     normal     mean a, standard deviation b, clipped to [lo, hi]
     lognormal  median a, b the standard deviation of its logarithm, truncated to [lo, hi] */
typedef enum { DIST_CONST, DIST_UNIFORM, DIST_NORMAL, DIST_LOGNORMAL } DistKind;
typedef struct {
  DistKind  kind;
  PetscReal a, b, lo, hi;
} Dist;

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
