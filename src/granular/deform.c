/* deform — affine compression or expansion of a periodic box (-deform_rate, -deform_phi).
 *
 * A jamming study compresses a dilute packing slowly and watches the pressure.  With
 * -deform_rate e every periodic edge L of the box changes by the factor 1 + e h per step
 * (e < 0 compresses), and every disk is carried with it, as LAMMPS's `fix deform ...
 * remap x` does:  q -> lo + (q - lo)(1 + e h)  along the deformed axes, before the step's
 * prediction.  The binning positions move the same way, so no disk changes its cell and
 * the displacement checks of pbd.c are unaffected; the images are refreshed from their
 * owners after the prediction (periodic.c).  The overlaps that the map makes are removed
 * by the step's sweep(s): that is the work the compression does against the packing,
 * and -stress (contacts.c) reads it as the pressure.
 *
 * With -deform_phi f the deformation stops at the step where the packing fraction
 * phi = (sum pi r_i^2) / (box area) reaches f; the last factor is cut so that phi is f
 * exactly (up to rounding), and the run goes on in the fixed box.  The disks' area is
 * summed in fixed point (r^2 / r_max^2 in units of 2^-32, an exact integer sum), so the
 * step at which the target is reached is the same on any number of ranks.
 *
 * The cells.  Cells must stay at least 2 r_max + skin wide.  Along a periodic axis the
 * cell count is a function of the box length (PeriodicCellCount); when the deformed box
 * calls for another count, the disks are rebinned into a new domain (SimRegrid: new
 * cells, tiles and rank blocks).  Because the count depends on the current length only,
 * a restart, which rebuilds the domain for the checkpointed box, continues exactly.
 *
 * Only periodic axes deform: a wall would have to move with the box (not done yet), and
 * a crowd's geometry does not deform.  The current box is in the checkpoint and in the
 * state digest.
 *
 * Simple shear (-shear_rate g) by Lees-Edwards images.  The flow is v = g (y - lo_y) e_x:
 * each step every disk is carried by it, x += g h (y - lo_y) (the affine drift, LAMMPS's
 * `fix deform ... xy erate ... remap x`), and the image of the box one period up is
 * shifted along x by the tilt t, which grows by g h L_y per step.  We use the tilted-box
 * form of Lees-Edwards (the images of a triclinic box whose second edge is (t, L_y)),
 * not a sliding brick: the cells are parallelograms of the tilted box, a disk's cell is
 * found from its sheared abscissa u = x - lo_x - t (y - lo_y) / L_y (domain.h), and the
 * affine drift leaves u unchanged, so no disk changes its cell.  Everything else is the
 * periodic machinery unchanged: the rank blocks, tiles and colours are those of the
 * unsheared box in (u, y), a ghost across the top or bottom side is its owner shifted
 * by (w_x L_x + w_y t, w_y L_y), and the sweep sees only positions.  The cells are made
 * wide enough along x that two disks within reach are in neighbouring cells at any
 * tilt in [-L_x/2, L_x/2]: a parallelogram cell of width w is w / sqrt(1 + (t/L_y)^2)
 * wide across (PeriodicCellMin).  When the tilt would leave that range it is flipped by
 * one box length (the same lattice of images, so the same physics), the disks are
 * wrapped into the new parallelogram and re-routed to their ranks: a global event, like
 * a regrid, at a step that depends on the step count only.  The tilt is in the
 * checkpoint and the digest; the trajectory is the same on any number of ranks.
 *
 * The stress of the sheared packing (contacts.c: -stress) gives the shear stress and
 * the viscosity eta = -sigma_xy / g (sigma positive in compression); docs/granular.md.
 * With -deform_rate and -deform_phi as well, the box is first compressed to the packing
 * fraction and the shear starts at the step after (one deformation at a time).  Shear
 * needs -periodic xy.                                                                   */
#include <throng/core/sim.h>
#include <throng/granular/deform.h>
#include <throng/core/modules.h>
#include <throng/core/periodic.h>
#include <throng/io/io.h>

typedef struct {
  PetscInt64 area;                /* sum of r^2 / r_max^2 in units of 2^-32, all ranks */
  PetscBool  done;                /* the target packing fraction was reached                 */
  PetscReal (*rate)(const Sim *); /* the box's rate of the next step, when a controller
                                     sets it (the barostat: DeformSetRate); else -deform_rate */
} Deform;

#define DEFORM_UNIT 4294967296.0 /* 2^32 */

