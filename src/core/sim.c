/* sim — set-up and bookkeeping of one simulation.
 *
 * SimCreate builds, in order: the decomposition (cells of edge 2 r_max + skin, tiles,
 * rank blocks), the disks (init.c, routed to their owners), the binning and the ghosts.
 * SimRebin is the "cells" phase of a step: migrate, ask the balancer (balance.c) whether
 * the block borders should move, and if so move them here (Repartition: new cuts, then
 * the cells, halo and migrator that depend on them, and the disks routed to their new
 * owners), bin, rebuild ghosts.  The modules (modules.c) are told before and after.
 * SimMaxOverlap measures the largest violation of any pair or wall constraint; it runs
 * over the candidate pairs of the current binning, which are all the pairs that can
 * overlap while the displacement check of pbd.c holds.                                  */
#include <throng/core/sim.h>
#include <throng/core/init.h>
#include <throng/core/idorder.h>
#include <throng/core/periodic.h>
#include <string.h>

ThrongEvents THRONG_EV;

PetscErrorCode SimRegisterEvents(void)
{
  PetscClassId cls;
  PetscFunctionBeginUser;
  PetscCall(PetscClassIdRegister("throng", &cls));
  PetscCall(PetscLogEventRegister("ThrPredict", cls, &THRONG_EV.predict));
  PetscCall(PetscLogEventRegister("ThrCells", cls, &THRONG_EV.cells));
  PetscCall(PetscLogEventRegister("ThrHalo", cls, &THRONG_EV.halo));
  PetscCall(PetscLogEventRegister("ThrSweep", cls, &THRONG_EV.sweep));
  PetscCall(PetscLogEventRegister("ThrMigrate", cls, &THRONG_EV.migrate));
  PetscCall(PetscLogEventRegister("ThrDiag", cls, &THRONG_EV.diag));
  PetscCall(PetscLogEventRegister("ThrInit", cls, &THRONG_EV.init));
  PetscCall(PetscLogEventRegister("ThrIO", cls, &THRONG_EV.io));
  PetscCall(PetscLogEventRegister("ThrIOOrder", cls, &THRONG_EV.ioOrder));
  PetscCall(PetscLogEventRegister("ThrIOWrite", cls, &THRONG_EV.ioWrite));
  PetscCall(PetscLogEventRegister("ThrIOFlush", cls, &THRONG_EV.ioFlush));
  PetscCall(PetscLogEventRegister("ThrPGSAssemble", cls, &THRONG_EV.pgsAssemble));
  PetscCall(PetscLogEventRegister("ThrPGSSolve", cls, &THRONG_EV.pgsSolve));
  PetscCall(PetscLogEventRegister("ThrBalance", cls, &THRONG_EV.balance));
  PetscCall(PetscLogEventRegister("ThrSpeedLaw", cls, &THRONG_EV.law));
  PetscCall(PetscLogEventRegister("ThrLawDirection", cls, &THRONG_EV.lawDir));
  PetscCall(PetscLogEventRegister("ThrLawGather", cls, &THRONG_EV.lawGather));
  PetscCall(PetscLogEventRegister("ThrLawVisible", cls, &THRONG_EV.lawVisible));
  PetscCall(PetscLogEventRegister("ThrLawRepulse", cls, &THRONG_EV.lawRepulse));
  PetscCall(PetscLogEventRegister("ThrLawWalls", cls, &THRONG_EV.lawWalls));
  PetscCall(PetscLogEventRegister("ThrLawSpacing", cls, &THRONG_EV.lawSpacing));
  PetscCall(PetscLogEventRegister("ThrLinks", cls, &THRONG_EV.links));
  PetscCall(PetscLogEventRegister("ThrRoute", cls, &THRONG_EV.route));
  PetscCall(PetscLogEventRegister("ThrEikMask", cls, &THRONG_EV.eikMask));
  PetscCall(PetscLogEventRegister("ThrEikMarch", cls, &THRONG_EV.eikMarch));
  PetscCall(PetscLogStageRegister("Setup", &THRONG_EV.setup));
  PetscCall(PetscLogStageRegister("Run", &THRONG_EV.run));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The initial-site filter of the first module that has one. */
static PetscBool SiteOK(void *ctx, PetscReal x, PetscReal y, PetscReal margin)
{
  const Sim *s = (const Sim *)ctx;
  for (PetscInt k = 0; k < s->nmod; k++)
    if (s->mod[k].siteOK) return s->mod[k].siteOK(s, s->mod[k].ctx, x, y, margin);
  return PETSC_TRUE;
}

PetscErrorCode SimCreate(MPI_Comm comm, const Params *prm, Sim *s)
{
  PetscBool filter = PETSC_FALSE;
  PetscFunctionBeginUser;
  PetscCall(SimSetUp(comm, prm, s));
  for (PetscInt k = 0; k < s->nmod; k++) filter = filter || s->mod[k].siteOK;
  PetscCall(InitParticles(prm, &s->dom, &s->P, filter ? SiteOK : NULL, s));
  PetscCall(IdFingerprint(comm, &s->P, &s->idPrint));
  PetscCheck(s->idPrint.n == prm->n, comm, PETSC_ERR_PLIB,
             "initial condition made %" PetscInt64_FMT " disks, not %" PetscInt64_FMT, s->idPrint.n, prm->n);
  s->ndisks = s->idPrint.n;
  PetscCall(SimRebin(s));
  s->rebins = 0;
  SIM_MODULES_CALL(s, created);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---- the modules: a registry filled by app/register.c -------------------------------- */

static struct {
  char            name[32];
  SimModuleCreate create;
} modules[16];
static int nmodules = 0;

PetscErrorCode SimModuleRegister(const char *name, SimModuleCreate create)
{
  PetscFunctionBeginUser;
  for (int k = 0; k < nmodules; k++)
    if (!strcmp(modules[k].name, name)) PetscFunctionReturn(PETSC_SUCCESS); /* once */
  PetscCheck(nmodules < (int)(sizeof(modules) / sizeof(modules[0])), PETSC_COMM_SELF, PETSC_ERR_SUP,
             "more than %d registered modules", (int)(sizeof(modules) / sizeof(modules[0])));
  PetscCall(PetscStrncpy(modules[nmodules].name, name, sizeof(modules[0].name)));
  modules[nmodules++].create = create;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The modules the options ask for, in the order of registration, each set up at once
   (registered first: it may look itself up). */
static PetscErrorCode ModulesSetUp(Sim *s)
{
  PetscFunctionBeginUser;
  for (int k = 0; k < nmodules; k++) {
    SimModule m;
    PetscBool on;
    PetscCall(PetscMemzero(&m, sizeof(m)));
    PetscCall(modules[k].create(&s->prm, &m, &on));
    if (!on) continue;
    PetscCheck(s->nmod < SIM_MAX_MODULES, PETSC_COMM_SELF, PETSC_ERR_SUP, "more than %d modules", SIM_MAX_MODULES);
    PetscCheck(m.name && !strcmp(m.name, modules[k].name), PETSC_COMM_SELF, PETSC_ERR_PLIB,
               "module '%s' registered under another name", modules[k].name);
    s->mod[s->nmod++] = m;
    if (m.setUp) PetscCall(m.setUp(s, m.ctx));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SimSetUp(MPI_Comm comm, const Params *prm, Sim *s)
{
  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(s, sizeof(*s)));
  s->prm               = *prm;
  s->rmax              = ParamsRadiusMax(prm);
  s->bal.sinceTry      = prm->balanceInterval; /* the first check may repartition */
  s->ovlStep           = -1;
  s->skinStep          = -1; /* no sweep has ended skin/2 from its binning (pbd.c) */
  s->stress.recStep    = -1; /* no contacts kept yet (contacts.c) */
  s->stress.sampleStep = -1;
  PetscCall(SolverGetOps(comm, prm->solver, &s->ops));
  {
    PetscReal cm[2];
    PeriodicCellMin(prm, s->rmax, cm);
    PetscCall(DomainCreate(comm, prm->box, prm->pbc, cm, prm->tile, prm->grid, &s->dom));
  }
  PetscCall(ParticlesCreate(&s->P, (PetscInt)(prm->n / s->dom.size + 16)));
  s->speedStep = -1;
  s->speedMark = -1;
  PetscCall(CellsCreate(&s->dom, &s->cells));
  PetscCall(HaloCreate(&s->dom, &s->halo));
  PetscCall(MigratorCreate(&s->dom, &s->mig));
  PetscCall(DriverSetUp(prm, &s->drv));
  if (prm->geometry[0]) PetscCall(GeometryRead(comm, prm->geometry, prm->walk, &s->geom));
  PetscCall(ModulesSetUp(s)); /* before the walls: a module may add some (door jambs) */
  PetscCall(WallsSetUp(prm, s->geom.nwall, s->geom.wall, s->geom.wallNormal, &s->walls));
  PetscCall(PetscMalloc1(s->dom.ncell, &s->wallMask));
  PetscCall(WallsCellMask(&s->walls, &s->dom, s->rmax, prm->skin, s->wallMask));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SimSaveReserve(Sim *s, PetscInt least)
{
  const PetscInt m = PetscMax(s->P.n + s->P.ng, least);
  PetscFunctionBeginUser;
  if (m > s->saveCap) {
    s->saveCap = m + m / 4 + 16;
    PetscCall(PetscFree2(s->saveX, s->saveY));
    PetscCall(PetscMalloc2(s->saveCap, &s->saveX, s->saveCap, &s->saveY));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SimDestroy(Sim *s)
{
  PetscFunctionBeginUser;
  PetscCall(PetscFree(s->sol.save)); /* the steppers' scratch (SimScratch) */
  s->sol.cap = 0;
  PetscCall(PetscFree(s->stress.band)); /* the recorded stress (granular/contacts.c) */
  PetscCall(PetscFree(s->stress.c));
  for (PetscInt k = s->nmod - 1; k >= 0; k--)
    if (s->mod[k].destroy) PetscCall(s->mod[k].destroy(s, s->mod[k].ctx));
  s->nmod = 0;
  PetscCall(GeometryDestroy(&s->geom));
  PetscCall(MigratorDestroy(&s->mig));
  PetscCall(HaloDestroy(&s->halo));
  PetscCall(CellsDestroy(&s->cells));
  PetscCall(DriverDestroy(&s->drv));
  PetscCall(ParticlesDestroy(&s->P));
  PetscCall(PetscFree(s->wallMask));
  PetscCall(PetscFree2(s->saveX, s->saveY));
  PetscCall(PetscFree(s->speedId));
  PetscCall(PetscFree(s->bal.rec));
  PetscCall(WallsDestroy(&s->walls));
  PetscCall(DomainDestroy(&s->dom));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SimCheckConservation(Sim *s)
{
  Digest now;
  PetscFunctionBeginUser;
  if (!s->prm.checkConservation) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(IdFingerprint(s->dom.comm, &s->P, &now));
  PetscCheck(now.n == s->idPrint.n, s->dom.comm, PETSC_ERR_PLIB,
             "conservation violated at step %" PetscInt_FMT ": %" PetscInt64_FMT " disks instead of %" PetscInt64_FMT,
             s->step, now.n, s->idPrint.n);
  PetscCheck(now.h[0] == s->idPrint.h[0] && now.h[1] == s->idPrint.h[1], s->dom.comm, PETSC_ERR_PLIB,
             "conservation violated at step %" PetscInt_FMT
             ": the set of disk ids changed (a disk was lost and another duplicated)",
             s->step);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Bin the owned disks (at their current positions, or at the stored binning positions
   after a restart), rebuild the ghosts, count the candidate pairs. */
static PetscErrorCode BinAndGhost(Sim *s, PetscBool atBin)
{
  PetscFunctionBeginUser;
  PetscCall(PetscLogEventBegin(THRONG_EV.cells, 0, 0, 0, 0));
  PetscCall(CellsBinOwned(&s->dom, &s->P, &s->cells, atBin));
  PetscCall(PetscLogEventEnd(THRONG_EV.cells, 0, 0, 0, 0));
  PetscCall(HaloBuild(&s->dom, &s->P, &s->cells, &s->halo));
  PetscCall(CellsCountCandidates(&s->dom, &s->cells));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SimRestore(Sim *s, const IoRecs *recs, PetscInt step, PetscReal time)
{
  PetscMPIInt *dest;
  void        *out;
  PetscInt     m;

  PetscFunctionBeginUser;
  PetscCheck(recs->mask == FIELD_CHECKPOINT, PETSC_COMM_SELF, PETSC_ERR_PLIB,
             "restore from records of the checkpointed fields only");
  PetscCall(PetscMalloc1(recs->n + 1, &dest));
  for (PetscInt i = 0; i < recs->n; i++) {
    PetscInt cx, cy;
    DomainCellOf(&s->dom, IoRecsReal(recs, i, PF_XB), IoRecsReal(recs, i, PF_YB), &cx, &cy);
    dest[i] = DomainOwnerOfCell(&s->dom, cx, cy);
  }
  PetscCall(RouteRecords(s->dom.comm, recs->n, recs->rec, 8 * (size_t)recs->words, dest, &out, &m));
  PetscCall(PetscFree(dest));
  s->P.n = s->P.ng = 0;
  PetscCall(ParticlesAppendPacked(&s->P, FIELD_CHECKPOINT, m, (const uint64_t *)out));
  PetscCall(PetscFree(out));
  PetscCall(BinAndGhost(s, PETSC_TRUE));
  PetscCall(IdFingerprint(s->dom.comm, &s->P, &s->idPrint));
  s->prm.n  = s->idPrint.n;
  s->step   = step;
  s->time   = time;
  s->ndisks = s->idPrint.n;
  SIM_MODULES_CALL(s, restored);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The domain takes the grid p and the cuts (cx, cy): new local grid, cells, wall mask,
   and with a new grid new neighbours, halo and migrator (their counters kept); every
   owned disk goes to its new owner (the ghosts are gone: this runs inside a rebinning). */
static PetscErrorCode Repartition(Sim *s, const PetscMPIInt p[2], const PetscInt *cx, const PetscInt *cy)
{
  Particles      *pa = &s->P;
  PetscInt        n = pa->n, kept = 0;
  const PetscBool regrid = p[0] != s->dom.p[0] || p[1] != s->dom.p[1] ? PETSC_TRUE : PETSC_FALSE;

  PetscFunctionBeginUser;
  PetscCall(DomainSetGrid(&s->dom, p, cx, cy));
  if (regrid) {
    const Halo       h     = s->halo;
    const PetscInt64 moved = s->mig.moved;
    PetscCall(HaloDestroy(&s->halo));
    PetscCall(HaloCreate(&s->dom, &s->halo));
    s->halo.exchanges = h.exchanges, s->halo.bytes = h.bytes, s->halo.messages = h.messages;
    PetscCall(MigratorDestroy(&s->mig));
    PetscCall(MigratorCreate(&s->dom, &s->mig));
    s->mig.moved = moved;
  }
  PetscCall(CellsDestroy(&s->cells));
  PetscCall(CellsCreate(&s->dom, &s->cells));
  PetscCall(PetscFree(s->wallMask));
  PetscCall(PetscMalloc1(s->dom.ncell, &s->wallMask));
  PetscCall(WallsCellMask(&s->walls, &s->dom, s->rmax, s->prm.skin, s->wallMask));
  for (PetscInt i = 0; i < n; i++) {
    PetscInt cxi, cyi;
    DomainCellOf(&s->dom, pa->x[i], pa->y[i], &cxi, &cyi);
    kept += DomainOwnerOfCell(&s->dom, cxi, cyi) == s->dom.rank;
  }
  s->bal.routed += n - kept;
  PetscCall(RouteOwnedToOwners(&s->dom, pa));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A new domain for the box: cells, tiles and rank blocks from scratch (the cell count
   along a periodic axis follows the box: periodic.c), and what depends on them; the
   owned disks go to their owners in it.  Inside a rebinning (no ghosts). */
static PetscErrorCode NewDomain(Sim *s, const PetscReal box[4])
{
  const Halo       h     = s->halo;
  const PetscInt64 moved = s->mig.moved;
  MPI_Comm         comm  = s->dom.comm;
  PetscFunctionBeginUser;
  PetscCall(HaloDestroy(&s->halo));
  PetscCall(MigratorDestroy(&s->mig));
  PetscCall(CellsDestroy(&s->cells));
  PetscCall(PetscFree(s->wallMask));
  const PetscReal tilt = s->dom.tilt; /* a sheared box keeps its tilt (deform.c) */
  PetscReal       cm[2];
  PetscCall(DomainDestroy(&s->dom));
  PeriodicCellMin(&s->prm, s->rmax, cm);
  PetscCall(DomainCreate(comm, box, s->prm.pbc, cm, s->prm.tile, s->prm.grid, &s->dom));
  s->dom.tilt = tilt;
  PetscCall(HaloCreate(&s->dom, &s->halo));
  s->halo.exchanges = h.exchanges, s->halo.bytes = h.bytes, s->halo.messages = h.messages;
  PetscCall(MigratorCreate(&s->dom, &s->mig));
  s->mig.moved = moved;
  PetscCall(CellsCreate(&s->dom, &s->cells));
  PetscCall(PetscMalloc1(s->dom.ncell, &s->wallMask));
  PetscCall(WallsCellMask(&s->walls, &s->dom, s->rmax, s->prm.skin, s->wallMask));
  PetscCall(RouteOwnedToOwners(&s->dom, &s->P));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SimRegrid(Sim *s, const PetscReal box[4])
{
  PetscFunctionBeginUser;
  s->regrid = PETSC_TRUE;
  PetscCall(PetscArraycpy(s->regridBox, box, 4));
  if (s->P.n + s->P.ng == 0 && !s->ndisks) { /* a restart's set-up: no disks yet */
    s->P.ng = 0;
    PetscCall(NewDomain(s, box));
    s->regrid = PETSC_FALSE;
  } else PetscCall(SimRebin(s));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SimRebin(Sim *s)
{
  PetscFunctionBeginUser;
  SIM_MODULES_CALL(s, beforeRebin); /* before migration moves any disk */
  if (s->reroute) {                 /* a flip of a sheared box's tilt: disks jump by up to a box length (deform.c) */
    PetscCall(MigrateWrapAll(&s->dom, &s->P));
    s->reroute = PETSC_FALSE;
  } else PetscCall(Migrate(&s->dom, &s->P, &s->mig));
  if (s->regrid) { /* the box changed its cell count (deform.c) */
    PetscCall(NewDomain(s, s->regridBox));
    s->regrid = PETSC_FALSE;
  }
  { /* the balancer may ask for new block borders: then the disks move with them */
    PetscBool   repartition;
    PetscMPIInt p[2];
    PetscInt   *cx, *cy;
    PetscCall(PetscLogEventBegin(THRONG_EV.balance, 0, 0, 0, 0));
    PetscCall(BalanceCheck(&s->bal, &s->prm, &s->dom, &s->P, s->busy, s->step, s->time, &repartition, p, &cx, &cy));
    s->busy = 0;
    if (repartition) {
      PetscCall(Repartition(s, p, cx, cy));
      PetscCall(PetscFree2(cx, cy));
    }
    PetscCall(PetscLogEventEnd(THRONG_EV.balance, 0, 0, 0, 0));
  }
  PetscCall(SimCheckConservation(s));
  PetscCall(BinAndGhost(s, PETSC_FALSE));
  SIM_MODULES_CALL(s, afterRebin);
  s->rebins++;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The overlapping candidate pairs and walls of this rank's cells: how many, and the
   largest overlap (absolute length). */
static void ScanOverlaps(const Sim *s, PetscInt64 *count, PetscReal *ovl)
{
  const Domain    *d = &s->dom;
  const Cells     *c = &s->cells;
  const Particles *p = &s->P;
  const PetscInt   L = d->ln[0];
  PetscInt         fwd[4];
  PetscInt64       n = 0;
  PetscReal        m = 0;
  DomainForwardOffsets(L, fwd);
  for (PetscInt cy = 1; cy < d->ln[1] - 1; cy++)
    for (PetscInt cx = 1; cx < L - 1; cx++) {
      const PetscInt k = cy * L + cx;
      for (PetscInt i = c->beg[k]; i < c->end[k]; i++) {
        const PetscReal w = WallsViolation(&s->walls, k, p->x[i], p->y[i], p->r[i]);
        n += w > 0;
        m = PetscMax(m, w);
        CELLS_FOR_PARTNERS(c, k, fwd, i, j)
        {
          const PetscReal dx = p->x[j] - p->x[i], dy = p->y[j] - p->y[i], sr = p->r[i] + p->r[j];
          const PetscReal d2 = dx * dx + dy * dy;
          if (d2 < sr * sr) n++, m = PetscMax(m, sr - PetscSqrtReal(d2));
        }
      }
    }
  *count = n, *ovl = m;
}

PetscErrorCode SimCountContacts(Sim *s, PetscInt64 *count)
{
  PetscReal m;
  PetscFunctionBeginUser;
  PetscCall(PetscLogEventBegin(THRONG_EV.diag, 0, 0, 0, 0));
  ScanOverlaps(s, count, &m);
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, count, 1, MPIU_INT64, MPI_SUM, s->dom.comm));
  PetscCall(PetscLogEventEnd(THRONG_EV.diag, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SimMaxOverlap(Sim *s, PetscReal *ovl)
{
  PetscInt64 n;
  PetscFunctionBeginUser;
  PetscCall(PetscLogEventBegin(THRONG_EV.diag, 0, 0, 0, 0));
  ScanOverlaps(s, &n, ovl);
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, ovl, 1, MPIU_REAL, MPI_MAX, s->dom.comm));
  PetscCall(PetscLogEventEnd(THRONG_EV.diag, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---- the stepper of -solver: the loop's calls (core/solver.c holds the registry) ---- */

PetscErrorCode SimStep(Sim *s)
{
  PetscFunctionBeginUser;
  for (PetscInt k = 0; k < s->prm.nsched; k++) /* the field of a piecewise-constant schedule */
    if (s->time >= s->prm.sched[3 * k]) s->drv.g[0] = s->prm.sched[3 * k + 1], s->drv.g[1] = s->prm.sched[3 * k + 2];
  s->drv.step = s->step; /* the noise's draw of this step */
  PetscCheck(s->ops.step, s->dom.comm, PETSC_ERR_PLIB, "-solver %s has no step of the time loop", s->prm.solver);
  SIM_MODULES_CALL(s, beforeStep); /* a deforming box (deform.c) */
  PetscCall(s->ops.step(s));
  s->step++; /* the clock of every stepper, here only */
  s->time = s->prm.dt * (PetscReal)s->step;
  if (s->prm.monitor && s->ops.monitor) PetscCall(s->ops.monitor(s));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SimSolverReport(Sim *s)
{
  const SolverStats *st    = &s->sol;
  PetscInt64         w[2]  = {st->work, s->pairChecks};
  const PetscReal    steps = (PetscReal)PetscMax(1, s->step);

  PetscFunctionBeginUser;
  PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, w, 2, MPIU_INT64, MPI_SUM, s->dom.comm));
  PetscCall(
    PetscPrintf(s->dom.comm,
                "summary: solver %s%s  work %.6e constraint evaluations (%.4e per step)  iterations %" PetscInt64_FMT
                " (max %" PetscInt_FMT " per step)",
                s->prm.solver, s->ops.variant ? s->ops.variant(&s->prm) : "", (double)(w[0] + w[1]),
                (double)((PetscReal)(w[0] + w[1]) / steps), st->iterations, st->maxIts));
  if (s->ops.report) PetscCall(s->ops.report(s));
  PetscCall(PetscPrintf(s->dom.comm, "\n"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SimScratch(Sim *s)
{
  SolverStats *st = &s->sol;
  PetscFunctionBeginUser;
  if (st->cap < s->P.n) { /* contents need not be kept */
    PetscCall(PetscFree(st->save));
    st->cap = PetscMax(s->P.n, 2 * st->cap);
    PetscCall(PetscMalloc1(2 * st->cap, &st->save));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
