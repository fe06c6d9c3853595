/* halo — ghost copies of the disks in the one-cell ring around a rank's block. */
#pragma once
#include <throng/core/domain.h>
#include <throng/core/particles.h>
#include <throng/core/cells.h>

typedef struct {
  PetscMPIInt *scount, *sdispl, *rcount, *rdispl; /* per neighbour, in entries        */
  PetscInt    *sendIdx;                           /* owned disk of each sent entry                               */
  PetscInt    *recvIdx;                           /* disk index (>= n) of each received entry                    */
  PetscInt     nsend, nrecv, capSend, capRecv, capBuf;
  PetscReal   *sbuf, *rbuf; /* 2 reals per entry                                        */
  PetscReal   *ref;         /* ghost positions as last received (2 per received entry)     */
  uint64_t    *srec, *rrec; /* build records of the ghosted fields, `words` each      */
  PetscInt     words;
  PetscInt    *perm;
  PetscInt    *gcell; /* build scratch: the global cell (cx, cy) of each received entry */
  /* traffic since the start, for the performance model: exchanges (builds, forward and
     reverse), bytes sent and non-empty messages sent by this rank                     */
  PetscInt64 exchanges, bytes, messages;
} Halo;

PetscErrorCode HaloCreate(const Domain *d, Halo *h);
PetscErrorCode HaloDestroy(Halo *h);
/* Create ghosts from the current binning: collective on d->nbr. */
PetscErrorCode HaloBuild(const Domain *d, Particles *p, Cells *c, Halo *h);
/* Owners -> ghosts: copy positions of owned disks onto their ghosts. Collective. */
PetscErrorCode HaloForward(const Domain *d, Particles *p, Halo *h);
/* The ghosts were changed identically to their owners (the prediction): make the current
   ghost positions the reference that HaloReverse compares against. Not collective. */
PetscErrorCode HaloResetReference(Particles *p, Halo *h);
/* Owners -> ghosts of one value per disk: v[g] of every ghost g becomes its owner's v
   (v indexed as the disks, owned and ghosts; contacts.c's rattler flags). Collective. */
PetscErrorCode HaloForwardValues(const Domain *d, const Particles *p, Halo *h, PetscReal *v);
/* Ghosts -> owners: a ghost moved by this rank's sweep overwrites its owner. Collective. */
PetscErrorCode HaloReverse(const Domain *d, Particles *p, Halo *h);
/* The same two exchanges for another pair of per-disk arrays (ax, ay), indexed as the
   disks, that are not positions (never shifted across a periodic side), with the
   caller's reference aref (2 reals per received entry, h->nrecv of them; after a
   HaloForwardPair it holds what that wrote): warm.c's J^T lambda, summed during a
   sweep.  Collective. */
PetscErrorCode HaloForwardPair(const Domain *d, Halo *h, PetscReal *ax, PetscReal *ay, PetscReal *aref);
PetscErrorCode HaloReversePair(const Domain *d, Halo *h, PetscReal *ax, PetscReal *ay, const PetscReal *aref);
