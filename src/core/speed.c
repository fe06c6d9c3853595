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
 * How.  The positions at the start of a step live in two fields of their own (sp_x,
 * sp_y, registered by SimCreate), which travel with the disk when the step rebins, migrates or reorders the disks,
 * so that after the step (SpeedMeasure) each disk is compared with itself wherever it
 * now lives.  They cost no memory of their own: the prediction (pbd.c) keeps there where
 * the last sweep left every disk and ghost anyway, for the check of a sweep that went
 * beyond half the skin (CheckBeyondSkin), which was a scratch array before.  A measured
 * step is announced before it runs (SpeedMark copies the owned positions in, for the
 * steppers that do not predict through pbd.c; those that do write the same values).
 * Across a periodic side the displacement is taken to the nearest image (a sheared box
 * shifts x by its tilt when y wraps).  The speed includes the box's own motion where the
 * box deforms (-deform_rate, -barostat) or shears (-shear_rate).  Only the marked steps
 * pay: a streaming copy before and a pass after.  SpeedMeasure runs before the modules'
 * step end, so a disk an exit removes is still counted.  The sums are reduced with
 * MPI_SUM: the figure may differ in its last
 * bits between rank counts (it is a diagnostic, not part of the state or its digest). */
#include <throng/core/speed.h>
#include <math.h>

void SpeedMark(Sim *s)
{
  const Particles *p  = &s->P;
  PetscReal       *sx = (PetscReal *)ParticlesField(p, s->speedK[0]), *sy = (PetscReal *)ParticlesField(p, s->speedK[1]);
  for (PetscInt i = 0; i < p->n; i++) sx[i] = p->x[i], sy[i] = p->y[i];
  s->speedMark = s->step;
}

PetscErrorCode SpeedMeasure(Sim *s)
{
  const Particles *p = &s->P;
  const Domain    *d = &s->dom;
  const PetscReal *sx = (const PetscReal *)ParticlesField(p, s->speedK[0]);
  const PetscReal *sy = (const PetscReal *)ParticlesField(p, s->speedK[1]);
  const PetscReal  Lx = d->hi[0] - d->lo[0], Ly = d->hi[1] - d->lo[1];
  PetscReal        v[3] = {0, 0, 0}; /* sum of squares, count, largest square */

  PetscFunctionBeginUser;
  PetscCheck(s->speedMark == s->step - 1, d->comm, PETSC_ERR_PLIB, "SpeedMeasure at step %" PetscInt_FMT " after a mark at %" PetscInt_FMT, s->step, s->speedMark);
  PetscCall(PetscLogEventBegin(THRONG_EV.diag, 0, 0, 0, 0));
  for (PetscInt i = 0; i < p->n; i++) {
    PetscReal dx = p->x[i] - sx[i], dy = p->y[i] - sy[i];
    if (d->per[1] && PetscAbsReal(dy) > 0.5 * Ly) { /* wrapped across y: the sheared box shifts x too */
      const PetscReal w = dy > 0 ? -1 : 1;
      dy += w * Ly;
      dx += w * d->tilt;
    }
    if (d->per[0]) dx -= Lx * round(dx / Lx);
    const PetscReal q = dx * dx + dy * dy;
    v[0] += q;
    v[2] = PetscMax(v[2], q);
  }
  v[1] = (PetscReal)p->n;
  {
    PetscReal mx = v[2];
    PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, v, 2, MPIU_REAL, MPI_SUM, d->comm));
    PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &mx, 1, MPIU_REAL, MPI_MAX, d->comm));
    v[2] = mx;
  }
  s->rmsSpeed  = v[1] > 0 ? PetscSqrtReal(v[0] / v[1]) / s->prm.dt : 0;
  s->maxSpeed  = PetscSqrtReal(v[2]) / s->prm.dt;
  s->speedStep = s->step;
  PetscCall(PetscLogEventEnd(THRONG_EV.diag, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}
