/* params — every run-time parameter of a run (Params), the records the options declare
   (populations, sources) and the queries derived from them (see src/util/params.c).  The
   options are read into it by the helpers of opt.h, module by module (app/options.c). */
#pragma once
#include <throng/throng.h>
#include <throng/util/dist.h>

/* What -populations declares (crowd/population.c reads it). */
#define THRONG_MAX_POPS      16
#define THRONG_MAX_POP_VERTS 16
#define THRONG_POP_NAME_LEN  24
#define THRONG_POP_ROUTE_LEN 128

typedef struct {
  char       name[THRONG_POP_NAME_LEN];
  PetscInt64 first, count; /* its agents are the ids first .. first + count - 1 */
  PetscReal  density;      /* -1, or agents per m^2 of its region (the count)   */
  int        place;        /* -pop_NAME_place: 0 spread, 1 fill (row by row)   */
  PetscInt   ngiven;       /* the region as given: ngiven points                */
  PetscReal  given[2 * THRONG_MAX_POP_VERTS];
  PetscInt   nvert;                          /* the start region: a polygon of nvert vertices     */
  PetscReal  vert[2 * THRONG_MAX_POP_VERTS]; /* (2 points given: a rectangle)                     */
  PetscReal  bbox[4];
  Dist       radius, speed, premove;
  char       text[3][64];                 /* their options' text: radius, speed, premove       */
  PetscReal  timeGap;                     /* -1: -csm_time_gap                                 */
  char       route[THRONG_POP_ROUTE_LEN]; /* targets T1,T2,... ("": the crowd's own choice)    */
} Population;

/* What -sources declares (crowd/source.c reads it). */
#define THRONG_MAX_SOURCES 8

typedef enum { SOURCE_CONSTANT, SOURCE_POISSON, SOURCE_TABLE } SourceProcess;

/* A source as the options give it (Params). */
typedef struct {
  char          name[THRONG_POP_NAME_LEN];
  PetscInt      nregion; /* points of its region (2: a rectangle), or 0  */
  PetscReal     region[2 * THRONG_MAX_POP_VERTS];
  PetscInt      nline; /* 2: a line x0,y0,x1,y1 instead of a region     */
  PetscReal     line[4];
  SourceProcess process;                   /* -src_NAME_process                             */
  PetscReal     rate;                      /* agents per second (constant, poisson)        */
  PetscReal     start, stop;               /* arrivals in [start, stop] s (stop -1: no end) */
  PetscInt64    count;                     /* at most this many (-1: no limit)              */
  char          table[PETSC_MAX_PATH_LEN]; /* -src_NAME_table FILE: arrival times, one a line */
  uint64_t      tableHash;                 /* its content (FNV-1a), in the physics string   */
  char          pop[THRONG_POP_NAME_LEN];  /* the arrivals' population ("": the defaults)   */
  PetscInt      popIndex;                  /* ... its index (-1: none)                      */
} SourceDecl;

#define THRONG_MAX_HALFPLANES 16

typedef enum { INIT_LATTICE, INIT_JITTER, INIT_UNIFORM, INIT_FILE } InitKind;
typedef enum { OVERLAP_ERROR, OVERLAP_PROJECT } OverlapPolicy;
typedef enum { CROWD_CSM, CROWD_PROJECTION } CrowdModel;
typedef enum { EXIT_PASS, EXIT_REACH } ExitRule;
typedef enum { ROUTE_NEAREST_EXIT, ROUTE_QUICKEST } RouteChoice;

/* How an option is declared (util/opt.c): its kind says whether it defines the equations
   (PHYS: a restart must be given the same value) or only steers the run (RUN).       */
