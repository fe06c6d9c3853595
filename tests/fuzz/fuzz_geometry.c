/* libFuzzer target: the WKT geometry reader (geometry.c, GEOS): walkable POLYGON or
   MULTIPOLYGON, exit and sensor LINESTRINGs, comments; on success the walls, exits and
   the inside test are exercised too. */
#include "fuzz_common.h"
#include <throng/geometry.h>

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
  FuzzInit(argc, argv, ".wkt");
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  Geometry g;
  if (size > 65536) return 0; /* geometry files are small; keep each run fast */
  FuzzWrite(data, size);
  if (!GeometryRead(PETSC_COMM_SELF, fuzz_path, PETSC_FALSE, &g)) {
    volatile PetscBool in = GeometryInside(&g, 0.5 * (g.bbox[0] + g.bbox[2]), 0.5 * (g.bbox[1] + g.bbox[3]));
    (void)in;
    (void)GeometryDestroy(&g);
  }
  return 0;
}
