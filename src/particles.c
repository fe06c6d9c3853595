/* particles — structure-of-arrays storage of the disks a rank holds.
 *
 * Owned disks occupy indices [0, n), ghost copies [n, n + ng).  Every per-disk array has
 * the same capacity, which grows geometrically (x1.5) and never shrinks, so the time
 * loop allocates nothing once the run has settled.  Arrays are kept sorted by local
 * cell (see cells.c): a sweep then streams through memory.
 *
 * Memory per disk: x, y, r, xb, yb (5 doubles), id (int64) and an 8-byte scratch slot
 * = 56 bytes, plus the sort keys in cells.c (8 bytes) and a share of the cell arrays.                       */
#include <throng/particles.h>

PetscErrorCode ParticlesCreate(Particles *p, PetscInt cap)
{
  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(p, sizeof(*p)));
  PetscCall(ParticlesReserve(p, PetscMax(cap, 16)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode ParticlesDestroy(Particles *p)
{
  PetscFunctionBeginUser;
  PetscCall(PetscFree(p->x));
  PetscCall(PetscFree(p->y));
  PetscCall(PetscFree(p->r));
  PetscCall(PetscFree(p->id));
  PetscCall(PetscFree(p->xb));
  PetscCall(PetscFree(p->yb));
  PetscCall(PetscFree(p->scratch));
  p->n = p->ng = p->cap = 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode Grow(void **a, size_t elem, PetscInt used, PetscInt cap)
{
  void *b;
  PetscFunctionBeginUser;
  PetscCall(PetscMalloc(elem * (size_t)cap, &b));
  if (*a && used) PetscCall(PetscMemcpy(b, *a, elem * (size_t)used));
  PetscCall(PetscFree(*a));
  *a = b;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode ParticlesReserve(Particles *p, PetscInt cap)
{
  PetscInt used = p->n + p->ng;
  PetscFunctionBeginUser;
  if (cap <= p->cap) PetscFunctionReturn(PETSC_SUCCESS);
  cap = PetscMax(cap, p->cap + p->cap / 2);
  PetscCall(Grow((void **)&p->x, sizeof(PetscReal), used, cap));
  PetscCall(Grow((void **)&p->y, sizeof(PetscReal), used, cap));
  PetscCall(Grow((void **)&p->r, sizeof(PetscReal), used, cap));
  PetscCall(Grow((void **)&p->id, sizeof(PetscInt64), used, cap));
  PetscCall(Grow((void **)&p->xb, sizeof(PetscReal), p->n, cap));
  PetscCall(Grow((void **)&p->yb, sizeof(PetscReal), p->n, cap));
  PetscCall(Grow(&p->scratch, 8, 0, cap));
  p->cap = cap;
  PetscFunctionReturn(PETSC_SUCCESS);
}

void ParticlesGetRec(const Particles *p, PetscInt i, ParticleRec *rec)
{
  rec->x  = p->x[i];
  rec->y  = p->y[i];
  rec->r  = p->r[i];
  rec->id = p->id[i];
}

void ParticlesSetRec(Particles *p, PetscInt i, const ParticleRec *rec)
{
  p->x[i]  = rec->x;
  p->y[i]  = rec->y;
  p->r[i]  = rec->r;
  p->id[i] = rec->id;
}

/* Append owned disks (ghosts must have been dropped). */
PetscErrorCode ParticlesAppend(Particles *p, PetscInt count, const ParticleRec *recs)
{
  PetscFunctionBeginUser;
  PetscCheck(p->ng == 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "append with %" PetscInt_FMT " ghosts present", p->ng);
  PetscCall(ParticlesReserve(p, p->n + count));
  for (PetscInt k = 0; k < count; k++) ParticlesSetRec(p, p->n + k, &recs[k]);
  p->n += count;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Gather entries [offset, offset + m): new entry k is old entry offset + src[k].
   The scratch array makes this allocation-free. */
#define GATHER(T, a) \
  do { \
    T *tmp_ = (T *)p->scratch; \
    for (PetscInt k = 0; k < m; k++) tmp_[k] = (a)[offset + src[k]]; \
    PetscCall(PetscArraycpy((a) + offset, tmp_, m)); \
  } while (0)

PetscErrorCode ParticlesGather(Particles *p, PetscInt offset, PetscInt m, const PetscInt *src, PetscBool withBin)
{
  PetscFunctionBeginUser;
  PetscCheck(offset + m <= p->cap, PETSC_COMM_SELF, PETSC_ERR_PLIB, "gather beyond capacity");
  GATHER(PetscReal, p->x);
  GATHER(PetscReal, p->y);
  GATHER(PetscReal, p->r);
  GATHER(PetscInt64, p->id);
  if (withBin) {
    GATHER(PetscReal, p->xb);
    GATHER(PetscReal, p->yb);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

MPI_Datatype ParticleRecType(void)
{
  static MPI_Datatype t = MPI_DATATYPE_NULL;
  if (t == MPI_DATATYPE_NULL) { /* committed once, freed by MPI_Finalize */
    MPI_Type_contiguous((int)sizeof(ParticleRec), MPI_BYTE, &t);
    MPI_Type_commit(&t);
  }
  return t;
}
