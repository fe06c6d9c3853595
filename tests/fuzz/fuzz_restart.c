/* libFuzzer target: the checkpoint reader (checkpoint.c, HDF5) behind -restart: format,
   version, physics string, datasets and their sizes, the crowd records.  The seed corpus
   holds a real checkpoint of the scene below (tests/fuzz/run.sh writes it). */
#include "fuzz_common.h"
#include <throng/io/io.h>

/* the options of the seed checkpoint (run.sh writes it with them): a restart must match */
#define FUZZ_RESTART_OPTIONS "-n 50 -box 0,0,20,20 -tile 2 -steps 10 -output none"
static Params prm;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
  FuzzInit(argc, argv, ".chk.h5");
  H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
  if (PetscOptionsInsertString(NULL, FUZZ_RESTART_OPTIONS) || ParamsSetDefaults(&prm) || ProcessOptions(PETSC_COMM_SELF, &prm)) abort();
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  Sim s;
  if (size > (1 << 20)) return 0;
  FuzzWrite(data, size);
  if (SimSetUp(PETSC_COMM_SELF, &prm, &s)) abort();
  (void)CheckpointRead(&s, fuzz_path);
  if (SimDestroy(&s)) abort();
  return 0;
}
