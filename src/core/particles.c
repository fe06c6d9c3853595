/* particles — structure-of-arrays storage of the disks a rank holds, and the registry of
 * per-disk fields.
 *
 * Owned disks occupy indices [0, n), ghost copies [n, n + ng).  Every per-disk array has
 * the same capacity, which grows geometrically (x1.5) and never shrinks, so the time
 * loop allocates nothing once the run has settled.  Arrays are kept sorted by local
 * cell (see cells.c): a sweep then streams through memory.
 *
 * The registry.  Each per-disk quantity is a field, declared once, as DMSwarm declares
 * its fields: a name, a type (a real or a 64-bit integer: 8 bytes either way) and flags
 * that say what the machinery does with it:
 *   FIELD_OWNED       only owned disks have a value (storage is used for [0, n) only);
 *   FIELD_MIGRATES    it travels with its disk when the disk changes owner (migrate.c,
 *                     and the repartitions of balance.c);
 *   FIELD_GHOSTED     it is copied onto the ghosts when the halo is built (halo.c);
 *   FIELD_CHECKPOINT  it is a dataset of that name in a checkpoint, and restored from it
 *                     (checkpoint.c, SimRestore);
 *   FIELD_SNAPSHOT    it is gathered in id order for the snapshot writers (io_h5md.c).
 * Reserve, reordering (the cell sort), compaction (disks that leave) and every record
 * that crosses ranks or reaches a file iterate over the registry, so a new per-disk
 * quantity is one ParticlesRegisterField call plus the code that computes it.
 *
 * The core fields id, x, y, r (migrating, ghosted, checkpointed, in snapshots) and xb, yb
 * (the position at the last binning: owned, checkpointed, since an exact restart needs
 * the cells of the original run) are registered first, in that order.  Hot loops use
 * the aliases p->x, ..., which ParticlesReserve keeps equal to the fields' arrays.
 *
 * Records are arrays of 8-byte words, one per field of a flag mask, in registration
 * order; they are copied bytewise (memcpy), so integers and reals pass unchanged.
 *
 * Memory per disk: the six core fields (48 bytes) and a share of the cell arrays held all
 * run; a reordering's scratch column (8 bytes) and the sort keys in cells.c (8 bytes)
 * only while a binning runs.                                                             */
#include <throng/core/particles.h>
#include <string.h>

static void SyncAliases(Particles *p)
{
  p->id = (PetscInt64 *)p->field[PF_ID].data;
  p->x  = (PetscReal *)p->field[PF_X].data;
  p->y  = (PetscReal *)p->field[PF_Y].data;
  p->r  = (PetscReal *)p->field[PF_R].data;
  p->xb = (PetscReal *)p->field[PF_XB].data;
  p->yb = (PetscReal *)p->field[PF_YB].data;
}

