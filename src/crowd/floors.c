/* floors — buildings of several floors, joined by links: stairs, ramps, escalators.
 *
 * A scene is drawn in one plane.  A building of several storeys is drawn as its floors
 * laid out side by side (anywhere in the plane, at least 1 m apart), each a walkable
 * area with a name and a level, and the flights of stairs as floors of their own:
 *
 *     floor ground 0   POLYGON ((0 0, 30 0, 30 10, 0 10, 0 0))
 *     floor first  1   POLYGON ((0 20, 30 20, 30 30, 0 30, 0 20))
 *     floor flight 0.5 POLYGON ((40 0, 42 0, 42 5, 40 5, 40 0))
 *     stair 1.5 LINESTRING (41 0, 41 5) POLYGON ((40 0, 42 0, 42 5, 40 5, 40 0))
 *     link foot LINESTRING (40 0, 42 0) LINESTRING (28 10, 30 10)
 *     link head LINESTRING (40 5, 42 5) LINESTRING (28 20, 30 20)
 *     exit LINESTRING (0 4, 0 6)
 *
 * A link joins two lines of the same length, each an opening in the outline of a floor
 * (its outer wall, or the wall of a hole in it: a stairwell in the middle of a floor is a
 * hole with a link line on its side).  Its first line's first point goes to its second
 * line's first point.  A link joins two floors: both lines on one floor are refused, so
 * is a line that is not on any floor's outline, or two lines of different lengths
 * (geometry.c).  A `stair` zone on a flight gives it part 1's speeds (zone.c): up and
 * down by the direction of travel along its axis.
 *
 * Going through.  A link line is cut out of its wall like a door.  Behind it is a lane,
 * 2 r_max deep, walled on three sides (the jambs and a back wall, for the sweep only: the
 * time-gap law does not see them).  The lane, and r_max beside it, must lie off the
 * floors: a line in the side of a stairwell stops r_max short of the well's corners
 * (else the well's wall would be a fin with agents on both sides).
 * At the end of a step an agent whose centre has passed the line, at fraction t along it
 * and o beyond it, and who wants to go through (the travel time of its target's field is
 * lower h/2 inside the other line than h/2 inside this one: not someone the crowd pushed
 * back over the line it just came through, nor someone pushed over a line it walks
 * past), goes to the matching point of the other line, o inside it:
 *     X = b(t) - max(o, 1 mm) n_b,
 * n_b the other line's outward normal, t kept r / L from the ends (L the line's length)
 * so that its disk clears the jambs there.  The map is an isometry of the two openings,
 * so the agent keeps its place across the opening; its heading is the field's on the far
 * side (a first-order model has no velocity to carry).  Steering (FloorsSteer): beyond a
 * line it goes through, an agent walks straight on, along the line's outward normal;
 * near a line it does not go through, it walks along the line as along a wall, and back
 * in from beyond it (where the field points straight at the line, on the ridge between
 * the two ways round a stairwell, towards the nearer end).
 *
 * Arrivals wait.  The far side may be taken.  Every rank lists its agents that passed
 * a line, with their spots; the lists are gathered on every rank (MPI_Allgatherv, only
 * in steps where anyone passed, which one allreduce of a count tells) and sorted by id.
 * Each rank marks the spots its own agents block (another agent within r + r_j + 1 cm),
 * an MPI_MAX reduction joins the marks, and every rank then takes the passages in id
 * order, each only if its spot is free and clear of the spots taken before it.  An
 * agent whose spot is taken stays in the lane, pressed against its back wall, and tries
 * again at the next step; the agents behind it queue at the opening.  So no one is put
 * on top of anyone, and every rank makes the same choices from the same data: the agent
 * is removed by its old owner and created by the rank that owns its spot, which may be
 * any rank.  The trajectory is the same on any rank count.
 *
 * The travel-time field crosses the links (eikonal.c): a node near a link line is
 * its distance to the line plus the field at the matching point of the other line, and
 * the march repeats until no such value falls.  Exit choice and routes (route.c) use
 * the fields as they are, so they work across floors; a floor from which no exit can
 * be reached is refused at set-up.
 *
 * Records.  Every passage (id, time, link, direction) is kept on every rank; with the
 * number of agents on each floor at the start, the exits' records and the arrivals they
 * give the occupancy of each floor and flight at any time: PREFIX.floors.csv (time, then
 * a column per floor, named NAME, or NAME:stair for a floor that stairs cover for the
 * most part; a row at every change), the summary and the evacuation plot
 * (postproc/crowd.py).  A checkpoint carries them.  The snapshots carry each agent's floor and z = level x -storey_height (default 3 m), and
 * its place in the building's plan (xs, ys: its position less its floor's `shift DX,DY`,
 * where the floor is drawn from where it lies), and the XDMF places the agents at
 * (xs, ys, z), so that ParaView shows the floors stacked, one above the other.       */
#include <throng/crowd/floors.h>
#include <throng/util/opt.h>
#include <throng/core/digest.h>
#include <math.h>
#include <string.h>

