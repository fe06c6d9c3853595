/* stall — a crowd that no longer moves ends the run, saying where it is stuck.
 *
 * An evacuation ends when the last agent has left.  A crowd can also lock: two streams
 * head-on in a corridor or on a flight of stairs, agents waiting on each other's spots
 * at a link, a group walled in by a geometry that lets no one through.  Then nothing
 * changes any more, and without a detector the run would go on to -steps and end with
 * exit status 0, its summary saying only that agents are still inside.  A study of
 * fifty seeds would count such a run as an evacuation time.
 *
 * The rule.  A check every `every` seconds of simulated time (1 s, or -stall_time / 4
 * if shorter): the crowd has made progress since the window's start tref if an agent
 * left or arrived or went through a link (the counts of agents inside, of arrivals and
 * of link passages changed), or if some agent that walks (its pre-movement is over) is
 * more than -stall_distance (0.2 m) away from where it was at tref (a locked crowd
 * still jiggles, by a few centimetres: up to 6 cm in a locked counterflow on a flight).
 * While agents still wait to start, or a source still has arrivals to come, the crowd
 * counts as moving: they will change it.  Progress starts the window again (tref = now, every agent's
 * position kept in the per-disk fields stall_x, stall_y); a window of -stall_time
 * seconds (default 60) without progress is a stall.  The run stops there: the summary,
 * the crowd's tables and a checkpoint are written as at any end of a run, then the run
 * fails with one error that says where the agents are: how many on each floor, within
 * which coordinates, how many of them wait in the lane of a link.
 *
 * Determinism.  The check times are multiples of `every`, the moves are reduced with
 * MPI_MAX and the counts are global: every rank decides alike, on any rank count.  The
 * fields and the window (tref, the counts, the last check) are in the checkpoint, so a
 * restart stops at the same step.  Cost: one pass over the owned agents and one
 * reduction per check (every 50 steps at h = 0.02 s).
 *
 * The ETA of the progress lines.  A crowd that leaves ends before -steps; its progress
 * line estimates the simulated time left from the outflow of the last progress lines
 * (agents inside over the agents that left per second) and prints it beside the bound
 * that -steps gives (report.c).                                                        */
#include <throng/crowd/stall.h>
#include <throng/crowd/floors.h>
#include <throng/crowd/source.h>
#include <string.h>

