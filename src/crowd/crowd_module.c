/* crowd_module — pedestrians leaving a venue (seed 001 §4.2): the crowd as a module of
 * the loop.
 *
 * A module of the loop (core/modules.c, registered in app/register.c): on with -geometry
 * and -walk, its hooks at the end of this file.  The core calls them and never names the
 * crowd.  The crowd's parts each have a file: its state and shared queries (crowd.c),
 * the desired direction (direction.c), exits (exits.c), line sensors and the density map
 * (sensors.c), records and the final report (records.c), the per-agent tables
 * (agents.c), floors, routes, sources, zones, the stall detector and the time-gap law.
 *
 * The crowd model of Maury and Venel: each agent i has a desired velocity
 *     U_i = v_i w(q_i),   w = -grad phi / |grad phi|,
 * phi the travel distance to the nearest exit (eikonal.c) or to the agent's own target
 * (an assigned route or a chosen exit, route.c), and its actual velocity is
 * the projection of U onto the feasible velocities — which is exactly what the time
 * steppers do with f = U (a PBD step: prediction q + h U, then the sweep).  U enters as a
 * driver term (drivers.h): it depends only on the agent's own position and id, so ghosts
 * and owners predict bit-identically and the run stays independent of the rank count.
 *
 * Agents: disks of radius -radius (0.2 m in the crowd configs), placed by the usual
 * initial conditions in -init_region; free speeds v_i from a normal distribution
 * (-speed mean,sd,min,max; default N(1.34, 0.26) m/s clipped to [0.5, 2.2], after
 * Weidmann 1993, see docs/crowd.md), drawn per id from Random123 like the radii.  Every
 * agent must start inside the walkable area, clear of the walls, and be able to reach
 * an exit (finite phi): otherwise the run stops with the agent's id and position.
 *
 * Walls: the wall segments of the geometry (with the doors cut out) are constraints of
 * the sweep (walls.c).  Exits: after each step an agent whose centre comes within its
 * radius of an exit segment, or that is already outside the walkable area within
 * r_max + skin of it (a large step carried it through), has passed the door and is
 * removed; its id, time and exit are recorded.  If any rank removed agents, all rebin (the ghosts are rebuilt).  The
 * evacuation curve N(t) is kept on rank 0 at every change; the run ends when the last
 * agent has left.  At the end: PREFIX.exits.csv (id, time, exit, sorted by time then
 * id) and PREFIX.evacuation.csv (time, agents remaining), and a summary line with the
 * evacuation time and the mean flow through each exit.
 *
 * Line sensors (`sensor LINESTRING` lines of the geometry): a crossing is a change of
 * side of an agent's centre, from its position at the last mark to its position now,
 * through the sensor segment.  Marks are taken after every rebin and at the end of every
 * step; the crossings are looked for just before a rebin (migration would separate an
 * agent from its marked position, which stays on the rank that marked it) and at the end
 * of the step.  The path tested is therefore the step's path through its rebin points
 * (x_old -> prediction -> x_new when the prediction triggered a rebin).  Rebins are
 * decided by global reductions of rank-independent values, so the crossings are the same
 * on any number of ranks.  Side is taken half-open (left means cross > 0), so an agent
 * that stops exactly on the line and turns back is counted once each way; a polyline's
 * interior vertex belongs to the segment that starts there, so it is never counted
 * twice.  Each crossing is recorded (id, end time of the step, sensor, direction).
 *
 * Density map: every -density_dt seconds of simulated time each rank adds its owned
 * agents to a grid of -density_h cells over the walkable area's bounding box (whole
 * counts in doubles: sums are exact, so the map is the same on any rank count).  At the
 * end the grids are summed on rank 0 and written as the mean density (agents / m^2).
 *
 * Records, the curve, the map and the sensor counts go to PREFIX.h5 (group /crowd, see
 * docs/crowd.md) and to CSV files; a checkpoint carries them, so a restarted run reports
 * the whole evacuation.                                                               */
#include <throng/crowd/crowd_module.h>
#include <throng/crowd/crowd.h>
#include <throng/crowd/direction.h>
#include <throng/crowd/exits.h>
#include <throng/crowd/sensors.h>
#include <throng/crowd/records.h>
#include <throng/crowd/agents.h>
#include <throng/crowd/csm.h>
#include <throng/crowd/floors.h>
#include <throng/crowd/source.h>
#include <throng/crowd/stall.h>
#include <throng/crowd/zone.h>
#include <throng/core/init.h>
#include <throng/io/io.h>

static PetscErrorCode CrowdRebinned(Sim *s);

