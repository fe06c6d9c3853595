/* init — initial conditions, deterministic for a seed and independent of the rank count. */
#pragma once
#include <throng/util/params.h>
#include <throng/core/domain.h>
#include <throng/core/particles.h>

PetscReal InitRadius(const Params *prm, PetscInt64 id);
/* Two independent standard normal numbers for disk id (Box-Muller; edmd velocities). */
void InitGaussian2(const Params *prm, PetscInt64 id, PetscReal g[2]);
/* Population of agent id: 1 with probability -speed2_fraction, else 0. */
PetscInt InitPopulation(const Params *prm, PetscInt64 id);
/* Free speed of agent id: normal (-speed or, population 1, -speed2: mean,sd,min,max),
   clipped to [min, max]. */
PetscReal InitFreeSpeed(const Params *prm, PetscInt64 id);
/* Pre-movement time of agent id (s): -premove or its population's (population.c). */
PetscReal InitPremove(const Params *prm, PetscInt64 id);
/* The radius, free speed and pre-movement time of an agent of population k (-1: the
   defaults: -radius, -speed, -premove), whatever its id: the arrivals of a source. */
PetscReal InitRadiusOf(const Params *prm, PetscInt k, PetscInt64 id);
PetscReal InitFreeSpeedOf(const Params *prm, PetscInt k, PetscInt64 id);
PetscReal InitPremoveOf(const Params *prm, PetscInt k, PetscInt64 id);
/* Count the disk lines (and the largest radius given in them, 0 if none) of an -init_file (rank 0 reads, the count is broadcast). */
PetscErrorCode InitCountFile(MPI_Comm comm, const char *path, PetscInt64 *count, PetscReal *rmax);
/* Which lattice sites may hold a disk (e.g. inside a crowd's walkable area, at least
   margin from its walls); NULL: all. Must give the same answer on every rank. */
typedef PetscBool (*InitSiteFilter)(void *ctx, PetscReal x, PetscReal y, PetscReal margin);
/* Create the disks of this rank (collective); they end on the rank that owns them. With a
   filter, lattice and jittered disks take the accepted sites in order (ids 0, 1, ...). */
PetscErrorCode InitParticles(const Params *prm, const Domain *d, Particles *p, InitSiteFilter ok, void *ctx);
