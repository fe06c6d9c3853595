/* geometry — the walkable area: polygons with holes (obstacles) and exits, from WKT.
 *
 * File format (-geometry FILE), the convention JuPedSim users know — the walkable area as
 * WKT polygons — with one keyword per line:
 *
 *     # a room of 10 m x 8 m with a pillar, and a 1.2 m door in its east wall
 *     walkable POLYGON ((0 0, 10 0, 10 8, 0 8, 0 0), (4 3, 5 3, 5 4, 4 4, 4 3))
 *     exit     LINESTRING (10 3.4, 10 4.6)
 *
 * `walkable` (exactly one line) is a POLYGON or MULTIPOLYGON; holes are obstacles.
 * Buildings of several floors (floors.c) give `floor NAME LEVEL [shift DX,DY] AREA` lines instead, one
 * per floor (AREA a POLYGON, a MULTIPOLYGON, or a GEOMETRYCOLLECTION of POLYGONs, which
 * is joined: rooms, doors and corridors may be drawn as overlapping rectangles), and
 * `link [NAME] LINESTRING LINESTRING` lines between them.
 * `exit` (one line per exit) is a LINESTRING lying on the boundary of the walkable area.
 * `sensor` (optional, one line per sensor) is a LINESTRING anywhere: a measurement line
 * whose crossings are counted (crowd.c); it is not a wall.
 * Routes (route.c), all optional:
 *
 *     exit main LINESTRING (6 11, 7.2 11)          # an exit may have a name
 *     waypoint hall POINT (4 8)                    # a point or a one-segment LINESTRING
 *     route hall,main POLYGON ((0 6, 3 6, 3 11, 0 11, 0 6))
 *     route 1 ids 0-9
 *
 * Slow zones and stairs (zone.c), optional:
 *
 *     zone 0.5 POLYGON ((0 0, 4 0, 4 2, 0 2, 0 0))                  # speed x 0.5 in it
 *     stair 6 LINESTRING (0 1, 8 1) POLYGON ((0 0, 8 0, 8 2, 0 2, 0 0))
 *
 * `zone FACTOR REGION` multiplies the speed of whoever is in REGION by FACTOR in (0, 1].
 * `stair RISE AXIS REGION`: a stair that climbs RISE metres along AXIS, a LINESTRING
 * from its foot to its head (its plan length is the axis's length); the speeds on it
 * are -stair_up and -stair_down, along the slope.  The first zone that holds a point is
 * its zone.
 *
 * `exit NAME WKT` names an exit (a name is not all digits and not a WKT keyword; an exit
 * is also known by its index, from 0).  `waypoint NAME WKT` is a target inside the
 * walkable area.  `route T1,T2,... REGION` sends the agents that start in REGION (a WKT
 * POLYGON or MULTIPOLYGON; or `ids A-B`, the agents A to B) to the targets in turn:
 * waypoints, then one exit, last.  The first route line that holds an agent is its route.
 * Lengths are metres.  `-geometry builtin:venue` is the embedded hall of the default
 * evacuation (-scenario evacuation).  GEOS parses the WKT and checks the polygon (GEOSisValidReason:
 * self-intersections, holes outside the shell, ...); the exits must be within 1e-6 of
 * the boundary.
 *
 * From it throng takes segments, the form the sweep needs:
 *   - the ring segments (shells and holes), for the inside test (even-odd rule);
 *   - the wall segments: the rings minus the exits (GEOSDifference with the exits
 *     widened by 1e-6), so that a door is an opening in its wall, each with the unit
 *     normal that points into the walkable area (tested just beside its midpoint);
 *   - the exit segments, each tagged with its exit.
 * Every rank parses the same text with the same GEOS, so every rank holds the same
 * segments in the same order (rank 0 reads the file and broadcasts it).           */
#define _GNU_SOURCE /* strcasestr */
#include <throng/core/geometry.h>
#include <throng/util/files.h>
#include <geos_c.h>
#include <stdarg.h>
#include <string.h>
#include <stdlib.h>
#include <strings.h>
#include <math.h>

typedef struct {
  char msg[512];
} GeosMsg;

static void GeosHandler(const char *fmt, void *ud)
{
  GeosMsg *m = (GeosMsg *)ud;
  PetscStrncpy(m->msg, fmt, sizeof(m->msg));
}

