/* records — a crowd's records gathered on rank 0 in a fixed order, and the final report.
 *
 * Every rank keeps the records of what happened on it (exits, crossings of the line
 * sensors, arrivals); at the end they are gathered on rank 0 and sorted by time, then
 * id, so the files are the same on any rank count.  The report: the summary lines
 * (evacuation time, flows through each door, the populations and sources), the CSV
 * files (exits, evacuation curve, sensors, the per-agent table) and the group /crowd of
 * the snapshot file (see docs/crowd.md).                                               */
#include <throng/crowd/records.h>
#include <throng/crowd/sensors.h>
#include <throng/crowd/exits.h>
#include <throng/crowd/agents.h>
#include <throng/crowd/floors.h>
#include <throng/crowd/route.h>
#include <throng/crowd/source.h>
#include <throng/core/init.h>
#include <throng/io/io.h>

/* ---- records: gathered on rank 0 in a fixed order ----------------------------------- */

static int CompareExit(const void *a, const void *b)
{
  const ExitRec *x = (const ExitRec *)a, *y = (const ExitRec *)b;
  if (x->time != y->time) return x->time < y->time ? -1 : 1;
  return (x->id > y->id) - (x->id < y->id);
}

static int CompareCross(const void *a, const void *b)
{
  const CrossRec *x = (const CrossRec *)a, *y = (const CrossRec *)b;
  if (x->time != y->time) return x->time < y->time ? -1 : 1;
  if (x->sensor != y->sensor) return x->sensor < y->sensor ? -1 : 1;
  if (x->id != y->id) return x->id < y->id ? -1 : 1;
  return x->dir < y->dir ? -1 : x->dir > y->dir;
}

