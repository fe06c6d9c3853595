/* geometry — the walkable area of a crowd scene, read from WKT with GEOS. */
#pragma once
#include <throng/throng.h>

typedef struct {
  PetscInt   nring; /* segments of the polygon rings (outer and holes), x0,y0,x1,y1 */
  PetscReal *ring;
  PetscInt   nwall; /* the rings with the exits cut out: the wall segments          */
  PetscReal *wall;
  PetscReal *wallNormal; /* per wall segment: the unit normal pointing into the area   */
  PetscInt   nexit;      /* exit segments, x0,y0,x1,y1                                  */
  PetscReal *exit;
  PetscInt  *exitId;  /* the exit (LINESTRING of the file, from 0) of each segment      */
  PetscInt   nexits;  /* number of exits                                               */
  PetscInt   nsensor; /* sensor segments, x0,y0,x1,y1 (measurement lines, not walls)     */
  PetscReal *sensor;
  PetscInt  *sensorId; /* the sensor (LINESTRING of the file, from 0) of each segment   */
  PetscInt   nsensors;
  PetscReal  bbox[4]; /* x0, y0, x1, y1 of the walkable area                            */
  PetscReal  area;
  char      *walkWKT; /* the walkable area's WKT, as given                               */
} Geometry;

/* Read `path` (see geometry.c for the format) on every rank; errors are collective and
   name the line.  Checks: valid polygon(s), at least one exit (if needExit), every exit
   on the boundary.                                                                    */
PetscErrorCode GeometryRead(MPI_Comm comm, const char *path, PetscBool needExit, Geometry *g);
PetscErrorCode GeometryDestroy(Geometry *g);
/* Is (x, y) inside the walkable area (even-odd rule over the rings)? */
PetscBool GeometryInside(const Geometry *g, PetscReal x, PetscReal y);
/* Distance from (x, y) to segment s = (x0, y0, x1, y1), and the closest point. */
PetscReal SegmentDistance(const PetscReal *s, PetscReal x, PetscReal y, PetscReal *cx, PetscReal *cy);
/* Area of the walkable part of the rectangle rect = x0, y0, x1, y1 (GEOS; not collective). */
PetscErrorCode GeometryRegionArea(const Geometry *g, const PetscReal *rect, PetscReal *area);
/* The walkable area joined with n quadrilaterals (8 reals each: the corners in order), as
   WKT (PetscFree it; GEOS; not collective). */
PetscErrorCode GeometryUnionWKT(const Geometry *g, PetscInt n, const PetscReal *quad, char **wkt);
