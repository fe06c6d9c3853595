/* source — agents that arrive during the run.
 *
 * A station platform, a stadium entrance or a corridor experiment is fed by people who
 * arrive over time.  A source puts agents into the scene at a line or in a region:
 *
 *     -sources gate
 *     -src_gate_line 0.5,1,0.5,7        (or -src_gate_region x0,y0,x1,y1 | a polygon)
 *     -src_gate_process poisson          constant (default) | poisson | table
 *     -src_gate_rate 2                   agents per second
 *     -src_gate_start 0  -src_gate_stop 60  -src_gate_count 100
 *     -src_gate_table FILE               (table: arrival times in s, one a line, '#' comments)
 *     -src_gate_population visitors      (population.c; default: -speed, -radius, -premove)
 *
 * Arrival times.  constant: t_k = start + k / rate; poisson: t_k = t_{k-1} + E_k, E_k
 * exponential with mean 1 / rate, drawn from (-seed, k, the source's index): the same
 * times on any rank count and after a restart; table: the file's times, sorted.  A
 * source stops at -src_NAME_stop, after -src_NAME_count arrivals, or at the table's end.
 *
 * Spots.  Where an arrival may stand: along a line, points 2 r + 2 cm apart; in a region,
 * a hexagonal lattice of that spacing; r the largest radius of the source's population.
 * A spot must lie in the walkable area, r clear of every wall, and reach an exit: a
 * source with no such spot is an error at set-up (a source inside a wall).
 *
 * Entry.  At the end of every step, each source in turn lets in its arrivals that are
 * due (t_k <= t), in order.  Arrival k tries the spots from a drawn one on, cyclically,
 * and takes the first free one: no agent within r + r_j + 1 cm.  If none is free it
 * waits, and the source's later arrivals wait behind it (a queue at the entrance); the
 * waiting time shows in its entry time.  No arrival ever overlaps anyone.  Which spots
 * are free is found by one reduction over the ranks (each tests its own agents), then
 * every rank makes the same choices: the agent gets the next id, its population's
 * radius, free speed and pre-movement time (counted from its entry) drawn by id, and
 * the rank that owns its spot creates it.  So arrivals are the same on any rank count;
 * a checkpoint carries each source's state and the arrival records, so a restart goes on
 * with the same arrivals.
 *
 * Records.  Every arrival (id, entry time, source) goes to PREFIX.arrivals.csv and to
 * /crowd/arrivals of PREFIX.h5; the evacuation curve becomes an occupancy curve (agents
 * inside: the initial ones plus arrivals minus departures), and the run ends when every
 * agent has left and no source has arrivals to come.                                  */
#include <throng/util/opt.h>
#include <throng/crowd/source.h>
#include <throng/crowd/agents.h>
#include <throng/util/files.h>
#include <throng/core/init.h>
#include <throng/core/migrate.h>
#include <throng/core/digest.h>
#include <throng/util/random.h>
#include <string.h>
#include <errno.h>
#include <ctype.h>
#include <math.h>

static const char *const SourceProcesses[] = {"constant", "poisson", "table", "SourceProcess", "SOURCE_", NULL};

/* ---- options --------------------------------------------------------------------------- */

