/* report — progress lines, the density map of the summary, the resident memory (report.c). */
#pragma once
#include <throng/core/sim.h>

PetscErrorCode ReportProgress(Sim *s, PetscLogDouble t0, PetscInt step0, PetscBool force);
PetscErrorCode ReportMap(Sim *s, PetscInt nx, PetscInt ny);
PetscErrorCode ReportResidentBytes(PetscBool peak, PetscReal *bytes);
const char    *ReportVersion(void);
