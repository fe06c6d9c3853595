/* crowd — pedestrians: desired velocity from the eikonal field, exits, evacuation records.
   A module of the loop (sim.h, modules.c): on with -geometry and -walk. */
#pragma once
#include <throng/io/io.h>
#include <throng/core/geometry.h>
#include <throng/crowd/eikonal.h>
#include <throng/crowd/reach.h>
#include <throng/crowd/route.h>
#include <throng/crowd/zone.h>
#include <throng/crowd/floors.h>
#include <throng/crowd/stall.h>

typedef struct {
  PetscInt64 id;
  PetscReal  time;
  PetscInt   exit;
} ExitRec;

/* An agent's centre crossed a sensor line: dir +1 from the line's left to its right
   (looking from its first point to its last), -1 the other way.                        */
typedef struct {
  PetscInt64 id;
  PetscReal  time;
  PetscInt   sensor, dir;
} CrossRec;

/* The specific flow of laboratory bottlenecks, 1.9 /(m s) (Seyfried et al. 2009; Liddle
   et al. 2011 measured 1.9-2.2): the door capacity estimate of the summary. */
#define CROWD_LAB_FLOW 1.9

/* The collision-free speed model (csm.c): parameters, the far neighbours, wall lists. */
typedef struct {
  PetscBool  on;
  PetscReal  range;              /* R: the neighbours the law looks at                   */
  PetscReal  rmax;               /* largest radius                                       */
  PetscReal  T[THRONG_MAX_POPS]; /* time gap of each population (s)                   */
  PetscReal  a, D, aw, Dw;       /* repulsion strength and range: neighbours, walls      */
  PetscReal  avoid;              /* lateral avoidance strength (0: off)                  */
  PetscReal  kappa;              /* corridor half-width, in units of l                   */
  PetscReal  repCut, wallCut;    /* repulsions beyond l + repCut, r + wallCut are < 1e-4 */
  char      *pop;                /* population of each id (when the time gaps differ)     */
  Reach      reach;
  PetscReal  w0[2], wh, whinv; /* wall lists per cell of a grid of edge R/2             */
  PetscInt   wn[2], *wbeg, *widx;
  PetscReal *nb; /* scratch: the neighbours of one agent, 5 arrays of cap */
  PetscInt   cap;
  PetscInt   width;    /* the vector kernels that run: 512 (AVX-512), 256 (AVX2) or 128    */
  PetscInt64 checks;   /* -csm_check_reach: steps checked                       */
  PetscInt64 compared; /* ... neighbour sets compared on this rank              */
} Csm;

typedef struct {
  Geometry  *geom; /* the run's geometry (s->geom): walkable area, exits, sensors */
  Eikonal    eik;
  Csm        csm;         /* -crowd_model csm: the time-gap speed law                    */
  Router     route;       /* assigned routes and exit choice (route.c)                   */
  Floors     floors;      /* floors and the links between them (floors.c)                */
  Stall      stall;       /* a crowd that no longer moves ends the run (stall.c)          */
  PetscReal *exitNormal;  /* per exit segment: the unit normal pointing out of the area */
  PetscBool  exitCross;   /* -exit_rule pass: passages are crossings of the door line    */
  PetscReal  exitDepth;   /* ... and agents walk on this far beyond it before removal    */
  PetscInt   pendingLeft; /* the last pendingLeft exit records have no time yet         */
  ExitRec   *left;        /* agents that left through an exit on this rank               */
  PetscInt   nleft, capLeft;
  PetscInt64 total; /* agents at the start                                         */
  float     *speed; /* free speed of each id (replicated: 4 bytes per agent)       */
  PetscInt64 nspeed;
  double    *premove; /* when each id may start to walk (NULL: at once; population.c) */
  float     *radius;  /* each id's radius, and the floor it started on (agents.c)   */
  int       *origin;
  PetscInt64 capId;                     /* capacity of the per-id tables (speed, premove, csm.pop)       */
  PetscInt   popRoute[THRONG_MAX_POPS]; /* each population's route (-1: none)        */
  /* sources (source.c): agents arriving during the run                               */
  PetscInt    nsrc;
  Source     *src;
  ArrivalRec *arr; /* every arrival so far, in order (replicated)                       */
  PetscInt    narr, capArr;
  PetscInt64  n0; /* agents at the start                                                 */
  /* line sensors: the owned agents' positions at the last mark (after the last rebin or
     step end); crossings found since, waiting for the step's end time, and recorded   */
  PetscReal *px, *py;
  PetscInt   capMark;
  PetscBool  marked;
  CrossRec  *cross;
  PetscInt   ncross, capCross, pending; /* the last `pending` records have no time yet */
  /* density map: agents per cell of a grid over the walkable area, summed over samples
     taken every -density_dt seconds of simulated time                                 */
  PetscReal *dens;
  PetscInt   dnx, dny, dsamples;
  PetscReal  dx0, dy0, dh;
  PetscInt64 dlast; /* index of the last sample, floor(t / density_dt); -1 before any */
} Crowd;

