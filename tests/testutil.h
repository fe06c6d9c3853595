/* Helpers shared by throng's C tests. Each test prints "N passed, M failed" last. */
#pragma once
#include <throng/core/sim.h>
#include <throng/app/options.h>
#include <throng/step/pbd.h>
#include <stdio.h>

extern int test_passed, test_failed;

/* Record a check on every rank; print failures from the rank that saw them. */
#define CHECK(cond, ...) \
  do { \
    if (cond) test_passed++; \
    else { \
      int r_; \
      MPI_Comm_rank(MPI_COMM_WORLD, &r_); \
      fprintf(stderr, "[%d] FAIL %s:%d: ", r_, __FILE__, __LINE__); \
      fprintf(stderr, __VA_ARGS__); \
      fprintf(stderr, "\n"); \
      test_failed++; \
    } \
  } while (0)

/* Create a simulation from an option string (as on the command line). Collective. */
PetscErrorCode TestSimCreate(const char *opts, Sim *s);
PetscErrorCode TestSimCreateOn(MPI_Comm comm, const char *opts, Sim *s);
/* Positions of all disks by id, on every rank (arrays of length N). Collective. */
PetscErrorCode TestGatherById(Sim *s, PetscReal *x, PetscReal *y);
/* The same for two per-owned-disk arrays a, b (e.g. the binning positions xb, yb). */
PetscErrorCode TestGatherArraysById(Sim *s, const PetscReal *a, const PetscReal *b, PetscReal *A, PetscReal *B);
/* Sum failures over ranks, print the closing line, return the exit status. */
int TestFinish(void);

/* Seed 000 §4.3's 40 disks from a fixed golden-angle spiral (test_disks40.c explains it):
   rank 0 writes the start file (named after its pid) and opts receives the options of
   the scene (radius, attraction, half-plane, box, -init file ...). Collective. */
PetscErrorCode TestDisks40Start(char *opts, size_t len);
/* Remove the start file named in opts (rank 0). Collective. */
PetscErrorCode TestDisks40Remove(const char *opts);