PetscErrorCode StallSetFromOptions(Opt *o)
{
  Params   *p = o->p;
  PetscBool set[2];
  PetscFunctionBeginUser;
  p->stallTime = 60;
  p->stallDist = 0.2;
  PetscCall(OptReal(o, OPT_RUN, "-stall_time",
                    "Crowd: stop with an error when for this many seconds of simulated time no agent has left, "
                    "arrived, gone through a link or moved more than -stall_distance (0: never; docs/crowd.md)",
                    &p->stallTime, &set[0]));
  PetscCall(OptReal(o, OPT_RUN, "-stall_distance", "Crowd: a move shorter than this (m) is no progress (-stall_time)",
                    &p->stallDist, &set[1]));
  for (int k = 0; k < 2; k++)
    PetscCheck(!set[k] || (p->geometry[0] && p->walk), o->comm, PETSC_ERR_USER_INPUT,
               "%s describes a crowd: it needs a crowd scene (-geometry FILE), without which it would be ignored",
               k ? "-stall_distance" : "-stall_time");
  PetscCheck(p->stallTime >= 0, o->comm, PETSC_ERR_USER_INPUT, "-stall_time %g: must be >= 0 (0: never)",
             (double)p->stallTime);
  {
    char text[64];
    PetscCall(PetscSNPrintf(text, sizeof(text), "%g", (double)p->stallTime));
    PetscCall(ParamsCheckTime(o->comm, "-stall_time", text, p->stallTime));
  }
  PetscCheck(p->stallDist > 0 && p->stallDist <= 100, o->comm, PETSC_ERR_USER_INPUT,
             "-stall_distance %g: give a distance in metres, in (0, 100]", (double)p->stallDist);
  PetscCheck(!set[1] || p->stallTime > 0, o->comm, PETSC_ERR_USER_INPUT,
             "-stall_distance with -stall_time 0: the detector is off, and would ignore it");
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode StallSetUp(Sim *s, Stall *st)
{
  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(st, sizeof(*st)));
  st->kx = st->ky = -1;
  st->checked     = -1;
  if (!(s->prm.stallTime > 0)) PetscFunctionReturn(PETSC_SUCCESS);
  st->on    = PETSC_TRUE;
  st->time  = s->prm.stallTime;
  st->dist  = s->prm.stallDist;
  st->every = PetscMax(s->prm.dt, PetscMin(1.0, st->time / 4));
  PetscCall(
    ParticlesRegisterField(&s->P, "stall_x", FIELD_REAL, FIELD_OWNED | FIELD_MIGRATES | FIELD_CHECKPOINT, &st->kx));
  PetscCall(
    ParticlesRegisterField(&s->P, "stall_y", FIELD_REAL, FIELD_OWNED | FIELD_MIGRATES | FIELD_CHECKPOINT, &st->ky));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The counts whose change is progress: agents inside, arrivals, link passages. */
static void Signature(const Sim *s, const Crowd *c, PetscInt64 sig[3])
{
  sig[0] = s->ndisks;
  sig[1] = c->narr;
  sig[2] = c->floors.nrec;
}

/* Where the stuck agents are, as the error's text (collective; every rank gets it). */
static PetscErrorCode Where(Sim *s, const Crowd *c, const Stall *st)
{
  const Geometry   *g  = c->geom;
  const Particles  *p  = &s->P;
  const PetscInt    nf = PetscMax(g->nfloors, 1), nl = 2 * g->nlinks;
  PetscReal        *box, *cnt; /* per floor: -xmin, -ymin, xmax, ymax; counts per floor, then per link side */
  char              msg[sizeof(s->fail)];
  const PetscInt64 *fl = c->floors.on ? (const PetscInt64 *)ParticlesField(p, c->floors.kfloor) : NULL;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc2(4 * nf, &box, nf + nl + 1, &cnt));
  for (PetscInt k = 0; k < 4 * nf; k++) box[k] = PETSC_MIN_REAL;
  for (PetscInt k = 0; k < nf + nl; k++) cnt[k] = 0;
  for (PetscInt i = 0; i < p->n; i++) {
    const PetscInt f = fl && fl[i] >= 0 ? (PetscInt)fl[i] : 0,
                   l = c->floors.on ? FloorsBeyond(g, &c->floors, p->x[i], p->y[i]) : -1;
    box[4 * f] = PetscMax(box[4 * f], -p->x[i]), box[4 * f + 1] = PetscMax(box[4 * f + 1], -p->y[i]);
    box[4 * f + 2] = PetscMax(box[4 * f + 2], p->x[i]), box[4 * f + 3] = PetscMax(box[4 * f + 3], p->y[i]);
    cnt[f] += 1;
    if (l >= 0) cnt[nf + l] += 1;
  }
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, box, 4 * (PetscMPIInt)nf, MPIU_REAL, MPI_MAX, s->dom.comm));
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, cnt, (PetscMPIInt)(nf + nl), MPIU_REAL, MPI_SUM, s->dom.comm));
  PetscCall(PetscSNPrintf(msg, sizeof(msg),
                          "the crowd is stuck: for %g s (since t = %g s) no agent has left, arrived, gone through a "
                          "link or moved more than %g m (-stall_time, -stall_distance); %" PetscInt64_FMT
                          " agents are inside:",
                          (double)(s->time - st->tref), (double)st->tref, (double)st->dist, s->ndisks));
  for (PetscInt f = 0; f < nf; f++) {
    char part[256], name[GEOM_NAME_LEN + 16] = "";
    if (!(cnt[f] > 0)) continue;
    if (g->nfloors)
      PetscCall(
        PetscSNPrintf(name, sizeof(name), " on %s '%s'", g->floor[f].stair ? "flight" : "floor", g->floor[f].name));
    PetscCall(PetscSNPrintf(part, sizeof(part), " %.0f%s at x %.2f to %.2f, y %.2f to %.2f;", (double)cnt[f], name,
                            (double)-box[4 * f], (double)box[4 * f + 2], (double)-box[4 * f + 1],
                            (double)box[4 * f + 3]));
    PetscCall(PetscStrlcat(msg, part, sizeof(msg)));
  }
  for (PetscInt l = 0; l < nl; l++) {
    char part[160];
    if (!(cnt[nf + l] > 0)) continue;
    const GeomLink *lk = &g->link[l >> 1];
    PetscCall(PetscSNPrintf(part, sizeof(part), " %.0f wait to go through link '%s' from %s '%s';", (double)cnt[nf + l],
                            lk->name[0] ? lk->name : "(unnamed)", g->floor[lk->floor[l & 1]].stair ? "flight" : "floor",
                            g->floor[lk->floor[l & 1]].name));
    PetscCall(PetscStrlcat(msg, part, sizeof(msg)));
  }
  PetscCall(PetscStrlcat(msg,
                         " the summary and the records are written, and a checkpoint. Head-on streams through one "
                         "link or one flight can lock (docs/crowd.md); check the routes and the geometry",
                         sizeof(msg)));
  PetscCall(PetscStrncpy(s->fail, msg, sizeof(s->fail)));
  PetscCall(PetscFree2(box, cnt));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode StallStep(Sim *s, Stall *st, const char **stop)
{
  const Crowd     *c = CrowdOf(s);
  const Particles *p = &s->P;
  PetscInt64       sig[3];
  PetscReal        m[2] = {0, 0}; /* the largest move of a walking agent; anyone waiting */

  PetscFunctionBeginUser;
  if (!st->on) PetscFunctionReturn(PETSC_SUCCESS);
  const PetscInt64 k = (PetscInt64)PetscFloorReal(s->time / st->every * (1 + 1e-12));
  if (k <= st->checked) PetscFunctionReturn(PETSC_SUCCESS);
  st->checked   = k;
  PetscReal *sx = (PetscReal *)ParticlesField(p, st->kx), *sy = (PetscReal *)ParticlesField(p, st->ky);
  for (PetscInt i = 0; i < p->n; i++) {
    if (CrowdWaiting(c, p->id[i], s->time)) {
      m[1] = 1;
      continue;
    }
    m[0] = PetscMax(m[0], PetscSqr(p->x[i] - sx[i]) + PetscSqr(p->y[i] - sy[i]));
  }
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, m, 2, MPIU_REAL, MPI_MAX, s->dom.comm));
  Signature(s, c, sig);
  if (m[1] > 0 || SourcesPending(c) || !(m[0] <= st->dist * st->dist) || sig[0] != st->sig[0] || sig[1] != st->sig[1] ||
      sig[2] != st->sig[2] || !s->ndisks) { /* progress, or there will be: a new window */
    st->tref = s->time;
    PetscCall(PetscArraycpy(st->sig, sig, 3));
    for (PetscInt i = 0; i < p->n; i++) sx[i] = p->x[i], sy[i] = p->y[i];
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (s->time - st->tref < st->time * (1 - 1e-12)) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(Where(s, c, st));
  *stop = "the crowd is stuck";
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscReal StallTimeLeft(const Sim *s, Stall *st)
{
  const Crowd *c = CrowdOf(s);
  PetscInt     n = PetscMin(st->neta, 8), a = (st->neta - n) % 8, b;
  if (!c) return -1;
  st->eta[0][st->neta % 8] = s->time, st->eta[1][st->neta % 8] = (PetscReal)s->ndisks;
  st->neta++;
  b = (st->neta - 1) % 8;
  if (n < 1 || SourcesPending(c)) return -1;
  const PetscReal dt = st->eta[0][b] - st->eta[0][a], out = st->eta[1][a] - st->eta[1][b];
  return dt > 0 && out > 0 ? (PetscReal)s->ndisks * dt / out : -1;
}

PetscErrorCode StallCheckpointWrite(const Sim *s, const Stall *st, hid_t grp)
{
  const double v[5] = {(double)st->tref, (double)st->sig[0], (double)st->sig[1], (double)st->sig[2],
                       (double)st->checked};
  PetscFunctionBeginUser;
  if (!st->on) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(IoWriteAttr(s->dom.comm, grp, "stall_window", H5T_NATIVE_DOUBLE, 5, v));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode StallCheckpointRead(Sim *s, Stall *st, hid_t grp, const char *path)
{
  double    v[5] = {0, 0, 0, 0, 0};
  PetscBool found;
  PetscFunctionBeginUser;
  if (!st->on) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(IoReadAttr(s->dom.comm, grp, "stall_window", H5T_NATIVE_DOUBLE, MPI_DOUBLE, 5, v, &found));
  PetscCheck(found, s->dom.comm, PETSC_ERR_FILE_UNEXPECTED,
             "restart file '%s' lacks the stall detector's window (/checkpoint/crowd, attribute stall_window): it "
             "was written with -stall_time 0, or by an older throng; give -stall_time 0",
             path);
  st->tref = (PetscReal)v[0];
  for (int k = 0; k < 3; k++) st->sig[k] = (PetscInt64)v[1 + k];
  st->checked = (PetscInt64)v[4];
  PetscFunctionReturn(PETSC_SUCCESS);
}
