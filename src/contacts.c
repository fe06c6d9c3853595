/* contacts — contact forces and the stress they carry (-stress, -stress_bands).
 *
 * In first-order dynamics dq/dt = f(q) + F_c, the constraint force on a disk over a step
 * is its correction divided by the step: F = (x_{k+1} - y)/h, y the prediction (unit
 * mobility).  A projection of the pair (i, j) moves j by Delta_j = (delta/2) n and i by
 * -Delta_j: the contact pushed j with the force Delta_j / h along the unit normal n from
 * i to j.  The Love-Weber stress of the contacts in an area A is
 *     sigma = (1/A) sum_c f_c (x) l_c,      f_c = Delta_j / h,   l_c = q_j - q_i,
 * positive in compression (the granular sign); the pressure is p = (sigma_xx + sigma_yy)/2
 * and the shear stress sigma_xy.  A wall contact counts with l = r n, from the contact
 * point to the centre.
 *
 * What a stepper's forces mean.  -stress records the projections of the step's sweeps,
 * summing Delta_j (x) l as they happen (the positions are computed exactly as in the
 * sweep of pbd.c: recording does not change a bit of the trajectory, ctest -R periodic
 * compares the digests).  For pbd that is the impulse of each contact over one sweep;
 * in a resting packing the corrections balance the prediction, so the forces balance
 * the field disk by disk.  For pngs the impulses of all the step's sweeps add up to the
 * converged multipliers.  pbdw keeps each contact's multiplier lambda (the separation it
 * made over the step, warm start included: warm.c); its forces are read from them after
 * the step, lambda / (2 h) for a pair and lambda / h for a wall.  In a hyperstatic packing (more contacts than degrees of
 * freedom, the hexagonal one among them) the contact forces that balance the loads are
 * not unique: each stepper picks one, and only their sum over a region — the stress —
 * is determined.  penalty, pgs and edmd are not recorded yet (refused).
 *
 * The profile.  -stress_bands K cuts the box into K horizontal bands; a contact counts in
 * each band with the share of its branch vector that lies in the band, and the band's
 * sum is divided by the band's area.  This is the stress averaged over the horizontal
 * lines of the band (each line is crossed by the branch vectors of the contacts that
 * carry force across it): in a resting pile sigma_yy(y) is the weight of the disks whose
 * centres are above y, per unit width, averaged over the band (ctest -R stress).
 *
 * Also reported: the packing fraction phi = sum pi r^2 / A of the box and the mean
 * contact number z = 2 N_c / N, N_c the pairs with a gap below 1e-6 of the largest
 * diameter after the step (rattlers are counted; their removal is not done yet).  The sums
 * are reduced over the ranks, so their last digits may differ between rank counts; the
 * trajectory does not.                                                                 */
#include <throng/sim.h>
#include <throng/pbd.h>
#include <throng/project.h>
#include <throng/contacts.h>
#include <throng/warm.h>