typedef enum { OPT_RUN, OPT_PHYS } OptionKind;
typedef enum { OPTT_REAL, OPTT_REALS, OPTT_INT, OPTT_INTS, OPTT_INT64, OPTT_BOOL, OPTT_STRING, OPTT_ENUM } OptionType;
typedef struct {
  const char        *name; /* without the dash                                     */
  OptionKind         kind;
  OptionType         type;
  size_t             off; /* of the value in Params                               */
  PetscInt           n;   /* number of values; -1: per x the PetscInt at noff     */
  size_t             noff;
  PetscInt           per;
  const char *const *list;  /* OPTT_ENUM: the names                                 */
  PetscBool          given; /* set on the command line, in the YAML file or by a scenario */
} OptionDecl;
#define THRONG_MAX_OPTIONS 384

typedef struct {
  char scenario[64]; /* -scenario NAME: a ready-made set of options            */
  /* particles */
  PetscInt64 n;          /* -n: number of disks                                        */
  PetscReal  radius;     /* -radius: mean disk radius                                  */
  PetscReal  poly;       /* -polydispersity p: radii uniform in [R(1-p), R(1+p)]       */
  PetscReal  bidisperse; /* -bidisperse q: even ids radius R, odd ids q R (0: off) */
  /* time stepping */
  PetscReal  dt;    /* -dt: time step h                                           */
  PetscInt   steps; /* -steps                                                     */
  PetscInt64 seed;  /* -seed: key of every random stream                          */
  /* domain, cells, walls */
  PetscReal box[4];     /* -box x0,y0,x1,y1: decomposed region                        */
  PetscBool wallBox;    /* -wall_box: the box edges are walls                         */
  PetscReal deformRate; /* -deform_rate e: periodic edges x (1 + e h) per step (deform.c) */
  PetscReal deformPhi;  /* -deform_phi f: ... until the packing fraction is f (0: never)  */
  PetscReal shearRate;  /* -shear_rate g: simple shear by Lees-Edwards images (deform.c)    */
  PetscReal baroP;      /* -barostat p: a pressure-controlled box (barostat.c; 0: off)       */
  PetscReal baroTau;    /* -barostat_tau: its time scale                                     */
  int       pbcAxes;    /* -periodic none|x|y|xy: 0..3, bit a set: periodic along a      */
  PetscBool pbc[2];     /* ... as flags along x, y (periodic.c)                        */
  PetscInt  nhalf;      /* -halfplanes nx,ny,b,...: disks kept in n·q >= b + r        */
  PetscReal half[3 * THRONG_MAX_HALFPLANES];
  PetscReal skin;            /* -skin: cell edge = 2 r_max + skin                          */
  PetscReal rebin;           /* -rebin_fraction: rebin when a prediction has moved a disk  */
                             /*   more than this fraction of the skin since the last binning */
  PetscInt  tile;            /* -tile: tile edge in cells (>= 2; default from the cell grid) */
  PetscInt  grid[2];         /* -rank_grid px,py: ranks along x and y (0,0: automatic)     */
  PetscReal balance;         /* -balance_threshold: repartition when the owned disks' max  */
                             /*   over mean passes this (0: never; balance.c)               */
  PetscInt  balanceInterval; /* -balance_interval: rebinnings between attempts         */
  PetscReal balanceCell;     /* -balance_cell_weight: cost of a cell relative to a disk   */
  /* time stepper (solver.h) */
  char      solver[16]; /* -solver NAME: a stepper of the registry (solver.c)         */
  PetscReal rtol, atol; /* -solver_rtol, -solver_atol: stopping rule of pngs and pgs  */
  PetscInt  maxIt;      /* -solver_max_it: iteration limit of pngs and pgs per step   */
  PetscReal penalty;    /* -penalty_gamma: penalty parameter of seed 000 eq. 107      */
  PetscReal warm;       /* -pbdw_warm: fraction of the warm start carried (default 1)  */
  PetscReal warmBlend;  /* -pbdw_blend: kappa of the warm start's blend (warm.c)     */
  PetscInt  warmSweeps; /* -pbdw_sweeps: 1 (forward) or 2 (forward, then backward)     */
  PetscReal active;     /* -pgs_active: linearise pairs and walls with gap < this     */
  PetscBool tao;        /* -pgs_tao: solve pgs's dual QP with PETSc TAO (-tao_type)    */
  PetscBool monitor;    /* -solver_monitor: a line per step (iterations, residual)    */
  /* -solver edmd: event-driven hard disks (edmd.c, edmd_run.c) */
  PetscReal kT;                          /* -edmd_temperature: kT of the initial Maxwell-Boltzmann draw */
  PetscBool periodic;                    /* -edmd_periodic: periodic box instead of walls             */
  PetscBool brute;                       /* -edmd_brute: O(N) prediction against every disk (oracle)  */
  PetscReal equil;                       /* -edmd_equilibrate T: statistics start at time T           */
  char      edmdLog[PETSC_MAX_PATH_LEN]; /* -edmd_log FILE: every collision, in order */
  /* crowd (crowd.c, eikonal.c, geometry.c) */
  char        geometry[PETSC_MAX_PATH_LEN]; /* -geometry FILE: walkable area and exits (WKT) */
  uint64_t    geomHash;                     /* the hash of its text (geometry.c), in the physics string          */
  PetscBool   walk;                         /* -walk: agents walk to the exits (false: walls only)        */
  PetscInt    nsched;                       /* -gravity_schedule t,gx,gy,...: the field from time t on    */
  PetscReal   sched[3 * 16];
  PetscReal   eikH;            /* -eikonal_h: grid spacing of the travel-distance field      */
  PetscReal   eikWall;         /* -eikonal_wall_distance d: slower within d of walls (0 off) */
  PetscReal   speed[4];        /* -speed mean,sd,min,max: free speeds (m/s), normal, clipped  */
  PetscReal   speed2[4];       /* -speed2 ...: a second population's distribution            */
  PetscReal   frac2;           /* -speed2_fraction: the share of agents drawn from -speed2    */
  CrowdModel  crowdModel;      /* -crowd_model csm|projection (csm.c; seed 001 §4.2)        */
  ExitRule    exitRule;        /* -exit_rule pass|reach: when an agent has left (exits.c)     */
  PetscReal   csmT[2];         /* -csm_time_gap, -csm_time_gap2: T of each population (s)     */
  PetscReal   csmRep[2];       /* -csm_repulsion a,D: neighbours' repulsion strength, range   */
  PetscReal   csmWall[2];      /* -csm_wall_repulsion a,D: the walls'                         */
  PetscReal   csmCorridor;     /* -csm_corridor k: the one ahead is within k l of the path   */
  PetscReal   csmAvoid;        /* -csm_avoidance b: turn away from a slower one ahead          */
  PetscBool   csmCheck;        /* -csm_check_reach: brute-force check of the neighbour sets   */
  PetscInt    csmWidth;        /* -csm_vector_width: the law's widest vector kernels (bits)    */
  PetscReal   densH;           /* -density_h: cell of the density map (m; 0: no map)         */
  PetscReal   densDt;          /* -density_dt: seconds of simulated time between its samples */
  RouteChoice routeChoice;     /* -route_choice nearest|quickest: how free agents pick an exit (route.c) */
  PetscReal   routeInterval;   /* -route_interval: seconds between recomputations of the choice    */
  PetscReal   routeReconsider; /* -route_reconsider: seconds between an agent's reconsiderations  */
  PetscReal   routeGain;       /* -route_gain: an agent switches only to gain more than this (s)    */
  PetscReal   routeCommit;     /* -route_commit: after a change, an agent keeps its exit this long  */
  PetscReal   routeFlow;       /* -route_flow: specific flow of a door, /(m s), its capacity        */
  PetscReal   wayRadius;       /* -waypoint_radius: a waypoint is reached within this distance (m)  */
  PetscReal   stallTime;       /* -stall_time: a crowd that has not moved for this long fails (stall.c) */
  PetscReal   stallDist;       /* -stall_distance: a move shorter than this is no progress (m)        */
  /* populations and pre-movement (population.c), stairs (zone.c) */
  char       popList[THRONG_MAX_POPS * THRONG_POP_NAME_LEN]; /* -populations NAME,...      */
  PetscInt   npop;                                           /* how many: 0 when none                              */
  Population pop[THRONG_MAX_POPS];
  PetscBool  premoveOn; /* any agent has a pre-movement time                  */
  Dist       premove;   /* -premove DIST: everyone's (without -populations)   */
  char       premoveText[64];
  Dist       stairUp, stairDown; /* -stair_up, -stair_down DIST: speeds along a stair  */
  PetscReal  storey;             /* -storey_height: z of a floor's level 1 in the snapshots (floors.c) */
  char       stairText[2][64];
  char       srcList[THRONG_MAX_SOURCES * THRONG_POP_NAME_LEN]; /* -sources NAME,... (source.c) */
  PetscInt   nsrc;
  SourceDecl src[THRONG_MAX_SOURCES];
  char       optName[THRONG_MAX_POPS * 10 + THRONG_MAX_SOURCES * 12][48]; /* names made at run time (OptName) */
  PetscInt   noptName;
  /* driver f */
  PetscReal gamma;      /* -attract_gamma: f = -gamma (q - c)                         */
  PetscReal center[2];  /* -attract_center cx,cy                                      */
  PetscReal gravity[2]; /* -gravity gx,gy: constant field                             */
  PetscReal noise;      /* -noise D: Brownian displacements sqrt(2 D h) xi per step   */
  /* initial condition */
  InitKind      init;                         /* -init lattice|jitter|uniform|file                      */
  char          initFile[PETSC_MAX_PATH_LEN]; /* -init_file: lines "x y [r]"            */
  PetscReal     rmaxFile;                     /* largest radius given in the file (0: none)             */
  PetscReal     region[4];                    /* -init_region x0,y0,x1,y1 (default: the box)            */
  PetscInt      ngroups;                      /* -groups x0,y0,x1,y1,n,...: n disks in each region      */
  PetscReal     groups[5 * 16];
  PetscBool     groupsDensity;    /* -groups_density: the 5th numbers are agents per m^2  */
  PetscReal     phi;              /* -init_phi: packing fraction of the lattice              */
  OverlapPolicy overlap;          /* -init_overlap error|project                             */
  PetscReal     overlapTol;       /* -init_overlap_tol: relative to 2 r_max                  */
  PetscInt      overlapMaxSweeps; /* -init_overlap_max_sweeps                          */
  /* output */
  PetscInt   overlapEvery;                   /* -overlap_every K: measure the largest overlap every K steps */
  PetscReal  overlapAbort;                   /* -overlap_abort F: stop when an overlap passes F d_min */
  PetscInt   progress;                       /* -progress K: a progress line every K steps (0: 10 lines)   */
  PetscBool  map;                            /* -map: print an ASCII density map of the final state        */
  PetscBool  checkConservation;              /* -check_conservation: verify ids after migrations    */
  PetscBool  quiet;                          /* -quiet: only the final summary                             */
  char       output[PETSC_MAX_PATH_LEN];     /* -output PREFIX: PREFIX.h5, PREFIX.xdmf ("none") */
  PetscInt   outputEvery;                    /* -output_every K: snapshot every K steps (0: first and last) */
  char       traj[PETSC_MAX_PATH_LEN];       /* -trajectory FILE: PedPy/PDA trajectories (HDF5) */
  PetscReal  trajFps;                        /* -trajectory_fps: frames per simulated second    */
  char       checkpoint[PETSC_MAX_PATH_LEN]; /* -checkpoint PATH (default PREFIX.chk.h5)        */
  PetscInt   chkEvery;                       /* -checkpoint_every K steps (0: off)              */
  PetscReal  chkWall;                        /* -checkpoint_wall T seconds of wall time (0: off) */
  char       restart[PETSC_MAX_PATH_LEN];    /* -restart PATH: continue from a checkpoint       */
  PetscBool  ioTwoPhase;                     /* -io_collective_buffering: MPI-IO two-phase writes */
  PetscReal  flushEvery;                     /* -output_flush_every T: seconds between flushes  */
  PetscInt   outputRound;                    /* -output_round K: records per rank per write round */
  PetscBool  stress;                         /* -stress: contact stress at the progress steps (contacts.c) */
  PetscInt   stressBands;                    /* -stress_bands K: its profile in K horizontal bands */
  PetscBool  contactOutput;                  /* -contact_output: contacts at the snapshot steps (contact_output.c) */
  OptionDecl decl[THRONG_MAX_OPTIONS];       /* every option, in the order read (opt.c)         */
  PetscInt   crowdDecl[2];                   /* decl[] of the crowd's options: [first, last)     */
  PetscInt   ndecl;
} Params;

