/* digest — a hash of (id, x, y) over all disks, identical on any rank count. */
#pragma once
#include <throng/core/particles.h>

typedef struct {
  uint64_t   h[2];
  PetscInt64 n;
} Digest;

PetscErrorCode StateDigest(MPI_Comm comm, const Particles *p, Digest *dg);
void           DigestFormat(const Digest *dg, char out[33]);
/* Add to h the hash of one record (a, bits of t, b), e.g. an agent's exit (id, time,
   exit): sums of such terms, like the disks', do not depend on the order or the rank. */
void DigestRecord(uint64_t a, double t, uint64_t b, uint64_t h[2]);
/* Fingerprint of the id set alone, for the conservation check. */
PetscErrorCode IdFingerprint(MPI_Comm comm, const Particles *p, Digest *dg);
