/* wkt — reading a scene file: the walkable area, exits and the rest, from WKT (GEOS).
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
 * whose crossings are counted (sensors.c); it is not a wall.
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
 * segments in the same order (rank 0 reads the file and broadcasts it).  The floors,
 * links, zones and stairs lines are parsed in wkt_floors.c; the queries of the result
 * are geometry.c's.                                                                  */
#define _GNU_SOURCE /* strcasestr */
#include <throng/core/wkt_lines.h>
#include <throng/util/files.h>
#include <geos_c.h>
#include <stdarg.h>
#include <string.h>
#include <stdlib.h>
#include <strings.h>
#include <math.h>

static void GeosHandler(const char *fmt, void *ud)
{
  GeosMsg *m = (GeosMsg *)ud;
  PetscStrncpy(m->msg, fmt, sizeof(m->msg));
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

static PetscErrorCode ReadText(MPI_Comm comm, const char *path, char **textp)
{
  PetscFunctionBeginUser;
  if (!strcmp(path, "builtin:venue")) PetscCall(PetscStrallocpy(BuiltinVenue, textp));
  else PetscCall(FilesReadText(comm, "-geometry file", path, (size_t)1 << 30, PETSC_TRUE, textp, NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
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
