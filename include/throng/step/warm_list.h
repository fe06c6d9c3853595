/* warm_list — pbdw's contact list, its slots and the module that keeps them (see
   src/step/warm_list.c); the sweep that uses them is warm.c's. */
#pragma once
#include <throng/core/sim.h>
#include <throng/core/modules.h>
#include <string.h>

#define WARM_SLOTS 6
#define WARM_WALL  0x80000000u /* keys from here on: walls (half-planes, then segments) */

typedef struct {
  int32_t j;   /* a pair: the partner's index; a wall: -1 - its index (half-planes, then segments) */
  float   lam; /* its multiplier (>= 0, as a slot holds it), or WARM_NOSLOT: none was free */
} WarmEntry;
#define WARM_NOSLOT (-1.0f)

typedef struct {
  PetscInt   ks[WARM_SLOTS];   /* fields: the contact slots */
  uint64_t  *slot[WARM_SLOTS]; /* their arrays during a sweep */
  PetscInt   fwd[4];           /* forward cell offsets of the local grid */
  PetscInt64 overflow;         /* contacts that found no free slot (this rank, the run) */
  PetscInt   kw[2];            /* fields: F (WarmField) */
  PetscBool  inStep;           /* between the warm start and the end of the sweeps */
  PetscReal *gx, *gy;          /* J^T lambda of every local disk (the last sweep), capacity cap */
  PetscReal *lm;               /* the largest multiplier of every owned disk (the last sweep) */
  PetscInt   cap;
  PetscReal *aref; /* the halo's reference of the ghosts' G, capacity rcap */
  PetscInt   rcap;
  WarmEntry *ent;            /* the contact list, in the sweep's order (WarmListBuild) */
  int8_t    *eq;             /* each entry's slot in its base disk, or -1 */
  PetscInt   ecap, lcap, ln; /* capacities; ln: the owned disks when the list was built */
  PetscInt  *cellOf, ccap;   /* WarmListBuild's scratch: the owned cells in storage order */
  int32_t   *lr;             /* owned disk i's entries: walls [lr[2i], lr[2i+1]), pairs [lr[2i+1], lr[2i+2]) */
  PetscBool  listOK;         /* built since the last binning */
  PetscBool  dirty;          /* the list's multipliers are newer than the slots' */
} Warm;

static inline uint32_t SlotKey(uint64_t w) { return (uint32_t)(w >> 32); }
static inline double   SlotLambda(uint64_t w)
{
  const uint32_t b = (uint32_t)w;
  float          f;
  memcpy(&f, &b, sizeof(f));
  return (double)f;
}
static inline uint64_t SlotWord(uint32_t key, double lambda)
{
  const float f = (float)lambda;
  uint32_t    b;
  if (!(f > 0)) return 0; /* no multiplier left: the slot is free */
  memcpy(&b, &f, sizeof(b));
  return ((uint64_t)key << 32) | b;
}

/* The multiplier of `key` among a disk's slots (0 if none); *at: its slot, or -1. */
static inline double SlotFind(const uint64_t *sl, uint32_t key, int *at)
{
  for (int k = 0; k < WARM_SLOTS; k++)
    if (SlotKey(sl[k]) == key) {
      *at = k;
      return SlotLambda(sl[k]);
    }
  *at = -1;
  return 0;
}

static inline void SlotStore(uint64_t *sl, int at, uint32_t key, double lambda, PetscInt64 *overflow)
{
  const uint64_t w = SlotWord(key, lambda);
  if (at >= 0) {
    sl[at] = w;
    return;
  }
  if (!w) return;
  for (int k = 0; k < WARM_SLOTS; k++)
    if (!sl[k]) {
      sl[k] = w;
      return;
    }
  (*overflow)++;
}

static inline uint32_t PairKey(int64_t id) { return (uint32_t)(id + 1); }

/* A slot's word that keeps its key whatever lambda is: a contact of the list keeps its
   slot until the next rebinning, also while its multiplier is 0. */
static inline uint64_t KeyWord(uint64_t old, double lambda)
{
  float    f = (float)lambda;
  uint32_t b;
  if (!(f > 0)) f = 0;
  memcpy(&b, &f, sizeof(b));
  return (old & 0xffffffff00000000ull) | b;
}

/* An entry's multiplier as the arithmetic uses it (0 without a slot), and its update. */
static inline double EntryLambda(const WarmEntry *e) { return e->lam > 0 ? (double)e->lam : 0; }
static inline void   EntrySet(WarmEntry *e, double lambda)
{
  if (e->lam == WARM_NOSLOT) return; /* projected without a multiplier, as in PBD */
  const float f = (float)lambda;
  e->lam        = f > 0 ? f : 0;
}

/* The contact list (warm.c's essay): for each owned disk, in the order of the sweep, the
   walls and then the pairs of its half stencil that are closer than the skin at the
   binning positions (the ghosts' too: halo.c), each with its slot. */
PetscErrorCode WarmListBuild(Sim *s, Warm *wm);
/* The module's state of a run (NULL: not pbdw). */
Warm *WarmOf(const Sim *s);
/* The slot arrays of the current binning. */
void WarmArrays(const Sim *s, Warm *wm);
/* The slot arrays and the forward offsets of the current grid; set again by afterRebin
   whenever a rebinning (inside a step too) moves disks or changes the grid. */
void WarmRefresh(Sim *s, Warm *wm);
/* The list's multipliers back into the slots (the fields that migrate, are checkpointed
   and digested): before a rebinning, a checkpoint, a digest or the stepEnd hooks. */
PetscErrorCode WarmSyncSlots(const Sim *s, Warm *wm);
/* F, the field warm_w: between steps the warm start's displacement of the next step, W;
   within a step, F + x is the displacement the warm start and the constraints have made
   since the prediction (D, once the step ends). */
void WarmField(const Sim *s, const Warm *wm, PetscReal **fx, PetscReal **fy);
/* sign +1: F + x, the displacement so far (before a rebinning, which may wrap x across a
   periodic side); sign -1: back to F - x (after it, from the wrapped x). */
void WarmShift(Sim *s, Warm *wm, int sign);
/* The module that keeps pbdw's per-disk state: on with -solver pbdw. */
PetscErrorCode WarmModuleCreate(const Params *prm, SimModule *m, PetscBool *on);
