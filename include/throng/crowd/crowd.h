/* crowd — the state of a crowd, every part's (Crowd), and the queries its parts share:
   the crowd of a run, when an agent starts, which door an agent has gone through, the
   area an agent may be in (see src/crowd/crowd.c).  The parts (floors, routes, sources,
   the stall detector, the time-gap law, the per-agent table) each have their own file
   and header; crowd_module.c plugs them into the loop as the module "crowd". */
#pragma once
#include <throng/core/sim.h>
#include <throng/core/geometry.h>
#include <throng/crowd/eikonal.h>
#include <throng/crowd/reach.h>
#include <throng/crowd/route.h>
#include <throng/io/io.h>

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

/* An agent went through a link: from line `side` & 1 of link `side` >> 1 to the other. */
typedef struct {
  PetscInt64 id;
  PetscReal  time;
  PetscInt   side;
} LinkRec;

typedef struct {
  PetscBool   on;           /* the scene has floors                                              */
  PetscReal   depth;        /* how far the lane behind a link line goes (m)                      */
  PetscInt    kfloor;       /* the per-disk fields "floor" and "z" of the snapshots (-1: none)   */
  PetscInt    kz, kxs, kys; /* ... "xs", "ys": the position in the building's plan (less the floor's shift) */
  LinkRec    *rec;          /* every passage through a link so far, in order (replicated)           */
  PetscInt    nrec, cap;
  PetscInt64 *start;  /* per floor: the agents on it at the start (replicated)             */
  PetscInt64  waits;  /* agent-steps an agent through a link waited for room on the far side */
  PetscReal   storey; /* -storey_height: z = level x this in the snapshots (m)             */
  PetscInt64  known;  /* the agents below this id have their floor in the field "floor"   */
} Floors;

/* The stall detector (stall.c). */
typedef struct {
  PetscBool  on;
  PetscReal  time;      /* -stall_time: the window (s of simulated time; 0: off)        */
  PetscReal  dist;      /* -stall_distance: movement that counts as progress (m)        */
  PetscReal  every;     /* a check every this many seconds of simulated time            */
  PetscInt   kx, ky;    /* the per-disk fields stall_x, stall_y: each agent at tref      */
  PetscReal  tref;      /* the window's start: the last check that saw progress         */
  PetscInt64 sig[3];    /* agents inside, arrivals, link passages at tref               */
  PetscInt64 checked;   /* index of the last check, floor(t / every); -1: none yet      */
  PetscReal  eta[2][8]; /* progress lines' (time, agents inside), a ring, for the ETA */
  PetscInt   neta;
} Stall;

/* An agent that arrived: its id, its time, its source, and the floor of the spot it took
   (floors.c; -1 in a scene without floors) (replicated on every rank). */
typedef struct {
  PetscInt64 id;
  PetscReal  time;
  PetscInt   source, floor;
} ArrivalRec;

/* The run-time state of a source (crowd.c holds them). */
typedef struct {
  PetscInt   nspot; /* where arrivals may stand: spots (x, y), each clear of the walls */
  PetscReal *spot;
  PetscReal  rmax;  /* the largest radius an arrival of it may have                      */
  PetscReal *times; /* -src_NAME_table: the arrival times                                */
  PetscInt64 ntimes;
  PetscInt64 k;    /* arrivals that have entered                                          */
  PetscReal  next; /* the time of arrival k (inf: no more)                                */
} Source;

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

/* The crowd of a run (NULL: none). */
Crowd *CrowdOf(const Sim *s);
/* Whether agent id still stands (its pre-movement time is not over at time t). */
static inline PetscBool CrowdWaiting(const Crowd *c, PetscInt64 id, PetscReal t)
{
  return (PetscBool)(c->premove && id < c->nspeed && t < c->premove[id]);
}
/* The exit segment an agent at (x, y) has gone through (-1: none), *out its distance
   beyond the door's line. */
PetscInt CrowdExitBeyond(const Crowd *c, PetscReal x, PetscReal y, PetscReal *out);
/* The area an agent may be in, as WKT (PetscFree it): the walkable area and, when agents
   walk on through the doors, each door's lane between its jambs' extensions.  floor >= 0:
   that floor's area and its doors' lanes only (floors.c). */
PetscErrorCode CrowdAreaWKT(const Sim *s, PetscInt floor, char **wkt, PetscInt *parts);
/* When agent id starts to walk: the first step time at or after its pre-movement time. */
PetscReal CrowdStartTime(const Sim *s, const Crowd *c, PetscInt64 id);
