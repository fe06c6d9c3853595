/* geometry — the walkable area of a crowd scene, read from WKT with GEOS. */
#pragma once
#include <throng/throng.h>

#define GEOM_NAME_LEN 32 /* longest name of an exit or a waypoint, with its 0   */
#define GEOM_MAX_LEGS 16 /* targets of a route                                */

/* A route (`route T1,T2,... REGION` line): the agents that start in its region (or whose
   ids it names) walk to its targets in turn, waypoints then one exit (geometry.c). */
typedef struct {
  PetscInt   ntarget, target[GEOM_MAX_LEGS]; /* exits 0..nexits-1, then waypoint w as nexits + w */
  PetscInt   line;                           /* its line of the file (messages)                 */
  PetscInt64 id0, id1;                       /* the ids id0..id1; id0 < 0: the region           */
  PetscInt   rbeg, rend;                     /* its region's ring segments in rring             */
} GeomRoute;

/* A slow zone (`zone FACTOR POLYGON`) or a stair (`stair RISE LINESTRING(foot, head)
   POLYGON`) of the walkable area (zone.c). */
typedef struct {
  PetscReal factor; /* zone: the speed is multiplied by it; stair: 0                */
  PetscBool stair;
  PetscReal axis[4];        /* stair: foot x,y and head x,y (up is from foot to head)         */
  PetscReal rise;           /* stair: the height climbed from foot to head (m)                */
  PetscReal ux, uy, cosine; /* stair: the unit axis; plan length / length along the slope      */
  PetscReal fUp, fDown;     /* the travel-time field's speed factors (zone.c ZoneFieldSpeeds) */
  PetscReal bbox[4];
  PetscInt  zbeg, zend; /* its ring segments in zring                                       */
  PetscInt  line;
} GeomZone;

/* A floor (`floor NAME LEVEL POLYGON`): a walkable area of its own, anywhere in the plane,
   at a level (storeys: 0 the ground floor, 1 the first, 0.5 a flight between them).
   Floors are joined by links (floors.c). */
typedef struct {
  char      name[GEOM_NAME_LEN];
  PetscReal level;
  PetscReal shift[2];   /* `shift DX,DY`: where it is drawn, from where it lies in the
                           building's plan (the snapshots stack the floors with it)      */
  PetscBool stair;      /* stairs cover it for the most part: the summary calls it a stair */
  PetscInt  fbeg, fend; /* its ring segments in fring                                     */
  PetscReal bbox[4];
  PetscReal area;
  PetscInt  line;
} GeomFloor;

/* A link (`link [NAME] LINESTRING (a0, a1) LINESTRING (b0, b1)`): two openings of equal
   length in the floors' outlines; an agent whose centre passes through one comes out of
   the other at the matching point, a0 matching b0 (floors.c). */
typedef struct {
  PetscReal seg[2][4]; /* its two lines, x0,y0,x1,y1                                     */
  PetscReal out[2][2]; /* per line: the unit normal pointing out of the walkable area     */
  PetscReal len;
  PetscInt  floor[2]; /* the floor of each line                                           */
  char      name[GEOM_NAME_LEN];
  PetscInt  line;
} GeomLink;

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
  PetscInt   nways;            /* waypoints (`waypoint NAME POINT|LINESTRING`): one segment each,  */
  PetscReal *way;              /* x0,y0,x1,y1 (a point: x1 = x0, y1 = y0)                        */
  char (*name)[GEOM_NAME_LEN]; /* the targets' names: exits, then waypoints ("": none)   */
  PetscInt   nroutes;          /* routes, in the order of the file (the first that holds */
  GeomRoute *route;            /* an agent's start is its route)                         */
  PetscInt   nrring;           /* ring segments of the routes' regions                   */
  PetscReal *rring;
  PetscInt   nzones; /* slow zones and stairs, in the order of the file (the first that   */
  GeomZone  *zone;   /* holds a point is its zone)                                       */
  PetscInt   nzring;
  PetscReal *zring;
  PetscInt   nfloors; /* floors (`floor` lines; 0: one walkable area, the `walkable` line)  */
  GeomFloor *floor;
  char     **floorWKT; /* each floor's area as WKT                                        */
  PetscInt   nfring;
  PetscReal *fring;
  PetscInt   nlinks; /* links between floors                                              */
  GeomLink  *link;
  PetscReal  bbox[4]; /* x0, y0, x1, y1 of the walkable area                            */
  PetscReal  area;
  char      *walkWKT;  /* the walkable area's WKT, as given                               */
  uint64_t   textHash; /* FNV-1a of the file's text: a restart checks the scene is the same */
} Geometry;

