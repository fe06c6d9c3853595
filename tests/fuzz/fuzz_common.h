/* Shared set-up of throng's libFuzzer targets (tests/fuzz/README.md).
 *
 * Each target feeds the fuzzer's bytes to one of throng's readers the way the program
 * does: written to a file, read by the reader under test on PETSC_COMM_SELF.  PETSc,
 * MPI and HDF5 are initialised once; a reader's error is an expected outcome (it must
 * return an error code, never crash, read out of bounds or leak), so PETSc's error
 * handler is the quiet returning one.                                                 */
#pragma once
#include <throng/core/sim.h>
#include <throng/app/options.h>
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

static char fuzz_path[256];

/* PETSc and MPI once per process; the scratch file the inputs are written to. */
static void FuzzInit(int *argc, char ***argv, const char *suffix)
{
  (void)argc, (void)argv;
  if (PetscInitializeNoArguments()) abort();
  if (PetscPushErrorHandler(PetscReturnErrorHandler, NULL)) abort();
  snprintf(fuzz_path, sizeof(fuzz_path), "%s/throng-fuzz-%ld%s", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", (long)getpid(), suffix);
}

/* The input as the file the reader opens. */
static void FuzzWrite(const uint8_t *data, size_t size)
{
  FILE *f = fopen(fuzz_path, "wb");
  if (!f) abort();
  if (size && fwrite(data, 1, size, f) != size) abort();
  fclose(f);
}