/* All ranks' n records of `size` bytes, sorted, on rank 0 (*all); *tot on every rank. */
static PetscErrorCode GatherRecords(MPI_Comm comm, const void *mine, PetscInt n, size_t size,
                                    int (*cmp)(const void *, const void *), void **all, PetscInt *tot)
{
  PetscMPIInt  nsize, rank, cnt = (PetscMPIInt)n, *cnts = NULL, *dsp = NULL;
  MPI_Datatype t;
  PetscInt64   sum = n;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_size(comm, &nsize));
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &sum, 1, MPIU_INT64, MPI_SUM, comm));
  PetscCheck(sum < PETSC_MPI_INT_MAX, comm, PETSC_ERR_SUP,
             "%" PetscInt64_FMT " crowd records: too many to gather on one rank", sum);
  *tot = (PetscInt)sum;
  *all = NULL;
  if (!rank) {
    PetscCall(PetscMalloc2(nsize, &cnts, nsize, &dsp));
    PetscCall(PetscMalloc(size * (size_t)(sum + 1), all));
  }
  PetscCallMPI(MPI_Gather(&cnt, 1, MPI_INT, cnts, 1, MPI_INT, 0, comm));
  if (!rank)
    for (PetscMPIInt k = 0, o = 0; k < nsize; o += cnts[k], k++) dsp[k] = o;
  PetscCallMPI(MPI_Type_contiguous((int)size, MPI_BYTE, &t));
  PetscCallMPI(MPI_Type_commit(&t));
  PetscCallMPI(MPI_Gatherv(mine, cnt, t, *all, cnts, dsp, t, 0, comm));
  PetscCallMPI(MPI_Type_free(&t));
  if (!rank) {
    qsort(*all, (size_t)sum, size, cmp);
    PetscCall(PetscFree2(cnts, dsp));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---- HDF5 tables ----------------------------------------------------------------- */

static hid_t PetscIntH5(void) { return sizeof(PetscInt) == 8 ? H5T_NATIVE_INT64 : H5T_NATIVE_INT32; }

hid_t ExitType(void)
{
  hid_t t = H5Tcreate(H5T_COMPOUND, sizeof(ExitRec));
  H5Tinsert(t, "id", HOFFSET(ExitRec, id), H5T_NATIVE_INT64);
  H5Tinsert(t, "time", HOFFSET(ExitRec, time), H5T_NATIVE_DOUBLE);
  H5Tinsert(t, "exit", HOFFSET(ExitRec, exit), PetscIntH5());
  return t;
}

hid_t ArrivalType(void)
{
  hid_t t = H5Tcreate(H5T_COMPOUND, sizeof(ArrivalRec));
  H5Tinsert(t, "id", HOFFSET(ArrivalRec, id), H5T_NATIVE_INT64);
  H5Tinsert(t, "time", HOFFSET(ArrivalRec, time), H5T_NATIVE_DOUBLE);
  H5Tinsert(t, "source", HOFFSET(ArrivalRec, source), PetscIntH5());
  H5Tinsert(t, "floor", HOFFSET(ArrivalRec, floor), PetscIntH5());
  return t;
}

hid_t CrossType(void)
{
  hid_t t = H5Tcreate(H5T_COMPOUND, sizeof(CrossRec));
  H5Tinsert(t, "id", HOFFSET(CrossRec, id), H5T_NATIVE_INT64);
  H5Tinsert(t, "time", HOFFSET(CrossRec, time), H5T_NATIVE_DOUBLE);
  H5Tinsert(t, "sensor", HOFFSET(CrossRec, sensor), PetscIntH5());
  H5Tinsert(t, "direction", HOFFSET(CrossRec, dir), PetscIntH5());
  return t;
}

/* Exit and sensor records of all ranks on rank 0 (sorted), the density map summed there. */
static int CompareExitById(const void *a, const void *b)
{
  const ExitRec *x = (const ExitRec *)a, *y = (const ExitRec *)b;
  if (x->id != y->id) return x->id < y->id ? -1 : 1;
  if (x->time != y->time) return x->time < y->time ? -1 : 1;
  return (x->exit < 0) - (y->exit < 0); /* at one time: forward, then back */
}

/* The passages, one per agent, from the door-line crossings (-exit_rule pass): a crossing
   back inside (exit < 0: -1 - exit) cancels the forward one before it; an agent's passage
   is its last forward crossing.  On rank 0, *n records in, *n out, sorted by time. */
static void Passages(ExitRec *r, PetscInt *n)
{
  PetscInt out = 0;
  qsort(r, (size_t)*n, sizeof(ExitRec), CompareExitById);
  for (PetscInt k = 0; k < *n;) {
    PetscInt cand = -1, j = k;
    for (; j < *n && r[j].id == r[k].id; j++) cand = r[j].exit >= 0 ? j : -1;
    if (cand >= 0) r[out++] = r[cand];
    k = j;
  }
  *n = out;
  qsort(r, (size_t)*n, sizeof(ExitRec), CompareExit);
}

/* passages: the exit records reduced to one passage per agent (the report), or as they
   are (a checkpoint, so that a restart goes on with the same records) */
PetscErrorCode GatherAll(const Sim *s, PetscBool passages, ExitRec **all, PetscInt *tot, CrossRec **crs, PetscInt *ncr,
                         PetscReal **dens)
{
  const Crowd *c = CrowdOf(s);
  PetscFunctionBeginUser;
  PetscCall(GatherRecords(s->dom.comm, c->left, c->nleft, sizeof(ExitRec), CompareExit, (void **)all, tot));
  if (passages) {
    if (*all) Passages(*all, tot);
    PetscCallMPI(MPI_Bcast(tot, 1, MPIU_INT, 0, s->dom.comm));
  }
  PetscCall(GatherRecords(s->dom.comm, c->cross, c->ncross, sizeof(CrossRec), CompareCross, (void **)crs, ncr));
  PetscCall(GatherDensity((Sim *)s, dens));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The tables `exits` and `sensors` in group g (collective; rank 0's rows). */
PetscErrorCode WriteTables(MPI_Comm comm, hid_t g, hid_t dxpl, const ExitRec *all, PetscInt tot, const CrossRec *crs,
                           PetscInt ncr)
{
  hid_t   t;
  hsize_t d[1] = {(hsize_t)tot};
  PetscFunctionBeginUser;
  t = ExitType();
  PetscCall(IoWriteRoot(comm, g, dxpl, "exits", t, 1, d, all));
  H5Tclose(t);
  d[0] = (hsize_t)ncr;
  t    = CrossType();
  PetscCall(IoWriteRoot(comm, g, dxpl, "sensors", t, 1, d, crs));
  H5Tclose(t);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---- the final report -------------------------------------------------------------- */

static void Flow(PetscInt n, PetscReal first, PetscReal last, PetscReal *flow)
{
  *flow = n > 1 && last > first ? (PetscReal)(n - 1) / (last - first) : 0;
}

/* The crowd's records on rank 0 at the end: exit passages and sensor crossings in time
   order, the evacuation curve N(t), the mean density map. */
typedef struct {
  PetscReal  time;
  PetscInt64 remaining, moving; /* agents inside; of them, those whose pre-movement is over */
} CurveRow;

typedef struct {
  ExitRec   *all;
  CrossRec  *crs;
  PetscReal *dens;
  CurveRow  *curve;
  PetscInt   tot, ncr, ncurve;
} Report;

/* The summary lines (rank 0): agents out, each exit's flow, the doors' capacity, each
   sensor's crossings, the density map's peak. */
static PetscErrorCode ReportLines(const Sim *s, const Crowd *c, const Report *r)
{
  PetscFunctionBeginUser;
  PetscInt  *per;
  PetscReal *first, *last, fl;
  PetscCall(PetscCalloc3(c->geom->nexits, &per, c->geom->nexits, &first, c->geom->nexits, &last));
  for (PetscInt k = 0; k < r->tot; k++) {
    const PetscInt e = r->all[k].exit;
    if (!per[e]) first[e] = r->all[k].time;
    per[e]++;
    last[e] = r->all[k].time;
  }
  PetscCall(PetscPrintf(PETSC_COMM_SELF,
                        "summary: crowd: %" PetscInt_FMT " of %" PetscInt64_FMT " agents left, %s %g s\n", r->tot,
                        c->total, r->tot == c->total ? "evacuation time" : "still inside at",
                        r->tot == c->total && r->tot ? (double)r->all[r->tot - 1].time : (double)s->time));
  if (c->csm.checks > 0)
    PetscCall(PetscPrintf(PETSC_COMM_SELF,
                          "summary: crowd: -csm_check_reach: %" PetscInt64_FMT
                          " neighbour sets within R (owned agents and ring ghosts of rank 0) over %" PetscInt64_FMT
                          " steps, each equal to a brute-force search's\n",
                          c->csm.compared, c->csm.checks));
  for (PetscInt e = 0; e < c->geom->nexits; e++) {
    char name[GEOM_NAME_LEN + 8] = "";
    if (c->geom->name[e][0]) PetscCall(PetscSNPrintf(name, sizeof(name), " (%s)", c->geom->name[e]));
    Flow(per[e], first[e], last[e], &fl);
    PetscCall(PetscPrintf(
      PETSC_COMM_SELF,
      "summary: crowd: exit %" PetscInt_FMT "%s: %" PetscInt_FMT " agents, first %g s, last %g s, mean flow %.4g /s\n",
      e, name, per[e], per[e] ? (double)first[e] : 0.0, per[e] ? (double)last[e] : 0.0, (double)fl));
  }
  { /* what the doors could pass at the flow measured in laboratory bottlenecks: r->all
       doors shared evenly, and each door with the agents that chose it in this run */
    const PetscReal W = ExitWidth(c->geom, -1), t1 = r->tot ? r->all[0].time : 0;
    PetscReal       Tdoor = 0;
    for (PetscInt e = 0; e < c->geom->nexits; e++)
      if (per[e]) Tdoor = PetscMax(Tdoor, first[e] + (PetscReal)per[e] / (CROWD_LAB_FLOW * ExitWidth(c->geom, e)));
    PetscCall(PetscPrintf(
      PETSC_COMM_SELF,
      "summary: crowd: door capacity at %.2g /(m s): %.4g s with the doors shared evenly (%.4g m of "
      "doors, from the first passage at %g s); %.4g s for the agents each door had in this run\n",
      CROWD_LAB_FLOW, (double)(t1 + (PetscReal)c->total / (CROWD_LAB_FLOW * W)), (double)W, (double)t1, (double)Tdoor));
  }
  PetscCall(PetscFree3(per, first, last));
  for (PetscInt k = 0; k < c->geom->nsensors; k++) { /* per sensor: crossings each way, flow of the positive ones */
    PetscInt  np = 0, nm = 0;
    PetscReal t0 = 0, t1 = 0;
    for (PetscInt j = 0; j < r->ncr; j++) {
      if (r->crs[j].sensor != k) continue;
      if (r->crs[j].dir < 0) {
        nm++;
        continue;
      }
      if (!np) t0 = r->crs[j].time;
      np++;
      t1 = r->crs[j].time;
    }
    Flow(np, t0, t1, &fl);
    PetscCall(PetscPrintf(PETSC_COMM_SELF,
                          "summary: crowd: sensor %" PetscInt_FMT ": %" PetscInt_FMT
                          " crossings forward, %" PetscInt_FMT " back, net %" PetscInt_FMT
                          "; forward first %g s, last %g s, mean flow %.4g /s\n",
                          k, np, nm, np - nm, (double)t0, (double)t1, (double)fl));
  }
  if (r->dens) {
    PetscReal mx = 0;
    for (size_t k = 0; k < (size_t)c->dnx * c->dny; k++) mx = PetscMax(mx, r->dens[k]);
    PetscCall(PetscPrintf(PETSC_COMM_SELF,
                          "summary: crowd: density map %" PetscInt_FMT " x %" PetscInt_FMT
                          " cells of %g m, %" PetscInt_FMT " samples, peak mean density %.4g /m^2\n",
                          c->dnx, c->dny, (double)c->dh, c->dsamples, (double)mx));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* PREFIX.exits.csv, PREFIX.evacuation.csv, PREFIX.sensors.csv: rank 0 writes them, and
   the ranks agree on whether it could (collective). */
static PetscErrorCode ReportCSV(const Sim *s, const Crowd *c, const Report *r)
{
  MPI_Comm    comm = s->dom.comm;
  PetscMPIInt rank;
  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  char name[PETSC_MAX_PATH_LEN] = "";
  int  bad                      = 0;
  if (!rank) {
    FILE *f;
    PetscCall(PetscSNPrintf(name, sizeof(name), "%s.exits.csv", s->prm.output));
    if ((f = IoInjectFault(comm, "crowd-csv") ? NULL : fopen(name, "w"))) {
      fprintf(f, "id,time,exit,start,exit_name\n"); /* the name last: scripts read the first four by place */
      for (PetscInt k = 0; k < r->tot; k++)
        fprintf(f, "%lld,%.10g,%d,%.10g,%s\n", (long long)r->all[k].id, (double)r->all[k].time, (int)r->all[k].exit,
                (double)CrowdStartTime(s, c, r->all[k].id), c->geom->name[r->all[k].exit]);
      bad = fclose(f) != 0;
    } else bad = 1;
    if (!bad) {
      PetscCall(PetscSNPrintf(name, sizeof(name), "%s.evacuation.csv", s->prm.output));
      if ((f = fopen(name, "w"))) {
        fprintf(f, "time,remaining,moving\n");
        for (PetscInt k = 0; k < r->ncurve; k++)
          fprintf(f, "%.10g,%lld,%lld\n", (double)r->curve[k].time, (long long)r->curve[k].remaining,
                  (long long)r->curve[k].moving);
        bad = fclose(f) != 0;
      } else bad = 1;
    }
    if (!bad && c->nsrc) {
      PetscCall(PetscSNPrintf(name, sizeof(name), "%s.arrivals.csv", s->prm.output));
      if ((f = fopen(name, "w"))) {
        fprintf(f, "id,time,source\n");
        for (PetscInt64 k = 0; k < c->narr; k++)
          fprintf(f, "%lld,%.10g,%s\n", (long long)c->arr[k].id, (double)c->arr[k].time,
                  s->prm.src[c->arr[k].source].name);
        bad = fclose(f) != 0;
      } else bad = 1;
    }
    if (!bad) {
      PetscCall(PetscSNPrintf(name, sizeof(name), "%s.agents.csv", s->prm.output));
      if ((f = fopen(name, "w"))) {
        PetscCall(AgentsTableWrite(s, c, r->all, r->tot, f));
        bad = fclose(f) != 0;
      } else bad = 1;
    }
    if (!bad && c->geom->nsensors) {
      PetscCall(PetscSNPrintf(name, sizeof(name), "%s.sensors.csv", s->prm.output));
      if ((f = fopen(name, "w"))) {
        fprintf(f, "id,time,sensor,direction\n");
        for (PetscInt k = 0; k < r->ncr; k++)
          fprintf(f, "%lld,%.10g,%d,%d\n", (long long)r->crs[k].id, (double)r->crs[k].time, (int)r->crs[k].sensor,
                  (int)r->crs[k].dir);
        bad = fclose(f) != 0;
      } else bad = 1;
    }
  }
  PetscCall(IoAgree(comm, &bad));
  PetscCallMPI(MPI_Bcast(name, sizeof(name), MPI_CHAR, 0, comm));
  PetscCheck(!bad, comm, PETSC_ERR_FILE_WRITE, "cannot write the crowd table '%s'", name);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The same in PREFIX.h5, group /crowd (collective). */
static PetscErrorCode ReportGroup(const Sim *s, const Crowd *c, const Report *r, hid_t file, hid_t dxpl)
{
  MPI_Comm comm = s->dom.comm;
  PetscFunctionBeginUser;
  hid_t   g, t;
  hsize_t d[2];
  if (H5Lexists(file, "crowd", H5P_DEFAULT) > 0)
    PetscCallHDF5(comm, H5Ldelete(file, "crowd", H5P_DEFAULT)); /* a restarted run reports anew */
  PetscCallHDF5(comm, g = H5Gcreate2(file, "crowd", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
  {
    const long long n0 = (long long)c->total;
    const PetscReal W = ExitWidth(c->geom, -1), js = CROWD_LAB_FLOW;
    PetscCall(IoWriteAttr(comm, g, "agents", H5T_NATIVE_LLONG, 0, &n0));
    PetscCall(IoWriteAttr(comm, g, "door_width", H5T_NATIVE_DOUBLE, 0, &W));
    PetscCall(IoWriteAttr(comm, g, "lab_specific_flow", H5T_NATIVE_DOUBLE, 0, &js));
    PetscCall(IoWriteStringAttr(comm, g, "description",
                                "exits: one row per agent that left (id, time s, exit); exits_start: the time each "
                                "one started to walk (its pre-movement over); evacuation: agents inside, and those "
                                "of them walking, after each time one left, arrived or started; arrivals (with "
                                "sources): id, time s, source; sensors: one row per crossing "
                                "of a sensor line (direction +1 "
                                "from its left to its right); density: mean agents per m^2"));
  }
  PetscCall(WriteTables(comm, g, dxpl, r->all, r->tot, r->crs, r->ncr));
  { /* each passage's agent's start time (its pre-movement over), row for row */
    PetscReal *st;
    PetscCall(PetscMalloc1(r->tot + 1, &st));
    for (PetscInt k = 0; r->all && k < r->tot; k++) st[k] = CrowdStartTime(s, c, r->all[k].id);
    d[0] = (hsize_t)r->tot;
    PetscCall(IoWriteRoot(comm, g, dxpl, "exits_start", H5T_NATIVE_DOUBLE, 1, d, st));
    PetscCall(PetscFree(st));
  }
  if (c->nsrc) { /* the arrivals (replicated: rank 0's rows) */
    d[0] = (hsize_t)c->narr;
    t    = ArrivalType();
    PetscCall(IoWriteRoot(comm, g, dxpl, "arrivals", t, 1, d, c->arr));
    H5Tclose(t);
  }
  t = H5Tcreate(H5T_COMPOUND, sizeof(CurveRow));
  H5Tinsert(t, "time", HOFFSET(CurveRow, time), H5T_NATIVE_DOUBLE);
  H5Tinsert(t, "remaining", HOFFSET(CurveRow, remaining), H5T_NATIVE_INT64);
  H5Tinsert(t, "moving", HOFFSET(CurveRow, moving), H5T_NATIVE_INT64);
  d[0] = (hsize_t)r->ncurve;
  PetscCall(IoWriteRoot(comm, g, dxpl, "evacuation", t, 1, d, r->curve));
  H5Tclose(t);
  if (c->dens) {
    hid_t           ds;
    const PetscReal origin[2] = {c->dx0, c->dy0};
    const PetscInt  ns        = c->dsamples;
    d[0] = (hsize_t)c->dny, d[1] = (hsize_t)c->dnx;
    PetscCall(IoWriteRoot(comm, g, dxpl, "density", H5T_NATIVE_DOUBLE, 2, d, r->dens));
    PetscCallHDF5(comm, ds = H5Dopen2(g, "density", H5P_DEFAULT));
    PetscCall(IoWriteAttr(comm, ds, "origin", H5T_NATIVE_DOUBLE, 2, origin));
    PetscCall(IoWriteAttr(comm, ds, "cell", H5T_NATIVE_DOUBLE, 0, &c->dh));
    PetscCall(IoWriteAttr(comm, ds, "interval", H5T_NATIVE_DOUBLE, 0, &s->prm.densDt));
    PetscCall(IoWriteAttr(comm, ds, "samples", PetscIntH5(), 0, &ns));
    PetscCall(IoWriteStringAttr(comm, ds, "layout",
                                "value[iy][ix] is the mean number of agents per m^2 in the cell [x0 + ix h, x0 + "
                                "(ix+1) h) x [y0 + iy h, y0 + (iy+1) h), (x0, y0) = origin, h = cell"));
    PetscCallHDF5(comm, H5Dclose(ds));
  }
  PetscCallHDF5(comm, H5Gclose(g));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static int CompareReal(const void *a, const void *b)
{
  const PetscReal x = *(const PetscReal *)a, y = *(const PetscReal *)b;
  return (x > y) - (x < y);
}

/* The curve (rank 0): the agents inside (the initial ones, plus arrivals, minus
   departures), and of them those walking, at t = 0 and after every time at which agents
   left, arrived or started to walk. */
static PetscErrorCode Curve(const Sim *s, const Crowd *c, Report *r)
{
  PetscReal *start, *arrive;
  PetscInt64 ns = 0, na = c->narr, js = 0, ja = 0, moving = 0, inside = c->n0;
  PetscInt   je = 0;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc2(c->nspeed + 1, &start, na + 1, &arrive));
  for (PetscInt64 i = 0; i < c->nspeed; i++) { /* when each one starts to walk */
    const PetscReal t0 = i < c->n0 ? 0 : c->arr[i - c->n0].time;
    start[ns++]        = PetscMax(t0, CrowdStartTime(s, c, i));
  }
  for (PetscInt64 a = 0; a < na; a++) arrive[a] = c->arr[a].time;
  qsort(start, (size_t)ns, sizeof(PetscReal), CompareReal);
  qsort(arrive, (size_t)na, sizeof(PetscReal), CompareReal);
  while (js < ns && start[js] <= 0) js++, moving++;
  while (ja < na && arrive[ja] <= 0) ja++, inside++;
  PetscCall(PetscMalloc1(r->tot + ns + na + 1, &r->curve));
  r->curve[r->ncurve++] = (CurveRow){0, inside, moving};
  while (je < r->tot || js < ns || ja < na) {
    PetscReal t = PETSC_INFINITY;
    if (je < r->tot) t = PetscMin(t, r->all[je].time);
    if (js < ns) t = PetscMin(t, start[js]);
    if (ja < na) t = PetscMin(t, arrive[ja]);
    for (; je < r->tot && r->all[je].time == t; je++) moving--, inside--;
    for (; js < ns && start[js] == t; js++) moving++;
    for (; ja < na && arrive[ja] == t; ja++) inside++;
    r->curve[r->ncurve++] = (CurveRow){t, inside, moving};
  }
  PetscCall(PetscFree2(start, arrive));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Per source (rank 0): its arrivals, and those still waiting to enter. */
static PetscErrorCode ReportSources(const Sim *s, const Crowd *c, PetscInt passages)
{
  PetscFunctionBeginUser;
  for (PetscInt si = 0; si < c->nsrc; si++) {
    PetscInt64 n  = 0;
    PetscReal  t0 = 0, t1 = 0, fl;
    for (PetscInt64 a = 0; a < c->narr; a++)
      if (c->arr[a].source == si) {
        if (!n) t0 = c->arr[a].time;
        t1 = c->arr[a].time;
        n++;
      }
    Flow((PetscInt)n, t0, t1, &fl);
    PetscCall(PetscPrintf(PETSC_COMM_SELF,
                          "summary: crowd: source %s: %" PetscInt64_FMT " arrivals, first %g s, last %g s, mean rate "
                          "%.4g /s; %s\n",
                          s->prm.src[si].name, n, (double)t0, (double)t1, (double)fl,
                          !isfinite(c->src[si].next)   ? "no more to come"
                          : c->src[si].next <= s->time ? "some waiting to enter at the end (every spot taken)"
                                                       : "more to come after the end"));
  }
  if (c->nsrc)
    PetscCall(PetscPrintf(PETSC_COMM_SELF,
                          "summary: crowd: occupancy: %" PetscInt64_FMT " at the start, %" PetscInt64_FMT
                          " arrivals, %" PetscInt64_FMT " departures, %" PetscInt64_FMT " inside at the end\n",
                          c->n0, (PetscInt64)c->narr, (PetscInt64)passages, c->total - passages));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The pre-movement times drawn, per population, next to the distribution asked for;
   and each population's free speeds (rank 0). */
static PetscErrorCode ReportPopulations(const Sim *s, const Crowd *c)
{
  const Params  *prm = &s->prm;
  const PetscInt np  = PetscMax(prm->npop, 1);
  PetscFunctionBeginUser;
  if (!prm->npop && !c->premove) PetscFunctionReturn(PETSC_SUCCESS);
  for (PetscInt k = 0; k < np; k++) {
    const PetscInt64 first = prm->npop ? prm->pop[k].first : 0, n = prm->npop ? prm->pop[k].count : c->total;
    const Dist      *pre = prm->npop ? &prm->pop[k].premove : &prm->premove;
    char             want[128], name[64] = "";
    PetscReal       *v, sum = 0, vs = 0, vlo = PETSC_MAX_REAL, vhi = 0;
    if (n <= 0 || first + n > c->nspeed) continue;
    if (prm->npop) PetscCall(PetscSNPrintf(name, sizeof(name), " of population %s", prm->pop[k].name));
    if (prm->npop) {
      for (PetscInt64 i = first; i < first + n; i++) {
        vs += c->speed[i];
        vlo = PetscMin(vlo, c->speed[i]), vhi = PetscMax(vhi, c->speed[i]);
      }
      DistText(&prm->pop[k].speed, want, sizeof(want));
      PetscCall(PetscPrintf(PETSC_COMM_SELF,
                            "summary: crowd: population %s: %" PetscInt64_FMT " agents (ids %" PetscInt64_FMT
                            " to %" PetscInt64_FMT "), free speed drawn mean %.4g, min %.4g, max %.4g m/s; asked %s\n",
                            prm->pop[k].name, n, first, first + n - 1, (double)(vs / (PetscReal)n), (double)vlo,
                            (double)vhi, want));
    }
    if (!c->premove) continue;
    PetscCall(PetscMalloc1(n, &v));
    for (PetscInt64 i = 0; i < n; i++) sum += (v[i] = c->premove[first + i]);
    qsort(v, (size_t)n, sizeof(PetscReal), CompareReal);
    DistText(pre, want, sizeof(want));
    PetscCall(PetscPrintf(PETSC_COMM_SELF,
                          "summary: crowd: pre-movement%s: %" PetscInt64_FMT
                          " agents, drawn mean %.4g s, median %.4g s, min %.4g s, max %.4g s; asked %s\n",
                          name, n, (double)(sum / (PetscReal)n),
                          (double)(n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2])), (double)v[0], (double)v[n - 1],
                          want));
    PetscCall(PetscFree(v));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode CrowdFinish(Sim *s, void *ctx, PetscBool writeFiles, hid_t file, hid_t dxpl)
{
  Crowd      *c    = CrowdOf(s);
  MPI_Comm    comm = s->dom.comm;
  PetscMPIInt rank;
  Report      rep = {NULL, NULL, NULL, NULL, 0, 0, 0};
  Report     *r   = &rep;

  PetscFunctionBeginUser;
  if (!c) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCall(GatherAll(s, PETSC_TRUE, &r->all, &r->tot, &r->crs, &r->ncr, &r->dens));
  /* every agent removed has had its passage recorded, once */
  PetscCheck(s->ndisks > 0 || r->tot == c->total, comm, PETSC_ERR_PLIB,
             "%" PetscInt64_FMT " agents left the scene but %" PetscInt_FMT " passages were recorded", c->total,
             r->tot);
  if (!rank) PetscCall(Curve(s, c, r)); /* N(t) and the agents moving */
  if (!rank) {
    if (r->dens)
      for (size_t k = 0; k < (size_t)c->dnx * c->dny; k++) r->dens[k] /= PetscMax(c->dsamples, 1) * c->dh * c->dh;
  }
  PetscCallMPI(MPI_Bcast(&r->ncurve, 1, MPIU_INT, 0, comm));
  if (!rank) PetscCall(ReportLines(s, c, r));
  if (!rank) PetscCall(ReportPopulations(s, c));
  if (!rank) PetscCall(ReportSources(s, c, r->tot)); /* departures: passages, as the line above */
  PetscCall(RouterReport(s, &c->route));
  PetscCall(FloorsReport(s, &c->floors, r->tot, r->all, writeFiles));
  if (writeFiles) PetscCall(ReportCSV(s, c, r));
  if (writeFiles && file >= 0) PetscCall(ReportGroup(s, c, r, file, dxpl));
  PetscCall(PetscFree(r->curve));
  PetscCall(PetscFree(r->all));
  PetscCall(PetscFree(r->crs));
  PetscCall(PetscFree(r->dens));
  PetscFunctionReturn(PETSC_SUCCESS);
}
