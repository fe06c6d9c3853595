/* digest — a hash of (id, x, y) over all disks, identical on any rank count. */
#pragma once
#include <throng/particles.h>

typedef struct { uint64_t h[2]; PetscInt64 n; } Digest;

PetscErrorCode StateDigest(MPI_Comm comm, const Particles *p, Digest *dg);
void           DigestFormat(const Digest *dg, char out[33]);
/* Fingerprint of the id set alone, for the conservation check. */
PetscErrorCode IdFingerprint(MPI_Comm comm, const Particles *p, Digest *dg);
