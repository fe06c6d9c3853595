/* route — where each agent walks: assigned routes, and exits chosen by expected travel time.
 *
 * Without routes every agent walks down the travel-distance field of the nearest exit
 * (eikonal.c).  Two things change that, both from the scene (geometry.c) and options:
 *
 * Assigned routes (RiMEA test 10).  A `route T1,T2,... REGION` line sends the agents that
 * start in REGION (or whose ids it names) to its targets in turn: waypoints, then one
 * exit.  Each target (every exit and every waypoint) gets its own distance field, computed
 * once at set-up, the same way on every rank.  An agent walks down its current target's
 * field; once its centre is within -waypoint_radius of a waypoint it takes the route's
 * next target.  A routed agent keeps its exit.
 *
 * Exit choice by expected travel time (-route_choice quickest; RiMEA test 11).  The model
 * is the quickest-path idea of Kemloh Wagoum, Seyfried and Holl (2012), "Modelling dynamic
 * route choice of pedestrians to assess the criticality of building evacuation" (Adv.
 * Complex Syst. 15), reduced to exits and one queue per exit: an agent at distance d_e from
 * exit e (down e's own field), with free speed v, expects to leave through e at
 *     T_e = max(d_e / v,  Q_e(d_e) / C_e),
 * the later of walking there and of the door having passed everyone ahead of it: Q_e(d)
 * is the number of agents heading for e that are closer to it than d, and C_e = J_s w_e
 * its capacity, w_e its width and J_s = -route_flow (default 1.9 /(m s), the specific
 * flow of laboratory bottlenecks, CROWD_LAB_FLOW).  This is the fluid-queue estimate of
 * the hydraulic models (a door passes C_e agents per second whatever waits in front of
 * it); it makes a jammed door slow and a free one fast, and needs no congestion model of
 * the room itself.
 *
 * Every -route_interval seconds (default 2 s) of simulated time, at the end of a step:
 *   1. each rank counts its owned agents by the exit they head for and their distance to
 *      it, in bins of 0.5 m: integer counts, summed over the ranks by MPI_Allreduce of
 *      64-bit integers, so exact and the same on any rank count and in any order;
 *   2. every rank forms Q_e from the same counts (the cumulative count below an agent's
 *      bin, plus its bin's count times the fraction of the bin below it);
 *   3. an agent reconsiders when (k + id) mod P = 0, k the recomputation's index and
 *      P = -route_reconsider / -route_interval: each agent once every -route_reconsider
 *      seconds (default 10 s), a different fifth of the crowd each time.  It is a
 *      candidate for the best exit b if T_b + -route_gain < T_c, c its exit (default
 *      10 s);
 *   4. the candidates are counted like the crowd (a second exact allreduce), and each
 *      adds the candidates closer to b than itself to Q_b: it changes only if it still
 *      gains.  Without this a crowd leaves a jammed door together on one estimate and
 *      jams the other (herding), and the queues swing between the doors;
 *   5. an agent that changed keeps its new exit for -route_commit seconds (30 s).
 * The staggering and step 4 keep the crowd from switching all at once; the gain and the
 * commitment keep an agent from flapping between nearly equal doors (with the defaults
 * no agent returns to the exit it left within 30 s; tests/test_routes.sh).  The report
 * counts the changes, the agents that changed more than once, and the returns.
 * An agent with no target of its own heads for the exit nearest to it, and walks down the
 * combined field exactly as without routing; only a switch gives it an exit of its own.
 *
 * Bitwise identity.  An agent's state (target, route, leg, changes, last change) is
 * one 64-bit word per id, replicated on every rank (8 bytes per agent), because ghosts
 * must predict exactly as their owners do and the desired direction depends on it.  The
 * owner of an agent decides its changes from its own position and the global counts;
 * at the end of each step the changes of all ranks are gathered (MPI_Allgatherv of
 * (id, state) pairs, only when there are any) and applied by every rank.  The decisions
 * depend on nothing that varies with the decomposition, so the trajectory is the same
 * on any number of ranks.  A checkpoint carries the words and the index of the last
 * recomputation, so a restart goes on exactly.
 *
 * Cost.  A recomputation is one pass over the owned agents for the counts, two
 * allreduces of nexits x nbins integers and one pass with nexits field lookups for the
 * agents that reconsider; every step adds an allreduce of one integer, and an allgather
 * when there are changes.  The fields cost 25 bytes per
 * node and target on every rank (eikonal.c).  jobs/bench_routes.sh measures it.        */
