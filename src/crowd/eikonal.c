/* eikonal — the travel distance to the nearest exit, and the direction down its slope.
 *
 * A pedestrian's desired direction is w = -grad phi / |grad phi|, with phi the travel
 * distance (time at unit speed) to the nearest exit through the walkable area:
 *     |grad phi| F = 1 in the walkable area,   phi = 0 on the exits,
 * F the local speed (1, or lower near walls with -eikonal_wall_distance, times the speed
 * factor of a slow zone or a stair: zone.c).
 *
 * Discretisation: nodes (x0 + i h, y0 + j h) on the bounding box of the walkable area,
 * h = -eikonal_h.  A node is active if it lies inside the walkable area (geometry.c).
 * Fast marching (Sethian) with the first-order upwind update: from the accepted
 * neighbours a = min(phi_W, phi_E), b = min(phi_S, phi_N),
 *     phi = min(a, b) + h/F                                      if |a - b| >= h/F,
 *     phi = (a + b + sqrt(2 (h/F)^2 - (a - b)^2)) / 2              otherwise,
 * nodes accepted in increasing phi from a binary heap: O(M log M) for M nodes.  Sources
 * are the active nodes within 1.5 h of an exit segment, with phi = their exact distance
 * to it (EikonalSolveFrom: of any target's segments, a waypoint's say; route.c).  With -eikonal_wall_distance d > 0 a first march from the wall segments gives
 * the distance to walls d_w, and F = max(0.2, min(1, d_w / d)): paths keep off walls.
 *
 * Direction at a point: the gradient at the nodes by central differences (one-sided
 * where a neighbour is inactive), bilinearly interpolated from the active nodes of the
 * cell, normalised.  The node gradients are computed where they are looked up
 * (NodeGradient), not stored: a field costs 8 bytes a node (phi) and a walkable flag of
 * 1 byte, which the fields of exit choice share (EikonalSolveMany), instead of 25, and
 * the lookups are no slower (the default evacuation ran in 47.6 s against 51.3 s with
 * stored gradients, to the same digest: the same arithmetic).  Regions that reach
 * no exit keep phi = inf; the crowd set-up checks that no agent starts there
 * (crowd_module.c).
 *
 * The walkable nodes are marked by a scanline over the rings' edges
 * (GeometryInsideRows), exactly as GeometryInside would mark them node by node, but in
 * time linear in the nodes: 0.024 s instead of 8.1 s for a district of 96 blocks at
 * h = 0.25 m (1.7·10^7 nodes, configs/district.yaml).
 *
 * Replicated, not distributed: every rank computes the whole field from the same input,
 * the same way, so every rank has bitwise the same phi (the direction of a disk depends
 * only on its own position, as drivers must) and no communication is needed per step.
 * For a 200 m x 100 m venue at h = 0.1 m this is 2·10^6 nodes, 18 MB per rank and about
 * a second of set-up; a district of 1 km x 1 km at h = 0.1 m is 10^8 nodes, 0.9 GB per
 * field and rank (issue 47: the fields distributed over the ranks, not done yet).      */
#include <throng/crowd/eikonal.h>
#include <math.h>

typedef struct {
  double   v;
  PetscInt k;
} HeapItem;

typedef struct {
  HeapItem *a;
  PetscInt  n, cap;
} Heap;

static PetscErrorCode HeapPush(Heap *h, double v, PetscInt k)
{
  PetscFunctionBeginUser;
  PetscCall(ThrongGrow(&h->a, sizeof(HeapItem), h->n, &h->cap));
  PetscInt i = h->n++;
  /* ties broken by node index, so the order is fully determined */
  while (i > 0) {
    const PetscInt p = (i - 1) / 2;
    if (h->a[p].v < v || (h->a[p].v == v && h->a[p].k < k)) break;
    h->a[i] = h->a[p];
    i       = p;
  }
  h->a[i] = (HeapItem){v, k};
  PetscFunctionReturn(PETSC_SUCCESS);
}

