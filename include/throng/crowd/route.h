/* route — assigned routes (waypoints, then an exit) and exits chosen by expected travel
   time.  Part of the crowd module (crowd.c calls it); see route.c for the model. */
#pragma once
#include <throng/core/geometry.h>
#include <throng/crowd/eikonal.h>
#include <throng/core/particles.h>
#include <hdf5.h>
#include <stdint.h>

typedef struct Sim Sim;

/* An agent's routing state, one 64-bit word per id, replicated on every rank:
   bits 0-15 its target (ROUTE_NEAREST: down the field of the nearest exit), 16-27 its
   route + 1 (0: none), 28-31 the leg of the route it walks, 32-39 how often it changed
   its exit (saturating), 40-47 the exit it left last + 1 (0: none; saturating), 48-63
   the recomputation of its last change (mod 2^16). */
#define ROUTE_NEAREST     0xFFFFu
#define ROUTE_TARGET(s)   ((unsigned)((s)&0xFFFFu))
#define ROUTE_ROUTE(s)    ((PetscInt)(((s) >> 16) & 0xFFFu) - 1)
#define ROUTE_LEG(s)      ((PetscInt)(((s) >> 28) & 0xFu))
#define ROUTE_SWITCHES(s) ((PetscInt)(((s) >> 32) & 0xFFu))
#define ROUTE_PREV(s)     ((PetscInt)(((s) >> 40) & 0xFFu) - 1)
#define ROUTE_WHEN(s)     ((PetscInt64)(((s) >> 48) & 0xFFFFu))
#define ROUTE_STATE(t, r, l, sw) \
  ((uint64_t)(t) | ((uint64_t)((r) + 1) << 16) | ((uint64_t)(l) << 28) | ((uint64_t)(sw) << 32))
/* a change of exit to t, the sw-th, at recomputation k, leaving exit prev */
#define ROUTE_SWITCH(t, sw, prev, k) \
  (ROUTE_STATE(t, -1, 0, sw) | ((uint64_t)PetscMin((prev) + 1, 255) << 40) | ((uint64_t)((k)&0xFFFF) << 48))

typedef struct {
  PetscBool   on;       /* per-agent targets: routes in the geometry or -route_choice quickest  */
  PetscBool   quickest; /* -route_choice quickest                                             */
  PetscInt    nexits, ntarget;
  Eikonal    *field;  /* per target (exits, then waypoints): its distance field, computed once */
  uint64_t   *state;  /* per id (see above)                                                    */
  PetscInt64  nstate; /* agents at the start                                                   */
  PetscReal   interval, reconsider, gain, flow, wayRadius, commit;
  PetscInt    period; /* an agent reconsiders at every period-th recomputation, at its own phase */
  PetscInt    hold;   /* ... and not within hold recomputations of its last change (-route_commit) */
  PetscInt64  last;   /* the last recomputation, floor(t / interval); -1: none                 */
  PetscReal   bin;    /* the queue histograms: bins of this width (m) in the distance to the exit */
  PetscInt    nbin;
  PetscInt64 *hist; /* nexits x nbin: agents heading for each exit, by their distance to it  */
  PetscInt64 *cand; /* nexits x nbin: the agents that would change to each exit (same array) */
  PetscReal  *cap;  /* per exit: what it passes per second, -route_flow x its width          */
  uint64_t   *ev;   /* this step's changes on this rank: (id, new state) pairs               */
  PetscInt    nev, capEv;
  PetscInt64  recomputations;
  PetscInt64  returns, quick; /* changes back to the exit left last; quick: within 30 s of that   */
  PetscReal   wall;           /* wall-clock seconds spent in recomputations (this rank)                 */
} Router;

/* After the crowd's own field: decide whether per-agent routing is on, compute the target
   fields, check that every route can be walked.  Collective (errors on every rank). */
PetscErrorCode RouterSetUp(Sim *s, Router *rt, const Geometry *g);
PetscErrorCode RouterDestroy(Router *rt);
/* The initial disks exist: each owned agent gets its route (the first that holds it) and
   the ranks exchange the assignments.  Errors (an agent that cannot reach its first target)
   name the lowest such id.  Collective. */
PetscErrorCode RouterCreated(Sim *s, Router *rt, const Geometry *g);
/* m agents arrive (source.c): the states grow; each gets the route route[k] (-1: the
   first region route that holds its spot).  Every rank alike, no communication. */
PetscErrorCode RouterArrived(Router *rt, const Geometry *g, PetscInt m, const ParticleRec *recs, const PetscInt *route);
/* At the end of every step: waypoints reached, and every -route_interval the exit choice;
   then the changes are exchanged.  Collective. */
PetscErrorCode RouterStep(Sim *s, Router *rt, const Geometry *g, const float *speed);
/* The desired direction of agent id at (x, y), if it has a target of its own (true). */
static inline PetscBool RouterDirection(const Router *rt, PetscInt64 id, PetscReal x, PetscReal y, PetscReal *wx,
                                        PetscReal *wy)
{
  if (!rt->on || id >= rt->nstate) return PETSC_FALSE;
  const unsigned t = ROUTE_TARGET(rt->state[id]);
  if (t == ROUTE_NEAREST) return PETSC_FALSE;
  EikonalDirection(&rt->field[t], x, y, wx, wy);
  return PETSC_TRUE;
}
/* Summary lines on rank 0 (collective: the timings are reduced). */
PetscErrorCode RouterReport(Sim *s, const Router *rt);
/* The state in a checkpoint group (rank 0 writes it; collective), and back. */
PetscErrorCode RouterCheckpointWrite(Sim *s, const Router *rt, hid_t grp, hid_t dxpl);
PetscErrorCode RouterCheckpointRead(Sim *s, Router *rt, hid_t grp, const char *path);
/* The owned agents' states into the run's digest. */
void RouterDigest(const Sim *s, const Router *rt, uint64_t h[2]);