/* The times of a table file: finite, >= 0, ascending.  Collective. */
static PetscErrorCode ReadTable(MPI_Comm comm, const char *what, const char *path, PetscReal **t, PetscInt64 *n,
                                uint64_t *hash)
{
  char      *text, *line, *next;
  size_t     len;
  PetscInt64 cap = 0, ln = 0;
  uint64_t   h = 1469598103934665603ULL;

  PetscFunctionBeginUser;
  PetscCall(FilesReadText(comm, what, path, (size_t)1 << 30, PETSC_TRUE, &text, &len));
  for (size_t k = 0; k < len; k++) h = (h ^ (unsigned char)text[k]) * 1099511628211ULL;
  *hash = h;
  *t    = NULL;
  *n    = 0;
  for (line = text; line && *line; line = next) {
    char  *hashc, *end;
    double v;
    next = strchr(line, '\n');
    if (next) *next++ = 0;
    ln++;
    if ((hashc = strchr(line, '#'))) *hashc = 0;
    while (isspace((unsigned char)*line)) line++;
    if (!*line) continue;
    errno = 0;
    v     = strtod(line, &end);
    while (isspace((unsigned char)*end)) end++;
    if (end == line || *end || errno == ERANGE || !isfinite(v) || v < 0 || v > THRONG_MAX_TIME ||
        (*n && v < (*t)[*n - 1])) {
      PetscCall(PetscFree(*t));
      PetscCall(PetscFree(text));
      SETERRQ(comm, PETSC_ERR_USER_INPUT,
              "%s '%s', line %" PetscInt64_FMT ": expected one arrival time in s, in [0, 10^9] and not before "
              "the line above",
              what, path, ln);
    }
    if (*n == cap) {
      cap = 2 * cap + 64;
      PetscCall(PetscRealloc(sizeof(PetscReal) * (size_t)cap, t));
    }
    (*t)[(*n)++] = v;
  }
  PetscCall(PetscFree(text));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SourceSetFromOptions(Opt *o)
{
  Params   *p    = o->p;
  MPI_Comm  comm = o->comm;
  PetscBool set;

  PetscFunctionBeginUser;
  PetscCall(OptString(o, OPT_PHYS, "-sources",
                      "Crowd: sources NAME,... (at most 8) of agents arriving during the run, each described by "
                      "-src_NAME_line or _region, _process, _rate, _start, _stop, _count, _table, _population "
                      "(docs/crowd.md)",
                      p->srcList, sizeof(p->srcList), &set));
  p->nsrc = 0;
  for (char *a = p->srcList; set && *a;) {
    char  *b = strchr(a, ',');
    size_t l = b ? (size_t)(b - a) : strlen(a);
    PetscCheck(p->nsrc < THRONG_MAX_SOURCES, comm, PETSC_ERR_USER_INPUT, "-sources: at most %d sources",
               THRONG_MAX_SOURCES);
    PetscCheck(l > 0 && l < THRONG_POP_NAME_LEN, comm, PETSC_ERR_USER_INPUT,
               "-sources '%s': names of 1 to %d letters and digits, separated by commas", p->srcList,
               THRONG_POP_NAME_LEN - 1);
    SourceDecl *q = &p->src[p->nsrc++];
    memcpy(q->name, a, l);
    q->name[l] = 0;
    for (const char *c = q->name; *c; c++)
      PetscCheck(isalnum((unsigned char)*c), comm, PETSC_ERR_USER_INPUT,
                 "-sources: the name '%s' may hold letters and digits only", q->name);
    for (PetscInt j = 0; j + 1 < p->nsrc; j++)
      PetscCheck(strcmp(p->src[j].name, q->name), comm, PETSC_ERR_USER_INPUT, "-sources: '%s' is given twice", q->name);
    a += l + (b ? 1 : 0);
  }
  if (!p->nsrc) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCheck(p->geometry[0] && p->walk, comm, PETSC_ERR_USER_INPUT,
             "-sources lets agents into a crowd scene: it needs -geometry FILE");
  PetscCheck(!(p->frac2 > 0), comm, PETSC_ERR_USER_INPUT,
             "-sources: arrivals take a population's or -speed's free speeds; give -populations instead of "
             "-speed2_fraction");
  for (PetscInt k = 0; k < p->nsrc; k++) {
    SourceDecl *q = &p->src[k];
    const char *opt;
    PetscBool   rset, lset, tset;

    PetscCall(OptName(o, "-src_", q->name, "_region", &opt));
    PetscCall(OptReals(o, OPT_PHYS, opt, "Source: where arrivals stand, a rectangle x0,y0,x1,y1 or a polygon",
                       2 * THRONG_MAX_POP_VERTS, q->region, &q->nregion, 2, "x,y", &rset));
    PetscCall(OptName(o, "-src_", q->name, "_line", &opt));
    PetscCall(
      OptReals(o, OPT_PHYS, opt, "Source: a line x0,y0,x1,y1 where arrivals stand", 4, q->line, NULL, 1, NULL, &lset));
    q->nline = lset ? 2 : 0;
    PetscCheck(rset != lset, comm, PETSC_ERR_USER_INPUT, "source '%s': give one of -src_%s_line and -src_%s_region",
               q->name, q->name, q->name);
    PetscCheck(!rset || q->nregion >= 2, comm, PETSC_ERR_USER_INPUT,
               "-src_%s_region: a rectangle x0,y0,x1,y1 or a polygon of 3 or more points", q->name);
    if (rset && q->nregion == 2)
      PetscCheck(q->region[2] > q->region[0] && q->region[3] > q->region[1], comm, PETSC_ERR_USER_INPUT,
                 "-src_%s_region: the rectangle needs x0 < x1 and y0 < y1", q->name);
    PetscCheck(!lset || q->line[0] != q->line[2] || q->line[1] != q->line[3], comm, PETSC_ERR_USER_INPUT,
               "-src_%s_line: the line's two points are one", q->name);
    q->process = SOURCE_CONSTANT;
    PetscCall(OptName(o, "-src_", q->name, "_process", &opt));
    PetscCall(OptEnum(o, OPT_PHYS, opt, "Source: arrival times: constant rate, Poisson process, or a table",
                      SourceProcesses, 3, (int *)&q->process));
    q->rate = -1;
    PetscCall(OptName(o, "-src_", q->name, "_rate", &opt));
    PetscCall(OptReal(o, OPT_PHYS, opt, "Source: arrivals per second (constant, poisson)", &q->rate, NULL));
    q->start = 0, q->stop = -1, q->count = -1;
    PetscCall(OptName(o, "-src_", q->name, "_start", &opt));
    PetscCall(OptReal(o, OPT_PHYS, opt, "Source: time of its first arrival (s)", &q->start, NULL));
    PetscCall(OptName(o, "-src_", q->name, "_stop", &opt));
    PetscCall(OptReal(o, OPT_PHYS, opt, "Source: no arrival after this time (s; -1: no end)", &q->stop, NULL));
    PetscCall(OptName(o, "-src_", q->name, "_count", &opt));
    PetscCall(OptInt64(o, OPT_PHYS, opt, "Source: at most this many arrivals (-1: no limit)", &q->count, NULL));
    PetscCall(OptName(o, "-src_", q->name, "_table", &opt));
    PetscCall(OptString(o, OPT_PHYS, opt, "Source: file of arrival times (s), one a line (-src_NAME_process table)",
                        q->table, sizeof(q->table), &tset));
    PetscCall(OptName(o, "-src_", q->name, "_population", &opt));
    PetscCall(OptString(o, OPT_PHYS, opt, "Source: the population of its arrivals (default: -speed, -radius, -premove)",
                        q->pop, sizeof(q->pop), NULL));
    PetscCheck(q->start >= 0, comm, PETSC_ERR_USER_INPUT, "-src_%s_start %g: must be >= 0", q->name, (double)q->start);
    for (int e = 0; e < 2; e++) { /* times, bounded */
      char text[64], name[THRONG_POP_NAME_LEN + 16];
      PetscCall(PetscSNPrintf(name, sizeof(name), "-src_%s_%s", q->name, e ? "stop" : "start"));
      PetscCall(PetscSNPrintf(text, sizeof(text), "%g", (double)(e ? q->stop : q->start)));
      PetscCall(ParamsCheckTime(comm, name, text, e ? q->stop : q->start));
    }
    PetscCheck(q->stop == -1 || q->stop >= q->start, comm, PETSC_ERR_USER_INPUT,
               "-src_%s_stop %g: must be >= its start (%g), or -1 (no end)", q->name, (double)q->stop,
               (double)q->start);
    PetscCheck(q->count >= -1, comm, PETSC_ERR_USER_INPUT, "-src_%s_count %" PetscInt64_FMT ": must be >= 0, or -1",
               q->name, q->count);
    if (q->process == SOURCE_TABLE) {
      PetscCheck(tset, comm, PETSC_ERR_USER_INPUT, "source '%s': -src_%s_process table needs -src_%s_table FILE",
                 q->name, q->name, q->name);
      PetscCheck(q->rate == -1, comm, PETSC_ERR_USER_INPUT,
                 "source '%s': a table gives the arrival times; -src_%s_rate would be ignored", q->name, q->name);
    } else {
      PetscCheck(!tset, comm, PETSC_ERR_USER_INPUT,
                 "source '%s': -src_%s_table is read with -src_%s_process table only", q->name, q->name, q->name);
      PetscCheck(q->rate > 0 && q->rate <= 1e4, comm, PETSC_ERR_USER_INPUT,
                 "source '%s': -src_%s_rate %g: give the arrivals per second, > 0 (at most 10^4)", q->name, q->name,
                 (double)q->rate);
    }
    q->popIndex = -1;
    if (q->pop[0]) {
      for (PetscInt j = 0; j < p->npop; j++)
        if (!strcmp(p->pop[j].name, q->pop)) q->popIndex = j;
      PetscCheck(q->popIndex >= 0, comm, PETSC_ERR_USER_INPUT,
                 "-src_%s_population '%s' is an unknown population: -populations is '%s'", q->name, q->pop,
                 p->npop ? p->popList : "(not given)");
    }
    if (tset) { /* its content, for the physics string (and an early check of the file) */
      PetscReal *t;
      PetscInt64 n;
      PetscCall(OptName(o, "-src_", q->name, "_table", &opt));
      PetscCall(ReadTable(comm, opt, q->table, &t, &n, &q->tableHash));
      PetscCall(PetscFree(t));
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---- run time ------------------------------------------------------------------------- */

/* The time of arrival k of source si (inf: none). */
static PetscReal ArrivalTime(const Params *prm, PetscInt si, const Source *S, PetscInt64 k, PetscReal prev)
{
  const SourceDecl *q = &prm->src[si];
  PetscReal         t;
  if (q->count >= 0 && k >= q->count) return INFINITY;
  switch (q->process) {
  case SOURCE_CONSTANT: t = q->start + (PetscReal)k / q->rate; break;
  case SOURCE_POISSON: {
    double u[2];
    RandomUniform2(prm->seed, k, RANDOM_STREAM_SOURCE, (uint32_t)si, u);
    t = (k ? prev : q->start) - PetscLogReal(1 - (PetscReal)u[0]) / q->rate;
  } break;
  default: t = k < S->ntimes ? S->times[k] : INFINITY;
  }
  return q->stop >= 0 && t > q->stop ? INFINITY : t;
}

static PetscBool PolygonHolds(PetscInt n, const PetscReal *v, PetscReal x, PetscReal y)
{
  PetscBool in = PETSC_FALSE;
  for (PetscInt i = 0, j = n - 1; i < n; j = i++)
    if ((v[2 * i + 1] > y) != (v[2 * j + 1] > y) &&
        x < (v[2 * j] - v[2 * i]) * (y - v[2 * i + 1]) / (v[2 * j + 1] - v[2 * i + 1]) + v[2 * i])
      in = (PetscBool)!in;
  return in;
}

/* A spot is usable: in the walkable area, r clear of the walls, an exit reachable. */
static PetscBool SpotOK(const Crowd *c, PetscReal x, PetscReal y, PetscReal r)
{
  const Geometry *g = c->geom;
  if (!GeometryInside(g, x, y) || !isfinite(EikonalValue(&c->eik, x, y))) return PETSC_FALSE;
  for (PetscInt k = 0; k < g->nwall; k++) {
    PetscReal cx, cy;
    if (SegmentDistance(&g->wall[4 * k], x, y, &cx, &cy) < r) return PETSC_FALSE;
  }
  return PETSC_TRUE;
}

static PetscErrorCode AddSpot(Source *S, PetscInt *cap, PetscReal x, PetscReal y)
{
  PetscFunctionBeginUser;
  if (S->nspot == *cap) {
    *cap = 2 * *cap + 64;
    PetscCall(PetscRealloc(2 * sizeof(PetscReal) * (size_t)*cap, &S->spot));
  }
  S->spot[2 * S->nspot] = x, S->spot[2 * S->nspot + 1] = y;
  S->nspot++;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SourcesSetUp(Sim *s, Crowd *c)
{
  const Params *prm = &s->prm;
  PetscFunctionBeginUser;
  c->nsrc = prm->nsrc;
  if (!c->nsrc) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscCalloc1(c->nsrc, &c->src));
  for (PetscInt si = 0; si < c->nsrc; si++) {
    const SourceDecl *q   = &prm->src[si];
    Source           *S   = &c->src[si];
    PetscInt          cap = 0;
    S->rmax               = q->popIndex >= 0 ? DistMax(&prm->pop[q->popIndex].radius) : prm->radius * (1 + prm->poly);
    PetscCheck(S->rmax <= s->rmax, s->dom.comm, PETSC_ERR_USER_INPUT,
               "source '%s': its arrivals' radius %g is larger than any initial agent's (%g): the cells are sized for "
               "those; give -radius at least %g",
               q->name, (double)S->rmax, (double)s->rmax, (double)S->rmax);
    const PetscReal a = 2 * S->rmax + 0.02;
    if (q->nline) {
      const PetscReal *l = q->line, L = PetscSqrtReal(PetscSqr(l[2] - l[0]) + PetscSqr(l[3] - l[1]));
      const PetscInt   m = (PetscInt)PetscMax(1, PetscFloorReal(L / a));
      for (PetscInt j = 0; j < m; j++) {
        const PetscReal f = (j + 0.5) / m, x = l[0] + f * (l[2] - l[0]), y = l[1] + f * (l[3] - l[1]);
        if (SpotOK(c, x, y, S->rmax)) PetscCall(AddSpot(S, &cap, x, y));
      }
    } else {
      PetscReal       v[2 * THRONG_MAX_POP_VERTS], b[4];
      PetscInt        n  = q->nregion == 2 ? 4 : q->nregion;
      const PetscReal dy = a * PetscSqrtReal(3.0) / 2;
      if (q->nregion == 2) {
        const PetscReal *r = q->region, rect[8] = {r[0], r[1], r[2], r[1], r[2], r[3], r[0], r[3]};
        PetscCall(PetscArraycpy(v, rect, 8));
      } else {
        PetscReal area;
        PetscCall(PetscArraycpy(v, q->region, 2 * n));
        PetscCall(GeometryPolygonArea(c->geom, n, v, &area));
        PetscCheck(area != -1, s->dom.comm, PETSC_ERR_USER_INPUT,
                   "-src_%s_region crosses itself: give the polygon's vertices in order round it", q->name);
      }
      b[0] = b[2] = v[0], b[1] = b[3] = v[1];
      for (PetscInt k = 1; k < n; k++)
        b[0] = PetscMin(b[0], v[2 * k]), b[2] = PetscMax(b[2], v[2 * k]), b[1] = PetscMin(b[1], v[2 * k + 1]),
        b[3] = PetscMax(b[3], v[2 * k + 1]);
      PetscCheck((b[2] - b[0]) * (b[3] - b[1]) / (a * dy) < 1e6, s->dom.comm, PETSC_ERR_USER_INPUT,
                 "source '%s': its region would hold more than 10^6 spots; make it smaller", q->name);
      for (PetscInt row = 0; b[1] + S->rmax + row * dy <= b[3] - S->rmax + 1e-12; row++)
        for (PetscInt col = 0;; col++) {
          const PetscReal x = b[0] + S->rmax + col * a + (row & 1 ? a / 2 : 0), y = b[1] + S->rmax + row * dy;
          if (x > b[2] - S->rmax + 1e-12) break;
          if (PolygonHolds(n, v, x, y) && SpotOK(c, x, y, S->rmax)) PetscCall(AddSpot(S, &cap, x, y));
        }
    }
    PetscCheck(S->nspot > 0, s->dom.comm, PETSC_ERR_USER_INPUT,
               "source '%s' has no spot where an agent of radius %g can stand: its %s must lie in the walkable area "
               "of '%s', clear of the walls, with a way to an exit (a source inside a wall?)",
               q->name, (double)S->rmax, q->nline ? "line" : "region", prm->geometry);
    if (q->process == SOURCE_TABLE) {
      uint64_t h;
      char     what[64];
      PetscCall(PetscSNPrintf(what, sizeof(what), "-src_%s_table", q->name));
      PetscCall(ReadTable(s->dom.comm, what, q->table, &S->times, &S->ntimes, &h));
      PetscCheck(h == q->tableHash, s->dom.comm, PETSC_ERR_FILE_UNEXPECTED, "%s '%s' changed while the run started",
                 what, q->table);
    }
    S->k    = 0;
    S->next = ArrivalTime(prm, si, S, 0, 0);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SourcesDestroy(Crowd *c)
{
  PetscFunctionBeginUser;
  for (PetscInt si = 0; si < c->nsrc; si++) {
    PetscCall(PetscFree(c->src[si].spot));
    PetscCall(PetscFree(c->src[si].times));
  }
  PetscCall(PetscFree(c->src));
  PetscCall(PetscFree(c->arr));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscBool SourcesPending(const Crowd *c)
{
  for (PetscInt si = 0; si < c->nsrc; si++)
    if (isfinite(c->src[si].next)) return PETSC_TRUE;
  return PETSC_FALSE;
}

/* The arrivals due at the end of this step: collective (one reduction when any is due). */
PetscErrorCode SourcesStep(Sim *s, Crowd *c)
{
  const Params    *prm  = &s->prm;
  const Particles *p    = &s->P;
  PetscInt         ntot = 0, m = 0, capRec = 0;
  char            *blocked;
  ParticleRec     *recs = NULL;
  PetscInt        *pops = NULL, *off;

  PetscFunctionBeginUser;
  for (PetscInt si = 0; si < c->nsrc; si++) ntot += c->src[si].next <= s->time ? c->src[si].nspot : 0;
  if (!ntot) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscCalloc2(ntot, &blocked, c->nsrc + 1, &off));
  for (PetscInt si = 0, o = 0; si < c->nsrc; si++) { /* the spots this rank's agents block */
    const Source *S = &c->src[si];
    off[si]         = o;
    if (!(S->next <= s->time)) continue;
    for (PetscInt i = 0; i < p->n; i++) {
      const PetscReal reach = p->r[i] + S->rmax + 0.01;
      for (PetscInt j = 0; j < S->nspot; j++) {
        const PetscReal dx = p->x[i] - S->spot[2 * j], dy = p->y[i] - S->spot[2 * j + 1];
        if (dx * dx + dy * dy < reach * reach) blocked[o + j] = 1;
      }
    }
    o += S->nspot;
  }
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, blocked, (PetscMPIInt)ntot, MPI_CHAR, MPI_MAX, s->dom.comm));
  for (PetscInt si = 0; si < c->nsrc; si++) { /* every rank the same: each source's due arrivals, in order */
    Source  *S    = &c->src[si];
    char    *b    = blocked + off[si];
    PetscInt free = 0;
    if (!(S->next <= s->time)) continue;
    for (PetscInt j = 0; j < S->nspot; j++) free += !b[j];
    while (S->next <= s->time && free > 0) {
      const PetscInt64 id = c->nspeed + m;
      const PetscInt   k  = prm->src[si].popIndex;
      double           u[2];
      PetscInt         j;
      RandomUniform2(prm->seed, S->k, RANDOM_STREAM_SOURCE, (uint32_t)(1000 + si), u);
      j = (PetscInt)PetscMin((PetscReal)(S->nspot - 1), PetscFloorReal((PetscReal)u[0] * S->nspot));
      while (b[j]) j = (j + 1) % S->nspot;
      PetscCall(ThrongGrow(&recs, sizeof(ParticleRec), m, &capRec));
      PetscCall(PetscRealloc(sizeof(PetscInt) * (size_t)capRec, &pops));
      recs[m] = (ParticleRec){S->spot[2 * j], S->spot[2 * j + 1], InitRadiusOf(prm, k, id), id};
      pops[m] = k;
      PetscCall(ThrongGrow(&c->arr, sizeof(ArrivalRec), c->narr, &c->capArr));
      c->arr[c->narr++] = (ArrivalRec){id, s->time, si, GeometryFloorAt(c->geom, S->spot[2 * j], S->spot[2 * j + 1])};
      m++;
      for (PetscInt q = 0; q < S->nspot; q++) { /* the spots the new agent blocks */
        const PetscReal dx = S->spot[2 * q] - S->spot[2 * j], dy = S->spot[2 * q + 1] - S->spot[2 * j + 1],
                        reach = 2 * S->rmax + 0.01;
        if (!b[q] && dx * dx + dy * dy < reach * reach) b[q] = 1, free--;
      }
      S->k++;
      S->next = ArrivalTime(prm, si, S, S->k, S->next);
    }
    /* spots of the other sources that the new agents block (sources may overlap) */
    for (PetscInt sj = 0; sj < c->nsrc; sj++) {
      Source *T = &c->src[sj];
      if (sj == si || !(T->next <= s->time)) continue;
      for (PetscInt a = 0; a < m; a++)
        for (PetscInt q = 0; q < T->nspot; q++) {
          const PetscReal dx = T->spot[2 * q] - recs[a].x, dy = T->spot[2 * q + 1] - recs[a].y,
                          reach = recs[a].r + T->rmax + 0.01;
          if (dx * dx + dy * dy < reach * reach) blocked[off[sj] + q] = 1;
        }
    }
  }
  PetscCall(PetscFree2(blocked, off));
  if (m) {
    PetscMPIInt rank;
    PetscCallMPI(MPI_Comm_rank(s->dom.comm, &rank));
    PetscCall(CrowdAgentsAdd(s, c, m, recs, pops));
    c->marked = PETSC_FALSE; /* nothing moved since the last mark: no crossing to look for */
    s->P.ng   = 0;
    PetscCall(RouteToOwners(&s->dom, rank ? 0 : m, recs, &s->P)); /* rank 0 sends each to its owner */
    s->ndisks += m;
    PetscCall(SimRebin(s));
    PetscCall(IdFingerprint(s->dom.comm, &s->P, &s->idPrint)); /* the id set changed on purpose */
  }
  PetscCall(PetscFree(recs));
  PetscCall(PetscFree(pops));
  PetscFunctionReturn(PETSC_SUCCESS);
}
