/* population — who is in the building, and when each one starts to walk.
 *
 * An evacuation study describes its occupants by populations: office staff who know the
 * building, visitors, elderly people, wheelchair users.  Each population has
 *   - a start region (a polygon, or a rectangle x0,y0,x1,y1) and a count, or a density
 *     per m^2 of the walkable part of the region; the agents take random sites of the
 *     -init lattice spread over the whole region (-pop_NAME_place spread, the default;
 *     each seed places them anew), or the first sites row by row from the region's
 *     lower-left corner (fill: a block, as -n places a crowd);
 *   - distributions of the radius, the free speed and the pre-movement time;
 *   - a time gap for the time-gap law (csm.c) where it differs from -csm_time_gap;
 *   - optionally a route (targets of the scene file, as its `route` lines name them).
 * Options (YAML: a mapping `pop: {NAME: {count: 50, ...}}` flattens to the same names):
 *
 *     -populations staff,visitors
 *     -pop_staff_region 0,0,20,10          -pop_staff_count 40     (or _density 0.5)
 *     -pop_staff_speed normal:1.34,0.26,0.5,2.2
 *     -pop_staff_premove lognormal:60,0.5,10,600
 *     -pop_staff_radius uniform:0.18,0.22   -pop_staff_time_gap 1.0
 *     -pop_visitors_route hall,main
 *
 * The agents are numbered population after population (ids first .. first + count - 1),
 * so an agent's population is a function of its id, the same on every rank.
 *
 * Distributions: see util/dist.c.
 *
 * Every draw is a function of (-seed, id, quantity) (random.h): a normal speed draws the
 * same deviate as -speed does, so one population with -speed's distribution gives the
 * agents the speeds they had without it.  Runs are bitwise the same on any rank count,
 * and a restart draws the same values again (the physics string holds a hash of every
 * population, so a restart with other populations is refused).
 *
 * Pre-movement.  Agent i stands still until its time t_pre,i (a disk that the others
 * walk round, and that the sweep keeps from overlapping); from the first step that
 * begins at t >= t_pre,i it walks by the law (crowd.c, csm.c).  -premove DIST gives
 * every agent's when there are no populations.                                         */
#include <throng/util/opt.h>
#include <throng/core/geometry.h>
#include <throng/util/random.h>
#include <string.h>
#include <stdlib.h>
#include <errno.h>
#include <ctype.h>
#include <math.h>

