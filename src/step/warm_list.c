/* warm_list — pbdw's contact list and the module that keeps its multipliers.
 *
 * Each owned disk has WARM_SLOTS slots, per-disk fields that migrate, are checkpointed
 * and digested with the disk: a slot holds a contact's key (the partner's id + 1, or a
 * wall's index) and its multiplier as a float.  At every binning the list is built anew
 * in the order of the sweep (WarmListBuild), each entry with the slot of its contact;
 * during a step the sweep (warm.c) works on the list, and the multipliers go back into
 * the slots before anything reads the fields (WarmSyncSlots).  The module's hooks keep
 * the slots across rebinnings (a partner's slot follows its id), check the keys after a
 * restart, and add the slots to the run's digest.  See warm.c's essay for the scheme.   */
#include <throng/step/warm_list.h>
#include <throng/step/pbd.h>
#include <throng/util/project.h>

/* The slot of `key` among disk i's, reserved (with lambda 0) if it has none; -1 if all
   are taken (the contact is then projected without a multiplier, as in PBD). */
static int SlotReserve(uint64_t *const *slot, PetscInt i, uint32_t key, PetscInt64 *overflow)
{
  for (int q = 0; q < WARM_SLOTS; q++)
    if (SlotKey(slot[q][i]) == key) return q;
  for (int q = 0; q < WARM_SLOTS; q++)
    if (!slot[q][i]) {
      slot[q][i] = (uint64_t)key << 32;
      return q;
    }
  (*overflow)++;
  return -1;
}