static PetscErrorCode DesiredVelocity(const DriverTerm *t, PetscInt m, const PetscReal *x, const PetscReal *y,
                                      const PetscInt64 *id, PetscReal *fx, PetscReal *fy)
{
  const Sim   *s = (const Sim *)t->ctx;
  const Crowd *c = CrowdOf(s);
  PetscFunctionBeginUser;
  for (PetscInt i = 0; i < m; i++) {
    PetscReal wx, wy, v = id[i] < c->nspeed ? (PetscReal)c->speed[id[i]] : InitFreeSpeed(&s->prm, id[i]);
    if (CrowdWaiting(c, id[i], s->time)) continue; /* pre-movement: it stands */
    CrowdDirection(c, id[i], x[i], y[i], &wx, &wy);
    v = ZoneSpeed(c->geom, &s->prm, id[i], v, x[i], y[i], wx, wy);
    fx[i] += v * wx;
    fy[i] += v * wy;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The module's set-up (the geometry is read: the core's walls come from it, and they are
   set up after this, since the doors' jambs add walls). */
static PetscErrorCode CrowdSetUp(Sim *s, void *ctx)
{
  Crowd *c = (Crowd *)ctx;
  PetscFunctionBeginUser;
  c->geom = &s->geom;
  PetscCall(ZoneCheck(s->dom.comm, c->geom, &s->prm));
  ZoneFieldSpeeds(c->geom, &s->prm); /* the speed map of the travel-time fields (zone.c) */
  PetscCall(EikonalSolve(s->dom.comm, c->geom, s->prm.eikH, s->prm.eikWall, &c->eik));
  /* the free speeds, drawn once per id (rounded to float: a table of 4 bytes per agent
     instead of a Philox draw, a log and a cosine per agent and step) */
  c->nspeed = c->n0 = s->prm.n;
  c->capId          = c->nspeed + 1;
  PetscCall(PetscMalloc1(c->capId, &c->speed));
  PetscCall(PetscMalloc2(c->capId, &c->radius, c->capId, &c->origin)); /* agents.c */
  for (PetscInt64 i = 0; i < c->nspeed; i++) c->speed[i] = (float)InitFreeSpeed(&s->prm, i);
  if (s->prm.premoveOn) { /* pre-movement times, in double: an agent starts at its step exactly */
    PetscCall(PetscMalloc1(c->capId, &c->premove));
    for (PetscInt64 i = 0; i < c->nspeed; i++) c->premove[i] = (double)InitPremove(&s->prm, i);
  }
  for (PetscInt k = s->prm.npop - 1; k >= 0; k--) { /* the populations' routes (population.c), first */
    const Population *q = &s->prm.pop[k];
    char              what[64];
    if (!q->route[0]) continue;
    PetscCall(PetscSNPrintf(what, sizeof(what), "-pop_%s_route", q->name));
    PetscCall(GeometryAddRoute(s->dom.comm, c->geom, what, q->route, q->first, q->first + q->count - 1));
  }
  for (PetscInt k = 0, r = 0; k < THRONG_MAX_POPS; k++) /* route r of the first ones: population k's */
    c->popRoute[k] = k < s->prm.npop && s->prm.pop[k].route[0] ? r++ : -1;
  PetscCall(RouterSetUp(s, &c->route, c->geom));
  PetscCall(ExitSetUp(s)); /* before the law's wall lists: it may add walls */
  if (s->prm.crowdModel == CROWD_CSM) PetscCall(CsmSetUp(s));
  else {
    DriverTerm t = {"desired velocity", DesiredVelocity, s};
    PetscCall(DriverAddTerm(&s->drv, &t));
  }
  PetscCall(FloorsSetUp(s, &c->floors)); /* floors.c: after the law's wall lists (its lanes are the sweep's) */
  PetscCall(DensitySetUp(s));
  PetscCall(SourcesSetUp(s, c)); /* source.c: after the field (a spot must reach an exit) */
  PetscCall(StallSetUp(s, &c->stall));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscBool CrowdSiteOK(const Sim *s, void *ctx, PetscReal x, PetscReal y, PetscReal margin)
{
  const Geometry *g = &s->geom;
  (void)ctx;
  if (!GeometryInside(g, x, y)) return PETSC_FALSE;
  for (PetscInt k = 0; k < g->nring; k++) {
    PetscReal cx, cy;
    if (SegmentDistance(&g->ring[4 * k], x, y, &cx, &cy) < margin) return PETSC_FALSE;
  }
  return PETSC_TRUE;
}

static PetscErrorCode CrowdCreated(Sim *s, void *ctx)
{
  Crowd           *c      = CrowdOf(s);
  const Particles *p      = &s->P;
  PetscReal        bad[4] = {-1, 0, 0, 0}, /* id, x, y, kind (1 outside, 2 on a wall, 3 no exit,
                                              4 every way out narrower than the smallest agent) */
    rmin                  = PETSC_MAX_REAL;
  GeometryPassable pass;

  PetscFunctionBeginUser;
  if (!c) PetscFunctionReturn(PETSC_SUCCESS);
  for (PetscInt i = 0; i < p->n; i++) rmin = PetscMin(rmin, p->r[i]);
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &rmin, 1, MPIU_REAL, MPI_MIN, s->dom.comm));
  PetscCall(GeometryPassableCreate(c->geom, rmin < PETSC_MAX_REAL ? rmin : s->rmax, &pass));
  for (PetscInt i = 0; i < p->n && bad[0] < 0; i++) {
    PetscReal kind = 0;
    if (!GeometryInside(c->geom, p->x[i], p->y[i])) kind = 1;
    else {
      for (PetscInt k = 0; k < c->geom->nwall && !kind; k++) {
        PetscReal cx, cy;
        if (SegmentDistance(&c->geom->wall[4 * k], p->x[i], p->y[i], &cx, &cy) < p->r[i]) kind = 2;
      }
      if (!kind && !isfinite(EikonalValue(&c->eik, p->x[i], p->y[i]))) kind = 3;
      if (!kind && !GeometryPassableHas(pass, p->x[i], p->y[i])) kind = 4;
    }
    if (kind) bad[0] = (PetscReal)p->id[i], bad[1] = p->x[i], bad[2] = p->y[i], bad[3] = kind;
  }
  PetscCall(GeometryPassableDestroy(&pass)); /* before an error below */
  {                                          /* the lowest bad id over all ranks is reported */
    struct {
      double v;
      int    r;
    } in = {bad[0] < 0 ? 1e300 : bad[0], 0}, out;
    PetscCallMPI(MPI_Comm_rank(s->dom.comm, &in.r));
    PetscCallMPI(MPI_Allreduce(&in, &out, 1, MPI_DOUBLE_INT, MPI_MINLOC, s->dom.comm));
    if (out.v < 1e300) {
      PetscCallMPI(MPI_Bcast(bad, 4, MPIU_REAL, out.r, s->dom.comm));
      PetscCheck(bad[3] != 1, s->dom.comm, PETSC_ERR_USER_INPUT,
                 "agent %.0f at (%g, %g) is outside the walkable area of '%s': check -init_region", bad[0], bad[1],
                 bad[2], s->prm.geometry);
      PetscCheck(bad[3] != 2, s->dom.comm, PETSC_ERR_USER_INPUT,
                 "agent %.0f at (%g, %g) overlaps a wall of '%s': check -init_region and -radius", bad[0], bad[1],
                 bad[2], s->prm.geometry);
      PetscCheck(bad[3] != 4, s->dom.comm, PETSC_ERR_USER_INPUT,
                 "agent %.0f at (%g, %g) cannot reach any exit of '%s': every way out is narrower than the smallest "
                 "agent (diameter %g m)",
                 bad[0], bad[1], bad[2], s->prm.geometry, (double)(2 * rmin));
      SETERRQ(s->dom.comm, PETSC_ERR_USER_INPUT,
              "agent %.0f at (%g, %g) cannot reach any exit of '%s' (a region closed off by walls, or narrower than "
              "-eikonal_h)",
              bad[0], bad[1], bad[2], s->prm.geometry);
    }
  }
  c->total = s->prm.n;
  PetscCall(AgentsCreated(s, c));
  PetscCall(RouterCreated(s, &c->route, c->geom));
  PetscCall(FloorsCreated(s, &c->floors));
  PetscCall(CrowdSensorsMark(s));
  PetscCall(DensitySample(s)); /* t = 0 */
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---- checkpoints: the records and the map travel with the disks --------------------- */

static PetscErrorCode CrowdCheckpointWrite(const Sim *s, void *ctx, hid_t grp, hid_t dxpl)
{
  const Crowd *c    = CrowdOf(s);
  MPI_Comm     comm = s->dom.comm;
  ExitRec     *all  = NULL;
  CrossRec    *crs  = NULL;
  PetscReal   *dens = NULL;
  PetscInt     tot, ncr;
  hid_t        g;
  hsize_t      d[2];

  PetscFunctionBeginUser;
  if (!c) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(GatherAll(s, PETSC_FALSE, &all, &tot, &crs, &ncr, &dens));
  PetscCallHDF5(comm, g = H5Gcreate2(grp, "crowd", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
  {
    const long long v[5] = {(long long)c->total, (long long)c->dlast, (long long)c->dsamples, (long long)c->dnx,
                            (long long)c->dny};
    PetscCall(IoWriteAttr(comm, g, "total,dlast,dsamples,dnx,dny", H5T_NATIVE_LLONG, 5, v));
  }
  PetscCall(WriteTables(comm, g, dxpl, all, tot, crs, ncr));
  if (c->dens) {
    d[0] = (hsize_t)c->dny * c->dnx;
    PetscCall(IoWriteRoot(comm, g, dxpl, "density_counts", H5T_NATIVE_DOUBLE, 1, d, dens));
  }
  if (c->nsrc) { /* the arrivals, and each source's next arrival */
    hid_t           t = ArrivalType();
    PetscReal       st[2 * THRONG_MAX_SOURCES];
    const long long na = (long long)c->narr;
    d[0]               = (hsize_t)c->narr;
    PetscCall(IoWriteRoot(comm, g, dxpl, "arrivals", t, 1, d, c->arr));
    H5Tclose(t);
    for (PetscInt si = 0; si < c->nsrc; si++) st[2 * si] = (PetscReal)c->src[si].k, st[2 * si + 1] = c->src[si].next;
    PetscCall(IoWriteAttr(comm, g, "sources_k_next", H5T_NATIVE_DOUBLE, 2 * c->nsrc, st));
    PetscCall(IoWriteAttr(comm, g, "narrivals", H5T_NATIVE_LLONG, 0, &na));
  }
  if (c->premove) { /* the pre-movement times, so that a restart goes on with these */
    d[0] = (hsize_t)c->nspeed;
    PetscCall(IoWriteRoot(comm, g, dxpl, "premove", H5T_NATIVE_DOUBLE, 1, d, c->premove));
  }
  PetscCall(RouterCheckpointWrite((Sim *)s, &c->route, g, dxpl));
  PetscCall(FloorsCheckpointWrite(s, &c->floors, g, dxpl));
  PetscCall(StallCheckpointWrite(s, &c->stall, g));
  PetscCall(AgentsCheckpointWrite(s, c, g, dxpl));
  PetscCallHDF5(comm, H5Gclose(g));
  PetscCall(PetscFree(all));
  PetscCall(PetscFree(crs));
  PetscCall(PetscFree(dens));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The arrivals of a checkpoint (group g) and the sources' states; the arrivals are let
   in again, positions aside (the particles come from the checkpoint): the per-id tables
   and the routes' states grow as they did.  Collective. */
static PetscErrorCode RestoreArrivals(Sim *s, Crowd *c, hid_t g, const char *path)
{
  MPI_Comm     comm = s->dom.comm;
  PetscMPIInt  rank;
  long long    na = 0;
  PetscReal    st[2 * THRONG_MAX_SOURCES];
  int          ok = 1;
  ParticleRec *recs;
  PetscInt    *pops;

  PetscFunctionBeginUser;
  if (!c->nsrc) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  if (!rank) {
    hid_t a;
    ok = H5Aexists(g, "narrivals") > 0 && H5Aexists(g, "sources_k_next") > 0;
    if (ok && (a = H5Aopen(g, "narrivals", H5P_DEFAULT)) >= 0) {
      ok = H5Aread(a, H5T_NATIVE_LLONG, &na) >= 0;
      H5Aclose(a);
    }
    if (ok && (a = H5Aopen(g, "sources_k_next", H5P_DEFAULT)) >= 0) {
      hid_t    sp = H5Aget_space(a);
      hssize_t n  = H5Sget_simple_extent_npoints(sp);
      ok          = n == 2 * c->nsrc && H5Aread(a, H5T_NATIVE_DOUBLE, st) >= 0;
      H5Sclose(sp);
      H5Aclose(a);
    }
  }
  PetscCallMPI(MPI_Bcast(&ok, 1, MPI_INT, 0, comm));
  PetscCheck(ok, comm, PETSC_ERR_FILE_UNEXPECTED,
             "restart file '%s' lacks the arrivals of %" PetscInt_FMT " sources (/checkpoint/crowd/arrivals): it was "
             "written without -sources, or with others",
             path, c->nsrc);
  PetscCallMPI(MPI_Bcast(&na, 1, MPI_LONG_LONG, 0, comm));
  PetscCallMPI(MPI_Bcast(st, 2 * (PetscMPIInt)c->nsrc, MPIU_REAL, 0, comm));
  c->capArr = (PetscInt)na + 16;
  PetscCall(PetscFree(c->arr));
  PetscCall(PetscMalloc1(c->capArr, &c->arr));
  if (!rank) {
    hid_t t = ArrivalType();
    ok      = IoReadRoot(g, "arrivals", t, (hsize_t)na, c->arr) >= 0;
    H5Tclose(t);
  }
  PetscCallMPI(MPI_Bcast(&ok, 1, MPI_INT, 0, comm));
  PetscCheck(ok, comm, PETSC_ERR_FILE_READ, "restart file '%s': the arrivals (/checkpoint/crowd/arrivals) are damaged",
             path);
  PetscCallMPI(MPI_Bcast(c->arr, (PetscMPIInt)(na * (long long)sizeof(ArrivalRec)), MPI_BYTE, 0, comm));
  c->narr = (PetscInt)na;
  PetscCall(PetscMalloc2(na + 1, &recs, na + 1, &pops));
  for (PetscInt64 k = 0; k < na; k++) {
    PetscCheck(c->arr[k].id == c->n0 + k && c->arr[k].source >= 0 && c->arr[k].source < c->nsrc, comm,
               PETSC_ERR_FILE_UNEXPECTED, "restart file '%s': arrival %" PetscInt64_FMT " is not of this run's sources",
               path, k);
    recs[k] = (ParticleRec){0, 0, 0, c->arr[k].id};
    pops[k] = s->prm.src[c->arr[k].source].popIndex;
  }
  {
    const PetscReal t = s->time;
    PetscCall(CrowdAgentsAdd(s, c, (PetscInt)na, recs, pops)); /* pre-movement: read below */
    s->time = t;
  }
  PetscCall(PetscFree2(recs, pops));
  for (PetscInt si = 0; si < c->nsrc; si++) {
    c->src[si].k    = (PetscInt64)st[2 * si];
    c->src[si].next = st[2 * si + 1];
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CrowdCheckpointRead(Sim *s, void *ctx, hid_t grp, const char *path)
{
  Crowd      *c    = CrowdOf(s);
  MPI_Comm    comm = s->dom.comm;
  PetscMPIInt rank;
  long long   v[5] = {0, -1, 0, 0, 0};
  int         ok   = 1;
  hid_t       g = -1, a = -1;

  PetscFunctionBeginUser;
  if (!c) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  if (H5Lexists(grp, "crowd", H5P_DEFAULT) > 0) g = H5Gopen2(grp, "crowd", H5P_DEFAULT);
  if (g >= 0 && H5Aexists(g, "total,dlast,dsamples,dnx,dny") > 0 &&
      (a = H5Aopen(g, "total,dlast,dsamples,dnx,dny", H5P_DEFAULT)) >= 0)
    ok = H5Aread(a, H5T_NATIVE_LLONG, v) >= 0;
  else ok = 0;
  if (a >= 0) H5Aclose(a);
  { /* every rank read it: all must have, and all take rank 0's values */
    int bad = !ok;
    PetscCall(IoAgree(comm, &bad));
    ok = !bad;
  }
  if (!ok && g >= 0) H5Gclose(g);
  PetscCheck(ok, comm, PETSC_ERR_FILE_UNEXPECTED,
             "restart file '%s' lacks the crowd records (group /checkpoint/crowd): it was not written by a crowd run",
             path);
  PetscCallMPI(MPI_Bcast(v, 5, MPI_LONG_LONG, 0, comm));
  PetscCheck(v[3] == c->dnx && v[4] == c->dny, comm, PETSC_ERR_USER_INPUT,
             "restart file '%s' has a density map of %lld x %lld cells, this run %" PetscInt_FMT " x %" PetscInt_FMT
             ": give the original -density_h",
             path, v[3], v[4], c->dnx, c->dny);
  {
    PetscErrorCode ierr = RestoreArrivals(s, c, g, path); /* the per-id tables grow with them */
    if (ierr) H5Gclose(g);
    PetscCall(ierr);
  }
  c->total    = (PetscInt64)v[0];
  c->dlast    = (PetscInt64)v[1];
  c->dsamples = (PetscInt)v[2];
  if (!rank) { /* rank 0 keeps the records of the run so far */
    hsize_t n[2] = {0, 0};
    hid_t   ds;
    for (int k = 0; k < 2; k++) {
      if ((ds = H5Dopen2(g, k ? "sensors" : "exits", H5P_DEFAULT)) >= 0) {
        hid_t sp = H5Dget_space(ds);
        H5Sget_simple_extent_dims(sp, &n[k], NULL);
        H5Sclose(sp);
        H5Dclose(ds);
      } else ok = 0;
    }
    if (ok) {
      hid_t te = ExitType(), tc = CrossType();
      c->capLeft  = (PetscInt)n[0] + 16;
      c->capCross = (PetscInt)n[1] + 16;
      PetscCall(PetscMalloc1(c->capLeft, &c->left));
      PetscCall(PetscMalloc1(c->capCross, &c->cross));
      c->nleft  = (PetscInt)n[0];
      c->ncross = (PetscInt)n[1];
      ok        = !IoInjectFault(comm, "crowd-records") && IoReadRoot(g, "exits", te, n[0], c->left) >= 0 &&
           IoReadRoot(g, "sensors", tc, n[1], c->cross) >= 0;
      if (ok && c->dens)
        ok = IoReadRoot(g, "density_counts", H5T_NATIVE_DOUBLE, (hsize_t)c->dnx * c->dny, c->dens) >= 0;
      if (ok && c->premove) ok = IoReadRoot(g, "premove", H5T_NATIVE_DOUBLE, (hsize_t)c->nspeed, c->premove) >= 0;
      H5Tclose(te);
      H5Tclose(tc);
    }
  }
  PetscCallMPI(MPI_Bcast(&ok, 1, MPI_INT, 0, comm));
  if (!ok) H5Gclose(g);
  PetscCheck(ok, comm, PETSC_ERR_FILE_READ, "restart file '%s': the crowd records (/checkpoint/crowd) are damaged",
             path);
  if (c->premove) PetscCallMPI(MPI_Bcast(c->premove, (PetscMPIInt)c->nspeed, MPI_DOUBLE, 0, comm));
  {
    PetscErrorCode ierr = RouterCheckpointRead(s, &c->route, g, path);
    if (!ierr) ierr = FloorsCheckpointRead(s, &c->floors, g, path);
    if (!ierr) ierr = StallCheckpointRead(s, &c->stall, g, path);
    if (!ierr) ierr = AgentsCheckpointRead(s, c, g, path); /* after the arrivals: the tables have grown */
    H5Gclose(g);
    PetscCall(ierr);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CrowdDestroy(Sim *s, void *ctx)
{
  Crowd *c = (Crowd *)ctx;
  PetscFunctionBeginUser;
  (void)s;
  PetscCall(EikonalDestroy(&c->eik));
  PetscCall(RouterDestroy(&c->route));
  PetscCall(FloorsDestroy(&c->floors));
  PetscCall(PetscFree(c->left));
  PetscCall(PetscFree(c->cross));
  PetscCall(PetscFree2(c->px, c->py));
  PetscCall(PetscFree(c->dens));
  PetscCall(PetscFree(c->speed));
  PetscCall(PetscFree2(c->radius, c->origin));
  PetscCall(PetscFree(c->premove));
  PetscCall(PetscFree(c->exitNormal));
  PetscCall(CsmDestroy(&c->csm));
  PetscCall(SourcesDestroy(c));
  PetscCall(PetscFree(c));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CrowdDigest(const Sim *s, void *ctx, Digest *dg)
{
  const Crowd *c    = CrowdOf(s);
  uint64_t     h[2] = {0, 0};
  PetscFunctionBeginUser;
  if (!c) PetscFunctionReturn(PETSC_SUCCESS);
  for (PetscInt k = 0; k < c->nleft; k++)
    DigestRecord((uint64_t)c->left[k].id, c->left[k].time, (uint64_t)c->left[k].exit, h);
  for (PetscInt k = 0; k < c->ncross; k++)
    DigestRecord((uint64_t)c->cross[k].id, c->cross[k].time,
                 (uint64_t)(2 * c->cross[k].sensor + (c->cross[k].dir > 0)) + (1ULL << 40), h);
  for (PetscInt64 k = 0; k < c->narr; k++) /* replicated: rank 0's count once */
    if (!s->dom.rank)
      DigestRecord((uint64_t)c->arr[k].id, c->arr[k].time, (uint64_t)c->arr[k].source + (2ULL << 40), h);
  RouterDigest(s, &c->route, h);
  FloorsDigest(s, &c->floors, h);
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, h, 2, MPI_UINT64_T, MPI_SUM, s->dom.comm));
  dg->h[0] += h[0];
  dg->h[1] += h[1];
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscReal CrowdTimeLeft(const Sim *s, void *ctx) { return StallTimeLeft(s, &((Crowd *)ctx)->stall); }

static PetscErrorCode CrowdRebinned(Sim *s)
{
  PetscFunctionBeginUser;
  PetscCall(CsmRebinned(s));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---- the crowd's options -------------------------------------------------------------- */

static const char *const ExitRules[]    = {"pass", "reach", "ExitRule", "EXIT_", NULL};
static const char *const CrowdModels[]  = {"csm", "projection", "CrowdModel", "CROWD_", NULL};
static const char *const RouteChoices[] = {"nearest", "quickest", "RouteChoice", "ROUTE_", NULL};

PetscErrorCode CrowdSetFromOptions(Opt *o)
{
  Params *p = o->p;
  PetscFunctionBeginUser;
  PetscCall(
    OptString(o, OPT_PHYS, "-geometry",
              "Crowd scene: file with the walkable area (WKT POLYGON/MULTIPOLYGON), exits (WKT LINESTRING), optional "
              "sensors, waypoints and routes, see docs/crowd.md",
              p->geometry, sizeof(p->geometry), NULL));
  p->crowdDecl[0] = p->ndecl; /* the options below describe a crowd: refused without one (CrowdCheck) */
  PetscCall(OptBool(o, OPT_PHYS, "-walk",
                    "With -geometry: agents walk to the exits (desired velocity, removal at exits); false: the "
                    "geometry only adds walls",
                    &p->walk));
  PetscCall(OptReal(o, OPT_PHYS, "-eikonal_h", "Crowd: grid spacing of the travel-distance field (m)", &p->eikH, NULL));
  PetscCall(OptReal(o, OPT_PHYS, "-eikonal_wall_distance",
                    "Crowd: paths slow down within this distance of walls, so they do not hug them (0: off)",
                    &p->eikWall, NULL));
  PetscCall(OptReals(o, OPT_PHYS, "-speed", "Crowd: free speeds mean,sd,min,max (m/s), normal and clipped", 4, p->speed,
                     NULL, 1, NULL, NULL));
  PetscCall(OptReals(o, OPT_PHYS, "-speed2", "Crowd: a second population's free speeds mean,sd,min,max", 4, p->speed2,
                     NULL, 1, NULL, NULL));
  PetscCall(OptReal(o, OPT_PHYS, "-speed2_fraction",
                    "Crowd: share of the agents (drawn per id) in the second population", &p->frac2, NULL));
  PetscCall(OptEnum(o, OPT_PHYS, "-crowd_model",
                    "Crowd: csm (collision-free speed model with a time gap, Tordeux et al. 2016) or projection "
                    "(desired velocity projected, seed 001)",
                    CrowdModels, 2, (int *)&p->crowdModel));
  PetscCall(OptEnum(o, OPT_PHYS, "-exit_rule",
                    "Crowd: an agent leaves when its centre has passed through the door (pass), or as soon as its disk "
                    "touches the door line (reach: the rule of seed 001's tests)",
                    ExitRules, 2, (int *)&p->exitRule));
  PetscCall(OptReal(o, OPT_PHYS, "-csm_time_gap", "Crowd, csm: time gap T (s): speed = min(v0, spacing / T)",
                    &p->csmT[0], NULL));
  PetscCall(OptReal(o, OPT_PHYS, "-csm_time_gap2",
                    "Crowd, csm: the second population's time gap (default: -csm_time_gap)", &p->csmT[1], NULL));
  PetscCall(OptReals(o, OPT_PHYS, "-csm_repulsion",
                     "Crowd, csm: neighbours turn the direction by a exp((l - d)/D): a,D (D in m)", 2, p->csmRep, NULL,
                     1, NULL, NULL));
  PetscCall(OptReals(o, OPT_PHYS, "-csm_wall_repulsion",
                     "Crowd, csm: walls turn the direction by a exp((r - d)/D): a,D (D in m)", 2, p->csmWall, NULL, 1,
                     NULL, NULL));
  PetscCall(OptReal(o, OPT_PHYS, "-csm_corridor",
                    "Crowd, csm: a neighbour is ahead if within k l of the path (Tordeux et al.: k = 1)",
                    &p->csmCorridor, NULL));
  PetscCall(OptReal(o, OPT_PHYS, "-csm_avoidance",
                    "Crowd, csm: lateral avoidance b: an agent slowed by the one ahead turns away from it by b (1 - s "
                    "/ (v0 T)) (0: off)",
                    &p->csmAvoid, NULL));
  PetscCall(OptBool(o, OPT_RUN, "-csm_check_reach",
                    "Crowd, csm: every step, check the neighbours found against a brute-force search (tests; O(N^2))",
                    &p->csmCheck));
  PetscCall(OptInt(o, OPT_RUN, "-csm_vector_width",
                   "Crowd, csm: the widest vector kernels of the law, in bits: 512 (AVX-512), 256 (AVX2) or 128 "
                   "(SSE2), as far as the processor has them (the same bits with any)",
                   &p->csmWidth, NULL));
  PetscCall(OptReal(o, OPT_PHYS, "-density_h", "Crowd: cell size of the density map written at the end (m; 0: no map)",
                    &p->densH, NULL));
  PetscCall(OptReal(o, OPT_PHYS, "-density_dt", "Crowd: simulated seconds between the density map's samples",
                    &p->densDt, NULL));
  PetscCall(OptEnum(o, OPT_PHYS, "-route_choice",
                    "Crowd: agents without an assigned route head for the nearest exit, or for the exit with the "
                    "shortest expected travel time, walking or queueing (quickest; docs/crowd.md, route.c)",
                    RouteChoices, 2, (int *)&p->routeChoice));
  PetscCall(OptReal(o, OPT_PHYS, "-route_interval",
                    "Crowd, quickest: simulated seconds between recomputations of the exits' queues", &p->routeInterval,
                    NULL));
  PetscCall(OptReal(o, OPT_PHYS, "-route_reconsider",
                    "Crowd, quickest: each agent reconsiders its exit once every this many seconds (staggered by id)",
                    &p->routeReconsider, NULL));
  PetscCall(OptReal(o, OPT_PHYS, "-route_gain",
                    "Crowd, quickest: an agent changes exit only if the other is expected to be faster by more than "
                    "this (s)",
                    &p->routeGain, NULL));
  PetscCall(OptReal(o, OPT_PHYS, "-route_commit",
                    "Crowd, quickest: after changing its exit an agent keeps it at least this long (s)",
                    &p->routeCommit, NULL));
  PetscCall(OptReal(o, OPT_PHYS, "-route_flow",
                    "Crowd, quickest: a door's capacity is this specific flow times its width (/(m s))", &p->routeFlow,
                    NULL));
  PetscCall(OptReal(o, OPT_PHYS, "-waypoint_radius",
                    "Crowd, routes: an agent has reached a waypoint when its centre is this close to it (m)",
                    &p->wayRadius, NULL));
  p->crowdDecl[1] = p->ndecl;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode CrowdCheck(MPI_Comm comm, Params *p)
{
  PetscFunctionBeginUser;
  PetscCheck(p->eikH > 0 && PetscIsNormalReal(p->eikH), comm, PETSC_ERR_USER_INPUT, "-eikonal_h %g: must be > 0",
             (double)p->eikH);
  PetscCheck(p->eikWall >= 0, comm, PETSC_ERR_USER_INPUT, "-eikonal_wall_distance %g: must be >= 0",
             (double)p->eikWall);
  PetscCheck(p->densH >= 0, comm, PETSC_ERR_USER_INPUT, "-density_h %g: must be >= 0 (0: no density map)",
             (double)p->densH);
  PetscCheck(p->densDt > 0, comm, PETSC_ERR_USER_INPUT, "-density_dt %g: must be > 0", (double)p->densDt);
  PetscCall(ParamsCheckTimeReal(comm, "-density_dt", p->densDt));
  PetscCall(ParamsCheckTimeReal(comm, "-route_commit", p->routeCommit));
  PetscCall(ParamsCheckTimeReal(comm, "-route_gain", p->routeGain));
  PetscCall(ParamsCheckTimeReal(comm, "-route_reconsider", p->routeReconsider));
  PetscCheck(p->routeInterval > 0 && PetscIsNormalReal(p->routeInterval), comm, PETSC_ERR_USER_INPUT,
             "-route_interval %.6g: must be > 0", (double)p->routeInterval);
  PetscCheck(p->routeChoice != ROUTE_QUICKEST || (p->routeInterval >= p->dt && p->routeInterval <= 1e9), comm,
             PETSC_ERR_USER_INPUT,
             "-route_interval %.6g: must be in [-dt, 1e9] s (-dt %.6g): the queues are counted at most once a step",
             (double)p->routeInterval, (double)p->dt);
  PetscCheck(p->routeReconsider >= p->routeInterval, comm, PETSC_ERR_USER_INPUT,
             "-route_reconsider %.6g: must be >= -route_interval (%.6g)", (double)p->routeReconsider,
             (double)p->routeInterval);
  PetscCheck(p->routeReconsider <= 1e6 * p->routeInterval, comm, PETSC_ERR_USER_INPUT,
             "-route_reconsider %.6g: must be at most 10^6 -route_interval (%.6g)", (double)p->routeReconsider,
             (double)p->routeInterval);
  PetscCheck(p->routeCommit >= 0, comm, PETSC_ERR_USER_INPUT, "-route_commit %.6g: must be >= 0",
             (double)p->routeCommit);
  PetscCheck(p->routeGain >= 0, comm, PETSC_ERR_USER_INPUT, "-route_gain %.6g: must be >= 0", (double)p->routeGain);
  PetscCheck(p->routeFlow > 0 && PetscIsNormalReal(p->routeFlow), comm, PETSC_ERR_USER_INPUT,
             "-route_flow %.6g: must be > 0", (double)p->routeFlow);
  PetscCheck(p->wayRadius > 0, comm, PETSC_ERR_USER_INPUT, "-waypoint_radius %.6g: must be > 0", (double)p->wayRadius);
  PetscCheck(p->frac2 >= 0 && p->frac2 <= 1, comm, PETSC_ERR_USER_INPUT, "-speed2_fraction %g: must be in [0, 1]",
             (double)p->frac2);
  PetscCheck(p->speed2[1] >= 0 && 0 <= p->speed2[2] && p->speed2[2] <= p->speed2[0] && p->speed2[0] <= p->speed2[3],
             comm, PETSC_ERR_USER_INPUT, "-speed2 %g,%g,%g,%g: need sd >= 0 and 0 <= min <= mean <= max",
             (double)p->speed2[0], (double)p->speed2[1], (double)p->speed2[2], (double)p->speed2[3]);
  PetscCheck(p->speed[1] >= 0 && 0 <= p->speed[2] && p->speed[2] <= p->speed[0] && p->speed[0] <= p->speed[3], comm,
             PETSC_ERR_USER_INPUT, "-speed %g,%g,%g,%g: need sd >= 0 and 0 <= min <= mean <= max", (double)p->speed[0],
             (double)p->speed[1], (double)p->speed[2], (double)p->speed[3]);
  if (p->csmT[1] == -1) p->csmT[1] = p->csmT[0];
  for (PetscInt k = p->crowdDecl[0]; k < p->crowdDecl[1] && !p->geometry[0]; k++)
    PetscCheck(!p->decl[k].given, comm, PETSC_ERR_USER_INPUT,
               "-%s describes a crowd: it needs a crowd scene (-geometry FILE), without which it would be ignored",
               p->decl[k].name);
  PetscCheck(!p->csmCheck || (p->geometry[0] && p->walk && p->crowdModel == CROWD_CSM), comm, PETSC_ERR_USER_INPUT,
             "-csm_check_reach checks the neighbour search of the time-gap law: it needs a crowd (-geometry) with "
             "-crowd_model csm");
  if (p->geometry[0] && p->walk && p->crowdModel == CROWD_CSM) { /* the time-gap law is explicit in h */
    PetscReal vmax = ParamsSpeedMax(p), rmin = p->radius * (1 - p->poly);
    for (PetscInt k = 0; k < p->npop; k++)
      rmin = k ? PetscMin(rmin, DistMin(&p->pop[k].radius)) : DistMin(&p->pop[0].radius);
    if (vmax * p->dt > rmin)
      PetscCall(PetscFPrintf(comm, PETSC_STDERR,
                             "throng: warning: -dt %g: the fastest agent (%g m/s) steps %g m, more than the smallest "
                             "radius %g m; the time-gap law then lets agents overlap and collide. The largest step it "
                             "allows is r_min / v_max = %.3g s (docs/crowd.md); -overlap_abort stops a run that blows "
                             "up\n",
                             (double)p->dt, (double)vmax, (double)(vmax * p->dt), (double)rmin, (double)(rmin / vmax)));
  }
  for (int k = 0; k < 2; k++)
    PetscCheck(p->csmT[k] >= 0.1 && p->csmT[k] <= 10, comm, PETSC_ERR_USER_INPUT,
               "-csm_time_gap%s %.6g: must be in [0.1, 10] s", k ? "2" : "", (double)p->csmT[k]);
  PetscCheck(p->csmRep[0] >= 0 && p->csmRep[0] <= 1e3 && p->csmRep[1] >= 1e-3 && p->csmRep[1] <= 1, comm,
             PETSC_ERR_USER_INPUT, "-csm_repulsion %.6g,%.6g: need a in [0, 1000] and D in [0.001, 1] m",
             (double)p->csmRep[0], (double)p->csmRep[1]);
  PetscCheck(p->csmCorridor >= 0.5 && p->csmCorridor <= 2, comm, PETSC_ERR_USER_INPUT,
             "-csm_corridor %.6g: must be in [0.5, 2]", (double)p->csmCorridor);
  PetscCheck(p->csmWidth == 128 || p->csmWidth == 256 || p->csmWidth == 512, comm, PETSC_ERR_USER_INPUT,
             "-csm_vector_width %" PetscInt_FMT ": must be 128, 256 or 512 (bits)", p->csmWidth);
  PetscCheck(p->csmAvoid >= 0 && p->csmAvoid <= 10, comm, PETSC_ERR_USER_INPUT,
             "-csm_avoidance %.6g: must be in [0, 10]", (double)p->csmAvoid);
  PetscCheck(p->csmWall[0] >= 0 && p->csmWall[0] <= 1e3 && p->csmWall[1] >= 1e-3 && p->csmWall[1] <= 1, comm,
             PETSC_ERR_USER_INPUT, "-csm_wall_repulsion %.6g,%.6g: need a in [0, 1000] and D in [0.001, 1] m",
             (double)p->csmWall[0], (double)p->csmWall[1]);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---- the module: hooks the loop calls (sim.h, modules.c) --------------------------- */

static PetscErrorCode CrowdRestored(Sim *s, void *ctx)
{
  Crowd *c = (Crowd *)ctx;
  PetscFunctionBeginUser;
  if (!c->total) c->total = s->ndisks; /* else: from the checkpoint's crowd records */
  c->floors.known = 0;                 /* the floors are no checkpoint field: looked up again */
  PetscCall(FloorsUpdateFields(s, &c->floors));
  PetscCall(CrowdSensorsMark(s));
  PetscCall(CrowdRebinned(s));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CrowdBeforeRebin(Sim *s, void *ctx)
{
  PetscFunctionBeginUser;
  (void)ctx;
  PetscCall(CrowdSensorsAdvance(s)); /* before migration separates agents from their marks */
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CrowdAfterRebin(Sim *s, void *ctx)
{
  PetscFunctionBeginUser;
  (void)ctx;
  PetscCall(CrowdSensorsMark(s));
  PetscCall(CrowdRebinned(s));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CrowdStepEnd(Sim *s, void *ctx, const char **stop)
{
  PetscFunctionBeginUser;
  (void)ctx;
  PetscCall(CrowdExits(s));
  PetscCall(FloorsStep(s, &CrowdOf(s)->floors));         /* floors.c: through the links */
  PetscCall(SourcesStep(s, CrowdOf(s)));                 /* source.c: arrivals */
  PetscCall(FloorsUpdateFields(s, &CrowdOf(s)->floors)); /* each agent's floor, for the snapshots */
  if (s->ndisks == 0 && !SourcesPending(CrowdOf(s))) *stop = "every agent has left";
  else PetscCall(StallStep(s, &CrowdOf(s)->stall, stop)); /* stall.c: a crowd that no longer moves */
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode CrowdModuleCreate(const Params *prm, SimModule *m, PetscBool *on)
{
  Crowd *c;
  PetscFunctionBeginUser;
  *on = prm->geometry[0] && prm->walk ? PETSC_TRUE : PETSC_FALSE; /* -walk false: walls only */
  if (!*on) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscNew(&c));
  m->name            = "crowd";
  m->ctx             = c;
  m->setUp           = CrowdSetUp;
  m->siteOK          = CrowdSiteOK;
  m->created         = CrowdCreated;
  m->restored        = CrowdRestored;
  m->beforeRebin     = CrowdBeforeRebin;
  m->afterRebin      = CrowdAfterRebin;
  m->stepEnd         = CrowdStepEnd;
  m->finish          = CrowdFinish;
  m->checkpointWrite = CrowdCheckpointWrite;
  m->checkpointRead  = CrowdCheckpointRead;
  m->digest          = CrowdDigest;
  m->timeLeft        = CrowdTimeLeft;
  m->destroy         = CrowdDestroy;
  PetscFunctionReturn(PETSC_SUCCESS);
}
