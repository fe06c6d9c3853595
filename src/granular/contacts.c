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
 * the step, lambda / (2 h) for a pair and lambda / h for a wall.  penalty's forces are its
 * springs, gamma (P(q) - q) evaluated at the step's start: penalty.c records them as it
 * sums them, each pair once, from the end with the smaller id.  In a hyperstatic packing
 * (more contacts than degrees of freedom, the hexagonal one among them) the contact
 * forces that balance the loads are not unique: each stepper picks one, and only their
 * sum over a region — the stress — is determined.  pgs and edmd are not recorded yet (refused).
 *
 * Kept contacts.  At the snapshot steps of -contact_output the same recording also keeps
 * each contact (StressAddContact): its ends' ids, Delta and l, and the local index of its
 * owned disk.  After the step they are sorted by ids and a contact met in several sweeps
 * (pngs) is merged, its Deltas summed, its last branch vector kept (MergeContacts);
 * contact_output.c writes them.  A pair is always met from the same end within a step:
 * the cell order is fixed between rebinnings and the sweep visits j as a forward partner
 * of i's cell.
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
 * diameter after the step (rattlers counted), and z_nr = the mean contact number of the nr
 * disks that are not rattlers (NonRattlers: the 3-core of the contact graph).  The sums
 * are reduced over the ranks, so their last digits may differ between rank counts; the
 * trajectory does not.                                                                 */
#include <throng/core/sim.h>
#include <throng/step/pbd.h>
#include <throng/util/project.h>
#include <throng/granular/contacts.h>
#include <throng/step/warm.h>
#include <throng/granular/contact_output.h>
#include <throng/core/stress.h>
#include <stdlib.h>

