/* sensors — a crowd's line sensors and density map (see src/crowd/sensors.c). */
#pragma once
#include <throng/crowd/crowd.h>

/* The crossings of the line sensors since the last mark (before a rebin and at the end
   of a step), and the mark: the owned agents' positions now. */
PetscErrorCode CrowdSensorsAdvance(Sim *s);
PetscErrorCode CrowdSensorsMark(Sim *s);
/* The density map's grid (-density_h), and a sample every -density_dt seconds. */
PetscErrorCode DensitySetUp(Sim *s);
PetscErrorCode DensitySample(Sim *s);
/* The density map summed on rank 0 (NULL elsewhere; counts, not yet densities).
   Collective. */
PetscErrorCode GatherDensity(Sim *s, PetscReal **sum);
