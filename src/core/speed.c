/* speed — how fast the disks move: the RMS speed of the progress and summary lines.
 *
 * Why.  An overdamped pile under a steady load should stand still; a stepper that does
 * not converge within a step can leave it ringing or creeping with a small overlap.  The
 * largest overlap does not show that, the speed does: at rest every disk's displacement
 * over a step is zero.  The figure reported is
 *
 *     rms_speed = sqrt( (1/N) sum_i |x_i(t_{k+1}) - x_i(t_k)|^2 ) / dt
 *
 * over all N disks and the one step before the line, with max_speed its largest term;
 * divided by the mean diameter it is the "d per unit time" of issue 46's rest targets.
 *
 * How.  Before a measured step (SpeedMark) the owned disks' positions go into the
 * prediction's scratch (saveX, saveY: pbd.c keeps there where the last sweep left the
 * disks, for the skin check, and a step that predicts through pbd.c writes the same
 * values).  If the step rebins, this file's module (its beforeRebin hook, before any
 * disk moves) keeps the disks' ids in that same order, as 32-bit integers in the ghosts'
 * part of that scratch, which the step does not read again (SpeedId): no memory is
 * added (two more per-disk fields, the obvious way, cost 23 bytes per disk of peak
 * memory at the 10^6 pile, an 8-byte id buffer 8).  After the step (SpeedMeasure) each
 * disk is compared with itself: by index when the step did not rebin (no disk moved in
 * the arrays), else by id, the kept (id, x, y) sorted in place.  A disk that changed
 * rank within the step (only at a rebinning, only near a border) is not in its new
 * rank's list: it is left out of the mean and counted (the summary says how many).  The
 * sort costs about 40 steps' worth of time at 250 000 disks, so the two steps before
 * each line are marked, and a step that rebinned is measured only when it is the
 * line's own and the step before it rebinned too: the line then reports the speed of
 * the step before it (issue 46's review: measuring the line's step alone, by id when it
 * rebinned, made the benchmark 12 % slower).  Across a periodic side the displacement is taken to the
 * nearest image (a sheared box shifts x by its tilt when y wraps).  The speed includes
 * the box's own motion where the box deforms (-deform_rate, -barostat) or shears
 * (-shear_rate).  SpeedMeasure runs before the modules' step end, so a disk an exit
 * removes is still counted.  The sums are reduced with MPI_SUM: the figure may differ in
 * its last bits between rank counts (it is a diagnostic, not part of the state or its
 * digest). */
#include <throng/core/speed.h>
#include <math.h>

PetscErrorCode SpeedMark(Sim *s)
{
  const Particles *p = &s->P;
  PetscFunctionBeginUser;
  PetscCall(SimSaveReserve(s, p->n + p->n / 4 + 16)); /* room for the ids beyond the positions */
  PetscCall(PetscFree(s->speedId)); /* SimRebin keeps the ids if the step rebins */
  s->speedKept = PETSC_FALSE;
  for (PetscInt i = 0; i < p->n; i++) {
    s->saveX[i] = p->x[i];
    s->saveY[i] = p->y[i];
  }
  s->speedN    = p->n;
  s->speedMark = s->step;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The ids kept for a measured step that rebins, in 32 bits in the part of saveX, saveY
   beyond the speedN disks' positions (at least speedN + 64 slots, since SpeedMark
   reserves saveCap >= 5/4 speedN + 16), or in speedId when one does not fit. */
static inline int32_t *SpeedId32(const Sim *s, PetscInt i)
{
  const PetscInt half = 2 * (s->saveCap - s->speedN); /* int32 slots beyond the positions in saveX */
  return i < half ? (int32_t *)(s->saveX + s->speedN) + i : (int32_t *)(s->saveY + s->speedN) + (i - half);
}
static inline PetscInt64 SpeedId(const Sim *s, PetscInt i) { return s->speedId ? s->speedId[i] : *SpeedId32(s, i); }

/* beforeRebin: a step whose speeds are measured rebins; keep its disks' ids in the order
   of their kept positions (the first rebinning of the step only). */
