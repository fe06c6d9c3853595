/* source — agents that arrive during the run (see the essay at the top of src/source.c). */
#pragma once
#include <throng/crowd/population.h>

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
