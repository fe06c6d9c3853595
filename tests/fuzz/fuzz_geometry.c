/* libFuzzer target: the WKT geometry reader (geometry.c, GEOS): walkable POLYGON or
   MULTIPOLYGON, exit and sensor LINESTRINGs, named exits, waypoints, routes, comments,
   floors and links; on success the walls, exits, the inside test, the floor test and the
   routes' tests are exercised too. */
#include "fuzz_common.h"
#include <throng/core/geometry.h>

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
    volatile PetscInt fl = GeometryFloorAt(&g, 0.5 * (g.bbox[0] + g.bbox[2]), 0.5 * (g.bbox[1] + g.bbox[3]));
    (void)fl;
    for (PetscInt r = 0; r < g.nroutes; r++) {
      char      name[64];
      PetscBool holds = GeometryRouteHolds(&g, r, 3, 0.5 * (g.bbox[0] + g.bbox[2]), g.bbox[1] + 1);
      (void)holds;
      for (PetscInt l = 0; l < g.route[r].ntarget; l++) (void)GeometryTargetName(&g, g.route[r].target[l], name, 64);
    }
    (void)GeometryDestroy(&g);
  }
  return 0;
}