PetscErrorCode FloorsSetFromOptions(Opt *o)
{
  Params   *p = o->p;
  PetscBool set;
  PetscFunctionBeginUser;
  p->storey = 3.0;
  PetscCall(OptReal(o, OPT_RUN, "-storey_height",
                    "Crowd: the height of a storey (m): the snapshots put an agent on a floor of level L at z = L "
                    "times this, so that ParaView shows the floors stacked",
                    &p->storey, &set));
  PetscCheck(p->storey >= 0 && p->storey <= 1000, o->comm, PETSC_ERR_USER_INPUT,
             "-storey_height %g: give a height in metres, 0 to 1000", (double)p->storey);
  PetscCheck(!set || (p->geometry[0] && p->walk), o->comm, PETSC_ERR_USER_INPUT,
             "-storey_height describes a crowd's building: it needs a crowd scene (-geometry FILE) with floors");
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The floor on which the line of side k (2 l + q) lies, and the floor an agent through it
   counts on until it has gone through. */
static inline PetscInt SideFloor(const Geometry *g, PetscInt k) { return g->link[k >> 1].floor[k & 1]; }

PetscErrorCode FloorsSetUp(Sim *s, Floors *f)
{
  Geometry    *g    = &s->geom;
  const Crowd *c    = CrowdOf(s);
  MPI_Comm     comm = s->dom.comm;

  PetscFunctionBeginUser;
  f->kfloor = f->kz = f->kxs = f->kys = -1;
  PetscCheck(g->nfloors || !ParamsGiven(&s->prm, "storey_height"), comm, PETSC_ERR_USER_INPUT,
             "-storey_height: '%s' has no floors ('floor' lines), whose height it would give; the run would ignore it",
             s->prm.geometry);
  if (!g->nfloors) PetscFunctionReturn(PETSC_SUCCESS);
  f->on     = PETSC_TRUE;
  f->storey = s->prm.storey;
  f->depth  = 2 * s->rmax;
  for (PetscInt fl = 0; fl < g->nfloors; fl++) { /* every floor leads to an exit */
    const Eikonal   *e  = &c->eik;
    const GeomFloor *F  = &g->floor[fl];
    PetscBool        ok = PETSC_FALSE;
    const PetscInt   i0 = PetscMax(0, (PetscInt)floor((F->bbox[0] - e->x0) / e->h)),
                   i1   = PetscMin(e->nx - 1, (PetscInt)ceil((F->bbox[2] - e->x0) / e->h));
    const PetscInt j0   = PetscMax(0, (PetscInt)floor((F->bbox[1] - e->y0) / e->h)),
                   j1   = PetscMin(e->ny - 1, (PetscInt)ceil((F->bbox[3] - e->y0) / e->h));
    for (PetscInt j = j0; j <= j1 && !ok; j++)
      for (PetscInt i = i0; i <= i1 && !ok; i++) {
        const PetscInt k = j * e->nx + i;
        if (e->active[k] && isfinite(e->phi[k]) && GeometryFloorAt(g, e->x0 + i * e->h, e->y0 + j * e->h) == fl)
          ok = PETSC_TRUE;
      }
    PetscCheck(ok, comm, PETSC_ERR_USER_INPUT,
               "floor '%s' (line %" PetscInt_FMT ") of '%s' has no way to any exit: no exit on it, and no link from it "
               "leads on to one (or its openings are narrower than -eikonal_h %g)",
               F->name, F->line, s->prm.geometry, (double)s->prm.eikH);
  }
  for (PetscInt k = 0; k < 2 * g->nlinks; k++) { /* wide enough, and room in front of each line for arrivals */
    const GeomLink  *lk = &g->link[k >> 1];
    const PetscReal *q = lk->seg[k & 1], *o = lk->out[k & 1], D = 2 * s->rmax;
    const PetscReal  xy[8] = {q[0] - 1e-6 * o[0], q[1] - 1e-6 * o[1], q[2] - 1e-6 * o[0], q[3] - 1e-6 * o[1],
                              q[2] - D * o[0],    q[3] - D * o[1],    q[0] - D * o[0],    q[1] - D * o[1]};
    char             opt[64];
    PetscReal        a;
    ParamsRadiusOption(&s->prm, opt, sizeof(opt));
    PetscCheck(lk->len > D, comm, PETSC_ERR_USER_INPUT,
               "link '%s' (line %" PetscInt_FMT ") of '%s' is %g m wide, not wider than the largest agent (diameter %g "
               "m): no one could go through it; widen its lines or lower %s",
               lk->name[0] ? lk->name : "(unnamed)", lk->line, s->prm.geometry, (double)lk->len, (double)D, opt);
    PetscCall(GeometryPolygonArea(g, 4, xy, &a)); /* a rectangle: never -1 */
    PetscCheck(a >= (1 - 1e-6) * lk->len * (D - 1e-6), comm, PETSC_ERR_USER_INPUT,
               "link '%s' (line %" PetscInt_FMT ") of '%s': in front of its %s line (%g %g, %g %g) on floor '%s' the "
               "walkable area is not free %g m deep (an agent's diameter) but only %.3g of %.3g m^2: an obstacle or a "
               "wall right behind the opening leaves arrivals no room to stand and walk on",
               lk->name[0] ? lk->name : "(unnamed)", lk->line, s->prm.geometry, (k & 1) ? "second" : "first",
               (double)q[0], (double)q[1], (double)q[2], (double)q[3], g->floor[lk->floor[k & 1]].name, (double)D,
               (double)a, (double)(lk->len * D));
  }
  for (PetscInt k = 0; k < 2 * g->nlinks; k++) { /* room behind each line for its lane */
    const PetscReal *q = g->link[k >> 1].seg[k & 1], *o = g->link[k >> 1].out[k & 1], L = f->depth, w = s->rmax;
    const PetscReal  ux = (q[2] - q[0]) / g->link[k >> 1].len, uy = (q[3] - q[1]) / g->link[k >> 1].len;
    const PetscReal  xy[8] = {q[0] - w * ux + 1e-6 * o[0], q[1] - w * uy + 1e-6 * o[1], q[2] + w * ux + 1e-6 * o[0],
                              q[3] + w * uy + 1e-6 * o[1], q[2] + w * ux + L * o[0],    q[3] + w * uy + L * o[1],
                              q[0] - w * ux + L * o[0],    q[1] - w * uy + L * o[1]};
    PetscReal        a;
    PetscCall(GeometryPolygonArea(g, 4, xy, &a)); /* a rectangle: never -1 */
    PetscCheck(a <= 1e-6 * (g->link[k >> 1].len + 2 * w) * L, comm, PETSC_ERR_USER_INPUT,
               "link on line %" PetscInt_FMT
               " of '%s': its %s line (%g %g, %g %g) has no room behind it: the lane where "
               "agents wait to go through (%g m deep, and %g m wider than the line at each end) overlaps the walkable "
               "area by %.3g m^2. A line in the side of a stairwell must stop %g m short of the well's corners, and "
               "no floor may lie right behind a line",
               g->link[k >> 1].line, s->prm.geometry, (k & 1) ? "second" : "first", (double)q[0], (double)q[1],
               (double)q[2], (double)q[3], (double)L, (double)w, (double)a, (double)w);
  }
  if (g->nlinks) { /* the lanes behind the link lines: two jambs and a back wall each */
    const PetscInt  n0 = g->nwall;
    const PetscReal L  = f->depth;
    PetscInt        n  = n0;
    PetscCall(PetscRealloc(4 * sizeof(PetscReal) * (size_t)(n0 + 6 * g->nlinks), &g->wall));
    PetscCall(PetscRealloc(2 * sizeof(PetscReal) * (size_t)(n0 + 6 * g->nlinks) + sizeof(PetscReal), &g->wallNormal));
    for (PetscInt k = 0; k < 2 * g->nlinks; k++) {
      const PetscReal *q = g->link[k >> 1].seg[k & 1], *o = g->link[k >> 1].out[k & 1];
      const PetscReal  dx = q[2] - q[0], dy = q[3] - q[1], l = PetscSqrtReal(dx * dx + dy * dy), ox = L * o[0],
                      oy = L * o[1];
      for (int e = 0; e < 3; e++) {
        PetscReal *w = &g->wall[4 * n], *m = &g->wallNormal[2 * n];
        if (e < 2) { /* the jambs, facing into the lane */
          w[0] = q[2 * e], w[1] = q[2 * e + 1], w[2] = q[2 * e] + ox, w[3] = q[2 * e + 1] + oy;
          m[0] = (e ? -dx : dx) / l, m[1] = (e ? -dy : dy) / l;
        } else { /* the back wall, facing the opening */
          w[0] = q[0] + ox, w[1] = q[1] + oy, w[2] = q[2] + ox, w[3] = q[3] + oy;
          m[0] = -o[0], m[1] = -o[1];
        }
        n++;
      }
    }
    g->nwall = n;
  }
  { /* a lane whose line a zone holds (the head or the foot of a flight) lies in that zone:
       whoever is pushed into it keeps the stair's speed (zone.c; the lanes are appended,
       outside the walkable area, so no zone of the file loses a point to them) */
    const PetscInt nz0 = g->nzones;
    for (PetscInt k = 0; k < 2 * g->nlinks; k++) {
      const PetscReal *q = g->link[k >> 1].seg[k & 1], *o = g->link[k >> 1].out[k & 1], L = f->depth;
      const PetscInt   z    = GeometryZoneAt(g, 0.5 * (q[0] + q[2]) - 1e-3 * o[0], 0.5 * (q[1] + q[3]) - 1e-3 * o[1]);
      const PetscReal  c[8] = {q[0],           q[1], q[2], q[3], q[2] + L * o[0], q[3] + L * o[1], q[0] + L * o[0],
                               q[1] + L * o[1]};
      GeomZone         lz;
      if (z < 0 || z >= nz0) continue;
      lz = g->zone[z];
      PetscCall(PetscRealloc(4 * sizeof(PetscReal) * (size_t)(g->nzring + 4), &g->zring));
      lz.zbeg    = g->nzring;
      lz.bbox[0] = lz.bbox[2] = c[0], lz.bbox[1] = lz.bbox[3] = c[1];
      for (int e = 0; e < 4; e++) {
        PetscReal *seg = &g->zring[4 * g->nzring++];
        seg[0] = c[2 * e], seg[1] = c[2 * e + 1], seg[2] = c[(2 * e + 2) % 8], seg[3] = c[(2 * e + 3) % 8];
        lz.bbox[0] = PetscMin(lz.bbox[0], c[2 * e]), lz.bbox[2] = PetscMax(lz.bbox[2], c[2 * e]);
        lz.bbox[1] = PetscMin(lz.bbox[1], c[2 * e + 1]), lz.bbox[3] = PetscMax(lz.bbox[3], c[2 * e + 1]);
      }
      lz.zend = g->nzring;
      PetscCall(PetscRealloc(sizeof(GeomZone) * (size_t)(g->nzones + 1), &g->zone));
      g->zone[g->nzones++] = lz;
    }
  }
  PetscCall(
    ParticlesRegisterField(&s->P, "floor", FIELD_INT64, FIELD_OWNED | FIELD_MIGRATES | FIELD_SNAPSHOT, &f->kfloor));
  PetscCall(ParticlesRegisterField(&s->P, "z", FIELD_REAL, FIELD_OWNED | FIELD_MIGRATES | FIELD_SNAPSHOT, &f->kz));
  PetscCall(ParticlesRegisterField(&s->P, "xs", FIELD_REAL, FIELD_OWNED | FIELD_MIGRATES | FIELD_SNAPSHOT, &f->kxs));
  PetscCall(ParticlesRegisterField(&s->P, "ys", FIELD_REAL, FIELD_OWNED | FIELD_MIGRATES | FIELD_SNAPSHOT, &f->kys));
  PetscCall(PetscCalloc1(g->nfloors + 1, &f->start));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscBool FloorsWants(const Crowd *c, PetscInt64 id, PetscInt k, PetscReal x, PetscReal y)
{
  const Geometry  *g  = c->geom;
  const GeomLink  *lk = &g->link[k >> 1];
  const PetscReal *a = lk->seg[k & 1], *na = lk->out[k & 1], *b = lk->seg[1 - (k & 1)], *nb = lk->out[1 - (k & 1)];
  const PetscReal  dx = a[2] - a[0], dy = a[3] - a[1], hh = 0.5 * c->eik.h;
  const PetscReal  o = na[0] * (x - a[0]) + na[1] * (y - a[1]),
                  t  = ((x - a[0]) * dx + (y - a[1]) * dy) / (dx * dx + dy * dy);
  const Eikonal *e   = &c->eik;
  if (c->route.on && id < c->route.nstate && ROUTE_TARGET(c->route.state[id]) != ROUTE_NEAREST)
    e = &c->route.field[ROUTE_TARGET(c->route.state[id])]; /* its own target's field (route.c) */
  /* the field h/2 inside this line, and through the link: h/2 inside the other one, plus
     the way there (the agent's o beyond this line and the h/2) */
  const PetscReal here  = EikonalValue(e, x - (o + hh) * na[0], y - (o + hh) * na[1]);
  const PetscReal there = EikonalValue(e, b[0] + t * (b[2] - b[0]) - hh * nb[0], b[1] + t * (b[3] - b[1]) - hh * nb[1]);
  return there < here ? PETSC_TRUE : PETSC_FALSE;
}

void FloorsSteer(const Crowd *c, PetscInt64 id, PetscReal x, PetscReal y, PetscReal *wx, PetscReal *wy)
{
  const Geometry *g = c->geom;
  for (PetscInt k = 0; k < 2 * g->nlinks; k++) {
    const GeomLink  *lk = &g->link[k >> 1];
    const PetscReal *q = lk->seg[k & 1], *n = lk->out[k & 1];
    const PetscReal  ux = (q[2] - q[0]) / lk->len, uy = (q[3] - q[1]) / lk->len;
    const PetscReal  o = n[0] * (x - q[0]) + n[1] * (y - q[1]), t = ((x - q[0]) * ux + (y - q[1]) * uy) / lk->len;
    if (o > c->floors.depth || o < -(c->csm.rmax > 0 ? c->csm.rmax : 0.3) - 0.1 || t < 0 || t > 1) continue;
    if (o <= 0 && *wx * n[0] + *wy * n[1] <= 0) return; /* inside, walking away from the line */
    if (o > 0 && GeometryInside(g, x, y)) continue;     /* not in its lane */
    if (FloorsWants(c, id, k, x, y)) {                  /* through: straight on once past the line */
      if (o > 0) *wx = n[0], *wy = n[1];
      return;
    }
    /* not through this link: along the line, as along a wall, and back in from beyond it
       (on the ridge between the ways round a stairwell the field points straight at the
       line: then towards the nearer end) */
    PetscReal tw = *wx * ux + *wy * uy, vx, vy, m;
    if (PetscAbsReal(tw) < 1e-3) tw = t < 0.5 ? -1 : 1;
    vx  = (tw > 0 ? ux : -ux) - (o > 0 ? n[0] : 0);
    vy  = (tw > 0 ? uy : -uy) - (o > 0 ? n[1] : 0);
    m   = PetscSqrtReal(vx * vx + vy * vy);
    *wx = vx / m, *wy = vy / m;
    return;
  }
}

void FloorsHold(const Crowd *c, PetscInt64 id, PetscReal x, PetscReal y, PetscReal r, PetscReal *vx, PetscReal *vy)
{
  const Geometry *g = c->geom;
  for (PetscInt k = 0; k < 2 * g->nlinks; k++) {
    const GeomLink  *lk = &g->link[k >> 1];
    const PetscReal *q = lk->seg[k & 1], *n = lk->out[k & 1];
    const PetscReal  o = n[0] * (x - q[0]) + n[1] * (y - q[1]), vn = *vx * n[0] + *vy * n[1];
    const PetscReal  t = ((x - q[0]) * (q[2] - q[0]) + (y - q[1]) * (q[3] - q[1])) / (lk->len * lk->len);
    if (!(vn > 0) || o <= -r || o > c->floors.depth || t < 0 || t > 1) continue;
    if (o > 0 && GeometryInside(g, x, y)) continue; /* not in its lane */
    if (FloorsWants(c, id, k, x, y)) return;        /* on its way through */
    *vx -= vn * n[0], *vy -= vn * n[1];             /* along the line, not back over it */
    return;
  }
}

PetscInt FloorsBeyond(const Geometry *g, const Floors *f, PetscReal x, PetscReal y)
{
  PetscInt inside = -1; /* unknown yet */
  for (PetscInt k = 0; k < 2 * g->nlinks; k++) {
    const PetscReal *q = g->link[k >> 1].seg[k & 1], *n = g->link[k >> 1].out[k & 1];
    const PetscReal  o = n[0] * (x - q[0]) + n[1] * (y - q[1]);
    if (!(o > 0) || o > f->depth) continue;
    const PetscReal dx = q[2] - q[0], dy = q[3] - q[1], t = ((x - q[0]) * dx + (y - q[1]) * dy) / (dx * dx + dy * dy);
    if (!(t >= 0 && t <= 1)) continue;
    if (inside < 0) inside = GeometryInside(g, x, y) ? 1 : 0;
    if (inside) return -1;
    return k;
  }
  return -1;
}

/* Each owned agent's floor (the floor of the line it is going through, in a lane) and
   its place in the building (xs, ys, z), for the snapshots.  An agent changes floors only
   through a link, where FloorsStep sets its new floor, so the floor is looked up (a
   point-in-polygon test over the floors' rings) only for the agents that are new since
   the last call (ids from f->known on: the start, arrivals) or after a restart; the rest
   is two subtractions an agent. */
static PetscInt ExitFloor(const Geometry *g, PetscInt e);

PetscErrorCode FloorsUpdateFields(Sim *s, Floors *f)
{
  const Geometry *g = &s->geom;
  const Crowd    *c = CrowdOf(s);
  Particles      *p = &s->P;
  PetscFunctionBeginUser;
  if (!f->on) PetscFunctionReturn(PETSC_SUCCESS);
  PetscInt64 *fl = (PetscInt64 *)ParticlesField(p, f->kfloor);
  PetscReal  *z = (PetscReal *)ParticlesField(p, f->kz), *xs = (PetscReal *)ParticlesField(p, f->kxs),
            *ys = (PetscReal *)ParticlesField(p, f->kys);
  for (PetscInt i = 0; i < p->n; i++) {
    PetscInt k = (PetscInt)fl[i];
    if (p->id[i] >= f->known) {
      k = GeometryFloorAt(g, p->x[i], p->y[i]);
      if (k < 0) { /* in the lane of a link line or of a door */
        const PetscInt b = FloorsBeyond(g, f, p->x[i], p->y[i]);
        PetscReal      out;
        const PetscInt e = b < 0 ? CrowdExitBeyond(c, p->x[i], p->y[i], &out) : -1;
        k                = b >= 0 ? SideFloor(g, b) : e >= 0 ? ExitFloor(g, g->exitId[e]) : -1;
      }
      fl[i] = k;
    }
    z[i]  = k >= 0 ? g->floor[k].level * f->storey : 0;
    xs[i] = p->x[i] - (k >= 0 ? g->floor[k].shift[0] : 0);
    ys[i] = p->y[i] - (k >= 0 ? g->floor[k].shift[1] : 0);
  }
  f->known = c->nspeed; /* every id so far */
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode FloorsCreated(Sim *s, Floors *f)
{
  const Geometry *g = &s->geom;
  PetscFunctionBeginUser;
  if (!f->on) PetscFunctionReturn(PETSC_SUCCESS);
  f->known = 0; /* every agent's floor looked up */
  PetscCall(FloorsUpdateFields(s, f));
  const PetscInt64 *fl = (const PetscInt64 *)ParticlesField(&s->P, f->kfloor);
  for (PetscInt k = 0; k < g->nfloors; k++) f->start[k] = 0;
  for (PetscInt i = 0; i < s->P.n; i++)
    if (fl[i] >= 0) f->start[fl[i]]++;
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, f->start, (PetscMPIInt)g->nfloors, MPIU_INT64, MPI_SUM, s->dom.comm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A passage: id, radius, the spot on the far side, the side it went through, and (local
   only) its index on this rank. */
typedef struct {
  double id, r, x, y, side;
} Passage;

static int ComparePassage(const void *a, const void *b)
{
  const Passage *u = (const Passage *)a, *v = (const Passage *)b;
  return (u->id > v->id) - (u->id < v->id);
}

PetscErrorCode FloorsStep(Sim *s, Floors *f)
{
  const Geometry *g    = &s->geom;
  Particles      *p    = &s->P;
  MPI_Comm        comm = s->dom.comm;
  Passage        *mine = NULL, *all = NULL;
  PetscInt        nm = 0, cap = 0, nall, moved = 0, *where = NULL; /* where: mine's local indices */
  PetscMPIInt     size, rank, nmine;
  PetscMPIInt    *cnt, *dsp;
  char           *flag;

  PetscFunctionBeginUser;
  if (!f->on || !g->nlinks) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscLogEventBegin(THRONG_EV.links, 0, 0, 0, 0));
  for (PetscInt i = 0; i < p->n; i++) { /* this rank's agents through a line, and their spots */
    const PetscInt k = FloorsBeyond(g, f, p->x[i], p->y[i]);
    if (k < 0 || !FloorsWants(CrowdOf(s), p->id[i], k, p->x[i], p->y[i])) continue; /* pushed back: no passage */
    const GeomLink  *lk = &g->link[k >> 1];
    const PetscReal *a = lk->seg[k & 1], *b = lk->seg[1 - (k & 1)], *na = lk->out[k & 1], *nb = lk->out[1 - (k & 1)];
    const PetscReal  dx = a[2] - a[0], dy = a[3] - a[1], rl = p->r[i] / lk->len;
    PetscReal        t = ((p->x[i] - a[0]) * dx + (p->y[i] - a[1]) * dy) / (dx * dx + dy * dy);
    const PetscReal  o = PetscMax(na[0] * (p->x[i] - a[0]) + na[1] * (p->y[i] - a[1]), 1e-3);
    t                  = rl < 0.5 ? PetscMin(PetscMax(t, rl), 1 - rl) : 0.5;
    const PetscInt had = cap;
    PetscCall(ThrongGrow(&mine, sizeof(Passage), nm, &cap));
    if (cap != had) PetscCall(PetscRealloc(sizeof(PetscInt) * (size_t)cap, &where));
    where[nm]  = i;
    mine[nm++] = (Passage){(double)p->id[i], p->r[i], b[0] + t * (b[2] - b[0]) - o * nb[0],
                           b[1] + t * (b[3] - b[1]) - o * nb[1], (double)k};
  }
  nall = nm;
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &nall, 1, MPIU_INT, MPI_SUM, comm));
  if (!nall) {
    PetscCall(PetscFree(mine));
    PetscCall(PetscFree(where));
    PetscCall(PetscLogEventEnd(THRONG_EV.links, 0, 0, 0, 0));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCall(PetscMalloc3(size, &cnt, size + 1, &dsp, nall, &all));
  PetscCall(PetscCalloc1(nall, &flag));
  nmine = (PetscMPIInt)(5 * nm);
  PetscCallMPI(MPI_Allgather(&nmine, 1, MPI_INT, cnt, 1, MPI_INT, comm));
  dsp[0] = 0;
  for (PetscMPIInt r = 0; r < size; r++) dsp[r + 1] = dsp[r] + cnt[r];
  PetscCallMPI(MPI_Allgatherv(mine, nmine, MPI_DOUBLE, all, cnt, dsp, MPI_DOUBLE, comm));
  qsort(all, (size_t)nall, sizeof(Passage), ComparePassage);
  for (PetscInt i = 0; i < p->n; i++) /* the spots this rank's agents take */
    for (PetscInt j = 0; j < nall; j++) {
      const PetscReal dx = p->x[i] - all[j].x, dy = p->y[i] - all[j].y, reach = p->r[i] + all[j].r + 0.01;
      if (dx * dx + dy * dy < reach * reach) flag[j] = 1;
    }
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, flag, (PetscMPIInt)nall, MPI_CHAR, MPI_MAX, comm));
  for (PetscInt j = 0; j < nall; j++) { /* in id order: free, and clear of those taken before */
    if (flag[j]) continue;
    for (PetscInt k = 0; k < j && !flag[j]; k++) {
      const PetscReal dx = all[k].x - all[j].x, dy = all[k].y - all[j].y, reach = all[k].r + all[j].r + 0.01;
      if (flag[k] == 2 && dx * dx + dy * dy < reach * reach) flag[j] = 1;
    }
    if (!flag[j]) flag[j] = 2; /* it goes through */
  }
  { /* the old owners remove them (found from this rank's own list), the new owners create
       them, on the far line's floor */
    PetscInt     keep = 0, na = 0, *farFloor;
    char        *gone;
    ParticleRec *recs;
    PetscCall(PetscMalloc2(nall, &recs, nall, &farFloor));
    PetscCall(PetscCalloc1(p->n + 1, &gone));
    for (PetscInt k = 0; k < nm; k++) {
      const Passage *hit = (const Passage *)bsearch(&mine[k], all, (size_t)nall, sizeof(Passage), ComparePassage);
      if (hit && flag[hit - all] == 2) gone[where[k]] = 1;
    }
    for (PetscInt i = 0; i < p->n; i++) {
      if (gone[i]) continue;
      if (keep != i) ParticlesCopy(p, keep, i, PETSC_TRUE);
      keep++;
    }
    p->n  = keep;
    p->ng = 0;
    for (PetscInt j = 0; j < nall; j++) {
      PetscInt cx, cy;
      if (flag[j] != 2) continue;
      moved++;
      PetscCall(ThrongGrow(&f->rec, sizeof(LinkRec), f->nrec, &f->cap));
      f->rec[f->nrec++] = (LinkRec){(PetscInt64)all[j].id, s->time, (PetscInt)all[j].side};
      DomainCellOf(&s->dom, all[j].x, all[j].y, &cx, &cy);
      if (DomainOwnerOfCell(&s->dom, cx, cy) != rank) continue;
      farFloor[na] = SideFloor(g, (PetscInt)all[j].side ^ 1);
      recs[na++]   = (ParticleRec){all[j].x, all[j].y, all[j].r, (PetscInt64)all[j].id};
    }
    f->waits += nall - moved;
    if (na) {
      const PetscInt n0 = p->n;
      PetscCall(ParticlesAppend(p, na, recs));
      PetscInt64 *fl = (PetscInt64 *)ParticlesField(p, f->kfloor);
      for (PetscInt a = 0; a < na; a++) fl[n0 + a] = farFloor[a];
    }
    PetscCall(PetscFree2(recs, farFloor));
    PetscCall(PetscFree(gone));
  }
  PetscCall(PetscFree3(cnt, dsp, all));
  PetscCall(PetscFree(flag));
  PetscCall(PetscFree(mine));
  PetscCall(PetscFree(where));
  PetscCall(PetscLogEventEnd(THRONG_EV.links, 0, 0, 0, 0));
  if (moved) {
    CrowdOf(s)->marked = PETSC_FALSE; /* the jump is no walk: no sensor crossing in it */
    PetscCall(SimRebin(s));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---- report --------------------------------------------------------------------------- */

typedef struct {
  double   t;
  PetscInt from, to; /* floors (-1: outside) */
} FloorEvent;

static int CompareEvent(const void *a, const void *b)
{
  const FloorEvent *u = (const FloorEvent *)a, *v = (const FloorEvent *)b;
  return (u->t > v->t) - (u->t < v->t);
}

/* The floor of exit e: the floor next to its first segment. */
static PetscInt ExitFloor(const Geometry *g, PetscInt e)
{
  for (PetscInt k = 0; k < g->nexit; k++) {
    if (g->exitId[k] != e) continue;
    const PetscReal *q = &g->exit[4 * k], dx = q[2] - q[0], dy = q[3] - q[1], l = PetscSqrtReal(dx * dx + dy * dy);
    const PetscReal  mx = 0.5 * (q[0] + q[2]), my = 0.5 * (q[1] + q[3]);
    for (int sgn = -1; sgn <= 1; sgn += 2) {
      const PetscInt f = GeometryFloorAt(g, mx + sgn * 1e-4 * dy / l, my - sgn * 1e-4 * dx / l);
      if (f >= 0) return f;
    }
  }
  return -1;
}

PetscErrorCode FloorsReport(Sim *s, Floors *f, PetscInt nexit, const void *exits, PetscBool writeFiles)
{
  const Geometry *g  = &s->geom;
  const Crowd    *c  = CrowdOf(s);
  const ExitRec  *ex = (const ExitRec *)exits;
  PetscMPIInt     rank;
  FloorEvent     *ev;
  PetscInt        nev = 0, nf = g->nfloors;
  PetscInt64     *occ, *peak;
  double         *tpeak, *tempty;

  PetscFunctionBeginUser;
  if (!f->on) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCallMPI(MPI_Comm_rank(s->dom.comm, &rank));
  if (rank) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscMalloc1(f->nrec + nexit + c->narr + 1, &ev));
  for (PetscInt k = 0; k < f->nrec; k++)
    ev[nev++] = (FloorEvent){f->rec[k].time, SideFloor(g, f->rec[k].side), SideFloor(g, f->rec[k].side ^ 1)};
  for (PetscInt k = 0; k < nexit; k++)
    if (ex[k].exit >= 0) ev[nev++] = (FloorEvent){ex[k].time, ExitFloor(g, ex[k].exit), -1};
  for (PetscInt k = 0; k < c->narr; k++) /* on the floor of the spot each took (a source may span floors) */
    ev[nev++] = (FloorEvent){c->arr[k].time, -1, c->arr[k].floor};
  qsort(ev, (size_t)nev, sizeof(FloorEvent), CompareEvent); /* ties: any order gives the same rows */
  PetscCall(PetscMalloc4(nf, &occ, nf, &peak, nf, &tpeak, nf, &tempty));
  for (PetscInt k = 0; k < nf; k++) occ[k] = peak[k] = f->start[k], tpeak[k] = 0, tempty[k] = f->start[k] ? -1 : 0;
  {
    FILE *out = NULL;
    char  name[PETSC_MAX_PATH_LEN];
    if (writeFiles) {
      PetscCall(PetscSNPrintf(name, sizeof(name), "%s.floors.csv", s->prm.output));
      out = fopen(name, "w");
      PetscCheck(out, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "cannot write '%s'", name);
      fprintf(out, "time");
      for (PetscInt k = 0; k < nf; k++) fprintf(out, ",%s%s", g->floor[k].name, g->floor[k].stair ? ":stair" : "");
      fprintf(out, "\n0");
      for (PetscInt k = 0; k < nf; k++) fprintf(out, ",%lld", (long long)occ[k]);
      fprintf(out, "\n");
    }
    for (PetscInt a = 0; a < nev;) { /* one row per time */
      PetscInt b = a;
      for (; b < nev && ev[b].t == ev[a].t; b++) {
        if (ev[b].from >= 0) occ[ev[b].from]--;
        if (ev[b].to >= 0) occ[ev[b].to]++;
      }
      for (PetscInt k = 0; k < nf; k++) {
        if (occ[k] > peak[k]) peak[k] = occ[k], tpeak[k] = ev[a].t;
        if (occ[k] != 0) tempty[k] = -1;
        else if (tempty[k] < 0) tempty[k] = ev[a].t;
      }
      if (out) {
        fprintf(out, "%.10g", ev[a].t);
        for (PetscInt k = 0; k < nf; k++) fprintf(out, ",%lld", (long long)occ[k]);
        fprintf(out, "\n");
      }
      a = b;
    }
    if (out) PetscCheck(fclose(out) == 0, PETSC_COMM_SELF, PETSC_ERR_FILE_WRITE, "cannot write '%s'", name);
  }
  for (PetscInt k = 0; k < nf; k++) {
    char empty[64];
    if (tempty[k] >= 0) PetscCall(PetscSNPrintf(empty, sizeof(empty), "empty from t = %.2f s", tempty[k]));
    else PetscCall(PetscSNPrintf(empty, sizeof(empty), "%lld still on it", (long long)occ[k]));
    PetscCall(PetscPrintf(PETSC_COMM_SELF,
                          "floors: %-5s %-16s level %5.2f: %6lld at the start, at most %6lld (t = %.2f s), %s\n",
                          g->floor[k].stair ? "stair" : "floor", g->floor[k].name, (double)g->floor[k].level,
                          (long long)f->start[k], (long long)peak[k], tpeak[k], empty));
  }
  for (PetscInt l = 0; l < g->nlinks; l++) {
    PetscInt64 n[2] = {0, 0};
    for (PetscInt k = 0; k < f->nrec; k++)
      if (f->rec[k].side >> 1 == l) n[f->rec[k].side & 1]++;
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "floors: link %-12s %s -> %s: %lld, back: %lld\n",
                          g->link[l].name[0] ? g->link[l].name : "(unnamed)", g->floor[g->link[l].floor[0]].name,
                          g->floor[g->link[l].floor[1]].name, (long long)n[0], (long long)n[1]));
  }
  PetscCall(PetscPrintf(PETSC_COMM_SELF,
                        "floors: %" PetscInt_FMT " passages through links; agents waited %lld agent-steps for room "
                        "beyond a link\n",
                        f->nrec, (long long)f->waits));
  PetscCall(PetscFree4(occ, peak, tpeak, tempty));
  PetscCall(PetscFree(ev));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---- checkpoints and digest ----------------------------------------------------------- */