/* The start region: a rectangle (2 points, its corners) or a polygon (3 or more). */
static PetscErrorCode RegionSet(MPI_Comm comm, const char *opt, const PetscReal *v, PetscInt np, Population *q)
{
  const PetscInt n = 2 * np;
  PetscFunctionBeginUser;
  PetscCheck(np >= 2, comm, PETSC_ERR_USER_INPUT,
             "%s: give a rectangle x0,y0,x1,y1 or a polygon x0,y0,x1,y1,x2,y2,... (3 to %d vertices)", opt,
             THRONG_MAX_POP_VERTS);
  if (n == 4) {
    PetscCheck(v[2] > v[0] && v[3] > v[1], comm, PETSC_ERR_USER_INPUT, "%s %g,%g,%g,%g: need x0 < x1 and y0 < y1", opt,
               (double)v[0], (double)v[1], (double)v[2], (double)v[3]);
    const PetscReal r[8] = {v[0], v[1], v[2], v[1], v[2], v[3], v[0], v[3]};
    q->nvert             = 4;
    PetscCall(PetscArraycpy(q->vert, r, 8));
  } else {
    q->nvert = n / 2;
    PetscCall(PetscArraycpy(q->vert, v, n));
  }
  q->bbox[0] = q->bbox[2] = q->vert[0];
  q->bbox[1] = q->bbox[3] = q->vert[1];
  for (PetscInt k = 1; k < q->nvert; k++) {
    q->bbox[0] = PetscMin(q->bbox[0], q->vert[2 * k]), q->bbox[2] = PetscMax(q->bbox[2], q->vert[2 * k]);
    q->bbox[1] = PetscMin(q->bbox[1], q->vert[2 * k + 1]), q->bbox[3] = PetscMax(q->bbox[3], q->vert[2 * k + 1]);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Options that name a population not in -populations (-pop_NAME_*). */
static PetscErrorCode UnknownPopulations(MPI_Comm comm, const Params *p)
{
  PetscInt n, nleft;
  char   **names, **values, bad[256] = "";
  PetscFunctionBeginUser;
  PetscCall(PetscOptionsLeftGet(NULL, &n, &names, &values));
  nleft = n;
  for (PetscInt i = 0; i < nleft && !bad[0]; i++) {
    PetscBool known = PETSC_FALSE;
    if (strncmp(names[i], "pop_", 4)) continue;
    for (PetscInt k = 0; k < p->npop && !known; k++) {
      const size_t l = strlen(p->pop[k].name);
      known          = (PetscBool)(!strncmp(names[i] + 4, p->pop[k].name, l) && names[i][4 + l] == '_');
    }
    if (!known) PetscCall(PetscStrncpy(bad, names[i], sizeof(bad)));
  }
  PetscCall(PetscOptionsLeftRestore(NULL, &n, &names, &values));
  if (bad[0]) {
    char list[256] = "";
    for (PetscInt k = 0; k < p->npop; k++) {
      PetscCall(PetscStrlcat(list, k ? "," : "", sizeof(list)));
      PetscCall(PetscStrlcat(list, p->pop[k].name, sizeof(list)));
    }
    SETERRQ(comm, PETSC_ERR_USER_INPUT, "-%s names an unknown population: -populations is '%s'", bad,
            p->npop ? list : "(not given)");
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Each population's options (the scene is read: regions are checked against it). */
static PetscErrorCode PopulationsRead(Opt *o, const Geometry *geo)
{
  Params  *p    = o->p;
  MPI_Comm comm = o->comm;
  PetscFunctionBeginUser;
  p->n = 0;
  for (PetscInt k = 0; k < p->npop; k++) {
    Population *q = &p->pop[k];
    const char *opt;
    PetscReal   area = 0;
    PetscBool   set, cset, dset;

    PetscCall(OptName(o, "-pop_", q->name, "_region", &opt));
    PetscCall(OptReals(o, OPT_PHYS, opt, "Population: start region, a rectangle x0,y0,x1,y1 or a polygon x0,y0,...",
                       2 * THRONG_MAX_POP_VERTS, q->given, &q->ngiven, 2, "x,y", &set));
    PetscCheck(set, comm, PETSC_ERR_USER_INPUT, "population '%s' needs a start region: %s x0,y0,x1,y1 (or a polygon)",
               q->name, opt);
    PetscCall(RegionSet(comm, opt, q->given, q->ngiven, q));
    PetscCall(GeometryPolygonArea(geo, q->nvert, q->vert, &area));
    PetscCheck(area != -1, comm, PETSC_ERR_USER_INPUT,
               "population '%s': its region (%s) crosses itself: give the polygon's vertices in order round it",
               q->name, opt);
    PetscCheck(area > 0, comm, PETSC_ERR_USER_INPUT,
               "population '%s': its region (%s) lies outside the walkable area of '%s'", q->name, opt, p->geometry);
    q->count = -1, q->density = -1;
    PetscCall(OptName(o, "-pop_", q->name, "_count", &opt));
    PetscCall(OptInt64(o, OPT_PHYS, opt, "Population: number of agents", &q->count, &cset));
    PetscCall(OptName(o, "-pop_", q->name, "_density", &opt));
    PetscCall(
      OptReal(o, OPT_PHYS, opt, "Population: agents per m^2 of the walkable part of its region", &q->density, &dset));
    PetscCheck(cset != dset, comm, PETSC_ERR_USER_INPUT,
               "population '%s': give one of -pop_%s_count and -pop_%s_density", q->name, q->name, q->name);
    if (dset) {
      PetscCheck(q->density >= 0 && q->density <= 10, comm, PETSC_ERR_USER_INPUT,
                 "-pop_%s_density %g: give 0 to 10 agents per m^2", q->name, (double)q->density);
      q->count = (PetscInt64)PetscFloorReal(q->density * area + 0.5);
    }
    PetscCheck(q->count >= 0, comm, PETSC_ERR_USER_INPUT, "-pop_%s_count %" PetscInt64_FMT ": must be >= 0", q->name,
               q->count);
    PetscCheck(q->count <= PETSC_MAX_INT - p->n, comm, PETSC_ERR_USER_INPUT,
               "-pop_%s_%s: %" PetscInt64_FMT " agents%s, more than this PETSc build's PetscInt can index (%d)",
               q->name, dset ? "density" : "count", q->count, p->n ? " with the populations before it" : "",
               (int)PETSC_MAX_INT);
    q->first = p->n;
    p->n += q->count;
    {
      static const char *const places[] = {"spread", "fill"};
      q->place                          = 0;
      PetscCall(OptName(o, "-pop_", q->name, "_place", &opt));
      PetscCall(OptEnum(o, OPT_PHYS, opt,
                        "Population: spread (random sites over the whole region) or fill (row by row from its "
                        "lower-left corner, as -n)",
                        places, 2, &q->place));
    }

    q->radius  = p->poly > 0 ? (Dist){DIST_UNIFORM, 0, 0, p->radius * (1 - p->poly), p->radius * (1 + p->poly)}
                             : (Dist){DIST_CONST, p->radius, 0, p->radius, p->radius};
    q->speed   = (Dist){DIST_NORMAL, p->speed[0], p->speed[1], p->speed[2], p->speed[3]};
    q->premove = p->premove;
    PetscCall(OptName(o, "-pop_", q->name, "_radius", &opt));
    PetscCall(OptDist(o, OPT_PHYS, opt, "Population: radius (m), a distribution (default -radius, -polydispersity)",
                      q->text[0], sizeof(q->text[0]), &q->radius, NULL));
    PetscCheck(DistMin(&q->radius) > 0 && DistMax(&q->radius) <= 10, comm, PETSC_ERR_USER_INPUT,
               "%s %s: radii must lie in (0, 10] m", opt, q->text[0]);
    PetscCall(OptName(o, "-pop_", q->name, "_speed", &opt));
    PetscCall(OptDist(o, OPT_PHYS, opt, "Population: free speed (m/s), a distribution (default -speed)", q->text[1],
                      sizeof(q->text[1]), &q->speed, NULL));
    PetscCheck(DistMax(&q->speed) > 0 && DistMax(&q->speed) <= 10, comm, PETSC_ERR_USER_INPUT,
               "%s %s: the free speeds must lie in [0, 10] m/s, and not all be 0", opt, q->text[1]);
    PetscCall(OptName(o, "-pop_", q->name, "_premove", &opt));
    PetscCall(OptDist(o, OPT_PHYS, opt, "Population: pre-movement time (s), a distribution (default -premove)",
                      q->text[2], sizeof(q->text[2]), &q->premove, NULL));
    PetscCall(ParamsCheckTime(comm, opt, q->text[2], DistMax(&q->premove)));
    p->premoveOn = (PetscBool)(p->premoveOn || DistMax(&q->premove) > 0);
    q->timeGap   = -1;
    PetscCall(OptName(o, "-pop_", q->name, "_time_gap", &opt));
    PetscCall(OptReal(o, OPT_PHYS, opt, "Population: time gap T (s) of the time-gap law (default -csm_time_gap)",
                      &q->timeGap, &set));
    PetscCheck(!set || (q->timeGap >= 0.1 && q->timeGap <= 10), comm, PETSC_ERR_USER_INPUT,
               "%s %g: must be in [0.1, 10] s", opt, (double)q->timeGap);
    PetscCall(OptName(o, "-pop_", q->name, "_route", &opt));
    PetscCall(OptString(o, OPT_PHYS, opt,
                        "Population: its route, targets T1,T2,... of the scene (waypoints, then an exit; default: the "
                        "crowd's choice)",
                        q->route, sizeof(q->route), NULL));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PopulationSetFromOptions(Opt *o)
{
  Params   *p    = o->p;
  MPI_Comm  comm = o->comm;
  Geometry  geo;
  PetscBool set;

  PetscFunctionBeginUser;
  p->premove = (Dist){DIST_CONST, 0, 0, 0, 0};
  PetscCall(OptDist(o, OPT_PHYS, "-premove",
                    "Crowd: pre-movement time of every agent (s), a distribution: T, uniform:lo,hi, "
                    "normal:mean,sd,min,max or lognormal:median,sigma,min,max (per population: -pop_NAME_premove)",
                    p->premoveText, sizeof(p->premoveText), &p->premove, &set));
  PetscCheck(!set || (p->geometry[0] && p->walk), comm, PETSC_ERR_USER_INPUT,
             "-premove describes a crowd: it needs a crowd scene (-geometry FILE)");
  PetscCall(ParamsCheckTime(comm, "-premove", p->premoveText, DistMax(&p->premove)));
  p->premoveOn = (PetscBool)(DistMax(&p->premove) > 0);
  PetscCall(OptString(o, OPT_PHYS, "-populations",
                      "Crowd: the populations NAME,... (at most 16), each described by -pop_NAME_region, _count or "
                      "_density, _speed, _premove, _radius, _time_gap, _route (docs/crowd.md)",
                      p->popList, sizeof(p->popList), &set));
  p->npop = 0;
  for (char *a = p->popList; set && *a;) { /* the names, split at the commas */
    char  *b = strchr(a, ',');
    size_t l = b ? (size_t)(b - a) : strlen(a);
    PetscCheck(p->npop < THRONG_MAX_POPS, comm, PETSC_ERR_USER_INPUT, "-populations: at most %d populations",
               THRONG_MAX_POPS);
    PetscCheck(l > 0 && l < THRONG_POP_NAME_LEN, comm, PETSC_ERR_USER_INPUT,
               "-populations '%s': names of 1 to %d letters and digits, separated by commas", p->popList,
               THRONG_POP_NAME_LEN - 1);
    Population *q = &p->pop[p->npop++];
    memcpy(q->name, a, l);
    q->name[l] = 0;
    for (const char *c = q->name; *c; c++)
      PetscCheck(isalnum((unsigned char)*c), comm, PETSC_ERR_USER_INPUT,
                 "-populations: the name '%s' may hold letters and digits only", q->name);
    for (PetscInt j = 0; j + 1 < p->npop; j++)
      PetscCheck(strcmp(p->pop[j].name, q->name), comm, PETSC_ERR_USER_INPUT, "-populations: '%s' is given twice",
                 q->name);
    a += l + (b ? 1 : 0);
  }
  PetscCall(UnknownPopulations(comm, p));
  if (!p->npop) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCheck(p->geometry[0] && p->walk, comm, PETSC_ERR_USER_INPUT,
             "-populations describes the agents of a crowd: it needs a crowd scene (-geometry FILE)");
  PetscCheck(!p->ngroups && !(p->frac2 > 0) && p->init != INIT_FILE, comm, PETSC_ERR_USER_INPUT,
             "-populations replaces -groups, -speed2_fraction and -init file: give one way of placing the agents");
  PetscCheck(!ParamsGiven(p, "n") && !ParamsGiven(p, "init_region"), comm, PETSC_ERR_USER_INPUT,
             "-populations gives the agents' number and places (-pop_NAME_count, -pop_NAME_region): drop %s",
             ParamsGiven(p, "n") ? "-n" : "-init_region");
  PetscCall(GeometryRead(comm, p->geometry, PETSC_FALSE, &geo));
  {
    PetscErrorCode ierr = PopulationsRead(o, &geo);
    PetscCall(GeometryDestroy(&geo)); /* before an error of theirs */
    PetscCall(ierr);
  }
  PetscCheck(p->n > 0, comm, PETSC_ERR_USER_INPUT, "-populations: the populations hold no agent");
  PetscFunctionReturn(PETSC_SUCCESS);
}