PetscErrorCode ParamsSetDefaults(Params *p);
/* The population of agent id (0 without -populations); the fastest free speed and the
   longest time gap of any agent. */
PetscInt  ParamsPopulationOf(const Params *p, PetscInt64 id);
PetscReal ParamsSpeedMax(const Params *p);
PetscReal ParamsTimeGapMax(const Params *p);
/* The largest radius any disk may have (the populations' radii, -radius with
   -polydispersity or -bidisperse, the radii of -init_file). */
PetscReal ParamsRadiusMax(const Params *p);
/* The option(s) that give the largest radius: "-pop_NAME_radius", or "-radius". */
void ParamsRadiusOption(const Params *p, char *buf, size_t len);
/* Is (x, y) in the start region of population q? */
PetscBool PopulationHolds(const Population *q, PetscReal x, PetscReal y);
/* How far beyond a door's line agents walk on before they are removed (exits.c):
   2 r_max + v0_max T_max with the time-gap law and -exit_rule pass, else 0. */
PetscReal ParamsExitDepth(const Params *p);
/* Does the box change in this run (-deform_rate, -shear_rate, -barostat)? */
PetscBool ParamsBoxMoves(const Params *p);
/* The weights of sigma_xx and sigma_yy in the pressure a barostat measures (1 on a
   deformed axis; 0, 0 without -barostat). */
