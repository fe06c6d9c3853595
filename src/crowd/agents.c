/* agents — one row per agent: what it drew, when it started, when and where it left.
 *
 * A study checks its agents, not only its evacuation time: were the pre-movement times
 * drawn as the distribution asked, did the slow population take the stairs, how long did
 * the agents of the upper floor need.  The run's other tables answer per event (exits,
 * arrivals, link passages); PREFIX.agents.csv answers per agent, written by rank 0 at the
 * end beside them (records.c), one row per id in id order:
 *
 *     id           the agent (ids of the start first, then the arrivals in order)
 *     population   its population's name (-populations; "" for -speed's agents)
 *     source       the source it arrived by ("" for an agent of the start)
 *     arrival      its entry time (s; "" for an agent of the start)
 *     radius       its radius (m)
 *     free_speed   its free speed (m/s), as the law uses it (rounded to float)
 *     premove      the pre-movement time it drew (s), counted from its entry
 *     start        when it started to walk: the first step time at or after its entry
 *                  plus its pre-movement time (s)
 *     exit_time    when its centre went through a door (s; "" if it is still inside)
 *     exit         the door's index ("" if still inside), and exit_name its name
 *     floor        the floor it started on, or the floor of the spot it arrived at
 *                  (scenes of floors; "" otherwise)
 *
 * The radius and the floor of origin are kept per id from the start (the agents who have
 * left are no longer anywhere else): the floor is looked up once per agent (a
 * point-in-polygon test), the tables are replicated (8 bytes per agent) and go into
 * checkpoints, so a restarted run writes the whole table.                              */
#include <throng/crowd/agents.h>
#include <throng/crowd/route.h>
#include <throng/core/init.h>
#include <string.h>

PetscErrorCode AgentsCreated(Sim *s, Crowd *c)
{
  const Particles *p = &s->P;
  float           *buf;
  PetscFunctionBeginUser;
  PetscCall(PetscMalloc1(2 * c->n0 + 2, &buf));
  for (PetscInt64 i = 0; i < 2 * c->n0; i++) buf[i] = -1;
  for (PetscInt i = 0; i < p->n; i++)
    if (p->id[i] < c->n0) {
      buf[2 * p->id[i]]     = (float)p->r[i];
      buf[2 * p->id[i] + 1] = (float)GeometryFloorAt(c->geom, p->x[i], p->y[i]);
    }
  for (PetscInt64 o = 0; o < 2 * c->n0; o += 1 << 26) /* MPI counts are int */
    PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, buf + o, (PetscMPIInt)PetscMin(1 << 26, 2 * c->n0 - o), MPI_FLOAT, MPI_MAX,
                               s->dom.comm));
  for (PetscInt64 i = 0; i < c->n0; i++) c->radius[i] = buf[2 * i], c->origin[i] = (int)buf[2 * i + 1];
  PetscCall(PetscFree(buf));
  PetscFunctionReturn(PETSC_SUCCESS);
}

void AgentsArrived(Crowd *c, const ParticleRec *rec, PetscInt floor)
{
  c->radius[rec->id] = (float)rec->r;
  c->origin[rec->id] = (int)floor;
}