/* Entry ne: contact j of disk i in slot q (-1: none), its multiplier copied from the slot. */
static PetscErrorCode WarmListAdd(Warm *wm, PetscInt *ne, PetscInt i, int32_t j, int q, unsigned *used)
{
  PetscFunctionBeginUser;
  if (*ne == wm->ecap) {
    wm->ecap = PetscMax(1024, 2 * wm->ecap);
    PetscCall(PetscRealloc(sizeof(WarmEntry) * (size_t)wm->ecap, &wm->ent));
    PetscCall(PetscRealloc(sizeof(int8_t) * (size_t)wm->ecap, &wm->eq));
  }
  wm->ent[*ne].j   = j;
  wm->ent[*ne].lam = q >= 0 ? (float)SlotLambda(wm->slot[q][i]) : WARM_NOSLOT;
  wm->eq[*ne]      = (int8_t)q;
  if (q >= 0) *used |= 1u << q;
  (*ne)++;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The contact list (the essay): for each owned disk, in the order of the sweep, the
   walls and then the pairs of its half stencil that are closer than the skin at the
   binning positions (the ghosts' too: halo.c), each with its slot. */
PetscErrorCode WarmListBuild(Sim *s, Warm *wm)
{
  const Domain    *d    = &s->dom;
  const Cells     *c    = &s->cells;
  const Walls     *wl   = &s->walls;
  const Particles *p    = &s->P;
  const PetscReal  skin = s->prm.skin, *xb = p->xb, *yb = p->yb, *r = p->r;
  PetscInt         ne = 0, next = 0;

  PetscFunctionBeginUser;
  WarmRefresh(s, wm);
  if (2 * p->n + 1 > wm->lcap) {
    PetscCall(PetscFree(wm->lr));
    wm->lcap = PetscMax(2 * p->n + 1, wm->lcap + wm->lcap / 2);
    PetscCall(PetscMalloc1(wm->lcap, &wm->lr));
  }
  /* the owned cells in the order the disks are stored (domain.c: slot), so that disk i's
     entries end where disk i + 1's begin */
  const PetscInt nslot = (d->c1[0] - d->c0[0]) * (d->c1[1] - d->c0[1]);
  if (nslot + 1 > wm->ccap) {
    PetscCall(PetscFree(wm->cellOf));
    wm->ccap = nslot + 1;
    PetscCall(PetscMalloc1(wm->ccap, &wm->cellOf));
  }
  PetscInt *cellOf = wm->cellOf;
  for (PetscInt k = 0; k < d->ncell; k++)
    if (d->slot[k] >= 0) cellOf[d->slot[k]] = k;
  for (PetscInt sl = 0; sl < nslot; sl++) {
    const PetscInt k = cellOf[sl];
    for (PetscInt i = c->beg[k]; i < c->end[k]; i++) {
      unsigned used = 0; /* the slots the list refers to */
      PetscCheck(i == next++, PETSC_COMM_SELF, PETSC_ERR_PLIB, "pbdw: the disks are not in the order of their cells");
      wm->lr[2 * i] = (int32_t)ne;
      if (s->wallMask[k]) {
        const PetscInt nh = wl->n;
        for (PetscInt t = 0; t < nh; t++) {
          const double *h = &wl->w[3 * t];
          if (h[0] * xb[i] + h[1] * yb[i] - h[2] - r[i] < skin)
            PetscCall(WarmListAdd(wm, &ne, i, (int32_t)(-1 - t),
                                  SlotReserve(wm->slot, i, WARM_WALL + (uint32_t)t, &wm->overflow), &used));
        }
        for (PetscInt q = wl->segBeg[k]; q < wl->segBeg[k + 1]; q++) {
          const PetscInt g = wl->segIdx[q];
          double         nx, ny;
          const double   dd = SegmentGapNormal(&wl->seg[4 * g], &wl->nrm[2 * g], wl->depth, xb[i], yb[i], &nx, &ny);
          if (dd < PETSC_INFINITY && dd - r[i] < skin)
            PetscCall(WarmListAdd(wm, &ne, i, (int32_t)(-1 - (nh + g)),
                                  SlotReserve(wm->slot, i, WARM_WALL + (uint32_t)(nh + g), &wm->overflow), &used));
        }
      }
      wm->lr[2 * i + 1] = (int32_t)ne;
      CELLS_FOR_PARTNERS(c, k, wm->fwd, i, j)
      {
        const double dx = xb[j] - xb[i], dy = yb[j] - yb[i], cut = r[i] + r[j] + skin;
        if (dx * dx + dy * dy < cut * cut)
          PetscCall(
            WarmListAdd(wm, &ne, i, (int32_t)j, SlotReserve(wm->slot, i, PairKey(p->id[j]), &wm->overflow), &used));
      }
      for (int q = 0; q < WARM_SLOTS; q++) /* a contact further than the skin has opened */
        if (!(used >> q & 1u)) wm->slot[q][i] = 0;
    }
  }
  PetscCheck(ne < INT32_MAX, PETSC_COMM_SELF, PETSC_ERR_SUP, "-solver pbdw: more than 2^31 contacts on one rank");
  PetscCheck(next == p->n, PETSC_COMM_SELF, PETSC_ERR_PLIB, "pbdw: not every disk is in a cell");
  wm->lr[2 * p->n] = (int32_t)ne;
  wm->ln           = p->n;
  wm->listOK       = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

Warm *WarmOf(const Sim *s) { return (Warm *)SimModuleContext(s, "warm"); }

void WarmArrays(const Sim *s, Warm *wm)
{
  for (int q = 0; q < WARM_SLOTS; q++) wm->slot[q] = (uint64_t *)ParticlesField(&s->P, wm->ks[q]);
}

/* The slot arrays and the forward offsets of the current grid; set again by afterRebin
   whenever a rebinning (inside a step too) moves disks or changes the grid. */
void WarmRefresh(Sim *s, Warm *wm)
{
  WarmArrays(s, wm);
  DomainForwardOffsets(s->dom.ln[0], wm->fwd);
}

/* F, the field warm_w: between steps the warm start's displacement of the next step, W;
   within a step, F + x is the displacement the warm start and the constraints have made
   since the prediction (D, once the step ends). */
void WarmField(const Sim *s, const Warm *wm, PetscReal **fx, PetscReal **fy)
{
  *fx = (PetscReal *)ParticlesField(&s->P, wm->kw[0]);
  *fy = (PetscReal *)ParticlesField(&s->P, wm->kw[1]);
}

/* sign +1: F + x, the displacement so far (before a rebinning, which may wrap x across a
   periodic side); sign -1: back to F - x (after it, from the wrapped x). */
void WarmShift(Sim *s, Warm *wm, int sign)
{
  Particles *p = &s->P;
  PetscReal *fx, *fy;
  WarmField(s, wm, &fx, &fy);
  for (PetscInt i = 0; i < p->n; i++) {
    fx[i] = sign > 0 ? fx[i] + p->x[i] : fx[i] - p->x[i];
    fy[i] = sign > 0 ? fy[i] + p->y[i] : fy[i] - p->y[i];
  }
}

/* The list's multipliers back into the slots (the fields that migrate, are checkpointed
   and digested): before a rebinning, a checkpoint, a digest or the stepEnd hooks. */
PetscErrorCode WarmSyncSlots(const Sim *s, Warm *wm)
{
  PetscFunctionBeginUser;
  if (!wm->dirty || !wm->listOK) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCheck(wm->ln == s->P.n, PETSC_COMM_SELF, PETSC_ERR_PLIB,
             "pbdw: the disks changed while their multipliers were outside the fields (a hook that moves disks "
             "must come after the modules' sync)");
  WarmArrays(s, wm);
  for (PetscInt i = 0; i < s->P.n; i++)
    for (PetscInt t = wm->lr[2 * i]; t < wm->lr[2 * i + 2]; t++) {
      const int q = wm->eq[t];
      if (q >= 0) wm->slot[q][i] = KeyWord(wm->slot[q][i], wm->ent[t].lam);
    }
  wm->dirty = PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---- the module: fields, rehoming, digest ---- */

static PetscErrorCode WarmSetUp(Sim *s, void *ctx)
{
  Warm          *wm    = (Warm *)ctx;
  const unsigned flags = FIELD_MIGRATES | FIELD_GHOSTED | FIELD_CHECKPOINT;

  PetscFunctionBeginUser;
  for (int q = 0; q < WARM_SLOTS; q++) {
    char name[16];
    PetscCall(PetscSNPrintf(name, sizeof(name), "warm_c%d", q));
    PetscCall(ParticlesRegisterField(&s->P, name, FIELD_INT64, flags, &wm->ks[q]));
  }
  PetscCall(ParticlesRegisterField(&s->P, "warm_wx", FIELD_REAL, FIELD_MIGRATES | FIELD_CHECKPOINT, &wm->kw[0]));
  PetscCall(ParticlesRegisterField(&s->P, "warm_wy", FIELD_REAL, FIELD_MIGRATES | FIELD_CHECKPOINT, &wm->kw[1]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* After a rebinning: each owned disk keeps the multipliers of the pairs it is now the
   base of, found in its own slots or its partner's, and of its walls; the rest go. */
/* Contacts are keyed in 32 bits: ids below 2^31 - 1 and fewer than 2^31 walls.  Ids do
   not change during a run: checked once the disks exist (created, restored). */
static PetscErrorCode WarmCheckKeys(Sim *s, void *ctx)
{
  const Particles *p   = &s->P;
  PetscInt64       big = 0;
  (void)ctx;
  PetscFunctionBeginUser;
  for (PetscInt i = 0; i < p->n; i++) big = PetscMax(big, p->id[i]);
  PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, &big, 1, MPIU_INT64, MPI_MAX, s->dom.comm));
  PetscCheck(big < (PetscInt64)WARM_WALL - 1 && (PetscInt64)s->walls.n + s->walls.nseg < (PetscInt64)WARM_WALL,
             s->dom.comm, PETSC_ERR_SUP,
             "-solver pbdw keys contacts in 32 bits: disk ids below 2^31 - 1 and fewer than 2^31 walls (largest id "
             "%" PetscInt64_FMT ")",
             big);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Before a rebinning inside a step: what the constraints moved so far goes into D (the
   migration may wrap the positions); after it, Z is the wrapped position. */
static PetscErrorCode WarmBeforeRebin(Sim *s, void *ctx)
{
  Warm *wm = (Warm *)ctx;
  PetscFunctionBeginUser;
  PetscCall(WarmSyncSlots(s, wm));
  if (wm->inStep) WarmShift(s, wm, +1);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode WarmBinned(Sim *s, void *ctx)
{
  Warm *wm = (Warm *)ctx;
  PetscFunctionBeginUser;
  wm->listOK = PETSC_FALSE; /* the cells, or the disks, are new */
  PetscCall(WarmCheckKeys(s, ctx));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode WarmAfterRebin(Sim *s, void *ctx)
{
  Warm         *wm = (Warm *)ctx;
  const Domain *d  = &s->dom;
  const Cells  *c  = &s->cells;
  const Walls  *wl = &s->walls;
  Particles    *p  = &s->P;

  PetscFunctionBeginUser;
  uint64_t *tmp; /* the new slots, for this rehoming only */
  PetscCall(PetscCalloc1((size_t)WARM_SLOTS * p->n + 1, &tmp));
  WarmRefresh(s, wm);
  for (PetscInt cy = d->c0[1]; cy < d->c1[1]; cy++) /* the owned cells */
    for (PetscInt cx = d->c0[0]; cx < d->c1[0]; cx++) {
      const PetscInt k = DomainLocalCell(d, cx, cy);
      for (PetscInt i = c->beg[k]; i < c->end[k]; i++) {
        uint64_t *nw = tmp + (size_t)WARM_SLOTS * i, old[WARM_SLOTS];
        int       at;
        for (int q = 0; q < WARM_SLOTS; q++) old[q] = wm->slot[q][i];
        if (s->wallMask[k]) {
          for (PetscInt w = 0; w < wl->n; w++) {
            const uint32_t key = WARM_WALL + (uint32_t)w;
            SlotStore(nw, -1, key, SlotFind(old, key, &at), &wm->overflow);
          }
          for (PetscInt q = wl->segBeg[k]; q < wl->segBeg[k + 1]; q++) {
            const uint32_t key = WARM_WALL + (uint32_t)(wl->n + wl->segIdx[q]);
            SlotStore(nw, -1, key, SlotFind(old, key, &at), &wm->overflow);
          }
        }
        CELLS_FOR_PARTNERS(c, k, wm->fwd, i, j)
        {
          double lam = SlotFind(old, PairKey(p->id[j]), &at);
          if (at < 0) {
            uint64_t sj[WARM_SLOTS];
            for (int q = 0; q < WARM_SLOTS; q++) sj[q] = wm->slot[q][j];
            lam = SlotFind(sj, PairKey(p->id[i]), &at);
          }
          SlotStore(nw, -1, PairKey(p->id[j]), lam, &wm->overflow);
        }
      }
    }
  for (PetscInt i = 0; i < p->n; i++)
    for (int q = 0; q < WARM_SLOTS; q++) wm->slot[q][i] = tmp[(size_t)WARM_SLOTS * i + q];
  PetscCall(PetscFree(tmp));
  wm->listOK = PETSC_FALSE;
  if (wm->inStep) WarmShift(s, wm, -1);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The carried state in the state digest: p_old bitwise, and the slots of each disk as a
   set (their order in the slots is immaterial). */
static PetscErrorCode WarmDigest(const Sim *s, void *ctx, Digest *dg)
{
  Warm            *wm   = (Warm *)ctx;
  const Particles *p    = &s->P;
  uint64_t         h[2] = {0, 0};

  PetscFunctionBeginUser;
  for (int q = 0; q < WARM_SLOTS; q++) {
    const uint64_t *sl = (const uint64_t *)ParticlesField(p, wm->ks[q]);
    for (PetscInt i = 0; i < p->n; i++)
      if ((uint32_t)sl[i]) DigestRecord((uint64_t)p->id[i] + (1ULL << 42), 0, sl[i], h); /* lambda > 0 */
  }
  for (int a = 0; a < 2; a++) { /* D, bitwise */
    const PetscReal *v = (const PetscReal *)ParticlesField(p, wm->kw[a]);
    for (PetscInt i = 0; i < p->n; i++) {
      uint64_t b;
      memcpy(&b, &v[i], sizeof(b));
      if (b) DigestRecord((uint64_t)p->id[i] + ((uint64_t)(a + 1) << 44), 0, b, h);
    }
  }
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, h, 2, MPI_UINT64_T, MPI_SUM, s->dom.comm));
  dg->h[0] += h[0];
  dg->h[1] += h[1];
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode WarmSync(const Sim *s, void *ctx)
{
  PetscFunctionBeginUser;
  PetscCall(WarmSyncSlots(s, (Warm *)ctx));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode WarmDestroy(Sim *s, void *ctx)
{
  Warm *wm = (Warm *)ctx;
  (void)s;
  PetscFunctionBeginUser;
  PetscCall(PetscFree3(wm->gx, wm->gy, wm->lm));
  PetscCall(PetscFree(wm->aref));
  PetscCall(PetscFree(wm->lr));
  PetscCall(PetscFree(wm->cellOf));
  PetscCall(PetscFree(wm->ent));
  PetscCall(PetscFree(wm->eq));
  PetscCall(PetscFree(wm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode WarmModuleCreate(const Params *prm, SimModule *m, PetscBool *on)
{
  Warm *wm;
  PetscFunctionBeginUser;
  *on = strcmp(prm->solver, "pbdw") == 0 ? PETSC_TRUE : PETSC_FALSE;
  if (!*on) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscNew(&wm));
  m->name        = "warm";
  m->ctx         = wm;
  m->setUp       = WarmSetUp;
  m->created     = WarmBinned;
  m->restored    = WarmBinned;
  m->beforeRebin = WarmBeforeRebin;
  m->afterRebin  = WarmAfterRebin;
  m->digest      = WarmDigest;
  m->sync        = WarmSync;
  m->destroy     = WarmDestroy;
  PetscFunctionReturn(PETSC_SUCCESS);
}