void ParamsBarostatAxes(const Params *p, PetscReal w[2]);
/* The longest time an option may give (s): beyond it step counts and the sums of times
   lose their units (a pre-movement time of 10^16 s never started: issue 44). */
#define THRONG_MAX_TIME 1e9
/* Every time option is at most THRONG_MAX_TIME in size: an error naming the option
   (name, and its value as text) otherwise.  Collective. */
PetscErrorCode ParamsCheckTime(MPI_Comm comm, const char *name, const char *text, PetscReal t);
/* The same for a real: its value as the text. */
PetscErrorCode ParamsCheckTimeReal(MPI_Comm comm, const char *name, PetscReal t);
/* Steps per -trajectory frame, 1 / (fps dt), or an error if that is not whole. */
PetscErrorCode TrajectoryStride(MPI_Comm comm, const Params *prm, PetscInt *stride);
/* The trajectory file of floor NAME beside -trajectory FILE: FILE.h5 -> FILE.NAME.h5. */
void TrajectoryFloorPath(const char *path, const char *name, char *out, size_t len);
/* Whether the option (name without the dash) was given, not left at its default. */
PetscBool ParamsGiven(const Params *p, const char *name);
/* "name=value ..." of every PHYS option, with its final value (defaults resolved): what
   a checkpoint stores and a restart must match. */
PetscErrorCode ParamsPhysics(const Params *p, char *buf, size_t len);
