/* barostat — a pressure-controlled periodic box (-barostat p, -barostat_tau).
 *
 * A jammed packing is usually wanted at a given pressure, not at a given packing
 * fraction: the pressure is what a granular experiment imposes (a confining stress, a
 * weight on a piston), and a packing prepared at pressure p is at distance ~ p from
 * jamming, whatever the finite-size scatter of phi_J.  The box is then a degree of
 * freedom of its own, overdamped like the disks: its periodic edges change at the rate
 *
 *     e = (1/L) dL/dt = (P - p) / (p tau)         (>= -1/tau, as P >= 0),
 *
 * where P is the measured pressure along the deformed axes (the mean of sigma_aa over the
 * periodic axes a; with -periodic xy that is the pressure (sigma_xx + sigma_yy) / 2).  The
 * box expands when the packing pushes harder than p and shrinks when it pushes less; an
 * empty or dilute box (P = 0) shrinks at the full rate 1/tau.  Each step is a step of
 * -deform_rate with that rate (deform.c maps the disks with the box), so everything said
 * there holds: only periodic axes deform, walls on the other axis stay (a channel under a
 * lateral pressure, gravity across it), the cells are regridded when the box asks for
 * another count.
 *
 * The measured pressure.  Hard disks carry force only while something pushes them
 * together: in a box that does not move and with no field the pressure of a feasible
 * packing is zero.  Under the barostat the push is the box's own compression: the map
 * q -> lo + (q - lo)(1 + e h) makes overlaps, the step's sweep(s) remove them, and their
 * corrections are the contact forces (contacts.c: f = Delta / h, sigma = (1/A) sum f (x) l).
 * P of step n sets the rate of step n + 1 (explicit in the box, implicit in the disks).
 * Below jamming the compression's pressure is a viscous one, P ~ F(phi) |e| with F
 * growing as phi approaches phi_J, so the box compresses at e = -1/(tau + F/p) and
 * creeps towards the packing fraction where P = p: the pressure-controlled jamming
 * protocol.  Near jamming F grows until the explicit box step overshoots (F > p tau: one
 * step's compression makes more than twice the target pressure); the box then expands
 * for a step, P falls to zero, it compresses again, and so on.  The rate is linear in P,
 * and that cycle is steady only when its mean rate is zero, so over any stretch of steps
 * in which the box returns to its length the mean of P is p exactly: the barostat
 * controls the time-averaged pressure, which is what the summary reports (over the
 * second half of the run) and what ctest -R barostat checks.  (A growth is capped at
 * 0.5 % per step, a safety bound that a sane tau never meets; the mean argument assumes
 * it is not met.)  A larger tau gives a smaller cycle (the box shrinks by at most h / tau
 * per step) and a slower approach.
 *
 * Determinism.  The rate depends on P, so P must be the same number on any rank count,
 * or the trajectories of 1 and 3 ranks would part.  Every recorded projection adds its
 * Delta . l along the deformed axes to a 64-bit integer in units of 2^-32 r_max^2
 * (contacts.c: StressAdd), rounded on its own, so the sum over the ranks is exact and
 * does not depend on how the contacts are shared out.  The integer sum is in the
 * checkpoint, with the box (deform.c) and the running means, so restarts are exact; it
 * is in the state digest.  Recording costs the step about what -stress costs on a
 * progress step (pbd's recording sweep, a reduction of one integer), on every step.
 *
 * Steppers: pbd, pngs, pbdw and penalty (those of periodic boxes; all record their
 * contact forces).  With pbd the forces are those of one sweep; with pngs or pbdw those
 * of (nearly) converged multipliers, which is the physical pressure of the packing; with
 * penalty its springs (docs/granular.md).                                              */
#include <throng/core/sim.h>
#include <throng/granular/barostat.h>
#include <throng/core/stress.h>
#include <throng/core/modules.h>
#include <throng/granular/deform.h>
#include <throng/io/io.h>

#define BARO_UNIT       4294967296.0 /* 2^32: a projection's Delta . l in units of 2^-32 r_max^2 */
#define BARO_MAX_STRAIN 0.005        /* the largest expansion of a step: e h <= 0.5 %          */

