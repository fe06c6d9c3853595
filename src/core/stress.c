/* stress — the sums of the contact stress, made inside the sweeps.
 *
 * A recorded step (granular/contacts.c decides which: the progress steps with -stress,
 * the snapshot steps with -contact_output, every step with -barostat) adds each
 * projection that moved a disk: Delta (x) l, Delta the displacement it gave the second
 * disk (force Delta / h) and l the branch vector, to this rank's sum, to its horizontal
 * band, and for the barostat to an integer sum along the deformed axes (each term
 * rounded to units of 2^-32 r_max^2, so that the sum over the ranks is exact).  The
 * sweeps of pbd, pngs and pbdw and the penalty's springs call these; contacts.c reduces
 * and prints the sums after the step.  They live below the steppers so that a stepper
 * records its forces without knowing who reads them.                                   */
#include <throng/core/stress.h>
#include <string.h>
#include <math.h>

PetscBool StressRecords(const char *solver)
{
  return !strcmp(solver, "pbd") || !strcmp(solver, "pngs") || !strcmp(solver, "pbdw") || !strcmp(solver, "penalty")
           ? PETSC_TRUE
           : PETSC_FALSE;
}

void StressAdd(Sim *s, PetscReal dx, PetscReal dy, PetscReal lx, PetscReal ly, PetscReal ym)
{
  Stress        *st = &s->stress;
  const PetscInt nb = s->prm.stressBands;
  st->S[0] += dx * lx, st->S[1] += dx * ly, st->S[2] += dy * lx, st->S[3] += dy * ly;
  st->nproj++;
  if (st->baro) st->baroSum += (uint64_t)llround((st->baroW[0] * dx * lx + st->baroW[1] * dy * ly) * st->baroScale);
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

void StressAddContact(Sim *s, PetscInt i, PetscInt64 ida, PetscInt64 idb, PetscReal dx, PetscReal dy, PetscReal lx,
                      PetscReal ly, PetscReal ym)
{
  Stress *st = &s->stress;
  StressAdd(s, dx, dy, lx, ly, ym);
  if (!st->rec) return;
  if (st->nc == st->capc) { /* not in a PetscCall context: a failure is raised after the sweep */
    const PetscInt cap = 2 * st->capc + 1024;
    if (st->recFail || PetscRealloc(sizeof(ContactRec) * (size_t)cap, &st->c)) {
      st->recFail = PETSC_TRUE;
      return;
    }
    st->capc = cap;
  }
  st->c[st->nc++] = (ContactRec){ida, idb, dx, dy, lx, ly, i};
}

void StressAddWall(Sim *s, PetscInt i, PetscInt64 wall, PetscReal x0, PetscReal y0, PetscReal x, PetscReal y,
                   PetscReal r)
{
  const PetscReal dx = x - x0, dy = y - y0, n = PetscSqrtReal(dx * dx + dy * dy);
  if (n > 0) StressAddContact(s, i, -1 - wall, s->P.id[i], dx, dy, r * dx / n, r * dy / n, y - 0.5 * r * dy / n);
}
