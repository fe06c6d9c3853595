/* particles — structure-of-arrays storage of owned disks followed by ghost copies, with a
   registry of per-disk fields (see the essay at the top of src/particles.c). */
#pragma once
#include <throng/throng.h>

/* The record that creates a disk (initial conditions): the four core fields.  Every
   other field of a new disk starts at zero. */
typedef struct {
  PetscReal  x, y, r;
  PetscInt64 id;
} ParticleRec;

/* What the machinery does with a field.  A field is one 8-byte value per disk. */
typedef enum {
  FIELD_OWNED      = 1 << 0, /* owned disks only: ghosts have no value                  */
  FIELD_MIGRATES   = 1 << 1, /* travels with its disk to a new owner                       */
  FIELD_GHOSTED    = 1 << 2, /* copied onto ghosts when the halo is built                  */
  FIELD_CHECKPOINT = 1 << 3, /* stored in checkpoints (dataset of its name), restored      */
  FIELD_SNAPSHOT   = 1 << 4  /* gathered in id order for the snapshot writers              */
} FieldFlag;

typedef enum { FIELD_REAL, FIELD_INT64 } FieldType;

typedef struct {
  char      name[16];
  FieldType type;
  unsigned  flags;
  void     *data; /* cap entries of 8 bytes */
} Field;

/* The core fields, registered by ParticlesCreate in this order. */
enum { PF_ID, PF_X, PF_Y, PF_R, PF_XB, PF_YB, PF_NCORE };
#define PARTICLES_MAX_FIELDS 24

typedef struct {
  PetscInt n;   /* owned disks, indices [0, n)                              */
  PetscInt ng;  /* ghost copies, indices [n, n + ng)                        */
  PetscInt cap; /* capacity of every array                                  */
  /* the core fields' arrays, kept equal to field[PF_*].data (hot loops use these) */
  PetscReal  *x, *y, *r;
  PetscInt64 *id;
  PetscReal  *xb, *yb; /* position at the last binning (owned disks; ghosts: their owner's) */
  PetscInt    nfield;
  Field       field[PARTICLES_MAX_FIELDS];
} Particles;

PetscErrorCode ParticlesCreate(Particles *p, PetscInt cap);
PetscErrorCode ParticlesDestroy(Particles *p);
PetscErrorCode ParticlesReserve(Particles *p, PetscInt cap);

/* Declare a per-disk field (before any disk exists, or its values start at zero).
   *k: its index, for ParticlesField. */
PetscErrorCode ParticlesRegisterField(Particles *p, const char *name, FieldType type, unsigned flags, PetscInt *k);
/* Index of the field `name`, -1 if none. */
PetscInt ParticlesFindField(const Particles *p, const char *name);
/* The array of field k (valid until the next ParticlesReserve). */
static inline void *ParticlesField(const Particles *p, PetscInt k) { return p->field[k].data; }

/* Records: the fields that have any flag of `mask`, 8 bytes each, in registration order. */
PetscInt ParticlesRecordWords(const Particles *p, unsigned mask);
void     ParticlesPack(const Particles *p, unsigned mask, PetscInt i, uint64_t *rec);
void     ParticlesUnpack(Particles *p, unsigned mask, PetscInt i, const uint64_t *rec);
/* Append count owned disks from records of the fields of `mask` (ghosts must have been
   dropped); the fields outside mask start at zero. */
PetscErrorCode ParticlesAppendPacked(Particles *p, unsigned mask, PetscInt count, const uint64_t *recs);
/* Append owned disks from creation records. */
PetscErrorCode ParticlesAppend(Particles *p, PetscInt count, const ParticleRec *recs);
/* Entry src's values of every field (with ghost fields only, unless owned) into dst. */
void ParticlesCopy(Particles *p, PetscInt dst, PetscInt src, PetscBool owned);
/* Reorder entries [offset, offset+m): entry k moves from index src[k] (a gather).  With
   owned (owned disks) the fields of owned disks only (FIELD_OWNED) move too, the binning
   position (xb, yb) only withBin (it is overwritten otherwise).                        */
PetscErrorCode ParticlesGather(Particles *p, PetscInt offset, PetscInt m, const PetscInt *src, PetscBool owned,
                               PetscBool withBin);

/* An MPI datatype of `words` 8-byte words (bytes: records never leave one machine type),
   committed once per size and freed by MPI_Finalize. */
MPI_Datatype ParticlesWordsType(PetscInt words);
