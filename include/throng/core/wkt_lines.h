/* wkt_lines — the parsing of single lines of a scene file, for wkt.c (see
   src/core/wkt_lines.c).  Every failure is a message in err (errlen bytes). */
#pragma once
#include <throng/core/geometry.h>
#include <geos_c.h>

typedef struct {
  char msg[512];
} GeosMsg;
#define GEOM_COORD_MAX  1e7 /* m: 10 000 km, and 1e-9 m resolution in double precision */
#define GEOM_MAX_FLOORS 64
#define GEOM_MAX_LINKS  256
#define GEOM_FLOOR_GAP  1.0 /* m: the least distance between two floors in the plane */

typedef struct {
  GEOSGeometry *floor[GEOM_MAX_FLOORS];
  GeomFloor     decl[GEOM_MAX_FLOORS];
  PetscInt      nfloor;
  GEOSGeometry *link[2 * GEOM_MAX_LINKS]; /* line A of link k at 2k, B at 2k + 1 */
  GeomLink      ldecl[GEOM_MAX_LINKS];
  PetscInt      nlink;
} FloorParse;

/* Append the segments of a (multi)line geometry to (*seg, *n, *cap); ids optional. */
PetscErrorCode AddLines(GEOSContextHandle_t h, const GEOSGeometry *geom, PetscReal **seg, PetscInt **ids, PetscInt id,
                        PetscInt *n, PetscInt *cap);
/* An optional name after a keyword: the first word, unless it is a WKT type (then the
   line has no name).  *rest: what follows it. */
void TakeName(const char *line, const char **rest, char *name, int lineno, char *err, size_t errlen);
/* The head of a `zone` or `stair` line: the factor, or the rise and the axis (stairs);
   *wkt is left at the area's WKT. */
PetscErrorCode ZoneLine(GEOSContextHandle_t h, GEOSWKTReader *rd, int lineno, PetscBool stair, const char **wkt,
                        GeomZone *z, char *err, size_t errlen);
/* Does a stair's axis lie on its polygon (within its area)? */
PetscBool StairAxisIn(GEOSContextHandle_t h, const GEOSGeometry *area, const GeomZone *z);
/* Every zone and stair slows someone: it reaches into the walkable area, and it is not
   wholly inside the zones before it (the first zone that holds a point is its zone, so
   such a zone would be ignored).  A failure is a message in err. */
PetscErrorCode ZonesCheck(GEOSContextHandle_t h, const GEOSGeometry *walk, GEOSGeometry **zg, const Geometry *g,
                          char *err, size_t errlen);
/* `floor NAME LEVEL POLYGON (...)`.  A failure is a message in err. */
void FloorLine(GEOSContextHandle_t h, GEOSWKTReader *rd, GeosMsg *gm, int lineno, const char *rest, FloorParse *fp,
               char *err, size_t errlen);
/* `link [NAME] LINESTRING (a0, a1) LINESTRING (b0, b1)`.  A failure is a message in err. */
void LinkLine(GEOSContextHandle_t h, GEOSWKTReader *rd, int lineno, const char *rest, FloorParse *fp, char *err,
              size_t errlen);
/* The walkable area of a scene of floors: their union, each floor apart from the others. */
PetscErrorCode FloorsJoin(GEOSContextHandle_t h, FloorParse *fp, GEOSGeometry **walk, Geometry *g, char *err,
                          size_t errlen);
/* Each link line on the outline of a floor (its outer ring or a hole's: a stairwell), the
   two on different floors; the floors into g with their rings.  After Boundaries (the
   inside test for the normals).  A failure is a message in err. */
PetscErrorCode FloorsFinish(GEOSContextHandle_t h, FloorParse *fp, Geometry *g, char *err, size_t errlen);
