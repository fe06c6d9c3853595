/* edmd — event-driven hard disks with elastic collisions (seed 003), O(log N) per event. */
#pragma once
#include <throng/throng.h>
#include <math.h>
#include <stdio.h>
#include <stdint.h>

/* Event partners other than a disk (a disk is >= 0). */
enum {
  EDMD_NONE  = -9,
  EDMD_WALL  = -1, /* -1 - k, k = 0 x-low, 1 x-high, 2 y-low, 3 y-high     */
  EDMD_CROSS = -5  /* -5 - k, k as for walls: leaving the cell that way   */
};

/* A disk's lazy state and cell: one 64-byte cache line, all a prediction reads. */
typedef struct {
  PetscReal x, y, vx, vy, t, r; /* position and velocity at the disk's own time t   */
  int       kx, ky;             /* unwrapped cell indices                          */
  uint32_t  count;              /* collisions and wall bounces (equality is all that
                                   matters: 2^32 bounces of one disk within one event's
                                   lifetime cannot happen)                          */
  int       slot;               /* place in its cell's array                       */
} EDMDDisk;

/* A disk's one scheduled event (a leaf of the event queue): its time, its partner, and
   the partner's count at prediction. */
typedef struct {
  PetscReal t;
  int       partner;
  uint32_t  count;
} EDMDEvent;

/* An inner node of the event queue: the earliest event time below it and its disk. */
typedef struct {
  PetscReal t;
  PetscInt  disk;
} EDMDSlot;

typedef struct {
  PetscInt   n;
  PetscBool  periodic, brute;
  PetscReal  lo[2], L[2], hL[2]; /* box [lo, lo + L) in each direction; hL = L / 2     */
  EDMDDisk  *d, *dRaw;           /* per disk: the state at its own time (lazy), aligned */
  PetscReal *m;                  /* per disk: mass                                    */
  EDMDEvent *ev, *evRaw;         /* per disk: its one scheduled event (Lubachevsky); the
                                       leaves of the queue, aligned                        */
  EDMDSlot  *tree, *treeRaw;     /* the queue's inner nodes: root 0 (4-ary, leaf0 of them) */
  PetscInt   leaf0;
  PetscInt   nc[2]; /* cells (not with brute)                            */
  PetscReal  w[2];
  PetscInt   cap;  /* slots per cell: a bound on the disks a cell holds */
  int       *cell; /* per cell: cap slots, its disks first, then -1s     */
  int       *nb;   /* scratch: the neighbours of one prediction (9 cap) */
  /* bookkeeping */
  PetscReal  now;
  PetscInt64 collisions, bounces, crossings, stale, events;
  PetscReal  virial;      /* sum over collisions of |r_ij| |J|                 */
  PetscReal  wallImpulse; /* sum over wall bounces of 2 m |v_n|                */
  PetscReal  contact;     /* largest | 1 - |r_ij| / sigma | at a collision     */
  FILE      *log;         /* optional: every collision and bounce, in order    */
} EDMD;

/* Lemma 1: the smallest tau >= 0 at which |dr + tau dv| = sigma, INFINITY if none
   (b = dv.dr >= 0: not approaching; d < 0: missing).  Touching or overlapping by
   round-off while approaching (c <= 0, b < 0): 0, the contact is now. */
static inline PetscReal EDMDPairTime(PetscReal dx, PetscReal dy, PetscReal dvx, PetscReal dvy, PetscReal sigma)
{
  const PetscReal b = dx * dvx + dy * dvy, a = dvx * dvx + dvy * dvy, c = dx * dx + dy * dy - sigma * sigma;
  const PetscReal d = b * b - a * c;
  if ((b >= 0) | (d < 0)) return INFINITY; /* one branch for both: they are random */
  if (c <= 0) return 0;
  return c / (-b + PetscSqrtReal(d)); /* = -(b + sqrt d) / a, without cancellation */
}

/* Lemma 2: the smallest tau >= 0 at which x + tau v reaches lo or hi (INFINITY if v = 0). */
static inline PetscReal EDMDWallTime(PetscReal x, PetscReal v, PetscReal lo, PetscReal hi, PetscInt *side)
{
  if (v > 0) {
    *side = 1;
    return PetscMax((hi - x) / v, 0);
  }
  if (v < 0) {
    *side = 0;
    return PetscMax((lo - x) / v, 0);
  }
  *side = -1;
  return INFINITY;
}

/* Lemma 3: the elastic bounce of disks i, j touching with dr = r_j - r_i; returns the
   impulse J (along n = dr/|dr|; v_i += J n / m_i, v_j -= J n / m_j). */
static inline PetscReal EDMDBounce(PetscReal mi, PetscReal mj, PetscReal dx, PetscReal dy, PetscReal *vix,
                                   PetscReal *viy, PetscReal *vjx, PetscReal *vjy)
{
  const PetscReal l = PetscSqrtReal(dx * dx + dy * dy), nx = dx / l, ny = dy / l;
  const PetscReal dvn = (*vjx - *vix) * nx + (*vjy - *viy) * ny;
  const PetscReal J   = 2 * mi * mj / (mi + mj) * dvn;
  *vix += J / mi * nx, *viy += J / mi * ny;
  *vjx -= J / mj * nx, *vjy -= J / mj * ny;
  return J;
}

/* Create the engine for n disks (copied), box lo, L; walls unless periodic; cell lists
   unless brute (or the box is under 3 cells wide: then brute).  Errors if disks overlap
   or (walls) stick out of the box. Not collective. */
PetscErrorCode EDMDCreate(PetscInt n, const PetscReal *x, const PetscReal *y, const PetscReal *vx, const PetscReal *vy,
                          const PetscReal *r, const PetscReal *m, const PetscReal lo[2], const PetscReal L[2],
                          PetscBool periodic, PetscBool brute, EDMD *e);
PetscErrorCode EDMDDestroy(EDMD *e);
/* SIMULATE(limit): process every event up to time `limit`. */
PetscErrorCode EDMDAdvance(EDMD *e, PetscReal limit);
/* Positions (wrapped into the box) and velocities of all disks at time t >= every t_i. */
void EDMDStateAt(const EDMD *e, PetscReal t, PetscReal *x, PetscReal *y, PetscReal *vx, PetscReal *vy);
/* Largest overlap 1 - |r_ij| / sigma_ij over all pairs at time t (-1 without pairs), and
   (optional) the largest depth of a disk in a wall relative to its diameter.           */
PetscErrorCode EDMDMaxOverlap(const EDMD *e, PetscReal t, PetscReal *ovl, PetscReal *wallOvl);
/* Kinetic energy sum m v^2 / 2 and momentum. */
void EDMDEnergy(const EDMD *e, PetscReal *ekin, PetscReal p[2]);