PetscErrorCode StressSetFromOptions(Opt *o)
{
  Params *p = o->p;
  PetscFunctionBeginUser;
  PetscCall(OptBool(o, OPT_RUN, "-stress",
                    "Record the contact forces at the progress steps: stress tensor, pressure, packing fraction, "
                    "contacts per disk (pbd, pngs, pbdw, penalty; docs/granular.md)",
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
  PetscCheck(
    !p->stress || StressRecords(p->solver), comm, PETSC_ERR_SUP,
    "-stress with -solver %s: contact forces are recorded for pbd, pngs, pbdw and penalty only (docs/granular.md)",
    p->solver);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode StressBeforeStep(Sim *s)
{
  const Params  *p  = &s->prm;
  const PetscInt K  = p->progress > 0 ? p->progress : PetscMax(1, p->steps / 10);
  const PetscInt n1 = s->step + 1;
  Stress        *st = &s->stress;
  PetscFunctionBeginUser;
  st->print = p->stress && (n1 % K == 0 || n1 == p->steps) ? PETSC_TRUE : PETSC_FALSE;
  st->rec   = ContactOutputStep(p, n1);
  st->baro  = p->baroP > 0 ? PETSC_TRUE : PETSC_FALSE; /* every step (barostat.c) */
  st->on    = st->print || st->rec || st->baro ? PETSC_TRUE : PETSC_FALSE;
  if (!st->on) PetscFunctionReturn(PETSC_SUCCESS);
  ParamsBarostatAxes(p, st->baroW);
  st->baroScale = 4294967296.0 / (s->rmax * s->rmax);
  st->baroSum   = 0;
  if (!st->band && p->stressBands) PetscCall(PetscMalloc1(4 * p->stressBands, &st->band));
  for (int a = 0; a < 4; a++) st->S[a] = 0;
  for (PetscInt b = 0; b < 4 * p->stressBands; b++) st->band[b] = 0;
  st->nproj   = 0;
  st->nc      = 0;
  st->recFail = PETSC_FALSE;
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

static int CompareContact(const void *a, const void *b)
{
  const ContactRec *u = (const ContactRec *)a, *v = (const ContactRec *)b;
  if (u->ida != v->ida) return u->ida < v->ida ? -1 : 1;
  return u->idb < v->idb ? -1 : u->idb > v->idb;
}

/* The kept contacts of the step, one record per contact: sorted by (ida, idb), and the
   displacements of a contact projected in several sweeps (pngs) summed; its branch
   vector is the last one.  Within a step a pair is always met from the same end (the
   cell order is fixed between rebinnings), so (ida, idb) names it uniquely.            */
static PetscErrorCode MergeContacts(Sim *s)
{
  Stress  *st = &s->stress;
  PetscInt m  = 0;
  PetscFunctionBeginUser;
  PetscCheck(!st->recFail, PETSC_COMM_SELF, PETSC_ERR_MEM, "out of memory keeping the contacts of step %" PetscInt_FMT,
             s->step);
  if (st->nc) qsort(st->c, (size_t)st->nc, sizeof(ContactRec), CompareContact);
  for (PetscInt k = 0; k < st->nc; k++) {
    if (m && st->c[m - 1].ida == st->c[k].ida && st->c[m - 1].idb == st->c[k].idb) {
      ContactRec *c = &st->c[m - 1];
      c->dx += st->c[k].dx, c->dy += st->c[k].dy, c->lx = st->c[k].lx, c->ly = st->c[k].ly, c->i = st->c[k].i;
    } else st->c[m++] = st->c[k];
  }
  st->nc      = m;
  st->recStep = s->step;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The rattlers: disks with fewer than 3 (d + 1) contacts with non-rattlers, removed until
   none is left.  What remains is the 3-core of the contact graph, unique whatever the
   order of removal, so the result does not depend on the rank count.  Each rank counts
   the contacts of its own disks over all nine cells around them (ghosts included), drops
   those below 3 in place, and the ranks exchange their flags through the halo until no
   rank drops any.  Wall contacts are not counted (a bulk measure: a periodic packing).
   Returns this rank's non-rattlers and the sum of their contacts with non-rattlers.
   Collective.                                                                         */
static PetscErrorCode NonRattlers(Sim *s, PetscReal tol, PetscReal *nd, PetscReal *sumc)
{
  const Domain    *d = &s->dom;
  const Cells     *c = &s->cells;
  const Particles *p = &s->P;
  const PetscInt   m = p->n + p->ng, L = d->ln[0];
  PetscReal       *live;
  PetscInt        *cnt;
  PetscFunctionBeginUser;
  PetscCall(PetscMalloc2(m + 1, &live, m + 1, &cnt));
  for (PetscInt i = 0; i < m; i++) live[i] = 1, cnt[i] = 0;
  for (;;) {
    PetscInt64 dropped = 0;
    for (PetscInt cy = 1; cy < d->ln[1] - 1; cy++)
      for (PetscInt cx = 1; cx < L - 1; cx++) {
        const PetscInt k = cy * L + cx;
        for (PetscInt i = c->beg[k]; i < c->end[k]; i++) {
          PetscInt n = 0;
          if (!live[i]) continue;
          for (PetscInt dy = -1; dy <= 1; dy++)
            for (PetscInt dx = -1; dx <= 1; dx++) {
              const PetscInt k2 = k + dy * L + dx;
              for (PetscInt j = c->beg[k2]; j < c->end[k2]; j++) {
                if (j == i || !live[j]) continue;
                const PetscReal ex = p->x[j] - p->x[i], ey = p->y[j] - p->y[i], sr = p->r[i] + p->r[j] + tol;
                if (ex * ex + ey * ey <= sr * sr) n++;
              }
            }
          cnt[i] = n;
          if (n < 3) live[i] = 0, dropped++;
        }
      }
    PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &dropped, 1, MPIU_INT64, MPI_SUM, d->comm));
    if (!dropped) break;
    PetscCall(HaloForwardValues(d, p, &s->halo, live));
  }
  *nd = *sumc = 0;
  for (PetscInt i = 0; i < p->n; i++)
    if (live[i]) *nd += 1, *sumc += (PetscReal)cnt[i];
  PetscCall(PetscFree2(live, cnt));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode StressAfterStep(Sim *s, PetscBool last)
{
  Stress        *st = &s->stress;
  const Domain  *d  = &s->dom;
  const PetscInt nb = s->prm.stressBands;
  PetscReal      v[10], sig[4];
  PetscFunctionBeginUser;
  if (!st->on) PetscFunctionReturn(PETSC_SUCCESS);
  st->on = PETSC_FALSE;
  if (!strcmp(s->prm.solver, "pbdw")) PetscCall(WarmContacts(s, StressAddContact)); /* its stored multipliers */
  if (st->rec) {
    int bad = st->recFail ? 1 : 0;
    PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MAX, d->comm));
    PetscCheck(!bad, d->comm, PETSC_ERR_MEM, "out of memory keeping the contacts of step %" PetscInt_FMT, s->step);
    PetscCall(MergeContacts(s));
  }
  if (!st->print) PetscFunctionReturn(PETSC_SUCCESS);
  for (int a = 0; a < 4; a++) v[a] = st->S[a];
  Contacts(s, 1e-6 * 2 * s->rmax, &v[4], &v[5]);
  v[6] = (PetscReal)st->nproj;
  v[7] = (PetscReal)s->P.n;
  PetscCall(NonRattlers(s, 1e-6 * 2 * s->rmax, &v[8], &v[9]));
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, v, 10, MPIU_REAL, MPI_SUM, d->comm));
  const PetscReal A = (d->hi[0] - d->lo[0]) * (d->hi[1] - d->lo[1]), h = s->prm.dt;
  for (int a = 0; a < 4; a++) sig[a] = v[a] / (A * h);
  const PetscReal pr = 0.5 * (sig[0] + sig[3]), sxy = 0.5 * (sig[1] + sig[2]), phi = v[5] / A,
                  z = v[7] > 0 ? 2 * v[4] / v[7] : 0, z0 = v[8] > 0 ? v[9] / v[8] : 0;
  for (int a = 0; a < 4; a++) st->sample[a] = sig[a];
  st->sample[4] = pr, st->sample[5] = phi, st->sample[6] = z, st->sample[7] = z0, st->sample[8] = v[8];
  st->sampleStep = s->step;
  if (!s->prm.quiet)
    PetscCall(PetscPrintf(d->comm,
                          "stress: step %" PetscInt_FMT "  p %.6e  sxx %.6e  syy %.6e  sxy %.6e  phi %.6f  z %.4f  "
                          "z_nr %.4f  nr %.0f\n",
                          s->step, (double)pr, (double)sig[0], (double)sig[3], (double)sxy, (double)phi, (double)z,
                          (double)z0, (double)v[8]));
  if (!last) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscPrintf(d->comm,
                        "summary: stress p %.6e  sxx %.6e  syy %.6e  sxy %.6e  phi %.6f  z %.4f  z_nr %.4f  nr %.0f  "
                        "(step %" PetscInt_FMT ", %.0f projections recorded)\n",
                        (double)pr, (double)sig[0], (double)sig[3], (double)sxy, (double)phi, (double)z, (double)z0,
                        (double)v[8], s->step, (double)v[6]));
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