#include <throng/core/sim.h>
#include <throng/crowd/route.h>
#include <throng/core/init.h>
#include <throng/io/io.h>
#include <math.h>

#define ROUTE_BIN 0.5 /* m: the bins of the queue counts */

/* The exit an agent heads for (its target's, its route's last, or the nearest), and
   its distance to it down that exit's field (inf: none). */
static PetscInt HeadingFor(const Router *rt, const Geometry *g, uint64_t st, PetscReal x, PetscReal y, PetscReal *d)
{
  const unsigned t = ROUTE_TARGET(st);
  PetscInt       e = -1;
  *d               = PETSC_INFINITY;
  if (t != ROUTE_NEAREST && (PetscInt)t < rt->nexits) e = (PetscInt)t;
  else if (t != ROUTE_NEAREST) {
    const GeomRoute *r = &g->route[ROUTE_ROUTE(st)];
    e                  = r->target[r->ntarget - 1];
  } else
    for (PetscInt k = 0; k < rt->nexits; k++) {
      const PetscReal v = EikonalValue(&rt->field[k], x, y);
      if (v < *d) *d = v, e = k;
    }
  if (e >= 0 && t != ROUTE_NEAREST) *d = EikonalValue(&rt->field[e], x, y);
  return e;
}

PetscErrorCode RouterSetUp(Sim *s, Router *rt, const Geometry *g)
{
  MPI_Comm  comm = s->dom.comm;
  PetscReal dmax = 0;
  char      a[64], b[64];

  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(rt, sizeof(*rt)));
  rt->quickest = s->prm.routeChoice == ROUTE_QUICKEST ? PETSC_TRUE : PETSC_FALSE;
  rt->on       = (PetscBool)(g->nroutes > 0 || rt->quickest);
  if (!rt->on) PetscFunctionReturn(PETSC_SUCCESS);
  rt->nexits     = g->nexits;
  rt->ntarget    = g->nexits + g->nways;
  rt->interval   = s->prm.routeInterval;
  rt->reconsider = s->prm.routeReconsider;
  rt->gain       = s->prm.routeGain;
  rt->flow       = s->prm.routeFlow;
  rt->wayRadius  = s->prm.wayRadius;
  rt->commit     = s->prm.routeCommit;
  rt->period     = (PetscInt)PetscMax(1, PetscFloorReal(rt->reconsider / rt->interval + 0.5));
  rt->hold       = (PetscInt)PetscMin(60000, PetscCeilReal(rt->commit / rt->interval - 1e-9));
  rt->last       = 0; /* the first recomputation comes after one interval */
  PetscCall(PetscCalloc1(rt->ntarget, &rt->field));
  {
    PetscInt   *nseg;
    PetscReal **segs;
    PetscCall(PetscCalloc2(rt->ntarget, &nseg, rt->ntarget, &segs));
    for (PetscInt t = 0; t < rt->ntarget; t++) {
      if (t < g->nexits) { /* this exit's segments */
        PetscCall(PetscMalloc1(4 * g->nexit, &segs[t]));
        for (PetscInt k = 0; k < g->nexit; k++)
          if (g->exitId[k] == t) PetscCall(PetscArraycpy(&segs[t][4 * nseg[t]++], &g->exit[4 * k], 4));
      } else {
        PetscCall(PetscMalloc1(4, &segs[t]));
        PetscCall(PetscArraycpy(segs[t], &g->way[4 * (t - g->nexits)], 4));
        nseg[t] = 1;
      }
    }
    /* marched by the ranks in turn, broadcast: the same fields everywhere, sooner */
    PetscCall(EikonalSolveMany(comm, g, s->prm.eikH, s->prm.eikWall, rt->ntarget, nseg, segs, rt->field));
    for (PetscInt t = 0; t < rt->ntarget; t++) PetscCall(PetscFree(segs[t]));
    PetscCall(PetscFree2(nseg, segs));
  }
  for (PetscInt t = 0; t < g->nexits; t++)
    for (PetscInt k = 0; k < rt->field[t].nx * rt->field[t].ny; k++)
      if (isfinite(rt->field[t].phi[k])) dmax = PetscMax(dmax, rt->field[t].phi[k]);
  /* every leg of every route can be walked: from each waypoint to the next target */
  for (PetscInt r = 0; r < g->nroutes; r++) {
    const GeomRoute *R = &g->route[r];
    for (PetscInt l = 0; l + 1 < R->ntarget; l++) {
      const PetscReal *w = &g->way[4 * (R->target[l] - g->nexits)];
      const PetscReal  v = EikonalValue(&rt->field[R->target[l + 1]], 0.5 * (w[0] + w[2]), 0.5 * (w[1] + w[3]));
      PetscCheck(isfinite(v), comm, PETSC_ERR_USER_INPUT,
                 "-geometry '%s', line %" PetscInt_FMT ": the route has no path from %s to %s (walls close it off, or "
                 "the passage is narrower than -eikonal_h)",
                 s->prm.geometry, R->line, GeometryTargetName(g, R->target[l], a, sizeof(a)),
                 GeometryTargetName(g, R->target[l + 1], b, sizeof(b)));
    }
  }
  rt->nstate = s->prm.n;
  PetscCall(PetscMalloc1(rt->nstate + 1, &rt->state));
  for (PetscInt64 i = 0; i < rt->nstate; i++) rt->state[i] = ROUTE_STATE(ROUTE_NEAREST, -1, 0, 0);
  if (rt->quickest) {
    rt->bin  = ROUTE_BIN;
    rt->nbin = (PetscInt)PetscCeilReal(dmax / rt->bin) + 2;
    PetscCall(PetscMalloc2(2 * (size_t)rt->nexits * rt->nbin, &rt->hist, rt->nexits, &rt->cap));
    rt->cand = rt->hist + (size_t)rt->nexits * rt->nbin;
    for (PetscInt e = 0; e < rt->nexits; e++) {
      PetscReal w = 0;
      for (PetscInt k = 0; k < g->nexit; k++)
        if (g->exitId[k] == e)
          w += PetscSqrtReal(PetscSqr(g->exit[4 * k + 2] - g->exit[4 * k]) +
                             PetscSqr(g->exit[4 * k + 3] - g->exit[4 * k + 1]));
      rt->cap[e] = rt->flow * w;
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode RouterDestroy(Router *rt)
{
  PetscFunctionBeginUser;
  for (PetscInt t = 0; rt->field && t < rt->ntarget; t++) PetscCall(EikonalDestroy(&rt->field[t]));
  PetscCall(PetscFree(rt->field));
  PetscCall(PetscFree(rt->state));
  PetscCall(PetscFree2(rt->hist, rt->cap));
  PetscCall(PetscFree(rt->ev));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode AddEvent(Router *rt, PetscInt64 id, uint64_t st)
{
  PetscFunctionBeginUser;
  PetscCall(ThrongGrow(&rt->ev, 2 * sizeof(uint64_t), rt->nev, &rt->capEv));
  rt->ev[2 * rt->nev]     = (uint64_t)id;
  rt->ev[2 * rt->nev + 1] = st;
  rt->nev++;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Every rank's changes, applied by every rank (collective). */
static PetscErrorCode Exchange(Sim *s, Router *rt)
{
  MPI_Comm    comm = s->dom.comm;
  PetscMPIInt size, cnt = (PetscMPIInt)(2 * rt->nev), *cnts, *dsp;
  PetscInt64  tot = rt->nev;
  uint64_t   *all;
  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &tot, 1, MPIU_INT64, MPI_SUM, comm));
  if (!tot) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCheck(2 * tot < PETSC_MPI_INT_MAX, comm, PETSC_ERR_SUP, "%" PetscInt64_FMT " route changes in one step", tot);
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCall(PetscMalloc3(size, &cnts, size, &dsp, 2 * tot, &all));
  PetscCallMPI(MPI_Allgather(&cnt, 1, MPI_INT, cnts, 1, MPI_INT, comm));
  for (PetscMPIInt k = 0, o = 0; k < size; o += cnts[k], k++) dsp[k] = o;
  PetscCallMPI(MPI_Allgatherv(rt->ev, cnt, MPI_UINT64_T, all, cnts, dsp, MPI_UINT64_T, comm));
  for (PetscInt64 k = 0; k < tot; k++) {
    const uint64_t id = all[2 * k];
    PetscCheck(id < (uint64_t)rt->nstate, PETSC_COMM_SELF, PETSC_ERR_PLIB, "route change for id %llu of %lld",
               (unsigned long long)id, (long long)rt->nstate);
    const uint64_t old = rt->state[id], st = all[2 * k + 1];
    if (ROUTE_SWITCHES(st) > ROUTE_SWITCHES(old) && ROUTE_SWITCHES(old) &&
        (PetscInt)ROUTE_TARGET(st) == ROUTE_PREV(old)) {
      rt->returns++; /* back to the exit it left last; quick: within 30 s */
      rt->quick += (PetscReal)((ROUTE_WHEN(st) - ROUTE_WHEN(old)) & 0xFFFF) * rt->interval < 30;
    }
    rt->state[id] = st;
  }
  rt->nev = 0;
  PetscCall(PetscFree3(cnts, dsp, all));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode RouterCreated(Sim *s, Router *rt, const Geometry *g)
{
  const Particles *p   = &s->P;
  PetscReal        bad = -1, pos[3] = {0, 0, 0};
  char             a[64];

  PetscFunctionBeginUser;
  if (!rt->on) PetscFunctionReturn(PETSC_SUCCESS);
  for (PetscInt i = 0; i < p->n; i++)
    for (PetscInt r = 0; r < g->nroutes; r++) {
      if (!GeometryRouteHolds(g, r, p->id[i], p->x[i], p->y[i])) continue;
      const PetscInt t0 = g->route[r].target[0];
      PetscCall(AddEvent(rt, p->id[i], ROUTE_STATE(t0, r, 0, 0)));
      if (!isfinite(EikonalValue(&rt->field[t0], p->x[i], p->y[i])) && (bad < 0 || p->id[i] < bad))
        bad = (PetscReal)p->id[i], pos[0] = p->x[i], pos[1] = p->y[i], pos[2] = (PetscReal)r;
      break;
    }
  { /* the lowest id that cannot reach its first target, on every rank */
    struct {
      double v;
      int    r;
    } in = {bad < 0 ? 1e300 : bad, 0}, out;
    PetscCallMPI(MPI_Comm_rank(s->dom.comm, &in.r));
    PetscCallMPI(MPI_Allreduce(&in, &out, 1, MPI_DOUBLE_INT, MPI_MINLOC, s->dom.comm));
    if (out.v < 1e300) {
      PetscCallMPI(MPI_Bcast(pos, 3, MPIU_REAL, out.r, s->dom.comm));
      const GeomRoute *R = &g->route[(PetscInt)pos[2]];
      SETERRQ(s->dom.comm, PETSC_ERR_USER_INPUT,
              "-geometry '%s', line %" PetscInt_FMT
              ": agent %.0f at (%g, %g) has no path to its route's first target, %s",
              s->prm.geometry, R->line, out.v, (double)pos[0], (double)pos[1],
              GeometryTargetName(g, R->target[0], a, sizeof(a)));
    }
  }
  PetscCall(Exchange(s, rt));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode RouterArrived(Router *rt, const Geometry *g, PetscInt m, const ParticleRec *recs, const PetscInt *route)
{
  PetscFunctionBeginUser;
  if (!rt->on || !m) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscRealloc(sizeof(uint64_t) * (size_t)(rt->nstate + m + 1), &rt->state));
  for (PetscInt a = 0; a < m; a++) {
    PetscInt r = route[a];
    PetscCheck(recs[a].id == rt->nstate + a, PETSC_COMM_SELF, PETSC_ERR_PLIB,
               "arrival id %" PetscInt64_FMT " out of order", recs[a].id);
    for (PetscInt k = 0; r < 0 && k < g->nroutes; k++)
      if (g->route[k].id0 < 0 && GeometryRouteHolds(g, k, recs[a].id, recs[a].x, recs[a].y)) r = k;
    rt->state[rt->nstate + a] =
      r < 0 ? ROUTE_STATE(ROUTE_NEAREST, -1, 0, 0) : ROUTE_STATE(g->route[r].target[0], r, 0, 0);
  }
  rt->nstate += m;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The owned agents' waypoints: the next target once within -waypoint_radius. */
static PetscErrorCode Waypoints(Sim *s, Router *rt, const Geometry *g)
{
  const Particles *p = &s->P;
  PetscFunctionBeginUser;
  if (!g->nways) PetscFunctionReturn(PETSC_SUCCESS);
  for (PetscInt i = 0; i < p->n; i++) {
    const uint64_t st = rt->state[p->id[i]];
    const unsigned t  = ROUTE_TARGET(st);
    PetscReal      cx, cy;
    if (t == ROUTE_NEAREST || (PetscInt)t < rt->nexits) continue;
    if (SegmentDistance(&g->way[4 * (t - rt->nexits)], p->x[i], p->y[i], &cx, &cy) > rt->wayRadius) continue;
    const PetscInt   r = ROUTE_ROUTE(st), l = ROUTE_LEG(st) + 1;
    const GeomRoute *R = &g->route[r];
    PetscCall(AddEvent(rt, p->id[i], ROUTE_STATE(R->target[l], r, l, ROUTE_SWITCHES(st))));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscInt Bin(const Router *rt, PetscReal d)
{
  return (PetscInt)PetscMin((PetscReal)(rt->nbin - 1), PetscFloorReal(d / rt->bin));
}

/* Per exit, the counts by bin into counts of the bins up to each. */
static void Cumulate(const Router *rt, PetscInt64 *h)
{
  for (PetscInt e = 0; e < rt->nexits; e++)
    for (PetscInt b = 1; b < rt->nbin; b++) h[(size_t)e * rt->nbin + b] += h[(size_t)e * rt->nbin + b - 1];
}

/* The agents of the cumulative counts hc ahead of distance d in exit e's queue: all of
   the bins below d's, and the part of its bin below d. */
static PetscReal Ahead(const Router *rt, const PetscInt64 *hc, PetscInt e, PetscReal d)
{
  const PetscReal   f     = d / rt->bin;
  const PetscInt    b     = Bin(rt, d);
  const PetscInt64 *h     = &hc[(size_t)e * rt->nbin];
  const PetscInt64  below = b ? h[b - 1] : 0; /* h is the prefix sum: h[b] counts bins 0..b */
  return (PetscReal)below + (f - (PetscReal)b) * (PetscReal)(h[b] - below);
}

/* One recomputation of the exit choice (index k). */
static PetscErrorCode Choose(Sim *s, Router *rt, const Geometry *g, const float *speed, PetscInt64 k)
{
  const Particles *p  = &s->P;
  const PetscInt   ne = rt->nexits, nb = rt->nbin;
  const size_t     m  = (size_t)ne * nb;
  PetscInt         nc = 0;
  struct Cand {
    PetscInt  i, e, c;
    PetscReal d, v, Tc;
  } * cand;

  PetscFunctionBeginUser;
  PetscCall(PetscArrayzero(rt->hist, 2 * m));
  for (PetscInt i = 0; i < p->n; i++) { /* 1. the counts */
    PetscReal      d;
    const PetscInt e = HeadingFor(rt, g, rt->state[p->id[i]], p->x[i], p->y[i], &d);
    if (e < 0 || !isfinite(d)) continue;
    rt->hist[(size_t)e * nb + Bin(rt, d)]++;
  }
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, rt->hist, (PetscMPIInt)m, MPIU_INT64, MPI_SUM, s->dom.comm));
  Cumulate(rt, rt->hist); /* 2. cumulative */
  PetscCall(PetscMalloc1(p->n + 1, &cand));
  for (PetscInt i = 0; i < p->n; i++) { /* 3. the agents whose turn it is, and would gain */
    const PetscInt64 id = p->id[i];
    const uint64_t   st = rt->state[id];
    if (ROUTE_ROUTE(st) >= 0 || (k + id) % rt->period) continue;
    if (ROUTE_SWITCHES(st) && ((k - ROUTE_WHEN(st)) & 0xFFFF) < rt->hold) continue; /* committed */
    const PetscReal v = id < rt->nstate ? (PetscReal)speed[id] : InitFreeSpeed(&s->prm, id);
    PetscReal       dc, T[256], de = 0, best = PETSC_INFINITY;
    const PetscInt  c  = HeadingFor(rt, g, st, p->x[i], p->y[i], &dc);
    PetscInt        eb = -1;
    if (c < 0) continue;
    for (PetscInt e = 0; e < ne; e++) {
      const PetscReal d = e == c ? dc : EikonalValue(&rt->field[e], p->x[i], p->y[i]);
      T[e]              = isfinite(d) ? PetscMax(d / v, Ahead(rt, rt->hist, e, d) / rt->cap[e]) : PETSC_INFINITY;
      if (T[e] < best) best = T[e], eb = e, de = d;
    }
    if (eb < 0 || eb == c || !(T[eb] + rt->gain < T[c])) continue;
    cand[nc++] = (struct Cand){i, eb, c, de, v, T[c]};
    rt->cand[(size_t)eb * nb + Bin(rt, de)]++;
  }
  /* 4. the candidates all join their new exits' queues at once: each one counts those
        closer to its new exit too, and switches only if it still gains (the herding
        that a one-shot estimate causes, where a whole crowd leaves a door together) */
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, rt->cand, (PetscMPIInt)m, MPIU_INT64, MPI_SUM, s->dom.comm));
  Cumulate(rt, rt->cand);
  for (PetscInt q = 0; q < nc; q++) {
    const struct Cand *a  = &cand[q];
    const PetscInt64   id = p->id[a->i];
    const uint64_t     st = rt->state[id];
    const PetscReal    Te =
      PetscMax(a->d / a->v, (Ahead(rt, rt->hist, a->e, a->d) + Ahead(rt, rt->cand, a->e, a->d)) / rt->cap[a->e]);
    if (Te + rt->gain < a->Tc)
      PetscCall(AddEvent(rt, id, ROUTE_SWITCH(a->e, PetscMin(255, ROUTE_SWITCHES(st) + 1), a->c, k)));
  }
  PetscCall(PetscFree(cand));
  rt->recomputations++;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode RouterStep(Sim *s, Router *rt, const Geometry *g, const float *speed)
{
  PetscFunctionBeginUser;
  if (!rt->on) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscLogEventBegin(THRONG_EV.route, 0, 0, 0, 0));
  PetscCall(Waypoints(s, rt, g));
  if (rt->quickest) {
    const PetscInt64 k = (PetscInt64)PetscFloorReal(s->time / rt->interval * (1 + 1e-12));
    if (k > rt->last) {
      const PetscLogDouble t0 = MPI_Wtime();
      rt->last                = k;
      PetscCall(Choose(s, rt, g, speed, k));
      rt->wall += MPI_Wtime() - t0;
    }
  }
  PetscCall(Exchange(s, rt));
  PetscCall(PetscLogEventEnd(THRONG_EV.route, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode RouterReport(Sim *s, const Router *rt)
{
  PetscReal   wall[2] = {rt->wall, 0};
  PetscMPIInt rank;
  PetscFunctionBeginUser;
  if (!rt->on) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, wall, 1, MPIU_REAL, MPI_MAX, s->dom.comm));
  PetscCallMPI(MPI_Comm_rank(s->dom.comm, &rank));
  if (rank) PetscFunctionReturn(PETSC_SUCCESS);
  PetscInt64 routed = 0, switched = 0, twice = 0, switches = 0, most = 0;
  for (PetscInt64 i = 0; i < rt->nstate; i++) {
    const uint64_t st = rt->state[i];
    const PetscInt n  = ROUTE_SWITCHES(st);
    routed += ROUTE_ROUTE(st) >= 0;
    switched += n > 0;
    twice += n > 1;
    switches += n;
    most = PetscMax(most, n);
  }
  PetscCall(
    PetscPrintf(PETSC_COMM_SELF, "summary: crowd: routes: %" PetscInt64_FMT " agents on assigned routes\n", routed));
  if (rt->quickest)
    PetscCall(PetscPrintf(PETSC_COMM_SELF,
                          "summary: crowd: exit choice: %" PetscInt64_FMT
                          " recomputations every %.6g s, %" PetscInt64_FMT " switches by %" PetscInt64_FMT
                          " agents, %" PetscInt64_FMT " of them more than once (at most %" PetscInt64_FMT
                          "), %" PetscInt64_FMT " returns to the exit left last, %" PetscInt64_FMT
                          " of them within 30 s; %.4g s of wall time\n",
                          rt->recomputations, (double)rt->interval, switches, switched, twice, most, rt->returns,
                          rt->quick, (double)wall[0]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode RouterCheckpointWrite(Sim *s, const Router *rt, hid_t grp, hid_t dxpl)
{
  MPI_Comm    comm = s->dom.comm;
  PetscMPIInt rank;
  hid_t       sp, ds;
  hsize_t     d[1] = {(hsize_t)rt->nstate}, zero[1] = {0}, cnt[1];
  long long   v[4] = {(long long)rt->last, (long long)rt->recomputations, (long long)rt->returns, (long long)rt->quick};

  PetscFunctionBeginUser;
  if (!rt->on) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCallHDF5(comm, sp = H5Screate_simple(1, d, NULL));
  PetscCallHDF5(comm,
                ds = H5Dcreate2(grp, "route_state", H5T_NATIVE_UINT64, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
  PetscCallHDF5(comm, H5Sclose(sp));
  cnt[0] = rank ? 0 : d[0];
  if (d[0]) PetscCall(IoWriteHyperslab(comm, ds, dxpl, H5T_NATIVE_UINT64, 1, zero, cnt, rt->state));
  PetscCall(IoWriteAttr(comm, ds, "last,recomputations,returns,quick", H5T_NATIVE_LLONG, 4, v));
  PetscCallHDF5(comm, H5Dclose(ds));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode RouterCheckpointRead(Sim *s, Router *rt, hid_t grp, const char *path)
{
  MPI_Comm    comm = s->dom.comm;
  PetscMPIInt rank;
  long long   v[4] = {0, 0, 0, 0};
  int         ok   = 0;

  PetscFunctionBeginUser;
  if (!rt->on) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  if (!rank && H5Lexists(grp, "route_state", H5P_DEFAULT) > 0) {
    hid_t   ds = H5Dopen2(grp, "route_state", H5P_DEFAULT), sp = ds >= 0 ? H5Dget_space(ds) : -1, a;
    hsize_t n = 0;
    if (sp >= 0 && H5Sget_simple_extent_ndims(sp) == 1 && H5Sget_simple_extent_dims(sp, &n, NULL) == 1 &&
        n == (hsize_t)rt->nstate &&
        (!n || H5Dread(ds, H5T_NATIVE_UINT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, rt->state) >= 0))
      ok = 1;
    const char *name = "last,recomputations,returns,quick";
    ok               = ok && H5Aexists(ds, name) > 0 && (a = H5Aopen(ds, name, H5P_DEFAULT)) >= 0;
    if (ok) {
      ok = H5Aread(a, H5T_NATIVE_LLONG, v) >= 0;
      H5Aclose(a);
    }
    if (sp >= 0) H5Sclose(sp);
    if (ds >= 0) H5Dclose(ds);
  }
  PetscCallMPI(MPI_Bcast(&ok, 1, MPI_INT, 0, comm));
  PetscCheck(ok, comm, PETSC_ERR_FILE_UNEXPECTED,
             "restart file '%s' lacks the routes' state of %" PetscInt64_FMT
             " agents (/checkpoint/crowd/route_state): it was written without routes or -route_choice quickest, or "
             "for another scene",
             path, rt->nstate);
  PetscCallMPI(MPI_Bcast(v, 4, MPI_LONG_LONG, 0, comm));
  for (PetscInt64 o = 0; o < rt->nstate; o += 1 << 26) /* MPI counts are int */
    PetscCallMPI(
      MPI_Bcast(rt->state + o, (PetscMPIInt)PetscMin((PetscInt64)1 << 26, rt->nstate - o), MPI_UINT64_T, 0, comm));
  rt->last           = (PetscInt64)v[0];
  rt->recomputations = (PetscInt64)v[1];
  rt->returns        = (PetscInt64)v[2];
  rt->quick          = (PetscInt64)v[3];
  PetscFunctionReturn(PETSC_SUCCESS);
}

void RouterDigest(const Sim *s, const Router *rt, uint64_t h[2])
{
  if (!rt->on) return;
  for (PetscInt i = 0; i < s->P.n; i++)
    DigestRecord((uint64_t)s->P.id[i], 0.0, rt->state[s->P.id[i]] + (1ULL << 50), h);
}