PetscErrorCode FloorsCheckpointWrite(const Sim *s, const Floors *f, hid_t grp, hid_t dxpl)
{
  MPI_Comm  comm = s->dom.comm;
  double   *buf;
  hsize_t   d[1];
  long long v[2] = {(long long)f->nrec, (long long)f->waits};

  PetscFunctionBeginUser;
  if (!f->on) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscMalloc1(3 * f->nrec + 1, &buf));
  for (PetscInt k = 0; k < f->nrec; k++)
    buf[3 * k] = (double)f->rec[k].id, buf[3 * k + 1] = f->rec[k].time, buf[3 * k + 2] = (double)f->rec[k].side;
  d[0] = 3 * (hsize_t)f->nrec;
  PetscCall(IoWriteRoot(comm, grp, dxpl, "link_passages", H5T_NATIVE_DOUBLE, 1, d, buf));
  PetscCall(PetscFree(buf));
  PetscCall(IoWriteAttr(comm, grp, "link_passages_waits", H5T_NATIVE_LLONG, 2, v));
  PetscCall(IoWriteAttr(comm, grp, "floor_start", H5T_NATIVE_LLONG, (hsize_t)s->geom.nfloors, f->start));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode FloorsCheckpointRead(Sim *s, Floors *f, hid_t grp, const char *path)
{
  MPI_Comm    comm = s->dom.comm;
  PetscMPIInt rank;
  long long   v[2] = {0, 0};
  int         ok   = 1;
  double     *buf  = NULL;

  PetscFunctionBeginUser;
  if (!f->on) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  if (!rank) {
    hid_t a;
    ok = H5Aexists(grp, "link_passages_waits") > 0 && H5Aexists(grp, "floor_start") > 0;
    if (ok && (a = H5Aopen(grp, "link_passages_waits", H5P_DEFAULT)) >= 0) {
      ok = H5Aread(a, H5T_NATIVE_LLONG, v) >= 0;
      H5Aclose(a);
    }
    if (ok && (a = H5Aopen(grp, "floor_start", H5P_DEFAULT)) >= 0) {
      hid_t sp = H5Aget_space(a);
      ok       = H5Sget_simple_extent_npoints(sp) == s->geom.nfloors && H5Aread(a, H5T_NATIVE_LLONG, f->start) >= 0;
      H5Sclose(sp);
      H5Aclose(a);
    }
    ok = ok && v[0] >= 0 && v[0] < (1LL << 40);
  }
  PetscCallMPI(MPI_Bcast(&ok, 1, MPI_INT, 0, comm));
  PetscCheck(
    ok, comm, PETSC_ERR_FILE_UNEXPECTED,
    "restart file '%s' lacks the floors' records (/checkpoint/crowd/link_passages): it was written for a scene "
    "without floors",
    path);
  PetscCallMPI(MPI_Bcast(v, 2, MPI_LONG_LONG, 0, comm));
  PetscCallMPI(MPI_Bcast(f->start, (PetscMPIInt)s->geom.nfloors, MPIU_INT64, 0, comm));
  PetscCall(PetscMalloc1(3 * v[0] + 1, &buf));
  if (!rank) ok = IoReadRoot(grp, "link_passages", H5T_NATIVE_DOUBLE, 3 * (hsize_t)v[0], buf) >= 0;
  PetscCallMPI(MPI_Bcast(&ok, 1, MPI_INT, 0, comm));
  PetscCheck(ok, comm, PETSC_ERR_FILE_READ, "restart file '%s': the floors' records are damaged", path);
  PetscCallMPI(MPI_Bcast(buf, (PetscMPIInt)(3 * v[0]), MPI_DOUBLE, 0, comm));
  f->nrec = 0;
  for (long long k = 0; k < v[0]; k++) {
    const PetscInt side = (PetscInt)buf[3 * k + 2];
    PetscCheck(side >= 0 && side < 2 * s->geom.nlinks, comm, PETSC_ERR_FILE_UNEXPECTED,
               "restart file '%s': a passage through link %" PetscInt_FMT ", which this scene does not have", path,
               side >> 1);
    PetscCall(ThrongGrow(&f->rec, sizeof(LinkRec), f->nrec, &f->cap));
    f->rec[f->nrec++] = (LinkRec){(PetscInt64)buf[3 * k], buf[3 * k + 1], side};
  }
  f->waits = v[1];
  PetscCall(PetscFree(buf));
  PetscFunctionReturn(PETSC_SUCCESS);
}

void FloorsDigest(const Sim *s, const Floors *f, uint64_t h[2])
{
  if (!f->on || s->dom.rank) return; /* replicated: rank 0's once */
  for (PetscInt k = 0; k < f->nrec; k++)
    DigestRecord((uint64_t)f->rec[k].id, f->rec[k].time, (uint64_t)f->rec[k].side + (3ULL << 40), h);
}

PetscErrorCode FloorsDestroy(Floors *f)
{
  PetscFunctionBeginUser;
  PetscCall(PetscFree(f->rec));
  PetscCall(PetscFree(f->start));
  PetscFunctionReturn(PETSC_SUCCESS);
}