PetscErrorCode DeformSetFromOptions(Opt *o)
{
  Params *p = o->p;
  PetscFunctionBeginUser;
  PetscCall(OptReal(o, OPT_PHYS, "-deform_rate",
                    "Periodic box edges change by the factor 1 + e h per step, the disks carried along (e < 0 "
                    "compresses; 1/time; docs/granular.md)",
                    &p->deformRate, NULL));
  PetscCall(OptReal(o, OPT_PHYS, "-deform_phi",
                    "With -deform_rate: stop deforming when the packing fraction reaches this (0: never)",
                    &p->deformPhi, NULL));
  PetscCall(
    OptReal(o, OPT_PHYS, "-shear_rate",
            "Simple shear at this rate (1/time) by Lees-Edwards images: the disks are carried by v_x = rate (y - "
            "lo_y); needs -periodic xy (docs/granular.md)",
            &p->shearRate, NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode DeformCheck(MPI_Comm comm, const Params *p)
{
  const PetscReal hex = PETSC_PI / (2 * PetscSqrtReal(3.0));
  PetscFunctionBeginUser;
  PetscCheck(PetscIsNormalReal(p->deformRate) || p->deformRate == 0, comm, PETSC_ERR_USER_INPUT,
             "-deform_rate %.6g: must be a finite number", (double)p->deformRate);
  PetscCheck(p->deformRate == 0 || (p->pbc[0] || p->pbc[1]), comm, PETSC_ERR_USER_INPUT,
             "-deform_rate deforms the periodic axes of the box: give -periodic x, y or xy (walls do not move yet)");
  PetscCheck(PetscAbsReal(p->deformRate * p->dt) < 0.01, comm, PETSC_ERR_USER_INPUT,
             "-deform_rate %.6g with -dt %.6g: the box would change by %.3g %% per step; keep |rate dt| below 1 %%",
             (double)p->deformRate, (double)p->dt, (double)(100 * PetscAbsReal(p->deformRate * p->dt)));
  PetscCheck(PetscIsNormalReal(p->shearRate) || p->shearRate == 0, comm, PETSC_ERR_USER_INPUT,
             "-shear_rate %.6g: must be a finite number", (double)p->shearRate);
  PetscCheck(p->shearRate == 0 || (p->pbc[0] && p->pbc[1]), comm, PETSC_ERR_USER_INPUT,
             "-shear_rate %.6g needs -periodic xy: Lees-Edwards images join the top of the box to its bottom and the "
             "flow runs along a periodic x",
             (double)p->shearRate);
  PetscCheck(p->shearRate == 0 || p->deformRate == 0 || p->deformPhi > 0, comm, PETSC_ERR_SUP,
             "-shear_rate with -deform_rate but no -deform_phi: one deformation at a time; give -deform_phi, and the "
             "shear starts when the compression has reached it");
  PetscCheck(PetscAbsReal(p->shearRate * p->dt) < 0.01, comm, PETSC_ERR_USER_INPUT,
             "-shear_rate %.6g with -dt %.6g: a strain of %.3g %% per step; keep |rate dt| below 1 %%",
             (double)p->shearRate, (double)p->dt, (double)(100 * PetscAbsReal(p->shearRate * p->dt)));
  PetscCheck(p->deformPhi == 0 || p->deformRate != 0, comm, PETSC_ERR_USER_INPUT,
             "-deform_phi %.6g needs -deform_rate (the rate at which the box approaches it)", (double)p->deformPhi);
  PetscCheck(p->deformPhi >= 0, comm, PETSC_ERR_USER_INPUT,
             "-deform_phi %.6g: a packing fraction is >= 0 (0: no target)", (double)p->deformPhi);
  PetscCheck(p->deformPhi <= hex, comm, PETSC_ERR_USER_INPUT,
             "-deform_phi %.6g: above the hexagonal close packing %.6f, no packing of disks reaches it",
             (double)p->deformPhi, (double)hex);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscReal Area(const Sim *s, const Deform *df)
{
  return PETSC_PI * s->rmax * s->rmax * (PetscReal)df->area / DEFORM_UNIT;
}

static PetscReal Phi(const Sim *s, const Deform *df)
{
  return Area(s, df) / ((s->dom.hi[0] - s->dom.lo[0]) * (s->dom.hi[1] - s->dom.lo[1]));
}

/* The disks' area, exactly; and whether the target can be reached at this rate. */
static PetscErrorCode DeformCreated(Sim *s, void *ctx)
{
  Deform       *df = (Deform *)ctx;
  const Params *p  = &s->prm;
  PetscInt64    a  = 0;
  PetscFunctionBeginUser;
  for (PetscInt i = 0; i < s->P.n; i++)
    a += (PetscInt64)llround(s->P.r[i] * s->P.r[i] / (s->rmax * s->rmax) * DEFORM_UNIT);
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &a, 1, MPIU_INT64, MPI_SUM, s->dom.comm));
  df->area = a;
  if (p->deformPhi > 0 && !df->done) {
    const PetscReal phi = Phi(s, df);
    PetscCheck(p->deformRate < 0 ? phi < p->deformPhi : phi > p->deformPhi, s->dom.comm, PETSC_ERR_USER_INPUT,
               "-deform_rate %.6g with -deform_phi %.6g: the packing fraction is %.6f now, so %s never reaches it",
               (double)p->deformRate, (double)p->deformPhi, (double)phi,
               p->deformRate < 0 ? "a compression (rate < 0)" : "an expansion (rate > 0)");
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* One step of simple shear: the affine drift, the tilt, and a flip when it would leave
   [-L_x/2, L_x/2]. */
static PetscErrorCode Shear(Sim *s)
{
  Domain         *d = &s->dom;
  Particles      *P = &s->P;
  const PetscReal e = s->prm.shearRate * s->prm.dt, lo = d->lo[1], Lx = d->hi[0] - d->lo[0],
                  dtilt = e * (d->hi[1] - d->lo[1]);
  PetscBool flip        = PETSC_FALSE;
  PetscFunctionBeginUser;
  if (d->tilt + dtilt > Lx / 2) d->tilt -= Lx, flip = PETSC_TRUE;
  else if (d->tilt + dtilt < -Lx / 2) d->tilt += Lx, flip = PETSC_TRUE;
  d->tilt += dtilt;
  for (PetscInt i = 0; i < P->n; i++) {
    P->x[i] += e * (P->y[i] - lo);
    P->xb[i] += e * (P->yb[i] - lo);
  }
  if (flip) { /* the same images, another parallelogram: every disk to its new cell and rank */
    const PetscReal box[4] = {d->lo[0], d->lo[1], d->hi[0], d->hi[1]};
    s->reroute             = PETSC_TRUE;
    PetscCall(SimRegrid(s, box));
  } else PetscCall(HaloForward(&s->dom, &s->P, &s->halo));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscReal DeformPackingFraction(const Sim *s)
{
  const Deform *df = (const Deform *)SimModuleContext(s, "deform");
  return df ? Phi(s, df) : 0;
}

static PetscErrorCode DeformBeforeStep(Sim *s, void *ctx)
{
  Deform         *df   = (Deform *)ctx;
  Domain         *d    = &s->dom;
  Particles      *P    = &s->P;
  const Params   *p    = &s->prm;
  const PetscReal rate = df->rate ? df->rate(s) : p->deformRate; /* the barostat's (barostat.c) */
  PetscReal       f    = 1 + rate * p->dt, box[4];
  const int       na   = (d->per[0] ? 1 : 0) + (d->per[1] ? 1 : 0);
  PetscReal       cm[2];
  PetscFunctionBeginUser;
  if ((p->deformRate == 0 && p->baroP == 0) || df->done) { /* no compression, or it is over: shear, if asked */
    if (p->shearRate != 0) PetscCall(Shear(s));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PeriodicCellMin(p, s->rmax, cm);
  if (p->deformPhi > 0) { /* the last factor lands on the target */
    const PetscReal now = Phi(s, df), next = now / PetscPowReal(f, (PetscReal)na);
    if (p->deformRate < 0 ? next >= p->deformPhi : next <= p->deformPhi) {
      f        = PetscPowReal(now / p->deformPhi, 1.0 / (PetscReal)na);
      df->done = PETSC_TRUE;
    }
  }
  for (int a = 0; a < 2; a++) {
    box[a]     = d->lo[a];
    box[2 + a] = d->hi[a];
    if (!d->per[a]) continue;
    PetscReal      *q = a ? P->y : P->x, *qb = a ? P->yb : P->xb;
    const PetscReal lo = d->lo[a];
    for (PetscInt i = 0; i < P->n; i++) {
      q[i]  = lo + (q[i] - lo) * f;
      qb[i] = lo + (qb[i] - lo) * f;
    }
    box[2 + a] = lo + (d->hi[a] - lo) * f;
    d->hi[a]   = box[2 + a];
    d->w[a]    = (d->hi[a] - lo) / (PetscReal)d->nc[a];
    d->winv[a] = (PetscReal)d->nc[a] / (d->hi[a] - lo);
  }
  { /* a new cell count? (the same decision on every rank: it depends on the box only) */
    PetscBool regrid = PETSC_FALSE;
    for (int a = 0; a < 2; a++)
      if (d->per[a] && PeriodicCellCount(d->hi[a] - d->lo[a], cm[a], p->tile) != d->nc[a]) regrid = PETSC_TRUE;
    if (regrid) PetscCall(SimRegrid(s, box));
    else
      PetscCall(HaloForward(&s->dom, &s->P, &s->halo)); /* the images of the moved disks (penalty reads them first) */
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode DeformCheckpointWrite(const Sim *s, void *ctx, hid_t grp, hid_t dxpl)
{
  const Deform *df   = (const Deform *)ctx;
  const double  b[5] = {s->dom.lo[0], s->dom.lo[1], s->dom.hi[0], s->dom.hi[1], df->done ? 1.0 : 0.0};
  (void)dxpl;
  PetscFunctionBeginUser;
  PetscCall(IoWriteAttr(s->dom.comm, grp, "deform_box_done", H5T_NATIVE_DOUBLE, 5, b));
  if (s->prm.shearRate != 0) PetscCall(IoWriteAttr(s->dom.comm, grp, "shear_tilt", H5T_NATIVE_DOUBLE, 1, &s->dom.tilt));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode DeformCheckpointRead(Sim *s, void *ctx, hid_t grp, const char *path)
{
  Deform   *df = (Deform *)ctx;
  double    b[5];
  PetscBool found;
  PetscFunctionBeginUser;
  PetscCall(IoReadAttr(s->dom.comm, grp, "deform_box_done", H5T_NATIVE_DOUBLE, MPI_DOUBLE, 5, b, &found));
  PetscCheck(found, s->dom.comm, PETSC_ERR_FILE_UNEXPECTED,
             "restart file '%s' lacks the deformed box (attribute deform_box_done): it was not written by a run with "
             "-deform_rate",
             path);
  PetscCheck(b[2] > b[0] && b[3] > b[1] && PetscIsNormalReal(b[2] - b[0]) && PetscIsNormalReal(b[3] - b[1]),
             s->dom.comm, PETSC_ERR_FILE_UNEXPECTED, "restart file '%s' holds an invalid box", path);
  df->done = b[4] != 0 ? PETSC_TRUE : PETSC_FALSE;
  if (s->prm.shearRate != 0) {
    double t = NAN;
    PetscCall(IoReadAttr(s->dom.comm, grp, "shear_tilt", H5T_NATIVE_DOUBLE, MPI_DOUBLE, 1, &t, &found));
    PetscCheck(found, s->dom.comm, PETSC_ERR_FILE_UNEXPECTED,
               "restart file '%s' lacks the tilt of the sheared box (attribute shear_tilt)", path);
    PetscCheck(PetscAbsReal(t) <= (b[2] - b[0]) / 2, s->dom.comm, PETSC_ERR_FILE_UNEXPECTED,
               "restart file '%s' holds an invalid tilt %g", path, t);
    s->dom.tilt = t;
  }
  PetscCall(SimRegrid(s, b)); /* before the disks are restored into it */
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode DeformDigest(const Sim *s, void *ctx, Digest *dg)
{
  const Deform *df   = (const Deform *)ctx;
  uint64_t      h[2] = {0, 0};
  (void)df;
  PetscFunctionBeginUser;
  for (int a = 0; a < 2; a++) { /* the same box on every rank: added once, not reduced */
    uint64_t bits;
    memcpy(&bits, &s->dom.hi[a], 8);
    DigestRecord((1ULL << 62) + (uint64_t)a, 0, bits, h);
  }
  if (s->prm.shearRate != 0) {
    uint64_t bits;
    memcpy(&bits, &s->dom.tilt, 8);
    DigestRecord((1ULL << 62) + 2, 0, bits, h);
  }
  dg->h[0] += h[0];
  dg->h[1] += h[1];
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode DeformDestroy(Sim *s, void *ctx)
{
  (void)s;
  PetscFunctionBeginUser;
  PetscCall(PetscFree(ctx));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode DeformSetRate(Sim *s, PetscReal (*rate)(const Sim *))
{
  Deform *df = (Deform *)SimModuleContext(s, "deform");
  PetscFunctionBeginUser;
  PetscCheck(df, s->dom.comm, PETSC_ERR_PLIB, "a box rate is set, but the box does not deform");
  df->rate = rate;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode DeformModuleCreate(const Params *prm, SimModule *m, PetscBool *on)
{
  Deform *df;
  PetscFunctionBeginUser;
  *on = ParamsBoxMoves(prm);
  if (!*on) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscCalloc1(1, &df));
  m->name            = "deform";
  m->ctx             = df;
  m->created         = DeformCreated;
  m->restored        = DeformCreated;
  m->beforeStep      = DeformBeforeStep;
  m->checkpointWrite = DeformCheckpointWrite;
  m->checkpointRead  = DeformCheckpointRead;
  m->digest          = DeformDigest;
  m->destroy         = DeformDestroy;
  PetscFunctionReturn(PETSC_SUCCESS);
}
