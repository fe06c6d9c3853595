#include "testutil.h"
#include <string.h>
#include <unistd.h>

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
  PetscCall(PBDResolveInitialOverlaps(s));
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

PetscErrorCode TestDisks40Start(char *opts, size_t len)
{
  PetscMPIInt rank;
  int         pid = (int)getpid();
  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  PetscCallMPI(MPI_Bcast(&pid, 1, MPI_INT, 0, PETSC_COMM_WORLD));
  PetscCall(PetscSNPrintf(opts, len,
                          "-radius 0.1 -polydispersity 0 -attract_gamma 1 -attract_center 0,0 -wall_box 0 -halfplanes "
                          "0,1,0 -box -2,-1,2,3 -init file -init_file disks40_%d.txt -tile 2",
                          pid));
  if (!rank) {
    char  name[64];
    FILE *f;
    PetscCall(PetscSNPrintf(name, sizeof(name), "disks40_%d.txt", pid));
    f = fopen(name, "w");
    PetscCheck(f, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "cannot write %s", name);
    fprintf(f, "# 40 disks of radius 0.1 on a golden-angle spiral\n");
    for (int k = 0; k < 40; k++)
      fprintf(f, "%.17g %.17g 0.1\n", 0.16 * sqrt(k + 0.5) * cos(2.39996322972865332 * k),
              1.15 + 0.16 * sqrt(k + 0.5) * sin(2.39996322972865332 * k));
    fclose(f);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode TestDisks40Remove(const char *opts)
{
  PetscMPIInt rank;
  char        name[64];
  const char *p = strstr(opts, "disks40_");
  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  if (!p) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscStrncpy(name, p, sizeof(name)));
  if (strchr(name, ' ')) *strchr(name, ' ') = 0;
  if (!rank) remove(name);
  PetscFunctionReturn(PETSC_SUCCESS);
}