static HeapItem HeapPop(Heap *h)
{
  HeapItem top = h->a[0], last = h->a[--h->n];
  PetscInt i = 0;
  for (;;) {
    PetscInt c = 2 * i + 1;
    if (c >= h->n) break;
    if (c + 1 < h->n && (h->a[c + 1].v < h->a[c].v || (h->a[c + 1].v == h->a[c].v && h->a[c + 1].k < h->a[c].k))) c++;
    if (last.v < h->a[c].v || (last.v == h->a[c].v && last.k < h->a[c].k)) break;
    h->a[i] = h->a[c];
    i       = c;
  }
  h->a[i] = last;
  return top;
}

/* March from the nodes with finite phi (the sources); speed F per node (NULL: 1). */
static PetscErrorCode March(const Eikonal *e, const double *F, double *phi)
{
  const PetscInt nx = e->nx, ny = e->ny;
  char          *done;
  Heap           heap = {NULL, 0, 0};

  PetscFunctionBeginUser;
  PetscCall(PetscLogEventBegin(THRONG_EV.eikMarch, 0, 0, 0, 0));
  PetscCall(PetscCalloc1(nx * ny, &done));
  for (PetscInt k = 0; k < nx * ny; k++)
    if (isfinite(phi[k])) PetscCall(HeapPush(&heap, phi[k], k));
  while (heap.n) {
    const HeapItem it = HeapPop(&heap);
    if (done[it.k] || it.v > phi[it.k]) continue;
    done[it.k]       = 1;
    const PetscInt i = it.k % nx, j = it.k / nx;
    const PetscInt nb[4][2] = {{i - 1, j}, {i + 1, j}, {i, j - 1}, {i, j + 1}};
    for (int q = 0; q < 4; q++) {
      const PetscInt a = nb[q][0], b = nb[q][1];
      if (a < 0 || b < 0 || a >= nx || b >= ny) continue;
      const PetscInt k = b * nx + a;
      if (!e->active[k] || done[k]) continue;
      double ax = INFINITY, ay = INFINITY;
      if (a > 0 && done[k - 1]) ax = phi[k - 1];
      if (a + 1 < nx && done[k + 1]) ax = PetscMin(ax, phi[k + 1]);
      if (b > 0 && done[k - nx]) ay = phi[k - nx];
      if (b + 1 < ny && done[k + nx]) ay = PetscMin(ay, phi[k + nx]);
      const double hf = e->h / (F ? F[k] : 1.0);
      double       v;
      if (!isfinite(ax) || !isfinite(ay) || PetscAbsReal(ax - ay) >= hf) v = PetscMin(ax, ay) + hf;
      else v = 0.5 * (ax + ay + PetscSqrtReal(2 * hf * hf - (ax - ay) * (ax - ay)));
      if (v < phi[k]) {
        phi[k] = v;
        PetscCall(HeapPush(&heap, v, k));
      }
    }
  }
  PetscCall(PetscFree(heap.a));
  PetscCall(PetscFree(done));
  PetscCall(PetscLogEventEnd(THRONG_EV.eikMarch, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The nodes round the segment g (x0,y0,x1,y1): its bounding box widened by 2 h. */
static void Window(const Eikonal *e, const PetscReal *g, PetscInt *i0, PetscInt *i1, PetscInt *j0, PetscInt *j1)
{
  *i0 = PetscMax(0, (PetscInt)floor((PetscMin(g[0], g[2]) - e->x0) / e->h) - 2);
  *i1 = PetscMin(e->nx - 1, (PetscInt)ceil((PetscMax(g[0], g[2]) - e->x0) / e->h) + 2);
  *j0 = PetscMax(0, (PetscInt)floor((PetscMin(g[1], g[3]) - e->y0) / e->h) - 2);
  *j1 = PetscMin(e->ny - 1, (PetscInt)ceil((PetscMax(g[1], g[3]) - e->y0) / e->h) + 2);
}

/* phi = exact distance to the nearest of the segments for the active nodes within 1.5 h. */
static void Seed(const Eikonal *e, PetscInt nseg, const PetscReal *seg, double *phi)
{
  for (PetscInt k = 0; k < e->nx * e->ny; k++) phi[k] = INFINITY;
  for (PetscInt s = 0; s < nseg; s++) {
    const PetscReal *g = &seg[4 * s];
    PetscInt         i0, i1, j0, j1;
    Window(e, g, &i0, &i1, &j0, &j1);
    for (PetscInt j = j0; j <= j1; j++)
      for (PetscInt i = i0; i <= i1; i++) {
        const PetscInt k = j * e->nx + i;
        PetscReal      cx, cy;
        if (!e->active[k]) continue;
        const PetscReal d = SegmentDistance(g, e->x0 + i * e->h, e->y0 + j * e->h, &cx, &cy);
        if (d <= 1.5 * e->h && d < phi[k]) phi[k] = d;
      }
  }
}

/* Seed and march, across the links between floors (floors.c): a node within 1.5 h of a
   link line, at distance d from it and at fraction t along it, is d from the matching
   point of the other line, and that point is h/2 from the point P h/2 inside the other
   line (where the field has nodes to interpolate from), so its value is at most
   d + h/2 + phi(P): an upper bound, too high by at most h per link.  Marches repeat with
   these values as further sources until none of them falls (by more than 1e-9 of it):
   each pass carries the field through one more link, so a building with its exit on the
   ground floor and n storeys above it takes about n + 1 passes of the march over the
   whole grid.  Every rank does the same passes: the field stays the same everywhere.   */
static PetscErrorCode LinkedMarch(const Eikonal *e, const Geometry *g, const double *F, PetscInt nseg,
                                  const PetscReal *seg, double *phi)
{
  const PetscInt M = e->nx * e->ny;
  typedef struct {
    PetscInt  k, link, side;
    PetscReal t, d;
    double    v; /* its value through the link so far (inf: none) */
  } Near;
  Near    *nr = NULL;
  PetscInt nn = 0, cap = 0;
  double  *base;

  PetscFunctionBeginUser;
  Seed(e, nseg, seg, phi);
  if (!g->nlinks) {
    PetscCall(March(e, F, phi));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscMalloc1(M, &base));
  PetscCall(PetscArraycpy(base, phi, M));
  PetscCall(March(e, F, phi));
  for (PetscInt l = 0; l < g->nlinks; l++)
    for (PetscInt q = 0; q < 2; q++) { /* the nodes near each line, in a fixed order */
      const PetscReal *sg = g->link[l].seg[q], dx = sg[2] - sg[0], dy = sg[3] - sg[1], L2 = dx * dx + dy * dy;
      PetscInt         i0, i1, j0, j1;
      Window(e, sg, &i0, &i1, &j0, &j1);
      for (PetscInt j = j0; j <= j1; j++)
        for (PetscInt i = i0; i <= i1; i++) {
          const PetscInt  k = j * e->nx + i;
          const PetscReal x = e->x0 + i * e->h, y = e->y0 + j * e->h;
          PetscReal       cx, cy, d;
          if (!e->active[k]) continue;
          d = SegmentDistance(sg, x, y, &cx, &cy);
          if (d > 1.5 * e->h) continue;
          PetscCall(ThrongGrow(&nr, sizeof(Near), nn, &cap));
          nr[nn++] = (Near){k, l, q, ((cx - sg[0]) * dx + (cy - sg[1]) * dy) / L2, d, INFINITY};
        }
    }
  for (PetscInt pass = 0;; pass++) {
    PetscBool fell = PETSC_FALSE;
    PetscCheck(pass < 1000, PETSC_COMM_SELF, PETSC_ERR_PLIB, "the travel-time field did not settle across the links");
    for (PetscInt a = 0; a < nn; a++) { /* through each link, from the last pass's field */
      const GeomLink  *lk = &g->link[nr[a].link];
      const PetscReal *o = lk->seg[1 - nr[a].side], *n = lk->out[1 - nr[a].side], t = nr[a].t, dl = 0.5 * e->h;
      const double     v =
        nr[a].d + dl + EikonalValue(e, o[0] + t * (o[2] - o[0]) - dl * n[0], o[1] + t * (o[3] - o[1]) - dl * n[1]);
      if (v < nr[a].v - 1e-9 * (1 + PetscAbsReal(v))) nr[a].v = v, fell = PETSC_TRUE;
    }
    if (!fell) break;
    PetscCall(PetscArraycpy(phi, base, M));
    for (PetscInt a = 0; a < nn; a++) phi[nr[a].k] = PetscMin(phi[nr[a].k], nr[a].v);
    PetscCall(March(e, F, phi));
  }
  PetscCall(PetscFree(nr));
  PetscCall(PetscFree(base));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The speed map of the zones (zone.c) multiplied into *F (allocated when NULL): a slow
   zone's factor; on a stair fUp or fDown by the direction in which a first march, with
   their mean, walks it (-grad phi along the stair's axis). */
static PetscErrorCode ZoneMarch(const Eikonal *e, const Geometry *g, PetscInt nseg, const PetscReal *seg, double **F)
{
  const PetscInt M = e->nx * e->ny;
  PetscInt      *zk;
  double        *F1;
  PetscBool      stairs = PETSC_FALSE;

  PetscFunctionBeginUser;
  if (!*F) {
    PetscCall(PetscMalloc1(M, F));
    for (PetscInt k = 0; k < M; k++) (*F)[k] = 1;
  }
  PetscCall(PetscMalloc2(M, &zk, M, &F1));
  for (PetscInt j = 0; j < e->ny; j++)
    for (PetscInt i = 0; i < e->nx; i++) {
      const PetscInt k = j * e->nx + i;
      zk[k]            = e->active[k] ? GeometryZoneAt(g, e->x0 + i * e->h, e->y0 + j * e->h) : -1;
      F1[k]            = (*F)[k];
      if (zk[k] < 0) continue;
      const GeomZone *z = &g->zone[zk[k]];
      F1[k] *= 0.5 * (z->fUp + z->fDown);
      stairs = (PetscBool)(stairs || z->stair);
    }
  if (stairs) PetscCall(LinkedMarch(e, g, F1, nseg, seg, e->phi)); /* which way the field walks each stair node */
  for (PetscInt j = 0; j < e->ny; j++)
    for (PetscInt i = 0; i < e->nx; i++) {
      const PetscInt k = j * e->nx + i;
      if (zk[k] < 0) continue;
      const GeomZone *z = &g->zone[zk[k]];
      if (!z->stair) {
        (*F)[k] *= z->factor;
        continue;
      }
      /* phi grows away from the exits: walking the field means going down phi, up the
         stair when phi falls along the axis (a one-sided difference where needed) */
      double          d  = 0;
      const PetscReal ux = z->ux, uy = z->uy;
      const PetscBool w  = (PetscBool)(i > 0 && isfinite(e->phi[k - 1])),
                      ea = (PetscBool)(i + 1 < e->nx && isfinite(e->phi[k + 1]));
      const PetscBool s  = (PetscBool)(j > 0 && isfinite(e->phi[k - e->nx])),
                      n  = (PetscBool)(j + 1 < e->ny && isfinite(e->phi[k + e->nx]));
      if (ea && w) d += ux * (e->phi[k + 1] - e->phi[k - 1]);
      else if (ea && isfinite(e->phi[k])) d += ux * (e->phi[k + 1] - e->phi[k]);
      else if (w && isfinite(e->phi[k])) d += ux * (e->phi[k] - e->phi[k - 1]);
      if (n && s) d += uy * (e->phi[k + e->nx] - e->phi[k - e->nx]);
      else if (n && isfinite(e->phi[k])) d += uy * (e->phi[k + e->nx] - e->phi[k]);
      else if (s && isfinite(e->phi[k])) d += uy * (e->phi[k] - e->phi[k - e->nx]);
      (*F)[k] *= d <= 0 ? z->fUp : z->fDown;
    }
  PetscCall(PetscFree2(zk, F1));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode EikonalSolve(MPI_Comm comm, const Geometry *g, PetscReal h, PetscReal wallDist, Eikonal *e)
{
  PetscFunctionBeginUser;
  PetscCall(EikonalSolveFrom(comm, g, h, wallDist, g->nexit, g->exit, e));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The grid of a field, its phi allocated and its walkable nodes marked (or `from`'s):
   the same on every rank, with its errors raised on comm by every rank alike. */
static PetscErrorCode GridSetUp(MPI_Comm comm, const Geometry *g, PetscReal h, const Eikonal *from, Eikonal *e)
{
  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(e, sizeof(*e)));
  e->h  = h;
  e->x0 = g->bbox[0];
  e->y0 = g->bbox[1];
  e->nx = (PetscInt)ceil((g->bbox[2] - g->bbox[0]) / h) + 1;
  e->ny = (PetscInt)ceil((g->bbox[3] - g->bbox[1]) / h) + 1;
  PetscCheck((double)e->nx * (double)e->ny < 2e8, comm, PETSC_ERR_USER_INPUT,
             "-eikonal_h %g: %" PetscInt_FMT " x %" PetscInt_FMT " nodes is too many; raise -eikonal_h", (double)h,
             e->nx, e->ny);
  PetscCall(PetscMalloc1(e->nx * e->ny, &e->phi));
  if (from) { /* another field's walkable nodes: the same geometry, the same grid */
    PetscCheck(from->nx == e->nx && from->ny == e->ny && from->x0 == e->x0 && from->y0 == e->y0 && from->h == h,
               PETSC_COMM_SELF, PETSC_ERR_PLIB, "GridSetUp: the mask is of another grid");
    e->active = from->active;
  } else {
    PetscCall(PetscMalloc1(e->nx * e->ny, &e->active));
    e->ownMask = PETSC_TRUE;
    PetscCall(PetscLogEventBegin(THRONG_EV.eikMask, 0, 0, 0, 0));
    PetscCall(GeometryInsideRows(g, e->x0, e->y0, h, e->nx, 0, e->ny, e->active));
    PetscCall(PetscLogEventEnd(THRONG_EV.eikMask, 0, 0, 0, 0));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* phi of a set-up grid: the wall distance's march (-eikonal_wall_distance), the zones',
   and the march from the segments through the links.  Not collective. */
static PetscErrorCode FieldMarch(const Geometry *g, PetscReal wallDist, PetscInt nseg, const PetscReal *seg, Eikonal *e)
{
  double *F = NULL;
  PetscFunctionBeginUser;
  if (wallDist > 0) { /* distance to walls first, then a slower speed near them */
    PetscCall(PetscMalloc1(e->nx * e->ny, &F));
    Seed(e, g->nwall, g->wall, e->phi);
    PetscCall(March(e, NULL, e->phi));
    for (PetscInt k = 0; k < e->nx * e->ny; k++)
      F[k] = PetscMax(0.2, PetscMin(1.0, isfinite(e->phi[k]) ? e->phi[k] / wallDist : 1.0));
  }
  if (g->nzones) PetscCall(ZoneMarch(e, g, nseg, seg, &F));
  PetscCall(LinkedMarch(e, g, F, nseg, seg, e->phi));
  PetscCall(PetscFree(F));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode EikonalSolveFrom(MPI_Comm comm, const Geometry *g, PetscReal h, PetscReal wallDist, PetscInt nseg,
                                const PetscReal *seg, Eikonal *e)
{
  PetscFunctionBeginUser;
  PetscCall(GridSetUp(comm, g, h, NULL, e));
  PetscCall(FieldMarch(g, wallDist, nseg, seg, e));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode EikonalSolveMany(MPI_Comm comm, const Geometry *g, PetscReal h, PetscReal wallDist, PetscInt nf,
                                const PetscInt *nseg, PetscReal *const *seg, Eikonal *e)
{
  PetscMPIInt rank, size;
  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCallMPI(MPI_Comm_size(comm, &size));
  for (PetscInt t = 0; t < nf; t++) PetscCall(GridSetUp(comm, g, h, t ? &e[0] : NULL, &e[t]));
  PetscMPIInt bad = -1, first;               /* the first field whose march failed, or -1 */
  for (PetscInt t = rank; t < nf; t += size) /* this rank's fields, then one agreement */
    if (bad < 0 && FieldMarch(g, wallDist, nseg[t], seg[t], &e[t]) != PETSC_SUCCESS)
      bad = (PetscMPIInt)t; /* printed here */
  PetscCallMPI(MPI_Allreduce(&bad, &first, 1, MPI_INT, MPI_MAX, comm));
  PetscCheck(first < 0, comm, PETSC_ERR_LIB, "the travel-time field of target %d failed (on rank %d)", (int)first,
             (int)(first % size));
  for (PetscInt t = 0; t < nf; t++) { /* owner's phi, bit for bit, to every rank */
    const PetscInt64 m = (PetscInt64)e[t].nx * e[t].ny;
    for (PetscInt64 o = 0; o < m; o += 1 << 30)
      PetscCallMPI(
        MPI_Bcast(e[t].phi + o, (PetscMPIInt)PetscMin(m - o, 1 << 30), MPI_DOUBLE, (PetscMPIInt)(t % size), comm));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode EikonalDestroy(Eikonal *e)
{
  PetscFunctionBeginUser;
  PetscCall(PetscFree(e->phi));
  if (e->ownMask) PetscCall(PetscFree(e->active));
  e->active = NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Bilinear weights of the active, reached nodes of the cell containing (x, y). */
static int Cell(const Eikonal *e, PetscReal x, PetscReal y, PetscInt k[4], double w[4])
{
  const double fx = (x - e->x0) / e->h, fy = (y - e->y0) / e->h;
  /* clamped as doubles before the conversion: a NaN (a blow-up, stopped at the next
     rebinning) becomes 0 instead of an undefined conversion                          */
  const PetscInt i  = (PetscInt)PetscMax(0.0, PetscMin((double)(e->nx - 2), floor(fx))),
                 j  = (PetscInt)PetscMax(0.0, PetscMin((double)(e->ny - 2), floor(fy)));
  const double   tx = PetscMax(0.0, PetscMin(1.0, fx - i)), ty = PetscMax(0.0, PetscMin(1.0, fy - j));
  const double   ww[4] = {(1 - tx) * (1 - ty), tx * (1 - ty), (1 - tx) * ty, tx * ty};
  const PetscInt kk[4] = {j * e->nx + i, j * e->nx + i + 1, (j + 1) * e->nx + i, (j + 1) * e->nx + i + 1};
  double         sum   = 0;
  int            m     = 0;
  for (int q = 0; q < 4; q++)
    if (e->active[kk[q]] && isfinite(e->phi[kk[q]])) {
      k[m]   = kk[q];
      w[m++] = ww[q] + 1e-12; /* a node at weight 0 still counts when it is the only one */
      sum += ww[q] + 1e-12;
    }
  for (int q = 0; q < m; q++) w[q] /= sum;
  return m;
}

/* The gradient at node k (active, reached): central differences, one-sided next to an
   inactive or unreached neighbour (0 along an axis with neither). */
static inline void NodeGradient(const Eikonal *e, PetscInt k, double *gx, double *gy)
{
  const PetscInt  nx = e->nx, i = k % nx, j = k / nx;
  const double   *phi = e->phi, h = e->h;
  const char     *act = e->active;
  const PetscBool w   = (PetscBool)(i > 0 && act[k - 1] && isfinite(phi[k - 1])),
                  ea  = (PetscBool)(i + 1 < nx && act[k + 1] && isfinite(phi[k + 1]));
  const PetscBool s   = (PetscBool)(j > 0 && act[k - nx] && isfinite(phi[k - nx])),
                  n   = (PetscBool)(j + 1 < e->ny && act[k + nx] && isfinite(phi[k + nx]));
  *gx = *gy = 0;
  if (w && ea) *gx = (phi[k + 1] - phi[k - 1]) / (2 * h);
  else if (ea) *gx = (phi[k + 1] - phi[k]) / h;
  else if (w) *gx = (phi[k] - phi[k - 1]) / h;
  if (s && n) *gy = (phi[k + nx] - phi[k - nx]) / (2 * h);
  else if (n) *gy = (phi[k + nx] - phi[k]) / h;
  else if (s) *gy = (phi[k] - phi[k - nx]) / h;
}

void EikonalDirection(const Eikonal *e, PetscReal x, PetscReal y, PetscReal *wx, PetscReal *wy)
{
  PetscInt  k[4];
  double    w[4], gx = 0, gy = 0;
  const int m = Cell(e, x, y, k, w);
  for (int q = 0; q < m; q++) {
    double ax, ay;
    NodeGradient(e, k[q], &ax, &ay);
    gx += w[q] * ax, gy += w[q] * ay;
  }
  const double n = PetscSqrtReal(gx * gx + gy * gy);
  *wx            = n > 0 ? -gx / n : 0;
  *wy            = n > 0 ? -gy / n : 0;
}

PetscReal EikonalValue(const Eikonal *e, PetscReal x, PetscReal y)
{
  PetscInt  k[4];
  double    w[4], v = 0;
  const int m = Cell(e, x, y, k, w);
  if (!m) return INFINITY;
  for (int q = 0; q < m; q++) v += w[q] * e->phi[k[q]];
  return v;
}