typedef struct {
  PetscInt64 sum;     /* the last step's sum of Delta . l over the deformed axes, all ranks  */
  PetscReal  P;       /* ... as a pressure                                                  */
  PetscReal  line[2]; /* sum of P and steps since the last progress line                     */
  /* the summary's means are over the second half of the run, steps (steps/2, steps].  A
     restart may change -steps, and so where that half starts, but never to before half
     the checkpoint's step (steps >= step): so the pairs (P, phi) of the steps after
     hist0 = step / 2 are kept, and go into checkpoints, and any half can be averaged    */
  PetscInt   hist0; /* the step before the first kept pair                               */
  PetscInt   nhist, cap;
  PetscReal *hist; /* (P, phi) of steps hist0 + 1 ... hist0 + nhist                        */
} Barostat;

PetscErrorCode BarostatSetFromOptions(Opt *o)
{
  Params *p = o->p;
  PetscFunctionBeginUser;
  p->baroTau = 10; /* the default: an empty box shrinks at the rate 0.1 */
  PetscCall(OptReal(o, OPT_PHYS, "-barostat",
                    "Pressure-controlled box: the periodic edges change at the rate (P - p) / (p tau), P the measured "
                    "pressure along them (0: off; docs/granular.md)",
                    &p->baroP, NULL));
  PetscCall(OptReal(o, OPT_PHYS, "-barostat_tau",
                    "-barostat: the box's time scale tau: an empty box shrinks at the rate 1/tau (time)", &p->baroTau,
                    NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode BarostatCheck(MPI_Comm comm, const Params *p)
{
  PetscFunctionBeginUser;
  PetscCheck(p->baroP == 0 || (PetscIsNormalReal(p->baroP) && p->baroP > 0), comm, PETSC_ERR_USER_INPUT,
             "-barostat %.6g: the target pressure must be a positive number (0: off)", (double)p->baroP);
  if (p->baroP == 0) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCheck(PetscIsNormalReal(p->baroTau) && p->baroTau > 0, comm, PETSC_ERR_USER_INPUT,
             "-barostat_tau %.6g: must be a positive time", (double)p->baroTau);
  {
    char text[64];
    PetscCall(PetscSNPrintf(text, sizeof(text), "%.6g", (double)p->baroTau));
    PetscCall(ParamsCheckTime(comm, "-barostat_tau", text, p->baroTau));
  }
  PetscCheck(p->dt / p->baroTau < 0.01, comm, PETSC_ERR_USER_INPUT,
             "-barostat_tau %.6g with -dt %.6g: the box could change by %.3g %% per step; keep dt / tau below 1 %%",
             (double)p->baroTau, (double)p->dt, (double)(100 * p->dt / p->baroTau));
  PetscCheck(p->pbc[0] || p->pbc[1], comm, PETSC_ERR_USER_INPUT,
             "-barostat deforms the periodic axes of the box: give -periodic x, y or xy (walls do not move yet)");
  PetscCheck(p->deformRate == 0, comm, PETSC_ERR_USER_INPUT,
             "-barostat with -deform_rate: the barostat sets the box's rate; give one of them");
  PetscCheck(p->shearRate == 0, comm, PETSC_ERR_SUP,
             "-barostat with -shear_rate: shear at a controlled pressure is not done yet (the sheared box does not "
             "deform); shear at a packing fraction reached by the barostat in an earlier run (-restart)");
  /* the steppers: periodic.c allows pbd, pbdw, pngs and penalty, and all of them record */
  PetscCheck(StressRecords(p->solver), comm, PETSC_ERR_PLIB, "-barostat with -solver %s: no recorded forces",
             p->solver);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The deformed axes' weights in the measured sum (1 along a periodic axis). */
PetscReal BarostatRate(const Sim *s)
{
  const Barostat *b = (const Barostat *)SimModuleContext(s, "barostat");
  const Params   *p = &s->prm;
  if (!b) return 0;
  const PetscReal e = (b->P - p->baroP) / (p->baroP * p->baroTau), m = BARO_MAX_STRAIN / p->dt;
  return PetscMin(e, m); /* e >= -1/tau, as P >= 0 */
}

/* The pressure of a sum (units of 2^-32 r_max^2) in the current box. */
static PetscReal Pressure(const Sim *s, PetscInt64 sum)
{
  const Domain   *d  = &s->dom;
  const PetscReal A  = (d->hi[0] - d->lo[0]) * (d->hi[1] - d->lo[1]);
  const int       na = (s->prm.pbc[0] ? 1 : 0) + (s->prm.pbc[1] ? 1 : 0);
  return (PetscReal)sum / BARO_UNIT * s->rmax * s->rmax / (A * s->prm.dt * (PetscReal)na);
}

static PetscErrorCode BarostatStepEnd(Sim *s, void *ctx, const char **stop)
{
  Barostat      *b = (Barostat *)ctx;
  const Params  *p = &s->prm;
  const PetscInt K = p->progress > 0 ? p->progress : PetscMax(1, p->steps / 10);
  uint64_t       u = s->stress.baroSum;
  PetscFunctionBeginUser;
  (void)stop;
  /* an exact integer sum: the same on any rank count (wrapping is modular, as the sum is) */
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &u, 1, MPI_UINT64_T, MPI_SUM, s->dom.comm));
  b->sum = (PetscInt64)u;
  b->P   = Pressure(s, b->sum);
  b->line[0] += b->P, b->line[1] += 1;
  const PetscReal phi = DeformPackingFraction(s);
  if (s->step / 2 > b->hist0 + 1024) { /* pairs no later half can start before are dropped */
    const PetscInt drop = PetscMin(b->nhist, s->step / 2 - b->hist0);
    PetscCall(PetscArraymove(b->hist, b->hist + 2 * drop, 2 * (b->nhist - drop)));
    b->nhist -= drop, b->hist0 += drop;
  }
  PetscCall(ThrongGrow(&b->hist, 2 * sizeof(PetscReal), b->nhist, &b->cap));
  b->hist[2 * b->nhist] = b->P, b->hist[2 * b->nhist + 1] = phi;
  b->nhist++;
  if ((s->step % K == 0 || s->step == p->steps) && !p->quiet) {
    PetscCall(PetscPrintf(s->dom.comm,
                          "barostat: step %" PetscInt_FMT
                          "  p %.6e (mean of the last %.0f steps; target %.6e)  phi %.6f  "
                          "rate %.4e\n",
                          s->step, (double)(b->line[0] / b->line[1]), (double)b->line[1], (double)p->baroP, (double)phi,
                          (double)BarostatRate(s)));
    b->line[0] = b->line[1] = 0;
  }
  if (s->step == p->steps) { /* the means over the second half, summed in step order */
    const PetscInt from = p->steps / 2;
    PetscReal      m[3] = {0, 0, 0};
    for (PetscInt k = PetscMax(0, from - b->hist0); k < b->nhist; k++)
      m[0] += b->hist[2 * k], m[1] += b->hist[2 * k + 1], m[2] += 1;
    if (m[2] > 0)
      PetscCall(PetscPrintf(s->dom.comm,
                            "summary: barostat p %.6e  phi %.6f  (means over the %.0f steps after step %" PetscInt_FMT
                            "; target p %.6e, tau %.6g)\n",
                            (double)(m[0] / m[2]), (double)(m[1] / m[2]), (double)m[2], from, (double)p->baroP,
                            (double)p->baroTau));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode BarostatCheckpointWrite(const Sim *s, void *ctx, hid_t grp, hid_t dxpl)
{
  const Barostat *b    = (const Barostat *)ctx;
  const double    v[4] = {(double)b->line[0], (double)b->line[1], (double)b->hist0, (double)b->nhist};
  hsize_t         d[1] = {2 * (hsize_t)b->nhist};
  PetscFunctionBeginUser;
  PetscCall(IoWriteAttr(s->dom.comm, grp, "barostat_sum", H5T_NATIVE_INT64, 1, &b->sum));
  PetscCall(IoWriteAttr(s->dom.comm, grp, "barostat_line_hist", H5T_NATIVE_DOUBLE, 4, v));
  PetscCall(IoWriteRoot(s->dom.comm, grp, dxpl, "barostat_history", H5T_NATIVE_DOUBLE, 1, d, b->hist));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* n values of an attribute of the checkpoint group, or a clear error. Collective. */
static PetscErrorCode ReadAttr(MPI_Comm comm, hid_t grp, const char *name, hid_t type, MPI_Datatype mt, int n, void *v,
                               const char *path)
{
  PetscBool found;
  PetscFunctionBeginUser;
  PetscCall(IoReadAttr(comm, grp, name, type, mt, n, v, &found));
  PetscCheck(found, comm, PETSC_ERR_FILE_UNEXPECTED,
             "restart file '%s' lacks the barostat's state (attribute %s): it was not written by a run with -barostat",
             path, name);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode BarostatCheckpointRead(Sim *s, void *ctx, hid_t grp, const char *path)
{
  Barostat *b = (Barostat *)ctx;
  double    v[4];
  int64_t   sum;
  int       bad = 0;
  PetscFunctionBeginUser;
  PetscCall(ReadAttr(s->dom.comm, grp, "barostat_sum", H5T_NATIVE_INT64, MPI_INT64_T, 1, &sum, path));
  PetscCall(ReadAttr(s->dom.comm, grp, "barostat_line_hist", H5T_NATIVE_DOUBLE, MPI_DOUBLE, 4, v, path));
  b->sum     = (PetscInt64)sum;
  b->line[0] = (PetscReal)v[0], b->line[1] = (PetscReal)v[1];
  b->hist0 = (PetscInt)v[2];
  PetscCheck(v[3] >= 0 && v[3] <= 1e9 && v[2] >= 0 && v[2] <= 1e9, s->dom.comm, PETSC_ERR_FILE_UNEXPECTED,
             "restart file '%s': the barostat's history is damaged", path);
  b->nhist = (PetscInt)v[3];
  b->cap   = b->nhist + 16;
  PetscCall(PetscFree(b->hist));
  PetscCall(PetscMalloc1(2 * b->cap, &b->hist));
  if (!s->dom.rank) bad = IoReadRoot(grp, "barostat_history", H5T_NATIVE_DOUBLE, 2 * (hsize_t)b->nhist, b->hist) < 0;
  PetscCall(IoAgree(s->dom.comm, &bad));
  PetscCheck(!bad, s->dom.comm, PETSC_ERR_FILE_READ, "restart file '%s': the barostat's history is damaged", path);
  PetscCallMPI(MPI_Bcast(b->hist, 2 * (PetscMPIInt)b->nhist, MPIU_REAL, 0, s->dom.comm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* After the restored box is set up (deform.c restores it first): the pressure of the sum. */
static PetscErrorCode BarostatRestored(Sim *s, void *ctx)
{
  Barostat *b = (Barostat *)ctx;
  PetscFunctionBeginUser;
  b->P = Pressure(s, b->sum);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode BarostatDigest(const Sim *s, void *ctx, Digest *dg)
{
  const Barostat *b    = (const Barostat *)ctx;
  uint64_t        h[2] = {0, 0};
  (void)s;
  PetscFunctionBeginUser;
  DigestRecord((1ULL << 62) + 8, 0, (uint64_t)b->sum, h); /* the same on every rank: added once */
  dg->h[0] += h[0];
  dg->h[1] += h[1];
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode BarostatDestroy(Sim *s, void *ctx)
{
  (void)s;
  PetscFunctionBeginUser;
  PetscCall(PetscFree(((Barostat *)ctx)->hist));
  PetscCall(PetscFree(ctx));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The deforming box (set up before this module) takes its rate from the pressure. */
static PetscErrorCode BarostatSetUp(Sim *s, void *ctx)
{
  PetscFunctionBeginUser;
  PetscCall(DeformSetRate(s, BarostatRate));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode BarostatModuleCreate(const Params *prm, SimModule *m, PetscBool *on)
{
  Barostat *b;
  PetscFunctionBeginUser;
  *on = prm->baroP > 0 ? PETSC_TRUE : PETSC_FALSE;
  if (!*on) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscCalloc1(1, &b));
  m->name            = "barostat";
  m->ctx             = b;
  m->setUp           = BarostatSetUp;
  m->restored        = BarostatRestored;
  m->stepEnd         = BarostatStepEnd;
  m->checkpointWrite = BarostatCheckpointWrite;
  m->checkpointRead  = BarostatCheckpointRead;
  m->digest          = BarostatDigest;
  m->destroy         = BarostatDestroy;
  PetscFunctionReturn(PETSC_SUCCESS);
}
