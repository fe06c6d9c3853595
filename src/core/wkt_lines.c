/* wkt_lines — single lines of a scene file (wkt.c reads the file and calls these).
 *
 * A name after a keyword (`exit main LINESTRING ...`: a name is not all digits and not a
 * WKT keyword); the segments of a (multi)line; `zone FACTOR REGION` and `stair RISE AXIS
 * REGION` (a stair's axis must lie on its polygon); `floor NAME LEVEL [shift DX,DY] AREA`
 * and `link [NAME] LINESTRING LINESTRING`: the floors are joined and checked (each at
 * least GEOM_FLOOR_GAP from the others in the plane, each link's two lines on two
 * floors, as wide as each other), and their rings go into the Geometry.  A failure is a
 * message in err, which wkt.c raises as one collective error naming the line.           */
#define _GNU_SOURCE /* strcasestr */
#include <throng/core/wkt_lines.h>
#include <string.h>
#include <stdlib.h>
#include <strings.h>
#include <ctype.h>
#include <math.h>

/* Append the segments of a (multi)line geometry to (*seg, *n, *cap); ids optional. */
PetscErrorCode AddLines(GEOSContextHandle_t h, const GEOSGeometry *geom, PetscReal **seg, PetscInt **ids, PetscInt id,
                        PetscInt *n, PetscInt *cap)
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

/* An optional name after a keyword: the first word, unless it is a WKT type (then the
   line has no name).  *rest: what follows it.  A failure is a message in err. */
void TakeName(const char *line, const char **rest, char *name, int lineno, char *err, size_t errlen)
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

/* The head of a `zone` or `stair` line: the factor, or the rise and the axis (stairs);
   *wkt is left at the area's WKT.  A failure is a message in err. */
PetscErrorCode ZoneLine(GEOSContextHandle_t h, GEOSWKTReader *rd, int lineno, PetscBool stair, const char **wkt,
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
PetscBool StairAxisIn(GEOSContextHandle_t h, const GEOSGeometry *area, const GeomZone *z)
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
PetscErrorCode ZonesCheck(GEOSContextHandle_t h, const GEOSGeometry *walk, GEOSGeometry **zg, const Geometry *g,
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

/* `floor NAME LEVEL POLYGON (...)`.  A failure is a message in err. */
void FloorLine(GEOSContextHandle_t h, GEOSWKTReader *rd, GeosMsg *gm, int lineno, const char *rest, FloorParse *fp,
               char *err, size_t errlen)
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
void LinkLine(GEOSContextHandle_t h, GEOSWKTReader *rd, int lineno, const char *rest, FloorParse *fp, char *err,
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
PetscErrorCode FloorsJoin(GEOSContextHandle_t h, FloorParse *fp, GEOSGeometry **walk, Geometry *g, char *err,
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
PetscErrorCode FloorsFinish(GEOSContextHandle_t h, FloorParse *fp, Geometry *g, char *err, size_t errlen)
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
