/* init — initial conditions, deterministic for a seed and independent of the rank count. */
#pragma once
#include <throng/options.h>
#include <throng/domain.h>
#include <throng/particles.h>

PetscReal InitRadius(const Params *prm, PetscInt64 id);
PetscReal InitRadiusMax(const Params *prm);
/* Create the disks of this rank (collective); they end on the rank that owns them. */
PetscErrorCode InitParticles(const Params *prm, const Domain *d, Particles *p);
