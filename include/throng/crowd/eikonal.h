/* eikonal — travel distance to the nearest exit by fast marching, replicated on every rank. */
#pragma once
#include <throng/core/geometry.h>

typedef struct {
  PetscInt  nx, ny; /* nodes (x0 + i h, y0 + j h)                                    */
  PetscReal x0, y0, h;
  double   *phi;     /* travel distance to the nearest exit (inf: unreachable/outside) */
  char     *active;  /* node inside the walkable area                                  */
  PetscBool ownMask; /* active is this field's (else field 0's: EikonalSolveMany)      */
} Eikonal;

/* Every rank computes the same field (no communication); errors are raised on comm, by
   every rank alike. wallDist > 0: slower near walls. */
PetscErrorCode EikonalSolve(MPI_Comm comm, const Geometry *g, PetscReal h, PetscReal wallDist, Eikonal *e);
/* The same, with phi the distance to the nseg segments seg (x0,y0,x1,y1 each) instead of
   the exits. */
PetscErrorCode EikonalSolveFrom(MPI_Comm comm, const Geometry *g, PetscReal h, PetscReal wallDist, PetscInt nseg,
                                const PetscReal *seg, Eikonal *e);
/* nf fields, field t the distance to the nseg[t] segments seg[t], all of one grid (they
   share field 0's walkable mask).  The fields are marched by the ranks
   in turn (field t by rank t mod size) and broadcast, so every rank ends with bitwise the
   same fields in about nf / size marches' time.  Collective. */
PetscErrorCode EikonalSolveMany(MPI_Comm comm, const Geometry *g, PetscReal h, PetscReal wallDist, PetscInt nf,
                                const PetscInt *nseg, PetscReal *const *seg, Eikonal *e);
PetscErrorCode EikonalDestroy(Eikonal *e);
/* Unit direction -grad phi / |grad phi| at (x, y) (0 where phi is undefined). */
void EikonalDirection(const Eikonal *e, PetscReal x, PetscReal y, PetscReal *wx, PetscReal *wy);
/* phi interpolated at (x, y) (inf where no active node is near). */
PetscReal EikonalValue(const Eikonal *e, PetscReal x, PetscReal y);
