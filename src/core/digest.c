/* digest — a hash of the state (id, x, y) over all disks, identical on any rank count.
 *
 * Each disk contributes H(id, bits(x), bits(y)), a 128-bit value from two independent
 * 64-bit mixing chains (the splitmix64 finaliser), and the contributions are added
 * modulo 2^64 per lane.  Addition commutes, so the digest equals the one obtained by
 * hashing the disks in id order, without gathering or sorting them: one MPI_Allreduce.
 * Any change of one bit of any coordinate, or of the id set, changes the digest except
 * with probability ~2^-128.                                                              */
#include <throng/core/digest.h>
#include <string.h>

static inline uint64_t Mix(uint64_t z)
{
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

static inline uint64_t Bits(double v)
{
  uint64_t b;
  memcpy(&b, &v, sizeof(b));
  return b;
}

static PetscErrorCode Reduce(MPI_Comm comm, uint64_t h[2], PetscInt64 n, Digest *dg)
{
  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Allreduce(h, dg->h, 2, MPI_UINT64_T, MPI_SUM, comm));
  PetscCallMPI(MPI_Allreduce(&n, &dg->n, 1, MPIU_INT64, MPI_SUM, comm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode StateDigest(MPI_Comm comm, const Particles *p, Digest *dg)
{
  uint64_t h[2] = {0, 0};
  PetscFunctionBeginUser;
  for (PetscInt i = 0; i < p->n; i++) {
    const uint64_t id = (uint64_t)p->id[i], bx = Bits(p->x[i]), by = Bits(p->y[i]);
    h[0] += Mix(Mix(Mix(id ^ 0x9e3779b97f4a7c15ULL) ^ bx) ^ by);
    h[1] += Mix(Mix(Mix(id + 0x632be59bd9b4e019ULL) + by) ^ (bx * 0xd1b54a32d192ed03ULL));
  }
  PetscCall(Reduce(comm, h, p->n, dg));
  PetscFunctionReturn(PETSC_SUCCESS);
}

void DigestRecord(uint64_t a, double t, uint64_t b, uint64_t h[2])
{
  const uint64_t bt = Bits(t);
  h[0] += Mix(Mix(Mix(a ^ 0x243f6a8885a308d3ULL) ^ bt) ^ (b + 0x13198a2e03707344ULL));
  h[1] += Mix(Mix(Mix(a + 0xa4093822299f31d0ULL) + (b * 0x082efa98ec4e6c89ULL)) ^ bt);
}

PetscErrorCode IdFingerprint(MPI_Comm comm, const Particles *p, Digest *dg)
{
  uint64_t h[2] = {0, 0};
  PetscFunctionBeginUser;
  for (PetscInt i = 0; i < p->n; i++) {
    const uint64_t id = (uint64_t)p->id[i];
    h[0] += Mix(id ^ 0x5851f42d4c957f2dULL);
    h[1] += Mix(id * 0x2545f4914f6cdd1dULL + 1);
  }
  PetscCall(Reduce(comm, h, p->n, dg));
  PetscFunctionReturn(PETSC_SUCCESS);
}

void DigestFormat(const Digest *dg, char out[33])
{
  snprintf(out, 33, "%016llx%016llx", (unsigned long long)dg->h[0], (unsigned long long)dg->h[1]);
}
