/* balance — dynamic load balancing by moving the rank blocks' borders (balance.c). */
#pragma once
#include <throng/util/params.h>
#include <throng/core/domain.h>
#include <throng/core/particles.h>

typedef struct {
  PetscInt  step;
  PetscReal time;
  PetscReal work;  /* max over ranks / mean of the work (disks + cell weight x cells), after the check */
  PetscReal disks; /* max over ranks / mean of the owned disks, before the check        */
  PetscReal busy;  /* max / mean of the prediction and sweep time since the last check */
  int       moved; /* 1: the blocks were repartitioned at this check                   */
} BalanceRec;

typedef struct {
  PetscInt    sinceTry; /* checks since the last attempt to repartition            */
  PetscInt    checks, repartitions;
  PetscInt64  routed; /* disks handed to another rank by repartitions (this rank) */
  BalanceRec *rec;    /* rank 0: one record per check                            */
  PetscInt    nrec, caprec;
} Balance;

/* The rectilinear partition of an nt[0] x nt[1] grid of tile weights W (row-major:
   W[ty nt[0] + tx]) into p[0] x p[1] blocks that minimises the heaviest block, found by
   alternating exact one-dimensional solutions (see balance.c).  cx[0..p[0]] and
   cy[0..p[1]] hold the starting cuts on entry and the result on exit; *heaviest is the
   result's heaviest block.  Deterministic: the same inputs give the same cuts.        */
PetscErrorCode BalanceRectilinear(const PetscInt nt[2], const PetscInt64 *W, const PetscMPIInt p[2], PetscInt *cx,
                                  PetscInt *cy, PetscInt64 *heaviest);
/* The heaviest block of the cuts (cx, cy). */
PetscInt64 BalanceHeaviest(const PetscInt nt[2], const PetscInt64 *W, const PetscMPIInt p[2], const PetscInt *cx,
                           const PetscInt *cy);

/* At a rebinning, after migration: measure the imbalance of the owned disks P (busy:
   this rank's prediction and sweep seconds since the last check), record it, and when
   -balance_threshold says so find a better grid and cuts.  *repartition: the loop must
   move the blocks to (p, *cx, *cy) and PetscFree2(*cx, *cy).  Collective.             */
PetscErrorCode BalanceCheck(Balance *b, const Params *prm, const Domain *d, const Particles *P, PetscLogDouble busy,
                            PetscInt step, PetscReal time, PetscBool *repartition, PetscMPIInt p[2], PetscInt **cx,
                            PetscInt **cy);
/* The summary line, and PREFIX.balance.csv if writeFile; a run restarted from step
   from (>= 0; -1: a new run) keeps the file's rows up to that step. Collective. */
PetscErrorCode BalanceReport(const Balance *b, const Params *prm, const Domain *d, PetscBool writeFile, PetscInt from);
/* PREFIX.balance.csv as far as the run has come (rank 0 writes; the others return). */
PetscErrorCode BalanceWriteCSV(const Balance *b, const Params *prm, const Domain *d, PetscInt from);
