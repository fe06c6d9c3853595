/* throng — common definitions shared by every module.
 *
 * throng simulates N disks in the plane under first-order (overdamped) dynamics with
 * hard non-overlap constraints,  dq/dt ∈ f(q) − N(S, q),  by position-based dynamics
 * (PBD): a prediction y = x + h f(x) followed by ONE sweep of projections onto the
 * single constraints.  See docs/algorithm.md for the method and why the distributed
 * sweep is a sequential PBD sweep.                                                        */
#pragma once
#include <petscsys.h>
#include <stdint.h>

/* PETSc 3.18 predates PETSC_SUCCESS. */
#ifndef PETSC_SUCCESS
#  define PETSC_SUCCESS 0
#endif

/* Room for element n of a growable array *a of elements of `size` bytes with capacity
   *cap (doubling; the contents are kept). */
static inline PetscErrorCode ThrongGrow(void *a, size_t size, PetscInt n, PetscInt *cap)
{
  if (n < *cap) return PETSC_SUCCESS;
  *cap = 2 * *cap + 16;
  return PetscRealloc(size * (size_t)*cap, (void **)a);
}

/* The largest of the squared displacements d, such that a NaN (a blow-up) is kept: once
   m is NaN it stays NaN, since every comparison with it is false (a plain max skips a
   NaN).  For the loops off the hot path; the prediction (drivers.c) sums d - d inside a
   vectorised loop instead, where this select would cost more.  NaNAsInf
   then turns it into +infinity, which survives MPI_MAX (that may drop a NaN) and makes
   the caller rebin, where Migrate stops the run: "no longer a finite number".         */
static inline PetscReal MaxKeepNaN(PetscReal m, PetscReal d) { return d > m || d != d ? d : m; }
static inline PetscReal NaNAsInf(PetscReal m) { return m != m ? PETSC_INFINITY : m; }

/* Log events, one per phase of a step (registered in SimRegisterEvents); the io event
   contains ioOrder (redistribution into id order), ioWrite (H5Dwrite calls) and
   ioFlush (H5Fflush and the XDMF sidecar); pgsAssemble and pgsSolve are the -solver pgs
   phases (linearisation and PETSc assembly; the dual solve); balance is the load check
   and, when it repartitions, the new cuts and the routing of the disks (balance.c);
   links is the passages through the links between floors (floors.c); eikMask and
   eikMarch are the travel-time fields' set-up: the walkable nodes and the marches
   (eikonal.c). */
typedef struct {
  PetscLogEvent predict, cells, halo, sweep, migrate, diag, init, io, ioOrder, ioWrite, ioFlush, pgsAssemble, pgsSolve,
    balance, law, lawDir, lawGather, lawVisible, lawRepulse, lawWalls, lawSpacing, route, links, eikMask, eikMarch;
  PetscLogStage setup, run;
} ThrongEvents;
extern ThrongEvents THRONG_EV;