PetscErrorCode ParticlesCreate(Particles *p, PetscInt cap)
{
  const unsigned core = FIELD_MIGRATES | FIELD_GHOSTED | FIELD_CHECKPOINT | FIELD_SNAPSHOT;
  PetscInt       k;

  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(p, sizeof(*p)));
  PetscCall(ParticlesRegisterField(p, "id", FIELD_INT64, core, &k));
  PetscCall(ParticlesRegisterField(p, "x", FIELD_REAL, core, &k));
  PetscCall(ParticlesRegisterField(p, "y", FIELD_REAL, core, &k));
  PetscCall(ParticlesRegisterField(p, "r", FIELD_REAL, core, &k));
  PetscCall(ParticlesRegisterField(p, "xb", FIELD_REAL, FIELD_OWNED | FIELD_CHECKPOINT, &k));
  PetscCall(ParticlesRegisterField(p, "yb", FIELD_REAL, FIELD_OWNED | FIELD_CHECKPOINT, &k));
  PetscCall(ParticlesReserve(p, PetscMax(cap, 16)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode ParticlesDestroy(Particles *p)
{
  PetscFunctionBeginUser;
  for (PetscInt k = 0; k < p->nfield; k++) PetscCall(PetscFree(p->field[k].data));
  p->n = p->ng = p->cap = p->nfield = 0;
  SyncAliases(p);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode Grow(void **a, PetscInt used, PetscInt cap)
{
  void *b;
  PetscFunctionBeginUser;
  PetscCall(PetscMalloc(8 * (size_t)cap, &b));
  if (*a && used) PetscCall(PetscMemcpy(b, *a, 8 * (size_t)used));
  PetscCall(PetscFree(*a));
  *a = b;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode ParticlesReserve(Particles *p, PetscInt cap)
{
  PetscFunctionBeginUser;
  if (cap <= p->cap) PetscFunctionReturn(PETSC_SUCCESS);
  cap = PetscMax(cap, p->cap + p->cap / 2);
  for (PetscInt k = 0; k < p->nfield; k++)
    PetscCall(Grow(&p->field[k].data, p->field[k].flags & FIELD_OWNED ? p->n : p->n + p->ng, cap));
  p->cap = cap;
  SyncAliases(p);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode ParticlesRegisterField(Particles *p, const char *name, FieldType type, unsigned flags, PetscInt *k)
{
  Field *f;

  PetscFunctionBeginUser;
  PetscCheck(ParticlesFindField(p, name) < 0, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE,
             "per-disk field '%s' is registered twice", name);
  PetscCheck(p->nfield < PARTICLES_MAX_FIELDS, PETSC_COMM_SELF, PETSC_ERR_SUP, "more than %d per-disk fields",
             PARTICLES_MAX_FIELDS);
  PetscCheck(strlen(name) < sizeof(f->name), PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
             "per-disk field name '%s' is too long", name);
  PetscCheck(!(flags & FIELD_OWNED) || !(flags & FIELD_GHOSTED), PETSC_COMM_SELF, PETSC_ERR_ARG_INCOMP,
             "per-disk field '%s' cannot be both owned-only and ghosted", name);
  f = &p->field[p->nfield];
  PetscCall(PetscStrncpy(f->name, name, sizeof(f->name)));
  f->type  = type;
  f->flags = flags;
  f->data  = NULL;
  if (p->cap) PetscCall(PetscCalloc(8 * (size_t)p->cap, &f->data));
  *k = p->nfield++;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscInt ParticlesFindField(const Particles *p, const char *name)
{
  for (PetscInt k = 0; k < p->nfield; k++)
    if (!strcmp(p->field[k].name, name)) return k;
  return -1;
}

PetscInt ParticlesRecordWords(const Particles *p, unsigned mask)
{
  PetscInt w = 0;
  for (PetscInt k = 0; k < p->nfield; k++) w += (p->field[k].flags & mask) != 0;
  return w;
}

void ParticlesPack(const Particles *p, unsigned mask, PetscInt i, uint64_t *rec)
{
  for (PetscInt k = 0; k < p->nfield; k++)
    if (p->field[k].flags & mask) memcpy(rec++, (const char *)p->field[k].data + 8 * (size_t)i, 8);
}

void ParticlesUnpack(Particles *p, unsigned mask, PetscInt i, const uint64_t *rec)
{
  for (PetscInt k = 0; k < p->nfield; k++) {
    char *dst = (char *)p->field[k].data + 8 * (size_t)i;
    if (p->field[k].flags & mask) memcpy(dst, rec++, 8);
    else memset(dst, 0, 8);
  }
}

PetscErrorCode ParticlesAppendPacked(Particles *p, unsigned mask, PetscInt count, const uint64_t *recs)
{
  const PetscInt w = ParticlesRecordWords(p, mask);
  PetscFunctionBeginUser;
  PetscCheck(p->ng == 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "append with %" PetscInt_FMT " ghosts present", p->ng);
  PetscCall(ParticlesReserve(p, p->n + count));
  for (PetscInt k = 0; k < count; k++) ParticlesUnpack(p, mask, p->n + k, recs + (size_t)w * k);
  p->n += count;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode ParticlesAppend(Particles *p, PetscInt count, const ParticleRec *recs)
{
  PetscFunctionBeginUser;
  PetscCheck(p->ng == 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "append with %" PetscInt_FMT " ghosts present", p->ng);
  PetscCall(ParticlesReserve(p, p->n + count));
  for (PetscInt k = 0; k < count; k++) {
    const PetscInt i = p->n + k;
    for (PetscInt f = PF_NCORE; f < p->nfield; f++) memset((char *)p->field[f].data + 8 * (size_t)i, 0, 8);
    p->x[i] = recs[k].x, p->y[i] = recs[k].y, p->r[i] = recs[k].r, p->id[i] = recs[k].id;
    p->xb[i] = p->yb[i] = 0;
  }
  p->n += count;
  PetscFunctionReturn(PETSC_SUCCESS);
}

void ParticlesCopy(Particles *p, PetscInt dst, PetscInt src, PetscBool owned)
{
  for (PetscInt k = 0; k < p->nfield; k++)
    if (owned || !(p->field[k].flags & FIELD_OWNED))
      memcpy((char *)p->field[k].data + 8 * (size_t)dst, (const char *)p->field[k].data + 8 * (size_t)src, 8);
}

/* Gather entries [offset, offset + m): new entry k is old entry offset + src[k], through
   a scratch column allocated for the call (its memory is shared with the other
   transients instead of being held all run). */
PetscErrorCode ParticlesGather(Particles *p, PetscInt offset, PetscInt m, const PetscInt *src, PetscBool owned,
                               PetscBool withBin)
{
  uint64_t *tmp;
  PetscFunctionBeginUser;
  PetscCheck(offset + m <= p->cap, PETSC_COMM_SELF, PETSC_ERR_PLIB, "gather beyond capacity");
  PetscCall(PetscMalloc1(m + 1, &tmp));
  for (PetscInt f = 0; f < p->nfield; f++) {
    uint64_t *a = (uint64_t *)p->field[f].data + offset;
    if (!owned && (p->field[f].flags & FIELD_OWNED)) continue;
    if (!withBin && (f == PF_XB || f == PF_YB)) continue;
    for (PetscInt k = 0; k < m; k++) tmp[k] = a[src[k]];
    PetscCall(PetscArraycpy(a, tmp, m));
  }
  PetscCall(PetscFree(tmp));
  PetscFunctionReturn(PETSC_SUCCESS);
}

MPI_Datatype ParticlesWordsType(PetscInt words)
{
  static MPI_Datatype t[PARTICLES_MAX_FIELDS + 1]; /* committed once, freed by MPI_Finalize */
  static PetscBool    made[PARTICLES_MAX_FIELDS + 1];
  if (words < 1 || words > PARTICLES_MAX_FIELDS) return MPI_DATATYPE_NULL;
  if (!made[words]) {
    MPI_Type_contiguous((int)(8 * words), MPI_BYTE, &t[words]);
    MPI_Type_commit(&t[words]);
    made[words] = PETSC_TRUE;
  }
  return t[words];
}