/* Read `path` (see geometry.c for the format) on every rank; errors are collective and
   name the line.  Checks: valid polygon(s), at least one exit (if needExit), every exit
   on the boundary.                                                                    */
PetscErrorCode GeometryRead(MPI_Comm comm, const char *path, PetscBool needExit, Geometry *g);
PetscErrorCode GeometryDestroy(Geometry *g);
/* Is (x, y) inside the walkable area (even-odd rule over the rings)? */
PetscBool GeometryInside(const Geometry *g, PetscReal x, PetscReal y);
/* The walkable nodes (x0 + i h, y0 + j h), i < nx, of the rows j0 <= j < j1, into
   inside[(j - j0) nx + i] (1 or 0): exactly GeometryInside's answers, by a scanline over
   the rings' edges (sorted by height; per row the crossings, sorted, then one pass along
   it), in O(E log E + rows (E_row log E_row + nx)) instead of O(rows nx E).           */
PetscErrorCode GeometryInsideRows(const Geometry *g, PetscReal x0, PetscReal y0, PetscReal h, PetscInt nx, PetscInt j0,
                                  PetscInt j1, char *inside);
/* The floor that holds (x, y), -1 if none (or no floors). */
PetscInt GeometryFloorAt(const Geometry *g, PetscReal x, PetscReal y);
/* The zone (slow zone or stair) that holds (x, y), -1 if none. */
PetscInt GeometryZoneAt(const Geometry *g, PetscReal x, PetscReal y);
/* A route to targets (names or exit indices, comma-separated) for the agents id0..id1,
   put before the file's routes (what: its option, for the messages; collective). */
PetscErrorCode GeometryAddRoute(MPI_Comm comm, Geometry *g, const char *what, const char *targets, PetscInt64 id0,
                                PetscInt64 id1);
/* Does route r hold an agent of this id that starts at (x, y)? */
PetscBool GeometryRouteHolds(const Geometry *g, PetscInt r, PetscInt64 id, PetscReal x, PetscReal y);
/* The name of target t (an exit's index when it has none), in buf. */
const char *GeometryTargetName(const Geometry *g, PetscInt t, char *buf, size_t len);
/* Distance from (x, y) to segment s = (x0, y0, x1, y1), and the closest point. */
PetscReal SegmentDistance(const PetscReal *s, PetscReal x, PetscReal y, PetscReal *cx, PetscReal *cy);
/* Area of the walkable part of the rectangle rect = x0, y0, x1, y1 (GEOS; not collective). */
PetscErrorCode GeometryRegionArea(const Geometry *g, const PetscReal *rect, PetscReal *area);
/* The same for the polygon of n vertices xy (x0,y0,x1,y1,...; GEOS; not collective);
   *area = -1 if the polygon crosses itself (its vertices not in order round it). */
PetscErrorCode GeometryPolygonArea(const Geometry *g, PetscInt n, const PetscReal *xy, PetscReal *area);
/* The walkable area joined with n quadrilaterals (8 reals each: the corners in order), as
   WKT (PetscFree it; GEOS; not collective); *parts: how many polygons it is (PedPy's
   WalkableArea takes one). */
/* The area of the quadrilateral quad (8 reals: the corners in order) that lies inside the
   walkable area's outer rings, its holes filled: how far a door's lane runs into the
   building (an obstacle, another room) instead of out of it (GEOS; not collective). */
/* Where a disk of radius r can stand and still walk out: the walkable area shrunk by r
   (GEOS buffer), keeping the parts that reach an exit.  A part cut off from every exit
   by passages narrower than 2 r (an obstacle that seals a door but for millimetre gaps)
   is dropped.  Not collective. */
typedef struct _p_GeometryPassable *GeometryPassable;
PetscErrorCode                      GeometryPassableCreate(const Geometry *g, PetscReal r, GeometryPassable *gp);
/* Whether a disk centred at (x, y) is in the passable region (within 1e-6 r of it). */
PetscBool      GeometryPassableHas(GeometryPassable gp, PetscReal x, PetscReal y);
PetscErrorCode GeometryPassableDestroy(GeometryPassable *gp);
PetscErrorCode GeometryShellOverlap(const Geometry *g, const PetscReal *quad, PetscReal *area);
/* (floor >= 0: floor `floor`'s area instead of the whole walkable area) */
PetscErrorCode GeometryUnionWKT(const Geometry *g, PetscInt floor, PetscInt n, const PetscReal *quad, char **wkt,
                                PetscInt *parts);
