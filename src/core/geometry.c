/* geometry — the walkable area as the run holds it (Geometry, geometry.h), and the
 * queries of it: which floor or zone a point lies in, whether it is inside, the distance
 * to a segment, the area of a region, and the passable area of a disk of radius r (the
 * walkable area shrunk by r, used to place arrivals and to check links).
 *
 * A scene file is read by wkt.c (the format is described there) into the segments the
 * sweep needs and the WKT of each part; every rank holds the same Geometry.  The point
 * queries run in the time loop: they use the segments and the bounding boxes only.  The
 * area queries (GEOS) run at set-up.                                                   */
#include <throng/core/geometry.h>
#include <geos_c.h>
#include <string.h>
#include <stdlib.h>
#include <math.h>

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

typedef struct {
  PetscReal lo, hi; /* the edge's lower and upper end: a row at y crosses it iff lo <= y < hi */
  PetscInt  k;      /* its index in the ring list */
} RowEdge;

static int EdgeByLow(const void *a, const void *b)
{
  const RowEdge *p = (const RowEdge *)a, *q = (const RowEdge *)b;
  return p->lo < q->lo ? -1 : p->lo > q->lo ? 1 : (p->k > q->k) - (p->k < q->k);
}

static int CompareReal(const void *a, const void *b)
{
  const PetscReal p = *(const PetscReal *)a, q = *(const PetscReal *)b;
  return (p > q) - (p < q);
}

PetscErrorCode GeometryInsideRows(const Geometry *g, PetscReal x0, PetscReal y0, PetscReal h, PetscInt nx, PetscInt j0,
                                  PetscInt j1, char *inside)
{
  RowEdge   *ed;
  PetscInt  *act, nact = 0, next = 0, ne = 0;
  PetscReal *xc;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc3(g->nring + 1, &ed, g->nring + 1, &act, g->nring + 1, &xc));
  for (PetscInt k = 0; k < g->nring; k++) {
    const PetscReal *s = &g->ring[4 * k];
    if (s[1] == s[3]) continue; /* a horizontal edge: no row crosses it (the predicate below is false) */
    ed[ne++] = (RowEdge){PetscMin(s[1], s[3]), PetscMax(s[1], s[3]), k};
  }
  qsort(ed, (size_t)ne, sizeof(RowEdge), EdgeByLow);
  for (PetscInt j = j0; j < j1; j++) {
    const PetscReal y = y0 + j * h; /* as GeometryInside's callers compute a node's height */
    PetscInt        m = 0, c = 0;
    while (next < ne && ed[next].lo <= y) act[nact++] = next++;
    for (PetscInt a = 0; a < nact; a++) { /* drop the edges the rows have passed (rows rise) */
      const RowEdge *r = &ed[act[a]];
      if (r->hi <= y) continue;
      act[m++] = act[a];
      /* GeometryInside's test, term for term: (s1 > y) != (s3 > y) holds here */
      const PetscReal *s = &g->ring[4 * r->k];
      xc[c++]            = s[0] + (y - s[1]) * (s[2] - s[0]) / (s[3] - s[1]);
    }
    nact = m;
    qsort(xc, (size_t)c, sizeof(PetscReal), CompareReal);
    char *row = inside + (size_t)(j - j0) * (size_t)nx;
    for (PetscInt i = 0, p = 0; i < nx; i++) { /* x < xc for the c - p crossings beyond x */
      const PetscReal x = x0 + i * h;
      while (p < c && !(x < xc[p])) p++;
      row[i] = (char)((c - p) & 1);
    }
  }
  PetscCall(PetscFree3(ed, act, xc));
  PetscFunctionReturn(PETSC_SUCCESS);
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