PetscErrorCode StressSetFromOptions(Opt *o)
{
  Params *p = o->p;
  PetscFunctionBeginUser;
  PetscCall(OptBool(o, OPT_RUN, "-stress",
                    "Record the contact forces at the progress steps: stress tensor, pressure, packing fraction, "
                    "contacts per disk (pbd, pngs, pbdw; docs/granular.md)",
                    &p->stress));
  PetscCall(OptInt(o, OPT_RUN, "-stress_bands", "-stress: also the stress in K horizontal bands, printed at the end",
                   &p->stressBands, NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode StressCheck(MPI_Comm comm, const Params *p)
{
  PetscFunctionBeginUser;
  PetscCheck(p->stressBands >= 0 && p->stressBands <= 100000, comm, PETSC_ERR_USER_INPUT,
             "-stress_bands %" PetscInt_FMT ": must be in [0, 100000]", p->stressBands);
  PetscCheck(!p->stressBands || p->stress, comm, PETSC_ERR_USER_INPUT, "-stress_bands needs -stress");
  PetscCheck(!p->stress || !strcmp(p->solver, "pbd") || !strcmp(p->solver, "pngs") || !strcmp(p->solver, "pbdw"),
             comm, PETSC_ERR_SUP,
             "-stress with -solver %s: contact forces are recorded for pbd, pngs and pbdw only (docs/granular.md)",
             p->solver);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode StressBeforeStep(Sim *s)
{
  const Params  *p  = &s->prm;
  const PetscInt K  = p->progress > 0 ? p->progress : PetscMax(1, p->steps / 10);
  Stress        *st = &s->stress;
  PetscFunctionBeginUser;
  st->on = p->stress && ((s->step + 1) % K == 0 || s->step + 1 == p->steps) ? PETSC_TRUE : PETSC_FALSE;
  if (!st->on) PetscFunctionReturn(PETSC_SUCCESS);
  if (!st->band && p->stressBands) PetscCall(PetscMalloc1(4 * p->stressBands, &st->band));
  for (int a = 0; a < 4; a++) st->S[a] = 0;
  for (PetscInt b = 0; b < 4 * p->stressBands; b++) st->band[b] = 0;
  st->nproj = 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

void StressAdd(Sim *s, PetscReal dx, PetscReal dy, PetscReal lx, PetscReal ly, PetscReal ym)
{
  Stress        *st = &s->stress;
  const PetscInt nb = s->prm.stressBands;
  st->S[0] += dx * lx, st->S[1] += dx * ly, st->S[2] += dy * lx, st->S[3] += dy * ly;
  st->nproj++;
  if (nb) { /* each band takes the share of the branch vector that lies in it */
    const PetscReal lo = s->dom.lo[1], hb = (s->dom.hi[1] - lo) / (PetscReal)nb;
    const PetscReal ya = ym - 0.5 * PetscAbsReal(ly), yb = ym + 0.5 * PetscAbsReal(ly);
    PetscInt        b0 = (PetscInt)PetscFloorReal((ya - lo) / hb), b1 = (PetscInt)PetscFloorReal((yb - lo) / hb);
    b0 = PetscMin(PetscMax(b0, 0), nb - 1);
    b1 = PetscMin(PetscMax(b1, 0), nb - 1);
    for (PetscInt b = b0; b <= b1; b++) {
      const PetscReal a0 = lo + (PetscReal)b * hb, a1 = a0 + hb;
      const PetscReal w =
        yb > ya
          ? (PetscMin(yb, b == nb - 1 ? PETSC_MAX_REAL : a1) - PetscMax(ya, b == 0 ? -PETSC_MAX_REAL : a0)) / (yb - ya)
          : 1;
      if (w <= 0) continue;
      st->band[4 * b] += w * dx * lx, st->band[4 * b + 1] += w * dx * ly, st->band[4 * b + 2] += w * dy * lx,
        st->band[4 * b + 3] += w * dy * ly;
    }
  }
}

static inline void AddWall(Sim *s, PetscReal x0, PetscReal y0, PetscReal x, PetscReal y, PetscReal r)
{
  const PetscReal dx = x - x0, dy = y - y0, n = PetscSqrtReal(dx * dx + dy * dy);
  if (n > 0) StressAdd(s, dx, dy, r * dx / n, r * dy / n, y - 0.5 * r * dy / n);
}

/* pbd.c's SweepCell, recording: the same operations on the same values, in the same order. */
static void RecordCell(Sim *s, void *ctx, PetscInt k)
{
  const Cells      *c  = &s->cells;
  const Walls      *wl = &s->walls;
  Particles        *p  = &s->P;
  PetscReal        *x = p->x, *y = p->y;
  const PetscReal  *r  = p->r;
  const PetscInt64 *id = p->id;
  const PetscInt    b = c->beg[k], e = c->end[k];
  PetscInt          fwd[4];
  (void)ctx;
  if (b == e) return;
  DomainForwardOffsets(s->dom.ln[0], fwd);
  if (s->wallMask[k])
    for (PetscInt i = b; i < e; i++) {
      for (PetscInt w = 0; w < wl->n; w++) {
        const PetscReal x0 = x[i], y0 = y[i];
        ProjectHalfPlane(&x[i], &y[i], r[i], &wl->w[3 * w]);
        AddWall(s, x0, y0, x[i], y[i], r[i]);
      }
      for (PetscInt j = wl->segBeg[k]; j < wl->segBeg[k + 1]; j++) {
        const PetscReal x0 = x[i], y0 = y[i];
        ProjectSegment(&x[i], &y[i], r[i], &wl->seg[4 * wl->segIdx[j]], &wl->nrm[2 * wl->segIdx[j]], wl->depth);
        AddWall(s, x0, y0, x[i], y[i], r[i]);
      }
    }
  for (PetscInt i = b; i < e; i++) {
    PetscReal        xi = x[i], yi = y[i];
    const PetscReal  ri  = r[i];
    const PetscInt64 idi = id[i];
    CELLS_FOR_PARTNERS(c, k, fwd, i, j)
    {
      const PetscReal xj0 = x[j], yj0 = y[j];
      if (ProjectPair(&xi, &yi, &x[j], &y[j], ri + r[j], idi, &id[j]))
        StressAdd(s, x[j] - xj0, y[j] - yj0, x[j] - xi, y[j] - yi, 0.5 * (y[j] + yi));
    }
    x[i] = xi;
    y[i] = yi;
  }
}

PetscErrorCode StressSweep(Sim *s)
{
  PetscFunctionBeginUser;
  PetscCall(PBDSweepCells(s, RecordCell, NULL, PETSC_FALSE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Pairs closer than tol (gap), and sum pi r^2, of this rank. */
static void Contacts(Sim *s, PetscReal tol, PetscReal *nc, PetscReal *area)
{
  const Domain    *d = &s->dom;
  const Cells     *c = &s->cells;
  const Particles *p = &s->P;
  PetscInt         fwd[4];
  DomainForwardOffsets(d->ln[0], fwd);
  *nc = *area = 0;
  for (PetscInt i = 0; i < p->n; i++) *area += PETSC_PI * p->r[i] * p->r[i];
  for (PetscInt cy = 1; cy < d->ln[1] - 1; cy++)
    for (PetscInt cx = 1; cx < d->ln[0] - 1; cx++) {
      const PetscInt k = cy * d->ln[0] + cx;
      for (PetscInt i = c->beg[k]; i < c->end[k]; i++) CELLS_FOR_PARTNERS(c, k, fwd, i, j)
        {
          const PetscReal dx = p->x[j] - p->x[i], dy = p->y[j] - p->y[i], sr = p->r[i] + p->r[j] + tol;
          if (dx * dx + dy * dy <= sr * sr) *nc += 1;
        }
    }
}

PetscErrorCode StressAfterStep(Sim *s, PetscBool last)
{
  Stress        *st = &s->stress;
  const Domain  *d  = &s->dom;
  const PetscInt nb = s->prm.stressBands;
  PetscReal      v[8], sig[4];
  PetscFunctionBeginUser;
  if (!st->on) PetscFunctionReturn(PETSC_SUCCESS);
  st->on = PETSC_FALSE;
  if (!strcmp(s->prm.solver, "pbdw")) PetscCall(WarmContacts(s, StressAdd)); /* its stored multipliers */
  for (int a = 0; a < 4; a++) v[a] = st->S[a];
  Contacts(s, 1e-6 * 2 * s->rmax, &v[4], &v[5]);
  v[6] = (PetscReal)st->nproj;
  v[7] = (PetscReal)s->P.n;
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, v, 8, MPIU_REAL, MPI_SUM, d->comm));
  const PetscReal A = (d->hi[0] - d->lo[0]) * (d->hi[1] - d->lo[1]), h = s->prm.dt;
  for (int a = 0; a < 4; a++) sig[a] = v[a] / (A * h);
  const PetscReal pr = 0.5 * (sig[0] + sig[3]), sxy = 0.5 * (sig[1] + sig[2]), phi = v[5] / A,
                  z = v[7] > 0 ? 2 * v[4] / v[7] : 0;
  if (!s->prm.quiet)
    PetscCall(PetscPrintf(d->comm,
                          "stress: step %" PetscInt_FMT "  p %.6e  sxx %.6e  syy %.6e  sxy %.6e  phi %.6f  z %.4f\n",
                          s->step, (double)pr, (double)sig[0], (double)sig[3], (double)sxy, (double)phi, (double)z));
  if (!last) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscPrintf(d->comm,
                        "summary: stress p %.6e  sxx %.6e  syy %.6e  sxy %.6e  phi %.6f  z %.4f  (step %" PetscInt_FMT
                        ", %.0f projections recorded)\n",
                        (double)pr, (double)sig[0], (double)sig[3], (double)sxy, (double)phi, (double)z, s->step,
                        (double)v[6]));
  if (nb) {
    PetscReal *all;
    PetscCall(PetscMalloc1(4 * nb, &all));
    PetscCallMPI(MPI_Allreduce(st->band, all, (PetscMPIInt)(4 * nb), MPIU_REAL, MPI_SUM, d->comm));
    const PetscReal hb = (d->hi[1] - d->lo[1]) / (PetscReal)nb, Ab = (d->hi[0] - d->lo[0]) * hb;
    for (PetscInt b = 0; b < nb; b++)
      PetscCall(PetscPrintf(d->comm, "stress-band: y0 %.6g  y1 %.6g  sxx %.6e  syy %.6e  sxy %.6e\n",
                            (double)(d->lo[1] + (PetscReal)b * hb), (double)(d->lo[1] + (PetscReal)(b + 1) * hb),
                            (double)(all[4 * b] / (Ab * h)), (double)(all[4 * b + 3] / (Ab * h)),
                            (double)(0.5 * (all[4 * b + 1] + all[4 * b + 2]) / (Ab * h))));
    PetscCall(PetscFree(all));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode StressDestroy(Sim *s)
{
  PetscFunctionBeginUser;
  PetscCall(PetscFree(s->stress.band));
  PetscFunctionReturn(PETSC_SUCCESS);
}