static PetscErrorCode SpeedBeforeRebin(Sim *s, void *ctx)
{
  const Particles *p    = &s->P;
  PetscBool        wide = PETSC_FALSE;
  PetscFunctionBeginUser;
  (void)ctx;
  if (s->speedMark != s->step || s->speedKept) PetscFunctionReturn(PETSC_SUCCESS);
  for (PetscInt i = 0; i < p->n; i++) wide = wide || p->id[i] < 0 || p->id[i] > INT32_MAX;
  if (wide) {
    PetscCall(PetscMalloc1(p->n + 1, &s->speedId));
    for (PetscInt i = 0; i < p->n; i++) s->speedId[i] = p->id[i];
  } else
    for (PetscInt i = 0; i < p->n; i++) *SpeedId32(s, i) = (int32_t)p->id[i];
  s->speedKept = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SpeedModuleCreate(const Params *prm, SimModule *m, PetscBool *on)
{
  PetscFunctionBeginUser;
  (void)prm;
  *on            = PETSC_TRUE;
  m->name        = "speed";
  m->beforeRebin = SpeedBeforeRebin;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The squared displacement (dx, dy), to the nearest periodic image. */
static inline PetscReal Moved2(const Domain *d, PetscReal dx, PetscReal dy)
{
  const PetscReal Lx = d->hi[0] - d->lo[0], Ly = d->hi[1] - d->lo[1];
  if (d->per[1] && PetscAbsReal(dy) > 0.5 * Ly) { /* wrapped across y: the sheared box shifts x too */
    const PetscReal w = dy > 0 ? -1 : 1;
    dy += w * Ly;
    dx += w * d->tilt;
  }
  if (d->per[0]) dx -= Lx * round(dx / Lx);
  return dx * dx + dy * dy;
}

/* Heap sort of the kept (id, x, y) by id, in place. */
static void Swap3(Sim *s, PetscInt a, PetscInt b)
{
  PetscReal *x = s->saveX, *y = s->saveY, u = x[a], v = y[a];
  x[a] = x[b], y[a] = y[b], x[b] = u, y[b] = v;
  if (s->speedId) {
    const PetscInt64 t = s->speedId[a];
    s->speedId[a] = s->speedId[b], s->speedId[b] = t;
  } else {
    const int32_t t = *SpeedId32(s, a);
    *SpeedId32(s, a) = *SpeedId32(s, b), *SpeedId32(s, b) = t;
  }
}

static void SiftDown(Sim *s, PetscInt r, PetscInt n)
{
  for (PetscInt c; (c = 2 * r + 1) < n; r = c) {
    if (c + 1 < n && SpeedId(s, c + 1) > SpeedId(s, c)) c++;
    if (SpeedId(s, r) >= SpeedId(s, c)) return;
    Swap3(s, r, c);
  }
}

static void SortById(Sim *s, PetscInt n)
{
  for (PetscInt r = n / 2 - 1; r >= 0; r--) SiftDown(s, r, n);
  for (PetscInt e = n - 1; e > 0; e--) {
    Swap3(s, 0, e);
    SiftDown(s, 0, e);
  }
}

PetscErrorCode SpeedMeasure(Sim *s, PetscBool last)
{
  const Particles *p    = &s->P;
  const Domain    *d    = &s->dom;
  PetscReal        v[3] = {0, 0, 0}, mx = 0; /* sum of squares, disks measured, left out */
  const PetscBool  same = s->speedKept ? PETSC_FALSE : PETSC_TRUE; /* no rebinning: the same order */

  PetscFunctionBeginUser;
  PetscCheck(s->speedMark == s->step - 1, d->comm, PETSC_ERR_PLIB,
             "SpeedMeasure at step %" PetscInt_FMT " after a mark at %" PetscInt_FMT, s->step, s->speedMark);
  if (!same && (!last || s->speedStep == s->step - 1)) { /* a rebinning step: the step before it serves */
    PetscCall(PetscFree(s->speedId));
    s->speedKept = PETSC_FALSE;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscLogEventBegin(THRONG_EV.diag, 0, 0, 0, 0));
  PetscCheck(!same || p->n == s->speedN, PETSC_COMM_SELF, PETSC_ERR_PLIB,
             "%" PetscInt_FMT " disks after a step that did not rebin, %" PetscInt_FMT " before", p->n, s->speedN);
  if (same) {
    for (PetscInt i = 0; i < p->n; i++) {
      const PetscReal q = Moved2(d, p->x[i] - s->saveX[i], p->y[i] - s->saveY[i]);
      v[0] += q;
      mx = PetscMax(mx, q);
    }
    v[1] = (PetscReal)p->n;
  } else { /* the step rebinned: find each disk by its id */
    const PetscInt n0 = s->speedN;
    SortById(s, n0);
    for (PetscInt i = 0; i < p->n; i++) {
      PetscInt lo = 0, hi = n0; /* the first kept id >= this one */
      while (lo < hi) {
        const PetscInt mid = lo + (hi - lo) / 2;
        if (SpeedId(s, mid) < p->id[i]) lo = mid + 1;
        else hi = mid;
      }
      if (lo == n0 || SpeedId(s, lo) != p->id[i]) { /* it came from another rank in this step */
        v[2] += 1;
        continue;
      }
      const PetscReal q = Moved2(d, p->x[i] - s->saveX[lo], p->y[i] - s->saveY[lo]);
      v[0] += q;
      v[1] += 1;
      mx = PetscMax(mx, q);
    }
  }
  PetscCall(PetscFree(s->speedId));
  s->speedKept = PETSC_FALSE;
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, v, 3, MPIU_REAL, MPI_SUM, d->comm));
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &mx, 1, MPIU_REAL, MPI_MAX, d->comm));
  s->rmsSpeed     = v[1] > 0 ? PetscSqrtReal(v[0] / v[1]) / s->prm.dt : 0;
  s->maxSpeed     = PetscSqrtReal(mx) / s->prm.dt;
  s->speedLeftOut = (PetscInt64)v[2];
  s->speedStep    = s->step;
  PetscCall(PetscLogEventEnd(THRONG_EV.diag, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}
