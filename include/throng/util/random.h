/* random — every random number of throng: Philox-4x32-10 (Random123), counter-based.
 *
 * A draw is a pure function of the key (-seed) and a counter made of the disk's id and
 * two words that name the stream (and the step, for the noise).  So a disk's draws do
 * not depend on which rank holds it, in which order disks are visited, or whether the
 * run was restarted: the same trajectory on any rank count.  The streams in use:
 *   init.c     (id, stream, 0) with RANDOM_STREAM_*: radius, position, free speed,
 *              population, velocity;
 *   population.c, zone.c  (id, stream, 0): a population's radius, free speed and
 *              pre-movement time, an agent's speeds on stairs;
 *   drivers.c  (id, 0x6 | (step >> 32) << 8, step): the Brownian noise of each step. */
#pragma once
#include <throng/throng.h>
#include <math.h>
#include <Random123/philox.h>

enum {
  RANDOM_STREAM_RADIUS   = 1,
  RANDOM_STREAM_POS      = 2,
  RANDOM_STREAM_SPEED    = 3,
  RANDOM_STREAM_GROUP    = 4,
  RANDOM_STREAM_VELOCITY = 5,
  RANDOM_STREAM_NOISE    = 6,
  RANDOM_STREAM_PREMOVE  = 7,  /* population.c: pre-movement times          */
  RANDOM_STREAM_STAIR_UP = 8,  /* zone.c: an agent's speed up stairs          */
  RANDOM_STREAM_STAIR_DN = 9,  /* ... and down stairs                         */
  RANDOM_STREAM_SOURCE   = 10, /* source.c: (arrival k, source): times, spots   */
  RANDOM_STREAM_SITE     = 11  /* init.c: (site, population): a population's sites */
};

/* Two uniforms in [0, 1), 53 bits each, for counter (id, c2, c3) under key seed. */
static inline void RandomUniform2(PetscInt64 seed, PetscInt64 id, uint32_t c2, uint32_t c3, double u[2])
{
  philox4x32_ctr_t c = {{(uint32_t)(uint64_t)id, (uint32_t)((uint64_t)id >> 32), c2, c3}};
  philox4x32_key_t k = {{(uint32_t)(uint64_t)seed, (uint32_t)((uint64_t)seed >> 32)}};
  philox4x32_ctr_t r = philox4x32(c, k);
  u[0]               = (double)((((uint64_t)r.v[0] << 32) | r.v[1]) >> 11) * 0x1.0p-53;
  u[1]               = (double)((((uint64_t)r.v[2] << 32) | r.v[3]) >> 11) * 0x1.0p-53;
}

/* Two independent standard normals from the same counter (Box-Muller). */
static inline void RandomNormal2(PetscInt64 seed, PetscInt64 id, uint32_t c2, uint32_t c3, PetscReal g[2])
{
  double u[2];
  RandomUniform2(seed, id, c2, c3, u);
  const double rad = sqrt(-2 * log(1 - u[0])), ang = 2 * PETSC_PI * u[1];
  g[0] = (PetscReal)(rad * cos(ang));
  g[1] = (PetscReal)(rad * sin(ang));
}