/* Append the segments of a (multi)line geometry to (*seg, *n, *cap); ids optional. */
static PetscErrorCode AddLines(GEOSContextHandle_t h, const GEOSGeometry *geom, PetscReal **seg, PetscInt **ids,
                               PetscInt id, PetscInt *n, PetscInt *cap)
{
  const int ng = GEOSGetNumGeometries_r(h, geom);
  PetscFunctionBeginUser;
  for (int k = 0; k < ng; k++) {
    const GEOSGeometry *line = GEOSGetGeometryN_r(h, geom, k);
    const int           t    = GEOSGeomTypeId_r(h, line);
    if (t == GEOS_MULTILINESTRING || t == GEOS_GEOMETRYCOLLECTION) {
      PetscCall(AddLines(h, line, seg, ids, id, n, cap));
      continue;
    }
    if (t == GEOS_POLYGON) { /* rings of a polygon */
      PetscCall(AddLines(h, GEOSGetExteriorRing_r(h, line), seg, ids, id, n, cap));
      for (int r = 0; r < GEOSGetNumInteriorRings_r(h, line); r++)
        PetscCall(AddLines(h, GEOSGetInteriorRingN_r(h, line, r), seg, ids, id, n, cap));
      continue;
    }
    const GEOSCoordSequence *cs = GEOSGeom_getCoordSeq_r(h, line);
    unsigned int             np = 0;
    if (!cs || !GEOSCoordSeq_getSize_r(h, cs, &np)) continue;
    for (unsigned int i = 0; i + 1 < np; i++) {
      double x0, y0, x1, y1;
      GEOSCoordSeq_getXY_r(h, cs, i, &x0, &y0);
      GEOSCoordSeq_getXY_r(h, cs, i + 1, &x1, &y1);
      if (x0 == x1 && y0 == y1) continue;
      if (*n == *cap) {
        *cap = 2 * *cap + 16;
        PetscCall(PetscRealloc(4 * sizeof(PetscReal) * (size_t)*cap, seg));
        if (ids) PetscCall(PetscRealloc(sizeof(PetscInt) * (size_t)*cap, ids));
      }
      (*seg)[4 * *n] = x0, (*seg)[4 * *n + 1] = y0, (*seg)[4 * *n + 2] = x1, (*seg)[4 * *n + 3] = y1;
      if (ids) (*ids)[*n] = id;
      (*n)++;
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The venue of the default evacuation (-scenario evacuation, -geometry builtin:venue). */
static const char *BuiltinVenue =
  "# The default job's venue: a hall of 80 m x 50 m with two square pillars (4 m) and four\n"
  "# 2.4 m doors, two in the west wall and two in the east wall.\n"
  "walkable POLYGON ((0 0, 80 0, 80 50, 0 50, 0 0), (25 23, 29 23, 29 27, 25 27, 25 23), (51 23, 55 23, 55 27, 51 27, "
  "51 23))\n"
  "exit LINESTRING (0 11.3, 0 13.7)\n"
  "exit LINESTRING (0 36.3, 0 38.7)\n"
  "exit LINESTRING (80 11.3, 80 13.7)\n"
  "exit LINESTRING (80 36.3, 80 38.7)\n";

/* GEOS's name of a geometry's type, copied into buf (GEOS's string is freed). */
static const char *TypeName(GEOSContextHandle_t h, const GEOSGeometry *geom, char *buf, size_t len)
{
  char *t = GEOSGeomType_r(h, geom);
  snprintf(buf, len, "%s", t ? t : "?");
  if (t) GEOSFree_r(h, t);
  return buf;
}

/* The last geometry parsed, with its text.  The options (the box, -groups_density) and
   the set-up read the same file: GEOS parses it once, and a later read of the same text
   gets a copy.  The text decides, not the path, so a file rewritten between two reads
   (the fuzzer does that) is parsed anew.  Freed by PetscFinalize.                     */
static struct {
  char     *text;
  Geometry  g;
  PetscBool registered;
} cache;

static PetscErrorCode CopyReals(const PetscReal *a, PetscInt n, PetscReal **b)
{
  PetscFunctionBeginUser;
  PetscCall(PetscMalloc1(n + 1, b));
  if (n) PetscCall(PetscArraycpy(*b, a, n));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CopyInts(const PetscInt *a, PetscInt n, PetscInt **b)
{
  PetscFunctionBeginUser;
  PetscCall(PetscMalloc1(n + 1, b));
  if (n) PetscCall(PetscArraycpy(*b, a, n));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode GeometryCopy(const Geometry *a, Geometry *b)
{
  PetscFunctionBeginUser;
  *b = *a;
  PetscCall(CopyReals(a->ring, 4 * a->nring, &b->ring));
  PetscCall(CopyReals(a->wall, 4 * a->nwall, &b->wall));
  PetscCall(CopyReals(a->wallNormal, 2 * a->nwall, &b->wallNormal));
  PetscCall(CopyReals(a->exit, 4 * a->nexit, &b->exit));
  PetscCall(CopyInts(a->exitId, a->nexit, &b->exitId));
  PetscCall(CopyReals(a->sensor, 4 * a->nsensor, &b->sensor));
  PetscCall(CopyInts(a->sensorId, a->nsensor, &b->sensorId));
  PetscCall(CopyReals(a->way, 4 * a->nways, &b->way));
  PetscCall(CopyReals(a->rring, 4 * a->nrring, &b->rring));
  PetscCall(CopyReals(a->zring, 4 * a->nzring, &b->zring));
  PetscCall(PetscMalloc1(a->nzones + 1, &b->zone));
  if (a->nzones) PetscCall(PetscArraycpy(b->zone, a->zone, a->nzones));
  PetscCall(PetscMalloc1(a->nexits + a->nways + 1, &b->name));
  if (a->nexits + a->nways) PetscCall(PetscArraycpy(b->name, a->name, a->nexits + a->nways));
  PetscCall(PetscMalloc1(a->nroutes + 1, &b->route));
  if (a->nroutes) PetscCall(PetscArraycpy(b->route, a->route, a->nroutes));
  b->walkWKT = NULL;
  if (a->walkWKT) PetscCall(PetscStrallocpy(a->walkWKT, &b->walkWKT));
  PetscCall(PetscMalloc1(a->nfloors + 1, &b->floor));
  if (a->nfloors) PetscCall(PetscArraycpy(b->floor, a->floor, a->nfloors));
  PetscCall(PetscCalloc1(a->nfloors + 1, &b->floorWKT));
  for (PetscInt f = 0; f < a->nfloors; f++) PetscCall(PetscStrallocpy(a->floorWKT[f], &b->floorWKT[f]));
  PetscCall(CopyReals(a->fring, 4 * a->nfring, &b->fring));
  PetscCall(PetscMalloc1(a->nlinks + 1, &b->link));
  if (a->nlinks) PetscCall(PetscArraycpy(b->link, a->link, a->nlinks));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CacheFree(void)
{
  PetscFunctionBeginUser;
  PetscCall(PetscFree(cache.text));
  PetscCall(GeometryDestroy(&cache.g));
  cache.registered = PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The walls: the boundary of the walkable area with the exits cut out, each exit checked
   to lie on that boundary; then the arrays of g (rings, walls and the side each faces,
   exits, box, area).  A failure is a message in err (of errlen bytes). */
static PetscErrorCode Boundaries(GEOSContextHandle_t h, GEOSGeometry *walk, GEOSGeometry **exits, PetscInt nex,
                                 GEOSGeometry **cuts, PetscInt ncut, Geometry *g, char *err, size_t errlen)
{
  PetscInt capr = 0, capw = 0, cape = 0;
  PetscFunctionBeginUser;
  GEOSGeometry *bnd = GEOSBoundary_r(h, walk), *walls = GEOSGeom_clone_r(h, bnd);
  for (PetscInt e = 0; e < nex && !err[0]; e++) {
    double d2 = 0;
    /* every point of the exit must lie on the boundary: its distance to the boundary,
       taken at both ends and the midpoint of each segment, is ~0 */
    const GEOSCoordSequence *cs = GEOSGeom_getCoordSeq_r(h, exits[e]);
    unsigned int             np = 0;
    GEOSCoordSeq_getSize_r(h, cs, &np);
    for (unsigned int i = 0; i < np && !err[0]; i++)
      for (int half = 0; half < (i + 1 < np ? 2 : 1); half++) {
        double x, y, x1, y1;
        GEOSCoordSeq_getXY_r(h, cs, i, &x, &y);
        if (half) {
          GEOSCoordSeq_getXY_r(h, cs, i + 1, &x1, &y1);
          x = 0.5 * (x + x1), y = 0.5 * (y + y1);
        }
        GEOSGeometry *pt = GEOSGeom_createPointFromXY_r(h, x, y);
        GEOSDistance_r(h, pt, bnd, &d2);
        GEOSGeom_destroy_r(h, pt);
        if (d2 > 1e-6)
          PetscCall(PetscSNPrintf(err, errlen,
                                  "exit %" PetscInt_FMT " (the %" PetscInt_FMT
                                  "-th 'exit' line): the point (%g, %g) is %g from the boundary of the walkable "
                                  "area; an exit must lie on it",
                                  e, e + 1, x, y, d2));
      }
    if (!err[0]) {
      GEOSGeometry *cut = GEOSBuffer_r(h, exits[e], 1e-6, 2), *rest = GEOSDifference_r(h, walls, cut);
      GEOSGeom_destroy_r(h, cut);
      GEOSGeom_destroy_r(h, walls);
      walls = rest;
      PetscCall(AddLines(h, exits[e], &g->exit, &g->exitId, e, &g->nexit, &cape));
    }
  }
  for (PetscInt k = 0; k < ncut && !err[0]; k++) { /* the links' openings (checked by LinksCheck) */
    GEOSGeometry *cut = GEOSBuffer_r(h, cuts[k], 1e-6, 2), *rest = GEOSDifference_r(h, walls, cut);
    GEOSGeom_destroy_r(h, cut);
    GEOSGeom_destroy_r(h, walls);
    walls = rest;
  }
  if (!err[0]) {
    double x0, y0, x1, y1, area;
    PetscCall(AddLines(h, walk, &g->ring, NULL, 0, &g->nring, &capr));
    PetscCall(AddLines(h, walls, &g->wall, NULL, 0, &g->nwall, &capw));
    GEOSGeom_getXMin_r(h, walk, &x0), GEOSGeom_getYMin_r(h, walk, &y0), GEOSGeom_getXMax_r(h, walk, &x1),
      GEOSGeom_getYMax_r(h, walk, &y1);
    GEOSArea_r(h, walk, &area);
    g->bbox[0] = x0, g->bbox[1] = y0, g->bbox[2] = x1, g->bbox[3] = y1;
    g->area   = area;
    g->nexits = nex;
    PetscCall(PetscMalloc1(2 * g->nwall + 1, &g->wallNormal));
    for (PetscInt k = 0; k < g->nwall; k++) { /* which side of the wall is walkable */
      const PetscReal *s = &g->wall[4 * k], dx = s[2] - s[0], dy = s[3] - s[1], l = PetscSqrtReal(dx * dx + dy * dy);
      const PetscReal  nx = -dy / l, ny = dx / l, mx = 0.5 * (s[0] + s[2]), my = 0.5 * (s[1] + s[3]);
      const PetscBool  left    = GeometryInside(g, mx + 1e-6 * nx, my + 1e-6 * ny);
      g->wallNormal[2 * k]     = left ? nx : -nx;
      g->wallNormal[2 * k + 1] = left ? ny : -ny;
    }
  }
  GEOSGeom_destroy_r(h, walls);
  GEOSGeom_destroy_r(h, bnd);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The geometry's text on every rank (rank 0 reads the file: files.c), or one error. */
#define GEOM_COORD_MAX 1e7 /* m: 10 000 km, and 1e-9 m resolution in double precision */

static PetscErrorCode ReadText(MPI_Comm comm, const char *path, char **textp)
{
  PetscFunctionBeginUser;
  if (!strcmp(path, "builtin:venue")) PetscCall(PetscStrallocpy(BuiltinVenue, textp));
  else PetscCall(FilesReadText(comm, "-geometry file", path, (size_t)1 << 30, PETSC_TRUE, textp, NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* An optional name after a keyword: the first word, unless it is a WKT type (then the
   line has no name).  *rest: what follows it.  A failure is a message in err. */
static void TakeName(const char *line, const char **rest, char *name, int lineno, char *err, size_t errlen)
{
  static const char *const wkt[] = {"POINT",        "LINESTRING",         "POLYGON",    "MULTIPOINT", "MULTILINESTRING",
                                    "MULTIPOLYGON", "GEOMETRYCOLLECTION", "LINEARRING", "ids",        NULL};
  const char              *a     = line, *b;
  size_t                   n;
  PetscBool                digits = PETSC_TRUE;
  name[0]                         = 0;
  *rest                           = line;
  while (*a == ' ' || *a == '\t') a++;
  for (b = a; *b && *b != ' ' && *b != '\t' && *b != '(' && *b != '\r'; b++) digits = digits && *b >= '0' && *b <= '9';
  n = (size_t)(b - a);
  for (int k = 0; wkt[k]; k++)
    if (n == strlen(wkt[k]) && !strncasecmp(a, wkt[k], n)) return;
  if (!n) return;
  for (const char *c = a; c < b; c++)
    if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') || *c == '_' || *c == '-' ||
          *c == '.')) {
      snprintf(err, errlen, "line %d: the name '%.*s' may only hold letters, digits, '_', '-' and '.'", lineno, (int)n,
               a);
      return;
    }
  if (digits)
    snprintf(err, errlen, "line %d: the name '%.*s' is all digits (digits are exit indices)", lineno, (int)n, a);
  else if (n >= GEOM_NAME_LEN)
    snprintf(err, errlen, "line %d: the name '%.*s' is longer than %d characters", lineno, (int)n, a,
             GEOM_NAME_LEN - 1);
  else {
    memcpy(name, a, n);
    name[n] = 0;
    *rest   = b;
  }
}

/* A route line's targets, by name or exit index, into r (after every line is read: the
   names may come later in the file).  A failure is a message in err. */
static void ResolveTargets(const Geometry *g, const char *list, GeomRoute *r, char *err, size_t errlen)
{
  const char *a = list;
  r->ntarget    = 0;
  while (*a && !err[0]) {
    const char *b = a;
    while (*b && *b != ',') b++;
    const size_t n = (size_t)(b - a);
    PetscInt     t = -1;
    if (n && strspn(a, "0123456789") >= n) { /* an exit by index */
      const long e = strtol(a, NULL, 10);
      t            = e < g->nexits ? (PetscInt)e : -1;
    } else if (n) /* by name */
      for (PetscInt k = 0; k < g->nexits + g->nways && t < 0; k++)
        if (strlen(g->name[k]) == n && !strncmp(g->name[k], a, n)) t = k;
    if (!n)
      snprintf(err, errlen, "line %d: an empty route target (targets are separated by commas, no spaces)",
               (int)r->line);
    else if (t < 0)
      snprintf(err, errlen, "line %d: route target '%.*s' is neither an exit (by name or index 0..%d) nor a waypoint",
               (int)r->line, (int)n, a, (int)g->nexits - 1);
    else if (r->ntarget == GEOM_MAX_LEGS)
      snprintf(err, errlen, "line %d: a route has at most %d targets", (int)r->line, GEOM_MAX_LEGS);
    else if (r->ntarget && r->target[r->ntarget - 1] < g->nexits)
      snprintf(err, errlen, "line %d: route target '%.*s' follows an exit: an exit ends a route", (int)r->line, (int)n,
               a);
    else r->target[r->ntarget++] = t;
    a = *b ? b + 1 : b;
  }
  if (!err[0] && (!r->ntarget || r->target[r->ntarget - 1] >= g->nexits))
    snprintf(err, errlen, "line %d: a route must end at an exit (its last target is a waypoint)", (int)r->line);
}

PetscErrorCode GeometryAddRoute(MPI_Comm comm, Geometry *g, const char *what, const char *targets, PetscInt64 id0,
                                PetscInt64 id1)
{
  GeomRoute r;
  char      err[512] = "";
  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(&r, sizeof(r)));
  r.id0 = id0, r.id1 = id1;
  ResolveTargets(g, targets, &r, err, sizeof(err));
  PetscCheck(!err[0], comm, PETSC_ERR_USER_INPUT, "%s '%s': %s", what, targets,
             strncmp(err, "line 0: ", 8) ? err : err + 8);
  PetscCall(PetscRealloc(sizeof(GeomRoute) * (size_t)(g->nroutes + 1), &g->route));
  for (PetscInt k = g->nroutes; k > 0; k--) g->route[k] = g->route[k - 1];
  g->route[0] = r;
  g->nroutes++;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscBool GeometryRouteHolds(const Geometry *g, PetscInt k, PetscInt64 id, PetscReal x, PetscReal y)
{
  const GeomRoute *r  = &g->route[k];
  PetscBool        in = PETSC_FALSE;
  if (r->id0 >= 0) return id >= r->id0 && id <= r->id1 ? PETSC_TRUE : PETSC_FALSE;
  for (PetscInt j = r->rbeg; j < r->rend; j++) { /* even-odd, as GeometryInside */
    const PetscReal *s = &g->rring[4 * j];
    if ((s[1] > y) != (s[3] > y) && x < s[0] + (y - s[1]) * (s[2] - s[0]) / (s[3] - s[1])) in = (PetscBool)!in;
  }
  return in;
}

const char *GeometryTargetName(const Geometry *g, PetscInt t, char *buf, size_t len)
{
  if (t < g->nexits && !g->name[t][0]) snprintf(buf, len, "exit %d", (int)t);
  else snprintf(buf, len, "%s '%s'", t < g->nexits ? "exit" : "waypoint", g->name[t]);
  return buf;
}

/* The head of a `zone` or `stair` line: the factor, or the rise and the axis (stairs);
   *wkt is left at the area's WKT.  A failure is a message in err. */
static PetscErrorCode ZoneLine(GEOSContextHandle_t h, GEOSWKTReader *rd, int lineno, PetscBool stair, const char **wkt,
                               GeomZone *z, char *err, size_t errlen)
{
  const char *a = *wkt;
  char       *end;
  double      v;

  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(z, sizeof(*z)));
  z->line = lineno;
  v       = strtod(a, &end);
  if (end == a || !isfinite(v) || (stair ? v < 0 || v > 100 : v <= 0 || v > 1)) {
    char word[32];
    snprintf(word, sizeof(word), "%.*s", (int)strcspn(a, " \t("), a);
    PetscCall(PetscSNPrintf(err, errlen,
                            stair ? "line %d: expected 'stair RISE LINESTRING (foot x y, head x y) POLYGON (...)' "
                                    "with the rise in metres, 0 to 100; the rise is '%s'"
                                  : "line %d: expected 'zone FACTOR POLYGON (...)' with the speed factor in (0, 1]; "
                                    "the factor is '%s'",
                            lineno, word));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  a = end;
  if (!stair) {
    z->factor = v;
    *wkt      = a;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  z->stair = PETSC_TRUE;
  z->rise  = v;
  {
    const char   *ls = strcasestr(a, "LINESTRING"), *pg = strcasestr(a, "POLYGON");
    char          axis[512];
    GEOSGeometry *geom;
    unsigned int  np = 0;
    if (pg && pg > a && (pg[-1] == 'I' || pg[-1] == 'i')) pg -= 5; /* MULTIPOLYGON */
    if (!ls || !pg || pg < ls || (size_t)(pg - ls) >= sizeof(axis)) {
      PetscCall(PetscSNPrintf(err, errlen,
                              "line %d: a stair needs an axis: 'stair RISE LINESTRING (foot x y, head x y) POLYGON "
                              "(...)', the axis from the stair's foot to its head",
                              lineno));
      PetscFunctionReturn(PETSC_SUCCESS);
    }
    memcpy(axis, ls, (size_t)(pg - ls));
    axis[pg - ls] = 0;
    geom          = GEOSWKTReader_read_r(h, rd, axis);
    if (geom && GEOSGeomTypeId_r(h, geom) == GEOS_LINESTRING)
      GEOSCoordSeq_getSize_r(h, GEOSGeom_getCoordSeq_r(h, geom), &np);
    if (np == 2) {
      const GEOSCoordSequence *cs = GEOSGeom_getCoordSeq_r(h, geom);
      double                   x0, y0, x1, y1;
      GEOSCoordSeq_getXY_r(h, cs, 0, &x0, &y0);
      GEOSCoordSeq_getXY_r(h, cs, 1, &x1, &y1);
      const double l = sqrt((x1 - x0) * (x1 - x0) + (y1 - y0) * (y1 - y0));
      if (l > 0) {
        z->axis[0] = x0, z->axis[1] = y0, z->axis[2] = x1, z->axis[3] = y1;
        z->ux = (x1 - x0) / l, z->uy = (y1 - y0) / l;
        z->cosine = l / sqrt(l * l + z->rise * z->rise);
      } else np = 0;
    }
    if (geom) GEOSGeom_destroy_r(h, geom);
    if (np != 2)
      PetscCall(PetscSNPrintf(
        err, errlen, "line %d: a stair's axis is a LINESTRING of two distinct points (its foot, then its head)",
        lineno));
    *wkt = pg;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Does a stair's axis lie in its area (its ends may lie on the outline)? */
static PetscBool StairAxisIn(GEOSContextHandle_t h, const GEOSGeometry *area, const GeomZone *z)
{
  GEOSCoordSequence *cs = GEOSCoordSeq_create_r(h, 2, 2);
  GEOSGeometry      *ax;
  char               in;
  GEOSCoordSeq_setXY_r(h, cs, 0, z->axis[0], z->axis[1]);
  GEOSCoordSeq_setXY_r(h, cs, 1, z->axis[2], z->axis[3]);
  ax = GEOSGeom_createLineString_r(h, cs); /* owns cs */
  in = ax ? GEOSCovers_r(h, area, ax) : 0;
  if (ax) GEOSGeom_destroy_r(h, ax);
  return in == 1 ? PETSC_TRUE : PETSC_FALSE;
}

/* Every zone and stair slows someone: it reaches into the walkable area, and it is not
   wholly inside the zones before it (the first zone that holds a point is its zone, so
   such a zone would be ignored).  A failure is a message in err. */
static PetscErrorCode ZonesCheck(GEOSContextHandle_t h, const GEOSGeometry *walk, GEOSGeometry **zg, const Geometry *g,
                                 char *err, size_t errlen)
{
  PetscFunctionBeginUser;
  for (PetscInt z = 0; z < g->nzones && !err[0]; z++) {
    const GeomZone *zn  = &g->zone[z];
    GEOSGeometry   *cut = GEOSIntersection_r(h, zg[z], walk);
    double          a   = 0;
    if (cut) GEOSArea_r(h, cut, &a), GEOSGeom_destroy_r(h, cut);
    if (!(a > 1e-9)) {
      PetscCall(PetscSNPrintf(err, errlen, "line %d: the %s lies outside the walkable area: it would slow no one",
                              (int)zn->line, zn->stair ? "stair" : "zone"));
      break;
    }
    for (PetscInt j = 0; j < z && !err[0]; j++) {
      GEOSGeometry *rest = GEOSDifference_r(h, zg[z], zg[j]);
      double        left = 1;
      if (rest) GEOSArea_r(h, rest, &left), GEOSGeom_destroy_r(h, rest);
      if (!(left > 1e-9))
        PetscCall(PetscSNPrintf(err, errlen,
                                "line %d: the %s lies wholly inside the %s of line %d, which comes first and so holds "
                                "every point of both (the first zone that holds a point is its zone): it would slow no "
                                "one; give the inner one first",
                                (int)zn->line, zn->stair ? "stair" : "zone", g->zone[j].stair ? "stair" : "zone",
                                (int)g->zone[j].line));
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---- floors and links (the model: src/floors.c) ------------------------------------ */

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

/* `floor NAME LEVEL POLYGON (...)`.  A failure is a message in err. */
static void FloorLine(GEOSContextHandle_t h, GEOSWKTReader *rd, GeosMsg *gm, int lineno, const char *rest,
                      FloorParse *fp, char *err, size_t errlen)
{
  GeomFloor     fl;
  const char   *a;
  char         *end;
  GEOSGeometry *geom;
  memset(&fl, 0, sizeof(fl));
  TakeName(rest, &a, fl.name, lineno, err, errlen);
  if (err[0]) return;
  fl.level = strtod(a, &end);
  if (!fl.name[0] || end == a || !isfinite(fl.level) || PetscAbsReal(fl.level) > 1000) {
    snprintf(err, errlen,
             "line %d: expected 'floor NAME LEVEL [shift DX,DY] POLYGON (...)', the level a number from -1000 to "
             "1000 (0 the ground floor, 1 the first, 0.5 a flight of stairs between them)",
             lineno);
    return;
  }
  while (*end == ' ' || *end == '\t') end++;
  if (!strncmp(end, "shift", 5)) { /* where the floor is drawn, from its place in the plan */
    char *e1, *e2;
    fl.shift[0] = strtod(end + 5, &e1);
    while (*e1 == ' ' || *e1 == ',') e1++;
    fl.shift[1] = strtod(e1, &e2);
    if (e1 == end + 5 || e2 == e1 || !(PetscAbsReal(fl.shift[0]) <= GEOM_COORD_MAX) ||
        !(PetscAbsReal(fl.shift[1]) <= GEOM_COORD_MAX)) {
      snprintf(err, errlen,
               "line %d: expected 'shift DX,DY' (metres, each at most %g in magnitude) after the floor's level", lineno,
               (double)GEOM_COORD_MAX);
      return;
    }
    end = e2;
  }
  fl.line    = lineno;
  gm->msg[0] = 0;
  geom       = GEOSWKTReader_read_r(h, rd, end);
  if (!geom) {
    snprintf(err, errlen, "line %d: cannot parse the WKT: %s", lineno, gm->msg);
    return;
  }
  int t = GEOSGeomTypeId_r(h, geom);
  if (t == GEOS_GEOMETRYCOLLECTION) { /* rooms, corridors and doors drawn as overlapping parts: their union */
    const int n  = GEOSGetNumGeometries_r(h, geom);
    PetscBool ok = n > 0 ? PETSC_TRUE : PETSC_FALSE;
    for (int k = 0; k < n && ok; k++) {
      const GEOSGeometry *part = GEOSGetGeometryN_r(h, geom, k);
      ok                       = (PetscBool)(GEOSGeomTypeId_r(h, part) == GEOS_POLYGON && GEOSisValid_r(h, part) == 1);
    }
    GEOSGeometry *u = ok ? GEOSUnaryUnion_r(h, geom) : NULL;
    if (u) {
      GEOSGeom_destroy_r(h, geom);
      geom = u;
      t    = GEOSGeomTypeId_r(h, geom);
    } else {
      snprintf(err, errlen, "line %d: floor '%s': a GEOMETRYCOLLECTION of a floor holds valid POLYGONs only", lineno,
               fl.name);
      GEOSGeom_destroy_r(h, geom);
      return;
    }
  }
  if (t != GEOS_POLYGON && t != GEOS_MULTIPOLYGON)
    snprintf(err, errlen, "line %d: a floor is a POLYGON, a MULTIPOLYGON or a GEOMETRYCOLLECTION of POLYGONs (joined)",
             lineno);
  else if (GEOSisEmpty_r(h, geom) == 1) snprintf(err, errlen, "line %d: floor '%s' is empty", lineno, fl.name);
  else if (GEOSisValid_r(h, geom) != 1) {
    char *why = GEOSisValidReason_r(h, geom);
    snprintf(err, errlen, "line %d: floor '%s' is not a valid polygon: %s", lineno, fl.name, why ? why : "?");
    GEOSFree_r(h, why);
  } else if (fp->nfloor == GEOM_MAX_FLOORS)
    snprintf(err, errlen, "line %d: more than %d floors", lineno, GEOM_MAX_FLOORS);
  for (PetscInt f = 0; f < fp->nfloor && !err[0]; f++)
    if (!strcmp(fp->decl[f].name, fl.name))
      snprintf(err, errlen, "line %d: a second floor named '%s' (line %d): floor names are unique", lineno, fl.name,
               (int)fp->decl[f].line);
  if (err[0]) {
    GEOSGeom_destroy_r(h, geom);
    return;
  }
  fp->decl[fp->nfloor]    = fl;
  fp->floor[fp->nfloor++] = geom;
}

/* `link [NAME] LINESTRING (a0, a1) LINESTRING (b0, b1)`.  A failure is a message in err. */
static void LinkLine(GEOSContextHandle_t h, GEOSWKTReader *rd, int lineno, const char *rest, FloorParse *fp, char *err,
                     size_t errlen)
{
  GeomLink    lk;
  const char *a, *l1, *l2;
  double      len[2] = {0, 0};
  memset(&lk, 0, sizeof(lk));
  TakeName(rest, &a, lk.name, lineno, err, errlen);
  if (err[0]) return;
  l1 = strcasestr(a, "LINESTRING");
  l2 = l1 ? strcasestr(l1 + 10, "LINESTRING") : NULL;
  if (!l1 || !l2 || (size_t)(l2 - l1) >= 1024) {
    snprintf(err, errlen,
             "line %d: expected 'link [NAME] LINESTRING (x y, x y) LINESTRING (x y, x y)': two lines of equal length, "
             "the first point of one going to the first point of the other",
             lineno);
    return;
  }
  if (fp->nlink == GEOM_MAX_LINKS) {
    snprintf(err, errlen, "line %d: more than %d links", lineno, GEOM_MAX_LINKS);
    return;
  }
  for (int q = 0; q < 2 && !err[0]; q++) {
    char          buf[1024];
    GEOSGeometry *geom;
    unsigned int  np = 0;
    if (q == 0) {
      memcpy(buf, l1, (size_t)(l2 - l1));
      buf[l2 - l1] = 0;
    } else snprintf(buf, sizeof(buf), "%s", l2);
    geom = GEOSWKTReader_read_r(h, rd, buf);
    if (geom && GEOSGeomTypeId_r(h, geom) == GEOS_LINESTRING)
      GEOSCoordSeq_getSize_r(h, GEOSGeom_getCoordSeq_r(h, geom), &np);
    if (np == 2) {
      const GEOSCoordSequence *cs = GEOSGeom_getCoordSeq_r(h, geom);
      double                   x0, y0, x1, y1;
      GEOSCoordSeq_getXY_r(h, cs, 0, &x0, &y0);
      GEOSCoordSeq_getXY_r(h, cs, 1, &x1, &y1);
      lk.seg[q][0] = x0, lk.seg[q][1] = y0, lk.seg[q][2] = x1, lk.seg[q][3] = y1;
      len[q] = sqrt((x1 - x0) * (x1 - x0) + (y1 - y0) * (y1 - y0));
    }
    if (np != 2 || !(len[q] > 0)) {
      snprintf(err, errlen, "line %d: each line of a link is a LINESTRING of two distinct points", lineno);
      if (geom) GEOSGeom_destroy_r(h, geom);
      if (q == 1) GEOSGeom_destroy_r(h, fp->link[2 * fp->nlink]);
    } else fp->link[2 * fp->nlink + q] = geom;
  }
  if (!err[0] && fabs(len[0] - len[1]) > 1e-3) {
    snprintf(err, errlen,
             "line %d: the link's lines are %g m and %g m long: a link joins two lines of the same length (within "
             "1 mm), point for point",
             lineno, len[0], len[1]);
    GEOSGeom_destroy_r(h, fp->link[2 * fp->nlink]);
    GEOSGeom_destroy_r(h, fp->link[2 * fp->nlink + 1]);
  }
  for (PetscInt k = 0; k < fp->nlink && !err[0] && lk.name[0]; k++)
    if (!strcmp(fp->ldecl[k].name, lk.name)) {
      snprintf(err, errlen, "line %d: a second link named '%s' (line %d): link names are unique", lineno, lk.name,
               (int)fp->ldecl[k].line);
      GEOSGeom_destroy_r(h, fp->link[2 * fp->nlink]);
      GEOSGeom_destroy_r(h, fp->link[2 * fp->nlink + 1]);
    }
  if (err[0]) return;
  lk.len                 = 0.5 * (len[0] + len[1]);
  lk.line                = lineno;
  fp->ldecl[fp->nlink++] = lk;
}

/* The walkable area of a scene of floors: their union, each floor apart from the others. */
static PetscErrorCode FloorsJoin(GEOSContextHandle_t h, FloorParse *fp, GEOSGeometry **walk, Geometry *g, char *err,
                                 size_t errlen)
{
  GEOSGeometry *parts[GEOM_MAX_FLOORS], *coll;
  PetscFunctionBeginUser;
  for (PetscInt i = 0; i < fp->nfloor && !err[0]; i++)
    for (PetscInt j = 0; j < i && !err[0]; j++) {
      double d = 0;
      GEOSDistance_r(h, fp->floor[i], fp->floor[j], &d);
      if (d < GEOM_FLOOR_GAP)
        PetscCall(PetscSNPrintf(
          err, errlen,
          "floors '%s' (line %d) and '%s' (line %d) are %g m apart in the plane: lay floors out at "
          "least %g m apart (agents on one would feel those on the other); links join them",
          fp->decl[j].name, (int)fp->decl[j].line, fp->decl[i].name, (int)fp->decl[i].line, d, GEOM_FLOOR_GAP));
    }
  if (err[0]) PetscFunctionReturn(PETSC_SUCCESS);
  for (PetscInt f = 0; f < fp->nfloor; f++) parts[f] = GEOSGeom_clone_r(h, fp->floor[f]);
  coll  = GEOSGeom_createCollection_r(h, GEOS_GEOMETRYCOLLECTION, parts, (unsigned)fp->nfloor);
  *walk = coll ? GEOSUnaryUnion_r(h, coll) : NULL;
  if (coll) GEOSGeom_destroy_r(h, coll);
  PetscCheck(*walk, PETSC_COMM_SELF, PETSC_ERR_LIB, "GEOS could not join the floors");
  {
    GEOSWKTWriter *wr = GEOSWKTWriter_create_r(h);
    char          *out;
    GEOSWKTWriter_setTrim_r(h, wr, 1);
    GEOSWKTWriter_setOutputDimension_r(h, wr, 2);
    out = GEOSWKTWriter_write_r(h, wr, *walk);
    PetscCall(PetscStrallocpy(out, &g->walkWKT));
    GEOSFree_r(h, out);
    PetscCall(PetscCalloc1(fp->nfloor + 1, &g->floorWKT));
    for (PetscInt f = 0; f < fp->nfloor; f++) {
      out = GEOSWKTWriter_write_r(h, wr, fp->floor[f]);
      PetscCall(PetscStrallocpy(out, &g->floorWKT[f]));
      GEOSFree_r(h, out);
    }
    GEOSWKTWriter_destroy_r(h, wr);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Each link line on the outline of a floor (its outer ring or a hole's: a stairwell), the
   two on different floors; the floors into g with their rings.  After Boundaries (the
   inside test for the normals).  A failure is a message in err. */
static PetscErrorCode FloorsFinish(GEOSContextHandle_t h, FloorParse *fp, Geometry *g, char *err, size_t errlen)
{
  PetscInt cap = 0;
  PetscFunctionBeginUser;
  PetscCall(PetscMalloc1(fp->nfloor + 1, &g->floor));
  for (PetscInt f = 0; f < fp->nfloor; f++) {
    GeomFloor *fl = &g->floor[f];
    double     b[4], area = 0;
    *fl      = fp->decl[f];
    fl->fbeg = g->nfring;
    PetscCall(AddLines(h, fp->floor[f], &g->fring, NULL, 0, &g->nfring, &cap));
    fl->fend = g->nfring;
    GEOSGeom_getXMin_r(h, fp->floor[f], &b[0]), GEOSGeom_getYMin_r(h, fp->floor[f], &b[1]);
    GEOSGeom_getXMax_r(h, fp->floor[f], &b[2]), GEOSGeom_getYMax_r(h, fp->floor[f], &b[3]);
    GEOSArea_r(h, fp->floor[f], &area);
    for (int q = 0; q < 4; q++) fl->bbox[q] = b[q];
    fl->area = area;
  }
  g->nfloors = fp->nfloor;
  { /* a floor that stairs cover for the most part is a flight of stairs (the summary's word) */
    PetscReal cover[GEOM_MAX_FLOORS] = {0};
    for (PetscInt z = 0; z < g->nzones; z++) {
      const GeomZone *zn = &g->zone[z];
      PetscReal       a  = 0;
      if (!zn->stair) continue;
      const PetscInt f = GeometryFloorAt(g, 0.5 * (zn->axis[0] + zn->axis[2]), 0.5 * (zn->axis[1] + zn->axis[3]));
      for (PetscInt k = zn->zbeg; k < zn->zend; k++) { /* its area: the rings' shoelace sums */
        const PetscReal *q = &g->zring[4 * k];
        a += 0.5 * (q[0] * q[3] - q[2] * q[1]);
      }
      if (f >= 0) cover[f] += PetscAbsReal(a);
    }
    for (PetscInt f = 0; f < fp->nfloor; f++) g->floor[f].stair = (PetscBool)(cover[f] >= 0.5 * g->floor[f].area);
  }
  PetscCall(PetscMalloc1(fp->nlink + 1, &g->link));
  for (PetscInt k = 0; k < fp->nlink && !err[0]; k++) {
    GeomLink *lk = &g->link[k];
    *lk          = fp->ldecl[k];
    for (int q = 0; q < 2 && !err[0]; q++) {
      const PetscReal *sg = lk->seg[q];
      lk->floor[q]        = -1;
      for (PetscInt f = 0; f < fp->nfloor && lk->floor[q] < 0; f++) {
        GEOSGeometry *bnd = GEOSBoundary_r(h, fp->floor[f]);
        PetscBool     on  = PETSC_TRUE;
        for (int m = 0; m < 3 && on; m++) { /* both ends and the midpoint on its outline */
          const double x   = m == 2 ? 0.5 * (sg[0] + sg[2]) : sg[2 * m],
                       y   = m == 2 ? 0.5 * (sg[1] + sg[3]) : sg[2 * m + 1];
          GEOSGeometry *pt = GEOSGeom_createPointFromXY_r(h, x, y);
          double        d  = 1;
          GEOSDistance_r(h, pt, bnd, &d);
          GEOSGeom_destroy_r(h, pt);
          on = (PetscBool)(d <= 1e-6);
        }
        GEOSGeom_destroy_r(h, bnd);
        if (on) lk->floor[q] = f;
      }
      if (lk->floor[q] < 0)
        PetscCall(
          PetscSNPrintf(err, errlen,
                        "line %d: the link's %s line (%g %g, %g %g) is not on the outline of a floor: a link line "
                        "is an opening in a floor's outer wall or in the wall of a hole (a stairwell) inside it",
                        (int)lk->line, q ? "second" : "first", sg[0], sg[1], sg[2], sg[3]));
      else { /* the normal that points out of the walkable area */
        const PetscReal dx = sg[2] - sg[0], dy = sg[3] - sg[1], l = PetscSqrtReal(dx * dx + dy * dy);
        const PetscReal nx = dy / l, ny = -dx / l, mx = 0.5 * (sg[0] + sg[2]), my = 0.5 * (sg[1] + sg[3]);
        const PetscBool in = GeometryInside(g, mx + 1e-4 * nx, my + 1e-4 * ny);
        lk->out[q][0] = in ? -nx : nx, lk->out[q][1] = in ? -ny : ny;
      }
    }
    if (!err[0] && lk->floor[0] == lk->floor[1])
      PetscCall(PetscSNPrintf(err, errlen,
                              "line %d: both lines of the link are on floor '%s': a link joins two floors (a stair "
                              "within one floor is a 'stair' zone of it; a stair whose two ends are on one floor is "
                              "refused)",
                              (int)lk->line, g->floor[lk->floor[0]].name));
    for (int q = 0; q < 2 && !err[0]; q++) /* no line on an exit: an opening is a door or a link */
      for (PetscInt e = 0; e < g->nexit && !err[0]; e++) {
        const PetscReal *a = lk->seg[q], *b = &g->exit[4 * e],
                        L  = PetscSqrtReal(PetscSqr(a[2] - a[0]) + PetscSqr(a[3] - a[1]));
        const PetscReal ux = (a[2] - a[0]) / L, uy = (a[3] - a[1]) / L;
        const PetscReal d0 = PetscAbsReal((b[0] - a[0]) * uy - (b[1] - a[1]) * ux),
                        d1 = PetscAbsReal((b[2] - a[0]) * uy - (b[3] - a[1]) * ux);
        const PetscReal t0 = (b[0] - a[0]) * ux + (b[1] - a[1]) * uy, t1 = (b[2] - a[0]) * ux + (b[3] - a[1]) * uy;
        if (d0 <= 1e-6 && d1 <= 1e-6 && PetscMin(L, PetscMax(t0, t1)) - PetscMax(0, PetscMin(t0, t1)) > 1e-6)
          PetscCall(
            PetscSNPrintf(err, errlen,
                          "line %d: the link's %s line lies on exit %d (%g %g, %g %g): an opening is an exit or a "
                          "link, not both",
                          (int)lk->line, q ? "second" : "first", (int)g->exitId[e], b[0], b[1], b[2], b[3]));
      }
    for (PetscInt j = 0; j < k && !err[0]; j++) /* no line used twice */
      for (int q = 0; q < 2 && !err[0]; q++)
        for (int r = 0; r < 2 && !err[0]; r++) {
          const PetscReal *u = g->link[j].seg[r], *v = lk->seg[q];
          PetscReal        cx, cy;
          if (SegmentDistance(u, 0.5 * (v[0] + v[2]), 0.5 * (v[1] + v[3]), &cx, &cy) < 1e-6)
            PetscCall(PetscSNPrintf(err, errlen, "line %d: the link's %s line overlaps a line of the link on line %d",
                                    (int)lk->line, q ? "second" : "first", (int)g->link[j].line));
        }
  }
  g->nlinks = fp->nlink;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GeometryRead(MPI_Comm comm, const char *path, PetscBool needExit, Geometry *g)
{
  char               *text = NULL, *kept = NULL, err[700] = "";
  GEOSContextHandle_t h;
  GeosMsg             gm = {""};
  GEOSWKTReader      *rd;
  GEOSGeometry       *walk = NULL, *exits[256], *ways[256], *zgeom[256];
  PetscInt            nex = 0, caps = 0, nway = 0, nrt = 0, caprr = 0, capz = 0;
  char                names[512][GEOM_NAME_LEN], (*rtext)[256] = NULL;
  GeomRoute          *routes = NULL;
  FloorParse         *fp     = NULL;

  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(g, sizeof(*g)));
  PetscCall(ReadText(comm, path, &text));
  uint64_t hash = 0xcbf29ce484222325ULL; /* FNV-1a: the checkpoint's physics string holds it */
  for (const unsigned char *c = (const unsigned char *)text; *c; c++) hash = (hash ^ *c) * 0x100000001b3ULL;
  if (cache.text && !strcmp(cache.text, text)) { /* parsed before: a copy */
    PetscCall(PetscFree(text));
    PetscCheck(!needExit || cache.g.nexits > 0, comm, PETSC_ERR_USER_INPUT,
               "-geometry '%s': no 'exit' line: agents could never leave", path);
    PetscCall(GeometryCopy(&cache.g, g));
    g->textHash = hash;
    PetscCall(PetscInfo(NULL, "geometry '%s': a copy of the first parse\n", path));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscStrallocpy(text, &kept)); /* the parse below cuts the text into lines */
  PetscCall(PetscInfo(NULL, "geometry '%s': parsed by GEOS\n", path));

  PetscCall(PetscNew(&fp));
  h = GEOS_init_r();
  GEOSContext_setErrorMessageHandler_r(h, GeosHandler, &gm);
  rd = GEOSWKTReader_create_r(h);
  { /* line by line: keyword, WKT */
    char *line   = text, *next;
    int   lineno = 0;
    for (; line && !err[0]; line = next) {
      next = strchr(line, '\n');
      if (next) *next++ = 0;
      lineno++;
      while (*line == ' ' || *line == '\t') line++;
      if (!*line || *line == '#' || *line == '\r') continue;
      const PetscBool isWalk   = (PetscBool)!strncmp(line, "walkable", 8),
                      isWay    = (PetscBool)!strncmp(line, "waypoint ", 9),
                      isRoute  = (PetscBool)!strncmp(line, "route ", 6),
                      isExit   = (PetscBool)(!strncmp(line, "exit", 4) && !isWay && !isRoute),
                      isSensor = (PetscBool)!strncmp(line, "sensor", 6), isZone = (PetscBool)!strncmp(line, "zone ", 5),
                      isStair = (PetscBool)!strncmp(line, "stair ", 6),
                      isFloor = (PetscBool)!strncmp(line, "floor ", 6), isLink = (PetscBool)!strncmp(line, "link ", 5);
      const char *wktText = line + (isWalk ? 8 : isExit ? 4 : isWay ? 9 : isRoute ? 6 : isZone ? 5 : 6);
      GeomZone    zn;
      char        name[GEOM_NAME_LEN] = "";
      if (!isWalk && !isExit && !isSensor && !isWay && !isRoute && !isZone && !isStair && !isFloor && !isLink) {
        PetscCall(PetscSNPrintf(err, sizeof(err),
                                "line %d: expected 'walkable <WKT polygon>', 'floor NAME LEVEL <WKT polygon>', 'link "
                                "[NAME] <WKT linestring> <WKT linestring>', 'exit [NAME] <WKT linestring>', 'sensor "
                                "<WKT linestring>', 'waypoint NAME <WKT point>', 'route TARGETS <WKT polygon | ids "
                                "A-B>', 'zone FACTOR <WKT polygon>' or 'stair RISE <WKT linestring> <WKT polygon>'",
                                lineno));
        break;
      }
      { /* GEOS reads nan and inf as coordinates, and no WKT keyword holds them; the numbers
           before the WKT (a zone's factor, a floor's level) are parsed and checked by their
           lines' readers, and a name may hold the letters (a floor 'financial') */
        const char *wkt0 = strchr(line, '('), *bad = NULL;
        if (wkt0 && !(bad = strcasestr(wkt0, "nan"))) bad = strcasestr(wkt0, "inf");
        if (bad) {
          PetscCall(
            PetscSNPrintf(err, sizeof(err), "line %d: a coordinate is not a finite number ('%.3s')", lineno, bad));
          break;
        }
      }
      for (const char *c = strchr(line, '('); c && *c && !err[0];) { /* the coordinates' range */
        char        *end;
        const double v = strtod(c, &end);
        if (end == c) {
          c++;
          continue;
        }
        if (PetscAbsReal((PetscReal)v) > GEOM_COORD_MAX)
          PetscCall(
            PetscSNPrintf(err, sizeof(err),
                          "line %d: the coordinate %g is out of range: throng takes coordinates in metres up to "
                          "%g in magnitude",
                          lineno, v, (double)GEOM_COORD_MAX));
        c = end;
      }
      if (err[0]) break;
      if (isFloor || isLink) {
        if (isFloor) FloorLine(h, rd, &gm, lineno, line + 6, fp, err, sizeof(err));
        else LinkLine(h, rd, lineno, line + 5, fp, err, sizeof(err));
        continue;
      }
      if (isExit || isWay) {
        TakeName(wktText, &wktText, name, lineno, err, sizeof(err));
        if (err[0]) break;
        if (isWay && !name[0]) {
          PetscCall(
            PetscSNPrintf(err, sizeof(err), "line %d: 'waypoint' needs a name: waypoint NAME POINT (x y)", lineno));
          break;
        }
      }
      if (isRoute) { /* route TARGETS REGION: the targets are resolved once every line is read */
        const char *a = wktText, *b;
        while (*a == ' ' || *a == '\t') a++;
        for (b = a; *b && *b != ' ' && *b != '\t'; b++) {}
        if (nrt == 256 || b == a || (size_t)(b - a) >= 256) {
          PetscCall(PetscSNPrintf(err, sizeof(err), "line %d: %s", lineno,
                                  nrt == 256 ? "more than 256 routes" : "expected 'route T1,T2,... REGION'"));
          break;
        }
        PetscCall(PetscRealloc(sizeof(GeomRoute) * (size_t)(nrt + 1), &routes));
        PetscCall(PetscRealloc(256 * (size_t)(nrt + 1), &rtext));
        GeomRoute *r = &routes[nrt];
        PetscCall(PetscMemzero(r, sizeof(*r)));
        memcpy(rtext[nrt], a, (size_t)(b - a));
        rtext[nrt][b - a] = 0;
        r->line           = lineno;
        r->id0            = -1;
        while (*b == ' ' || *b == '\t') b++;
        if (!strncmp(b, "ids", 3)) {
          long long i0 = -1, i1 = -1;
          char      tail[8] = "";
          if (sscanf(b + 3, " %lld - %lld %7s", &i0, &i1, tail) != 2 || i0 < 0 || i1 < i0) {
            PetscCall(PetscSNPrintf(err, sizeof(err), "line %d: expected 'ids A-B' with 0 <= A <= B", lineno));
            break;
          }
          r->id0 = i0, r->id1 = i1;
          nrt++;
          continue;
        }
        wktText = b;
      }
      if (isZone || isStair) { /* zone FACTOR POLYGON; stair RISE LINESTRING (foot, head) POLYGON */
        PetscCall(ZoneLine(h, rd, lineno, isStair, &wktText, &zn, err, sizeof(err)));
        if (err[0]) break;
      }
      gm.msg[0]          = 0;
      GEOSGeometry *geom = GEOSWKTReader_read_r(h, rd, wktText);
      if (!geom) {
        PetscCall(PetscSNPrintf(err, sizeof(err), "line %d: cannot parse the WKT: %s", lineno, gm.msg));
        break;
      }
      const int t = GEOSGeomTypeId_r(h, geom);
      char      tname[64];
      if (isWalk) {
        if (walk)
          PetscCall(PetscSNPrintf(err, sizeof(err),
                                  "line %d: a second 'walkable' line (give one POLYGON or MULTIPOLYGON)", lineno));
        else if (t != GEOS_POLYGON && t != GEOS_MULTIPOLYGON)
          PetscCall(PetscSNPrintf(err, sizeof(err), "line %d: 'walkable' needs a POLYGON or MULTIPOLYGON, got %s",
                                  lineno, TypeName(h, geom, tname, sizeof(tname))));
        else if (GEOSisEmpty_r(h, geom) == 1)
          PetscCall(PetscSNPrintf(err, sizeof(err), "line %d: the walkable area is empty", lineno));
        else if (GEOSisValid_r(h, geom) != 1) {
          char *why = GEOSisValidReason_r(h, geom);
          PetscCall(PetscSNPrintf(err, sizeof(err), "line %d: the walkable area is not a valid polygon: %s", lineno,
                                  why ? why : "?"));
          GEOSFree_r(h, why);
        } else {
          walk = geom;
          geom = NULL;
          PetscCall(PetscStrallocpy(line + 8, &g->walkWKT));
        }
      } else if (isSensor) {
        if (t != GEOS_LINESTRING || GEOSisEmpty_r(h, geom) == 1)
          PetscCall(PetscSNPrintf(err, sizeof(err), "line %d: 'sensor' needs a non-empty LINESTRING, got %s", lineno,
                                  TypeName(h, geom, tname, sizeof(tname))));
        else if (g->nsensors == 256)
          PetscCall(PetscSNPrintf(err, sizeof(err), "line %d: more than 256 sensors", lineno));
        else {
          const PetscInt before = g->nsensor;
          PetscCall(AddLines(h, geom, &g->sensor, &g->sensorId, g->nsensors, &g->nsensor, &caps));
          if (g->nsensor == before)
            PetscCall(PetscSNPrintf(err, sizeof(err), "line %d: the sensor has no segment of non-zero length", lineno));
          else g->nsensors++;
        }
      } else if (isZone || isStair) {
        if (t != GEOS_POLYGON && t != GEOS_MULTIPOLYGON)
          PetscCall(PetscSNPrintf(err, sizeof(err), "line %d: a %s's area is a POLYGON or MULTIPOLYGON, got %s", lineno,
                                  isStair ? "stair" : "zone", TypeName(h, geom, tname, sizeof(tname))));
        else if (GEOSisValid_r(h, geom) != 1)
          PetscCall(PetscSNPrintf(err, sizeof(err), "line %d: the %s's area is not a valid polygon", lineno,
                                  isStair ? "stair" : "zone"));
        else if (g->nzones == 256) PetscCall(PetscSNPrintf(err, sizeof(err), "line %d: more than 256 zones", lineno));
        else if (isStair && !StairAxisIn(h, geom, &zn))
          PetscCall(PetscSNPrintf(err, sizeof(err),
                                  "line %d: the stair's axis (%g %g, %g %g) does not lie in its area: the axis runs "
                                  "from the stair's foot to its head over it",
                                  lineno, (double)zn.axis[0], (double)zn.axis[1], (double)zn.axis[2],
                                  (double)zn.axis[3]));
        else {
          double b[4];
          GEOSGeom_getXMin_r(h, geom, &b[0]), GEOSGeom_getYMin_r(h, geom, &b[1]);
          GEOSGeom_getXMax_r(h, geom, &b[2]), GEOSGeom_getYMax_r(h, geom, &b[3]);
          for (int q = 0; q < 4; q++) zn.bbox[q] = b[q];
          zn.zbeg = g->nzring;
          PetscCall(AddLines(h, geom, &g->zring, NULL, 0, &g->nzring, &capz));
          zn.zend = g->nzring;
          PetscCall(PetscRealloc(sizeof(GeomZone) * (size_t)(g->nzones + 1), &g->zone));
          zgeom[g->nzones]     = geom; /* kept: checked against the walkable area below */
          geom                 = NULL;
          g->zone[g->nzones++] = zn;
        }
      } else if (isRoute) {
        if (t != GEOS_POLYGON && t != GEOS_MULTIPOLYGON)
          PetscCall(PetscSNPrintf(err, sizeof(err),
                                  "line %d: a route's region is a POLYGON or MULTIPOLYGON (or 'ids A-B'), got %s",
                                  lineno, TypeName(h, geom, tname, sizeof(tname))));
        else if (GEOSisValid_r(h, geom) != 1)
          PetscCall(PetscSNPrintf(err, sizeof(err), "line %d: the route's region is not a valid polygon", lineno));
        else {
          routes[nrt].rbeg = g->nrring;
          PetscCall(AddLines(h, geom, &g->rring, NULL, 0, &g->nrring, &caprr));
          routes[nrt++].rend = g->nrring;
        }
      } else if (isWay) {
        unsigned int np = 0;
        if (t == GEOS_LINESTRING) GEOSCoordSeq_getSize_r(h, GEOSGeom_getCoordSeq_r(h, geom), &np);
        if (!(t == GEOS_POINT && GEOSisEmpty_r(h, geom) != 1) && !(t == GEOS_LINESTRING && np == 2))
          PetscCall(PetscSNPrintf(err, sizeof(err),
                                  "line %d: 'waypoint' needs a POINT or a LINESTRING of two points, got %s", lineno,
                                  TypeName(h, geom, tname, sizeof(tname))));
        else if (nway == 256) PetscCall(PetscSNPrintf(err, sizeof(err), "line %d: more than 256 waypoints", lineno));
        else {
          PetscCall(PetscStrncpy(names[256 + nway], name, GEOM_NAME_LEN));
          ways[nway++] = geom;
          geom         = NULL;
        }
      } else {
        if (t != GEOS_LINESTRING)
          PetscCall(PetscSNPrintf(err, sizeof(err), "line %d: 'exit' needs a LINESTRING, got %s", lineno,
                                  TypeName(h, geom, tname, sizeof(tname))));
        else if (nex == 256) PetscCall(PetscSNPrintf(err, sizeof(err), "line %d: more than 256 exits", lineno));
        else {
          PetscCall(PetscStrncpy(names[nex], name, GEOM_NAME_LEN));
          exits[nex++] = geom;
          geom         = NULL;
        }
      }
      if (geom) GEOSGeom_destroy_r(h, geom);
    }
  }
  if (!err[0] && walk && fp->nfloor)
    PetscCall(PetscSNPrintf(err, sizeof(err), "both a 'walkable' line and 'floor' lines: give one or the other"));
  if (!err[0] && fp->nlink && !fp->nfloor)
    PetscCall(PetscSNPrintf(err, sizeof(err), "'link' lines join floors: describe the walkable area by 'floor' lines"));
  if (!err[0] && fp->nfloor) PetscCall(FloorsJoin(h, fp, &walk, g, err, sizeof(err)));
  if (!err[0] && !walk) PetscCall(PetscSNPrintf(err, sizeof(err), "no 'walkable' line (or 'floor' lines)"));
  if (!err[0] && !nex && needExit)
    PetscCall(PetscSNPrintf(err, sizeof(err), "no 'exit' line: agents could never leave"));
  if (!err[0]) PetscCall(ZonesCheck(h, walk, zgeom, g, err, sizeof(err)));
  if (!err[0]) PetscCall(Boundaries(h, walk, exits, nex, fp->link, 2 * fp->nlink, g, err, sizeof(err)));
  if (!err[0] && fp->nfloor) PetscCall(FloorsFinish(h, fp, g, err, sizeof(err)));
  if (!err[0]) { /* the targets: names unique, waypoints in the walkable area; the routes */
    PetscCall(PetscMalloc1(nex + nway + 1, &g->name));
    PetscCall(PetscMalloc1(4 * nway + 1, &g->way));
    for (PetscInt k = 0; k < nex; k++) PetscCall(PetscStrncpy(g->name[k], names[k], GEOM_NAME_LEN));
    for (PetscInt w = 0; w < nway; w++) PetscCall(PetscStrncpy(g->name[nex + w], names[256 + w], GEOM_NAME_LEN));
    for (PetscInt k = 0; k < nex + nway && !err[0]; k++)
      for (PetscInt j = 0; j < k && !err[0]; j++)
        if (g->name[k][0] && !strcmp(g->name[k], g->name[j]))
          PetscCall(
            PetscSNPrintf(err, sizeof(err), "the name '%s' is given to two targets (exits, waypoints)", g->name[k]));
    for (PetscInt w = 0; w < nway && !err[0]; w++) {
      const GEOSCoordSequence *cs = GEOSGeom_getCoordSeq_r(h, ways[w]);
      unsigned int             np = 0;
      double                   x0, y0, x1, y1;
      GEOSCoordSeq_getSize_r(h, cs, &np);
      GEOSCoordSeq_getXY_r(h, cs, 0, &x0, &y0);
      if (np > 1) GEOSCoordSeq_getXY_r(h, cs, 1, &x1, &y1);
      else x1 = x0, y1 = y0;
      g->way[4 * w] = x0, g->way[4 * w + 1] = y0, g->way[4 * w + 2] = x1, g->way[4 * w + 3] = y1;
      if (GEOSCovers_r(h, walk, ways[w]) != 1)
        snprintf(err, sizeof(err), "waypoint '%s' (%g, %g) is off the walkable area", g->name[nex + w], x0, y0);
    }
    g->nways   = nway;
    g->nroutes = nrt;
    g->route   = routes;
    routes     = NULL;
    if (!g->route) PetscCall(PetscMalloc1(1, &g->route));
    for (PetscInt r = 0; r < nrt && !err[0]; r++) ResolveTargets(g, rtext[r], &g->route[r], err, sizeof(err));
  }
  PetscCall(PetscFree(routes));
  PetscCall(PetscFree(rtext));
  for (PetscInt w = 0; w < nway; w++) GEOSGeom_destroy_r(h, ways[w]);
  for (PetscInt z = 0; z < g->nzones; z++) GEOSGeom_destroy_r(h, zgeom[z]);
  for (PetscInt e = 0; e < nex; e++) GEOSGeom_destroy_r(h, exits[e]);
  for (PetscInt f = 0; f < fp->nfloor; f++) GEOSGeom_destroy_r(h, fp->floor[f]);
  for (PetscInt k = 0; k < 2 * fp->nlink; k++) GEOSGeom_destroy_r(h, fp->link[k]);
  PetscCall(PetscFree(fp));
  if (walk) GEOSGeom_destroy_r(h, walk);
  GEOSWKTReader_destroy_r(h, rd);
  GEOS_finish_r(h);
  PetscCall(PetscFree(text));
  g->textHash = hash;
  if (err[0]) {
    PetscCall(GeometryDestroy(g)); /* what was read before the error (fuzzing found the leak) */
    PetscCall(PetscFree(kept));
  } else { /* the new cache */
    PetscCall(PetscFree(cache.text));
    PetscCall(GeometryDestroy(&cache.g));
    cache.text = kept;
    PetscCall(GeometryCopy(g, &cache.g));
    if (!cache.registered) PetscCall(PetscRegisterFinalize(CacheFree));
    cache.registered = PETSC_TRUE;
  }
  PetscCheck(!err[0], comm, PETSC_ERR_USER_INPUT, "-geometry '%s': %s", path, err);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GeometryDestroy(Geometry *g)
{
  PetscFunctionBeginUser;
  PetscCall(PetscFree(g->ring));
  PetscCall(PetscFree(g->wall));
  PetscCall(PetscFree(g->wallNormal));
  PetscCall(PetscFree(g->exit));
  PetscCall(PetscFree(g->exitId));
  PetscCall(PetscFree(g->walkWKT));
  PetscCall(PetscFree(g->sensor));
  PetscCall(PetscFree(g->sensorId));
  PetscCall(PetscFree(g->way));
  PetscCall(PetscFree(g->name));
  PetscCall(PetscFree(g->route));
  PetscCall(PetscFree(g->rring));
  PetscCall(PetscFree(g->zone));
  PetscCall(PetscFree(g->zring));
  for (PetscInt f = 0; g->floorWKT && g->floorWKT[f]; f++) PetscCall(PetscFree(g->floorWKT[f])); /* NULL-ended */
  PetscCall(PetscFree(g->floorWKT));
  PetscCall(PetscFree(g->floor));
  PetscCall(PetscFree(g->fring));
  PetscCall(PetscFree(g->link));
  PetscCall(PetscMemzero(g, sizeof(*g)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscInt GeometryFloorAt(const Geometry *g, PetscReal x, PetscReal y)
{
  for (PetscInt f = 0; f < g->nfloors; f++) {
    const GeomFloor *fl = &g->floor[f];
    PetscBool        in = PETSC_FALSE;
    if (x < fl->bbox[0] || x > fl->bbox[2] || y < fl->bbox[1] || y > fl->bbox[3]) continue;
    for (PetscInt k = fl->fbeg; k < fl->fend; k++) {
      const PetscReal *q = &g->fring[4 * k];
      if ((q[1] > y) != (q[3] > y) && x < q[0] + (y - q[1]) * (q[2] - q[0]) / (q[3] - q[1])) in = (PetscBool)!in;
    }
    if (in) return f;
  }
  return -1;
}

PetscInt GeometryZoneAt(const Geometry *g, PetscReal x, PetscReal y)
{
  for (PetscInt k = 0; k < g->nzones; k++) {
    const GeomZone *z  = &g->zone[k];
    PetscBool       in = PETSC_FALSE;
    if (x < z->bbox[0] || x > z->bbox[2] || y < z->bbox[1] || y > z->bbox[3]) continue;
    for (PetscInt s = z->zbeg; s < z->zend; s++) {
      const PetscReal *q = &g->zring[4 * s];
      if ((q[1] > y) != (q[3] > y) && x < (q[2] - q[0]) * (y - q[1]) / (q[3] - q[1]) + q[0]) in = (PetscBool)!in;
    }
    if (in) return k;
  }
  return -1;
}

PetscBool GeometryInside(const Geometry *g, PetscReal x, PetscReal y)
{
  PetscBool in = PETSC_FALSE;
  for (PetscInt k = 0; k < g->nring; k++) {
    const PetscReal *s = &g->ring[4 * k];
    if ((s[1] > y) != (s[3] > y) && x < s[0] + (y - s[1]) * (s[2] - s[0]) / (s[3] - s[1])) in = (PetscBool)!in;
  }
  return in;
}

PetscReal SegmentDistance(const PetscReal *s, PetscReal x, PetscReal y, PetscReal *cx, PetscReal *cy)
{
  const PetscReal dx = s[2] - s[0], dy = s[3] - s[1], l2 = dx * dx + dy * dy;
  PetscReal       t = l2 > 0 ? ((x - s[0]) * dx + (y - s[1]) * dy) / l2 : 0;
  t                 = t < 0 ? 0 : (t > 1 ? 1 : t);
  *cx               = s[0] + t * dx;
  *cy               = s[1] + t * dy;
  return PetscSqrtReal((x - *cx) * (x - *cx) + (y - *cy) * (y - *cy));
}

PetscErrorCode GeometryRegionArea(const Geometry *g, const PetscReal *rect, PetscReal *area)
{
  GEOSContextHandle_t h    = GEOS_init_r();
  GEOSWKTReader      *rd   = GEOSWKTReader_create_r(h);
  GEOSGeometry       *walk = GEOSWKTReader_read_r(h, rd, g->walkWKT), *box, *cut;
  double              a    = -1;

  PetscFunctionBeginUser;
  box = GEOSGeom_createRectangle_r(h, rect[0], rect[1], rect[2], rect[3]);
  cut = walk && box ? GEOSIntersection_r(h, walk, box) : NULL;
  if (cut) GEOSArea_r(h, cut, &a);
  if (cut) GEOSGeom_destroy_r(h, cut);
  if (box) GEOSGeom_destroy_r(h, box);
  if (walk) GEOSGeom_destroy_r(h, walk);
  GEOSWKTReader_destroy_r(h, rd);
  GEOS_finish_r(h);
  PetscCheck(a >= 0, PETSC_COMM_SELF, PETSC_ERR_LIB, "GEOS could not intersect a region with the walkable area");
  *area = a;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GeometryPolygonArea(const Geometry *g, PetscInt n, const PetscReal *xy, PetscReal *area)
{
  GEOSContextHandle_t h    = GEOS_init_r();
  GEOSWKTReader      *rd   = GEOSWKTReader_create_r(h);
  GEOSGeometry       *walk = GEOSWKTReader_read_r(h, rd, g->walkWKT), *poly = NULL, *cut = NULL, *ring;
  GEOSCoordSequence  *cs = GEOSCoordSeq_create_r(h, (unsigned)n + 1, 2);
  double              a  = -1;

  PetscFunctionBeginUser;
  for (unsigned i = 0; cs && i <= (unsigned)n; i++)
    GEOSCoordSeq_setXY_r(h, cs, i, xy[2 * (i % n)], xy[2 * (i % n) + 1]);
  ring = cs ? GEOSGeom_createLinearRing_r(h, cs) : NULL; /* owns cs */
  poly = ring ? GEOSGeom_createPolygon_r(h, ring, NULL, 0) : NULL;
  if (poly && GEOSisValid_r(h, poly) != 1) a = -2; /* self-intersecting */
  else {
    cut = walk && poly ? GEOSIntersection_r(h, walk, poly) : NULL;
    if (cut) GEOSArea_r(h, cut, &a);
  }
  if (cut) GEOSGeom_destroy_r(h, cut);
  if (poly) GEOSGeom_destroy_r(h, poly);
  if (walk) GEOSGeom_destroy_r(h, walk);
  GEOSWKTReader_destroy_r(h, rd);
  GEOS_finish_r(h);
  PetscCheck(a >= 0 || a == -2, PETSC_COMM_SELF, PETSC_ERR_LIB,
             "GEOS could not intersect a region with the walkable area");
  *area = a == -2 ? -1 : a; /* -1: the polygon crosses itself; the caller names it */
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A quadrilateral (4 corners x0,y0,...,x3,y3 in order around it) as a GEOS polygon, or
   NULL. */
static GEOSGeometry *QuadPolygon(GEOSContextHandle_t h, const PetscReal *quad)
{
  GEOSCoordSequence *cs = GEOSCoordSeq_create_r(h, 5, 2);
  GEOSGeometry      *ring;
  if (!cs) return NULL;
  for (unsigned i = 0; i < 5; i++) GEOSCoordSeq_setXY_r(h, cs, i, quad[2 * (i % 4)], quad[2 * (i % 4) + 1]);
  ring = GEOSGeom_createLinearRing_r(h, cs); /* owns cs, also on failure */
  return ring ? GEOSGeom_createPolygon_r(h, ring, NULL, 0) : NULL;
}

struct _p_GeometryPassable {
  GEOSContextHandle_t         h;
  GEOSGeometry               *keep; /* the parts of the shrunk area that reach an exit */
  const GEOSPreparedGeometry *prep;
  PetscReal                   tol;
};

/* Does the polygon part come within r of the segment q (x0,y0,x1,y1)? */
static PetscBool Within(GEOSContextHandle_t h, const GEOSGeometry *part, const PetscReal *q, PetscReal r)
{
  GEOSCoordSequence *cs = GEOSCoordSeq_create_r(h, 2, 2);
  GEOSGeometry      *seg;
  double             d  = PETSC_MAX_REAL;
  PetscBool          in = PETSC_FALSE;
  GEOSCoordSeq_setXY_r(h, cs, 0, q[0], q[1]);
  GEOSCoordSeq_setXY_r(h, cs, 1, q[2], q[3]);
  seg = GEOSGeom_createLineString_r(h, cs);
  if (seg && GEOSDistance_r(h, part, seg, &d) && d <= r * (1 + 1e-3) + 1e-9) in = PETSC_TRUE;
  if (seg) GEOSGeom_destroy_r(h, seg);
  return in;
}

PetscErrorCode GeometryPassableCreate(const Geometry *g, PetscReal r, GeometryPassable *gpp)
{
  GeometryPassable gp;
  GEOSWKTReader   *rd;
  GEOSGeometry    *walk, *shrunk, **parts = NULL;
  int              n = 0, kept = 0;

  PetscFunctionBeginUser;
  PetscCall(PetscNew(&gp));
  gp->h   = GEOS_init_r();
  gp->tol = 1e-6 * r;
  rd      = GEOSWKTReader_create_r(gp->h);
  walk    = GEOSWKTReader_read_r(gp->h, rd, g->walkWKT);
  GEOSWKTReader_destroy_r(gp->h, rd);
  shrunk = walk ? GEOSBuffer_r(gp->h, walk, -r * (1 - 1e-9), 8) : NULL;
  if (walk) GEOSGeom_destroy_r(gp->h, walk);
  n = shrunk ? GEOSGetNumGeometries_r(gp->h, shrunk) : 0;
  if (shrunk && GEOSisEmpty_r(gp->h, shrunk)) n = 0;
  PetscCall(PetscMalloc1(n + 1, &parts));
  for (int k = 0; k < n; k++) { /* a part that comes within r of a door line reaches it */
    const GEOSGeometry *part = GEOSGetGeometryN_r(gp->h, shrunk, k);
    PetscBool           out  = PETSC_FALSE;
    for (PetscInt e = 0; e < g->nexit && !out; e++) out = Within(gp->h, part, &g->exit[4 * e], r);
    for (PetscInt k = 0; k < 2 * g->nlinks && !out; k++) /* or a link line: on to another floor */
      out = Within(gp->h, part, g->link[k >> 1].seg[k & 1], r);
    if (out) parts[kept++] = GEOSGeom_clone_r(gp->h, part);
  }
  if (shrunk) GEOSGeom_destroy_r(gp->h, shrunk);
  gp->keep = GEOSGeom_createCollection_r(gp->h, GEOS_MULTIPOLYGON, parts, (unsigned)kept);
  PetscCall(PetscFree(parts));
  gp->prep = gp->keep ? GEOSPrepare_r(gp->h, gp->keep) : NULL;
  PetscCheck(gp->prep, PETSC_COMM_SELF, PETSC_ERR_LIB, "GEOS could not shrink the walkable area by an agent's radius");
  *gpp = gp;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscBool GeometryPassableHas(GeometryPassable gp, PetscReal x, PetscReal y)
{
  GEOSGeometry *pt;
  double        d  = PETSC_MAX_REAL;
  int           ok = 0;
  if (GEOSisEmpty_r(gp->h, gp->keep)) return PETSC_FALSE;
  pt = GEOSGeom_createPointFromXY_r(gp->h, x, y);
  if (pt) ok = GEOSPreparedDistance_r(gp->h, gp->prep, pt, &d);
  if (pt) GEOSGeom_destroy_r(gp->h, pt);
  return ok && d <= gp->tol ? PETSC_TRUE : PETSC_FALSE;
}

PetscErrorCode GeometryPassableDestroy(GeometryPassable *gpp)
{
  GeometryPassable gp = *gpp;
  PetscFunctionBeginUser;
  if (!gp) PetscFunctionReturn(PETSC_SUCCESS);
  if (gp->prep) GEOSPreparedGeom_destroy_r(gp->h, gp->prep);
  if (gp->keep) GEOSGeom_destroy_r(gp->h, gp->keep);
  GEOS_finish_r(gp->h);
  PetscCall(PetscFree(gp));
  *gpp = NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GeometryShellOverlap(const Geometry *g, const PetscReal *quad, PetscReal *area)
{
  GEOSContextHandle_t h    = GEOS_init_r();
  GEOSWKTReader      *rd   = GEOSWKTReader_create_r(h);
  GEOSGeometry       *walk = GEOSWKTReader_read_r(h, rd, g->walkWKT), *lane = QuadPolygon(h, quad);
  double              a = -1;

  PetscFunctionBeginUser;
  if (walk && lane) {
    const int n = GEOSGetNumGeometries_r(h, walk);
    a           = 0;
    for (int k = 0; k < n && a >= 0; k++) { /* each part's outer ring, as a polygon without holes */
      const GEOSGeometry *part  = GEOSGetGeometryN_r(h, walk, k);
      const GEOSGeometry *outer = part ? GEOSGetExteriorRing_r(h, part) : NULL;
      GEOSGeometry       *ring  = outer ? GEOSGeom_clone_r(h, outer) : NULL;
      GEOSGeometry       *shell = ring ? GEOSGeom_createPolygon_r(h, ring, NULL, 0) : NULL;
      GEOSGeometry       *cut   = shell ? GEOSIntersection_r(h, shell, lane) : NULL;
      double              ak    = 0;
      if (!cut || !GEOSArea_r(h, cut, &ak)) a = -1;
      else a += ak;
      if (cut) GEOSGeom_destroy_r(h, cut);
      if (shell) GEOSGeom_destroy_r(h, shell);
    }
  }
  if (lane) GEOSGeom_destroy_r(h, lane);
  if (walk) GEOSGeom_destroy_r(h, walk);
  GEOSWKTReader_destroy_r(h, rd);
  GEOS_finish_r(h);
  PetscCheck(a >= 0, PETSC_COMM_SELF, PETSC_ERR_LIB, "GEOS could not intersect a door's lane with the walkable area");
  *area = (PetscReal)a;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The walkable area with n quadrilaterals added (quad: 4 corners, x0,y0,...,x3,y3, in
   order around it), as WKT in a string to PetscFree.  Crowds use it for the area an
   agent may be in: the room plus each door's lane beyond its line (crowd.c). */
PetscErrorCode GeometryUnionWKT(const Geometry *g, PetscInt floor, PetscInt n, const PetscReal *quad, char **wkt,
                                PetscInt *parts)
{
  GEOSContextHandle_t h   = GEOS_init_r();
  GEOSWKTReader      *rd  = GEOSWKTReader_create_r(h);
  GEOSWKTWriter      *wr  = GEOSWKTWriter_create_r(h);
  GEOSGeometry       *all = GEOSWKTReader_read_r(h, rd, floor >= 0 ? g->floorWKT[floor] : g->walkWKT);
  char               *out = NULL;
  PetscBool           ok;

  PetscFunctionBeginUser;
  for (PetscInt k = 0; all && k < n; k++) {
    GEOSGeometry *poly = QuadPolygon(h, &quad[8 * k]), *u;
    u                  = poly ? GEOSUnion_r(h, all, poly) : NULL;
    if (poly) GEOSGeom_destroy_r(h, poly);
    GEOSGeom_destroy_r(h, all);
    all = u;
  }
  *parts = 0;
  if (all) {
    *parts = GEOSGetNumGeometries_r(h, all);
    GEOSWKTWriter_setTrim_r(h, wr, 1);
    GEOSWKTWriter_setOutputDimension_r(h, wr, 2);
    out = GEOSWKTWriter_write_r(h, wr, all);
    GEOSGeom_destroy_r(h, all);
  }
  GEOSWKTWriter_destroy_r(h, wr);
  GEOSWKTReader_destroy_r(h, rd);
  ok = out ? PETSC_TRUE : PETSC_FALSE;
  if (out) {
    PetscErrorCode ierr = PetscStrallocpy(out, wkt);
    GEOSFree_r(h, out);
    GEOS_finish_r(h);
    PetscCall(ierr);
  } else GEOS_finish_r(h);
  PetscCheck(ok, PETSC_COMM_SELF, PETSC_ERR_LIB, "GEOS could not join the doors' lanes to the walkable area");
  PetscFunctionReturn(PETSC_SUCCESS);
}
