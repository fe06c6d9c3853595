#include "testutil.h"

int test_passed = 0, test_failed = 0;

PetscErrorCode TestSimCreate(const char *opts, Sim *s)
{
  PetscFunctionBeginUser;
  PetscCall(TestSimCreateOn(PETSC_COMM_WORLD, opts, s));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode TestSimCreateOn(MPI_Comm comm, const char *opts, Sim *s)
{
  Params prm;
  PetscFunctionBeginUser;
  PetscCall(PetscOptionsClear(NULL));
  PetscCall(PetscOptionsInsertString(NULL, opts));
  PetscCall(ParamsSetDefaults(&prm));
  prm.quiet = PETSC_TRUE;
  PetscCall(ProcessOptions(comm, &prm));
  PetscCall(SimCreate(comm, &prm, s));
  PetscCall(SimResolveInitialOverlaps(s));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode TestGatherArraysById(Sim *s, const PetscReal *a, const PetscReal *b, PetscReal *A, PetscReal *B)
{
  const PetscInt64 N = s->prm.n;
  PetscFunctionBeginUser;
  PetscCall(PetscArrayzero(A, N));
  PetscCall(PetscArrayzero(B, N));
  for (PetscInt i = 0; i < s->P.n; i++) {
    A[s->P.id[i]] = a[i];
    B[s->P.id[i]] = b[i];
  }
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, A, (PetscMPIInt)N, MPIU_REAL, MPI_SUM, s->dom.comm));
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, B, (PetscMPIInt)N, MPIU_REAL, MPI_SUM, s->dom.comm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode TestGatherById(Sim *s, PetscReal *x, PetscReal *y)
{
  PetscFunctionBeginUser;
  PetscCall(TestGatherArraysById(s, s->P.x, s->P.y, x, y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int TestFinish(void)
{
  int f = test_failed, p = test_passed, rank;
  MPI_Allreduce(MPI_IN_PLACE, &f, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  MPI_Allreduce(MPI_IN_PLACE, &p, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (!rank) printf("%d passed, %d failed\n", p, f);
  return f ? 1 : 0;
}