/* crowd.c: the module.  Its hooks (sim.h, modules.h) are crowd.c's own, static: the
   agents' checks, the exits, the line sensors, the final report, the checkpoint records
   and the digest.  CrowdOf: the crowd of a run (NULL: none). */
PetscErrorCode CrowdModuleCreate(const Params *prm, SimModule *m, PetscBool *on);
Crowd         *CrowdOf(const Sim *s);
/* Whether agent id still stands (its pre-movement time is not over at time t). */
static inline PetscBool CrowdWaiting(const Crowd *c, PetscInt64 id, PetscReal t)
{
  return (PetscBool)(c->premove && id < c->nspeed && t < c->premove[id]);
}
/* The desired direction of agent id at (x, y): down the travel-distance field of its
   target (route.c) or of the nearest exit, or straight on through a door whose line the
   agent has passed (-exit_rule pass with csm). */
void CrowdDirection(const Crowd *c, PetscInt64 id, PetscReal x, PetscReal y, PetscReal *wx, PetscReal *wy);
/* floors.c: does agent id at (x, y), beyond link line k, want to go through it (its
   target's travel time is lower beyond the link than on this side)? */
PetscBool FloorsWants(const Crowd *c, PetscInt64 id, PetscInt k, PetscReal x, PetscReal y);
/* floors.c: the desired direction (wx, wy) of agent id at (x, y) near a link line: straight
   on through the line if it goes through, else along it (and back in, from beyond it). */
void FloorsSteer(const Crowd *c, PetscInt64 id, PetscReal x, PetscReal y, PetscReal *wx, PetscReal *wy);
/* floors.c: the velocity (vx, vy) of agent id at (x, y), radius r, with its component
   out over a link line that it does not go through removed: the time-gap law's
   neighbours would push an agent that has just come through a link back over its line
   (a step back up a flight's head), and the lane beyond is for passing only. */
void FloorsHold(const Crowd *c, PetscInt64 id, PetscReal x, PetscReal y, PetscReal r, PetscReal *vx, PetscReal *vy);
/* The exit segment an agent at (x, y) has gone through (-1: none), *out its distance
   beyond the door's line. */
PetscInt CrowdExitBeyond(const Crowd *c, PetscReal x, PetscReal y, PetscReal *out);
/* The area an agent may be in, as WKT (PetscFree it): the walkable area and, when agents
   walk on through the doors, each door's lane between its jambs' extensions.  floor >= 0:
   that floor's area and its doors' lanes only (floors.c). */
PetscErrorCode CrowdAreaWKT(const Sim *s, PetscInt floor, char **wkt, PetscInt *parts);

/* When agent id starts to walk: the first step time at or after its pre-movement time. */
PetscReal CrowdStartTime(const Sim *s, const Crowd *c, PetscInt64 id);
/* agents.c: the per-agent table (PREFIX.agents.csv): the radii and floors of origin of
   the agents of the start (collective), of an arrival; checkpoints; the table (rank 0,
   pass the passages of the report, n of them). */
PetscErrorCode AgentsCreated(Sim *s, Crowd *c);
void           AgentsArrived(Crowd *c, const ParticleRec *rec, PetscInt floor);
PetscErrorCode AgentsCheckpointWrite(const Sim *s, const Crowd *c, hid_t grp, hid_t dxpl);
PetscErrorCode AgentsCheckpointRead(Sim *s, Crowd *c, hid_t grp, const char *path);
PetscErrorCode AgentsTableWrite(const Sim *s, const Crowd *c, const ExitRec *pass, PetscInt npass, FILE *f);
/* crowd.c: m new agents (ids nspeed .. nspeed + m - 1, recs, pops their populations,
   -1: the defaults) arrive now: the per-id tables and the routes grow (every rank). */
PetscErrorCode CrowdAgentsAdd(Sim *s, Crowd *c, PetscInt m, const ParticleRec *recs, const PetscInt *pops);
/* source.c: the sources' spots and first arrival times; the arrivals due at the end of a
   step (collective); whether any is still to come; the memory. */
PetscErrorCode SourcesSetUp(Sim *s, Crowd *c);
PetscErrorCode SourcesStep(Sim *s, Crowd *c);
PetscBool      SourcesPending(const Crowd *c);
PetscErrorCode SourcesDestroy(Crowd *c);

/* csm.c: the collision-free speed model (-crowd_model csm), used by crowd.c */
PetscErrorCode CsmSetUp(Sim *s);
PetscErrorCode CsmRebinned(Sim *s);
PetscErrorCode CsmDestroy(Csm *m);
PetscErrorCode CsmCheckReach(Sim *s);
