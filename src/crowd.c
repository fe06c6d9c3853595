/* crowd — pedestrians leaving a venue (seed 001 §4.2).
 *
 * The crowd model of Maury and Venel: each agent i has a desired velocity
 *     U_i = v_i w(q_i),   w = -grad phi / |grad phi|,
 * phi the travel distance to the nearest exit (eikonal.c), and its actual velocity is
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
 * evacuation time and the mean flow through each exit.                              */
#include <throng/sim.h>
#include <throng/init.h>

static PetscErrorCode DesiredVelocity(const DriverTerm *t, PetscInt m, const PetscReal *x, const PetscReal *y, const PetscInt64 *id, PetscReal *fx, PetscReal *fy)
{
  const Sim *s = (const Sim *)t->ctx;
  PetscFunctionBeginUser;
  for (PetscInt i = 0; i < m; i++) {
    PetscReal       wx, wy;
    const PetscReal v = id[i] < s->crowd.nspeed ? (PetscReal)s->crowd.speed[id[i]] : InitFreeSpeed(&s->prm, id[i]);
    EikonalDirection(&s->crowd.eik, x[i], y[i], &wx, &wy);
    fx[i] += v * wx;
    fy[i] += v * wy;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode CrowdSetUp(Sim *s)
{
  Crowd *c = &s->crowd;
  PetscFunctionBeginUser;
  if (!s->prm.geometry[0]) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(GeometryRead(s->dom.comm, s->prm.geometry, s->prm.walk, &c->geom));
  c->on = s->prm.walk; /* -walk false: the geometry's walls only (granular, labyrinth) */
  if (!c->on) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(EikonalSolve(s->dom.comm, &c->geom, s->prm.eikH, s->prm.eikWall, &c->eik));
  /* the free speeds, drawn once per id (rounded to float: a table of 4 bytes per agent
     instead of a Philox draw, a log and a cosine per agent and step) */
  c->nspeed = s->prm.n;
  PetscCall(PetscMalloc1(c->nspeed + 1, &c->speed));
  for (PetscInt64 i = 0; i < c->nspeed; i++) c->speed[i] = (float)InitFreeSpeed(&s->prm, i);
  {
    DriverTerm t = {"desired velocity", DesiredVelocity, s};
    PetscCall(DriverAddTerm(&s->drv, &t));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscBool CrowdSiteOK(void *ctx, PetscReal x, PetscReal y, PetscReal margin)
{
  const Geometry *g = &((const Sim *)ctx)->crowd.geom;
  if (!GeometryInside(g, x, y)) return PETSC_FALSE;
  for (PetscInt k = 0; k < g->nring; k++) {
    PetscReal cx, cy;
    if (SegmentDistance(&g->ring[4 * k], x, y, &cx, &cy) < margin) return PETSC_FALSE;
  }
  return PETSC_TRUE;
}

PetscErrorCode CrowdCheckAgents(Sim *s)
{
  Crowd           *c = &s->crowd;
  const Particles *p = &s->P;
  PetscReal        bad[4] = {-1, 0, 0, 0}; /* id, x, y, kind (1 outside, 2 on a wall, 3 no exit) */

  PetscFunctionBeginUser;
  if (!c->on) PetscFunctionReturn(PETSC_SUCCESS);
  for (PetscInt i = 0; i < p->n && bad[0] < 0; i++) {
    PetscReal kind = 0;
    if (!GeometryInside(&c->geom, p->x[i], p->y[i])) kind = 1;
    else {
      for (PetscInt k = 0; k < c->geom.nwall && !kind; k++) {
        PetscReal cx, cy;
        if (SegmentDistance(&c->geom.wall[4 * k], p->x[i], p->y[i], &cx, &cy) < p->r[i]) kind = 2;
      }
      if (!kind && !isfinite(EikonalValue(&c->eik, p->x[i], p->y[i]))) kind = 3;
    }
    if (kind) bad[0] = (PetscReal)p->id[i], bad[1] = p->x[i], bad[2] = p->y[i], bad[3] = kind;
  }
  { /* the lowest bad id over all ranks is reported */
    struct {
      double v;
      int    r;
    } in = {bad[0] < 0 ? 1e300 : bad[0], 0}, out;
    PetscCallMPI(MPI_Comm_rank(s->dom.comm, &in.r));
    PetscCallMPI(MPI_Allreduce(&in, &out, 1, MPI_DOUBLE_INT, MPI_MINLOC, s->dom.comm));
    if (out.v < 1e300) {
      PetscCallMPI(MPI_Bcast(bad, 4, MPIU_REAL, out.r, s->dom.comm));
      PetscCheck(bad[3] != 1, s->dom.comm, PETSC_ERR_USER_INPUT, "agent %.0f at (%g, %g) is outside the walkable area of '%s': check -init_region", bad[0], bad[1], bad[2], s->prm.geometry);
      PetscCheck(bad[3] != 2, s->dom.comm, PETSC_ERR_USER_INPUT, "agent %.0f at (%g, %g) overlaps a wall of '%s': check -init_region and -radius", bad[0], bad[1], bad[2], s->prm.geometry);
      SETERRQ(s->dom.comm, PETSC_ERR_USER_INPUT, "agent %.0f at (%g, %g) cannot reach any exit of '%s' (a region closed off by walls, or narrower than -eikonal_h)", bad[0], bad[1], bad[2], s->prm.geometry);
    }
  }
  c->total = c->remaining = s->prm.n;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode CrowdExits(Sim *s)
{
  Crowd     *c = &s->crowd;
  Particles *p = &s->P;
  PetscInt   keep = 0;
  PetscInt64 removed;

  PetscFunctionBeginUser;
  if (!c->on) PetscFunctionReturn(PETSC_SUCCESS);
  for (PetscInt i = 0; i < p->n; i++) {
    PetscInt ex = -1;
    for (PetscInt k = 0; k < c->geom.nexit && ex < 0; k++) { /* at the door line, or just through it */
      PetscReal       cx, cy;
      const PetscReal d = SegmentDistance(&c->geom.exit[4 * k], p->x[i], p->y[i], &cx, &cy);
      if (d <= p->r[i] || (d <= s->walls.depth && !GeometryInside(&c->geom, p->x[i], p->y[i]))) ex = c->geom.exitId[k];
    }
    if (ex >= 0) {
      PetscCall(ThrongGrow(&c->left, sizeof(ExitRec), c->nleft, &c->capLeft));
      c->left[c->nleft++] = (ExitRec){p->id[i], s->time, ex};
      continue;
    }
    if (keep != i) {
      p->x[keep] = p->x[i], p->y[keep] = p->y[i], p->r[keep] = p->r[i], p->id[keep] = p->id[i];
      p->xb[keep] = p->xb[i], p->yb[keep] = p->yb[i];
    }
    keep++;
  }
  removed = p->n - keep;
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &removed, 1, MPIU_INT64, MPI_SUM, s->dom.comm));
  if (removed) {
    p->n  = keep;
    p->ng = 0;
    c->remaining -= removed;
    PetscCall(SimRebin(s));
    PetscCall(IdFingerprint(s->dom.comm, p, &s->idPrint)); /* the id set changed on purpose */
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static int CompareExit(const void *a, const void *b)
{
  const ExitRec *x = (const ExitRec *)a, *y = (const ExitRec *)b;
  if (x->time != y->time) return x->time < y->time ? -1 : 1;
  return (x->id > y->id) - (x->id < y->id);
}

PetscErrorCode CrowdFinish(Sim *s, PetscBool writeFiles)
{
  Crowd       *c = &s->crowd;
  PetscMPIInt  size, rank, n = (PetscMPIInt)c->nleft, *cnt = NULL, *dsp = NULL;
  ExitRec     *all = NULL;
  MPI_Datatype t;
  PetscInt     tot = 0;

  PetscFunctionBeginUser;
  if (!c->on) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCallMPI(MPI_Comm_size(s->dom.comm, &size));
  PetscCallMPI(MPI_Comm_rank(s->dom.comm, &rank));
  if (!rank) PetscCall(PetscMalloc2(size, &cnt, size, &dsp));
  PetscCallMPI(MPI_Gather(&n, 1, MPI_INT, cnt, 1, MPI_INT, 0, s->dom.comm));
  if (!rank) {
    for (PetscMPIInt k = 0; k < size; k++) dsp[k] = (PetscMPIInt)tot, tot += cnt[k];
    PetscCall(PetscMalloc1(tot + 1, &all));
  }
  PetscCallMPI(MPI_Type_contiguous((int)sizeof(ExitRec), MPI_BYTE, &t));
  PetscCallMPI(MPI_Type_commit(&t));
  PetscCallMPI(MPI_Gatherv(c->left, n, t, all, cnt, dsp, t, 0, s->dom.comm));
  PetscCallMPI(MPI_Type_free(&t));
  if (!rank) {
    PetscInt  *per;
    PetscReal *first, *last;
    qsort(all, (size_t)tot, sizeof(ExitRec), CompareExit);
    PetscCall(PetscCalloc3(c->geom.nexits, &per, c->geom.nexits, &first, c->geom.nexits, &last));
    for (PetscInt k = 0; k < tot; k++) {
      const PetscInt e = all[k].exit;
      if (!per[e]) first[e] = all[k].time;
      per[e]++;
      last[e] = all[k].time;
    }
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "summary: crowd: %" PetscInt_FMT " of %" PetscInt64_FMT " agents left, %s %g s\n", tot, c->total, tot == c->total ? "evacuation time" : "still inside at", tot == c->total && tot ? (double)all[tot - 1].time : (double)s->time));
    for (PetscInt e = 0; e < c->geom.nexits; e++)
      PetscCall(PetscPrintf(PETSC_COMM_SELF, "summary: crowd: exit %" PetscInt_FMT ": %" PetscInt_FMT " agents, first %g s, last %g s, mean flow %.4g /s\n", e, per[e], per[e] ? (double)first[e] : 0.0, per[e] ? (double)last[e] : 0.0, per[e] > 1 && last[e] > first[e] ? (double)((per[e] - 1) / (last[e] - first[e])) : 0.0));
    if (writeFiles) {
      char  name[PETSC_MAX_PATH_LEN];
      FILE *f;
      PetscCall(PetscSNPrintf(name, sizeof(name), "%s.exits.csv", s->prm.output));
      f = fopen(name, "w");
      PetscCheck(f, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "cannot write '%s'", name);
      fprintf(f, "id,time,exit\n");
      for (PetscInt k = 0; k < tot; k++) fprintf(f, "%lld,%.10g,%d\n", (long long)all[k].id, (double)all[k].time, (int)all[k].exit);
      fclose(f);
      PetscCall(PetscSNPrintf(name, sizeof(name), "%s.evacuation.csv", s->prm.output));
      f = fopen(name, "w");
      PetscCheck(f, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "cannot write '%s'", name);
      fprintf(f, "time,remaining\n0,%lld\n", (long long)c->total);
      for (PetscInt k = 0; k < tot; k++)
        if (k + 1 == tot || all[k + 1].time != all[k].time) fprintf(f, "%.10g,%lld\n", (double)all[k].time, (long long)(c->total - k - 1));
      fclose(f);
    }
    PetscCall(PetscFree3(per, first, last));
    PetscCall(PetscFree(all));
    PetscCall(PetscFree2(cnt, dsp));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode CrowdDestroy(Sim *s)
{
  Crowd *c = &s->crowd;
  PetscFunctionBeginUser;
  PetscCall(GeometryDestroy(&c->geom));
  if (!c->on) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(EikonalDestroy(&c->eik));
  PetscCall(PetscFree(c->left));
  PetscCall(PetscFree(c->speed));
  PetscFunctionReturn(PETSC_SUCCESS);
}
