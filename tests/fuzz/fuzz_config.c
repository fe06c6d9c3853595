/* libFuzzer target: the YAML config reader (PETSc's -options_file_yaml) and the options
   it yields, through throng's ProcessOptions: every option's parsing and checks. */
#include "fuzz_common.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
  FuzzInit(argc, argv, ".yaml");
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  Params p;
  if (size > 65536) return 0;
  FuzzWrite(data, size);
  if (PetscOptionsClear(NULL)) abort();
  if (!PetscOptionsInsertFileYAML(PETSC_COMM_SELF, NULL, fuzz_path, PETSC_TRUE)) {
    if (ParamsSetDefaults(&p)) abort();
    (void)ProcessOptions(PETSC_COMM_SELF, &p);
  }
  return 0;
}