PetscErrorCode AgentsCheckpointWrite(const Sim *s, const Crowd *c, hid_t grp, hid_t dxpl)
{
  hsize_t d[1] = {(hsize_t)c->nspeed};
  PetscFunctionBeginUser;
  PetscCall(IoWriteRoot(s->dom.comm, grp, dxpl, "agents_radius", H5T_NATIVE_FLOAT, 1, d, c->radius));
  PetscCall(IoWriteRoot(s->dom.comm, grp, dxpl, "agents_floor", H5T_NATIVE_INT, 1, d, c->origin));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AgentsCheckpointRead(Sim *s, Crowd *c, hid_t grp, const char *path)
{
  int bad = 0;
  PetscFunctionBeginUser;
  if (!s->dom.rank)
    bad = IoReadRoot(grp, "agents_radius", H5T_NATIVE_FLOAT, (hsize_t)c->nspeed, c->radius) < 0 ||
          IoReadRoot(grp, "agents_floor", H5T_NATIVE_INT, (hsize_t)c->nspeed, c->origin) < 0;
  PetscCall(IoAgree(s->dom.comm, &bad));
  PetscCheck(!bad, s->dom.comm, PETSC_ERR_FILE_READ,
             "restart file '%s': the agents' radii and floors (/checkpoint/crowd/agents_radius, agents_floor) are "
             "missing or damaged",
             path);
  for (PetscInt64 o = 0; o < c->nspeed; o += 1 << 26) {
    const PetscMPIInt n = (PetscMPIInt)PetscMin(1 << 26, c->nspeed - o);
    PetscCallMPI(MPI_Bcast(c->radius + o, n, MPI_FLOAT, 0, s->dom.comm));
    PetscCallMPI(MPI_Bcast(c->origin + o, n, MPI_INT, 0, s->dom.comm));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A CSV field: a name in quotes if it holds a comma or a quote (RFC 4180). */
static void CsvField(FILE *f, const char *v)
{
  if (!strpbrk(v, ",\"\n")) fputs(v, f);
  else {
    fputc('"', f);
    for (; *v; v++) fputs(*v == '"' ? "\"\"" : (char[2]){*v, 0}, f);
    fputc('"', f);
  }
}

PetscErrorCode AgentsTableWrite(const Sim *s, const Crowd *c, const ExitRec *pass, PetscInt npass, FILE *f)
{
  const Params   *prm = &s->prm;
  const Geometry *g   = c->geom;
  PetscInt       *at, *arrival; /* per id: its passage, its arrival (-1: none) */
  PetscFunctionBeginUser;
  PetscCall(PetscMalloc2(c->nspeed + 1, &at, c->nspeed + 1, &arrival));
  for (PetscInt64 i = 0; i < c->nspeed; i++) at[i] = arrival[i] = -1;
  for (PetscInt k = 0; k < npass; k++)
    if (pass[k].id >= 0 && pass[k].id < c->nspeed) at[pass[k].id] = k;
  for (PetscInt k = 0; k < c->narr; k++)
    if (c->arr[k].id >= 0 && c->arr[k].id < c->nspeed) arrival[c->arr[k].id] = k;
  fprintf(f, "id,population,source,arrival,radius,free_speed,premove,start,exit_time,exit,exit_name,floor\n");
  for (PetscInt64 i = 0; i < c->nspeed; i++) {
    const ArrivalRec *a   = arrival[i] >= 0 ? &c->arr[arrival[i]] : NULL;
    const PetscInt    pop = a ? prm->src[a->source].popIndex : (prm->npop ? ParamsPopulationOf(prm, i) : -1);
    const PetscReal   t0 = a ? a->time : 0, pre = c->premove ? (PetscReal)c->premove[i] - t0 : 0;
    fprintf(f, "%lld,", (long long)i);
    CsvField(f, pop >= 0 ? prm->pop[pop].name : "");
    fputc(',', f);
    CsvField(f, a ? prm->src[a->source].name : "");
    if (a) fprintf(f, ",%.10g", (double)a->time);
    else fputc(',', f);
    fprintf(f, ",%.7g,%.7g,%.10g,%.10g", (double)c->radius[i], (double)c->speed[i], (double)pre,
            (double)PetscMax(t0, CrowdStartTime(s, c, i)));
    if (at[i] >= 0) {
      const ExitRec *e = &pass[at[i]];
      fprintf(f, ",%.10g,%d,", (double)e->time, (int)e->exit);
      CsvField(f, g->name[e->exit]);
    } else fputs(",,,", f);
    fputc(',', f);
    CsvField(f, c->origin[i] >= 0 && c->origin[i] < g->nfloors ? g->floor[c->origin[i]].name : "");
    fputc('\n', f);
  }
  PetscCall(PetscFree2(at, arrival));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode CrowdAgentsAdd(Sim *s, Crowd *c, PetscInt m, const ParticleRec *recs, const PetscInt *pops)
{
  const Params *prm = &s->prm;
  PetscInt     *route;
  PetscFunctionBeginUser;
  if (c->nspeed + m >= c->capId) { /* the per-id tables grow by half */
    const PetscInt64 cap = c->nspeed + m + c->nspeed / 2 + 16;
    PetscCall(PetscRealloc(sizeof(float) * (size_t)cap, &c->speed));
    {
      float *r;
      int   *o;
      PetscCall(PetscMalloc2(cap, &r, cap, &o));
      PetscCall(PetscArraycpy(r, c->radius, c->nspeed));
      PetscCall(PetscArraycpy(o, c->origin, c->nspeed));
      PetscCall(PetscFree2(c->radius, c->origin));
      c->radius = r, c->origin = o;
    }
    if (c->premove) PetscCall(PetscRealloc(sizeof(double) * (size_t)cap, &c->premove));
    if (c->csm.pop) PetscCall(PetscRealloc((size_t)cap, &c->csm.pop));
    c->capId = cap;
  }
  PetscCall(PetscMalloc1(m + 1, &route));
  for (PetscInt a = 0; a < m; a++) {
    const PetscInt64 id = c->nspeed + a;
    const PetscInt   k  = pops[a];
    PetscCheck(recs[a].id == id, PETSC_COMM_SELF, PETSC_ERR_PLIB, "arrival id out of order");
    c->speed[id] = (float)InitFreeSpeedOf(prm, k, id);
    if (c->premove) c->premove[id] = (double)(s->time + InitPremoveOf(prm, k, id)); /* from its entry */
    if (c->csm.pop) c->csm.pop[id] = (char)PetscMax(k, 0);
    route[a] = k >= 0 ? c->popRoute[k] : -1;
    AgentsArrived(c, &recs[a], GeometryFloorAt(c->geom, recs[a].x, recs[a].y));
  }
  PetscCall(RouterArrived(&c->route, c->geom, m, recs, route));
  PetscCall(PetscFree(route));
  c->nspeed += m;
  c->total += m;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Initial-condition filter: (x, y) inside the walkable area, margin from every wall. */
