/* edmd_run — a -solver edmd run: replicas over the ranks, reports, output, pressure.
 *
 * What runs distributed, honestly: nothing inside one system.  Each MPI rank runs an
 * independent replica of the whole system (replica k uses -seed + k: its own velocities,
 * and its own positions with -init jitter/uniform), and the statistics are merged at the
 * end: the compressibility factor Z of each replica, their mean and its standard error.
 * Replica 0 is the run's trajectory: it writes the snapshots, the progress lines and the
 * state digest, which are therefore the same for any number of ranks.  Why a distributed
 * event-driven engine is a different problem, and how published schemes attack it:
 * docs/edmd.md.
 *
 * Conventions shared with the other steppers: the same options and initial conditions
 * (positions from init.c; velocities Maxwell-Boltzmann at -edmd_temperature kT, drawn per
 * id, with the centre-of-mass velocity removed and rescaled to exactly kT per disk;
 * masses m_i = (r_i / -radius)^2, i.e. proportional to the area), "steps" of -dt: the
 * events between k dt and (k + 1) dt are exact, and at each k dt the state is reported
 * (progress line, snapshot every -output_every steps with the true velocities) without
 * touching the engine's lazy states, so the reporting interval does not change the
 * trajectory.  At the end SIMULATE's last line moves every disk to the final time.
 *
 * Pressure.  Periodic box: the collision virial,
 *     Z = P A / (N kT) = 1 + sum_collisions |r_ij| |J| / (2 N kT t),
 * over the measuring time t (from -edmd_equilibrate on), in two dimensions.  Walls: the
 * momentum given to the walls, P = sum 2 m |v_n| / (perimeter t).  Henderson's equation
 * of state Z(eta) = (1 + eta^2/8) / (1 - eta)^2 (Henderson 1975) is printed beside it,
 * eta = sum pi r_i^2 / A.                                                              */
#include <throng/core/sim.h>
#include <throng/core/init.h>
#include <throng/io/io.h>
#include <throng/edmd/edmd.h>
#include <throng/edmd/edmd_run.h>
#include <throng/util/errors.h>

static int CompareId(const void *a, const void *b)
{
  const PetscInt64 x = *(const PetscInt64 *)a, y = *(const PetscInt64 *)b;
  return (x > y) - (x < y);
}

/* A replica's disks in id order (the engine's order), and their velocities: Maxwell-
   Boltzmann per id, zero total momentum, exactly kT per disk; masses (r / radius)^2 and
   the area covered (eta before the division by the box). */
static PetscErrorCode ReplicaStart(const Params *prm, Particles *P, PetscReal *vx, PetscReal *vy, PetscReal *m,
                                   PetscReal *eta)
{
  PetscFunctionBeginUser;
  *eta = 0;
  { /* engine order = id order, whatever the cells did */
    struct {
      PetscInt64 id;
      PetscInt   k;
    } * o;
    PetscInt *perm;
    PetscCall(PetscMalloc1(P->n + 1, &o));
    for (PetscInt i = 0; i < P->n; i++) o[i].id = P->id[i], o[i].k = i;
    qsort(o, (size_t)P->n, sizeof(*o), CompareId);
    PetscCall(PetscMalloc1(P->n + 1, &perm));
    for (PetscInt i = 0; i < P->n; i++) perm[i] = o[i].k;
    P->ng = 0;
    PetscCall(ParticlesGather(P, 0, P->n, perm, PETSC_TRUE, PETSC_TRUE));
    PetscCall(PetscFree(perm));
    PetscCall(PetscFree(o));
  }
  /* velocities: Maxwell-Boltzmann per id, zero total momentum, exactly kT per disk */
  {
    PetscReal px = 0, py = 0, M = 0, k2 = 0;
    for (PetscInt i = 0; i < P->n; i++) {
      PetscReal g[2];
      m[i] = PetscSqr(P->r[i] / prm->radius);
      InitGaussian2(prm, P->id[i], g);
      vx[i] = g[0] * PetscSqrtReal(prm->kT / m[i]);
      vy[i] = g[1] * PetscSqrtReal(prm->kT / m[i]);
      px += m[i] * vx[i], py += m[i] * vy[i], M += m[i];
      *eta += PETSC_PI * P->r[i] * P->r[i];
    }
    for (PetscInt i = 0; i < P->n; i++) vx[i] -= px / M, vy[i] -= py / M;
    for (PetscInt i = 0; i < P->n; i++) k2 += 0.5 * m[i] * (vx[i] * vx[i] + vy[i] * vy[i]);
    for (PetscInt i = 0; i < P->n && k2 > 0; i++)
      vx[i] *= PetscSqrtReal(P->n * prm->kT / k2), vy[i] *= PetscSqrtReal(P->n * prm->kT / k2);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* What a replica run ends with: counts, energy and momentum, the pressure against
   Henderson's equation of state (mean over the replicas), and replica 0's state digest. */
typedef struct {
  PetscReal      ekin, kT, eta, worst, vir0, wall0, tstat, L[2];
  PetscInt64     coll0;
  PetscLogDouble t0, t1, tEq;
  PetscMPIInt    size;
} ReplicaStats;

static PetscErrorCode ReplicaSummary(MPI_Comm world, MPI_Comm self, const Params *prm, EDMD *e, Particles *P,
                                     PetscInt kvx, PetscInt kvy, const ReplicaStats *st)
{
  PetscFunctionBeginUser;
  const PetscReal tm = prm->steps * prm->dt - st->tstat, el = (PetscReal)(st->t1 - st->t0);
  PetscReal       z  = 1 + (P->n && tm > 0 ? (e->virial - st->vir0) / (2 * P->n * st->kT * tm) : 0);
  PetscReal       zw = P->n && tm > 0 ? (e->wallImpulse - st->wall0) / (2 * (st->L[0] + st->L[1]) * tm) * st->L[0] *
                                    st->L[1] / (P->n * st->kT)
                                      : 0;
  PetscReal zz[3]    = {prm->periodic ? z : zw, (prm->periodic ? z : zw) * (prm->periodic ? z : zw), 0}, ekin1, mom1[2];
  const PetscReal henderson = (1 + st->eta * st->eta / 8) / PetscSqr(1 - st->eta);
  PetscInt64      c[4]      = {e->collisions, e->bounces, e->stale, e->crossings};
  Digest          dg;
  char            hex[33];

  EDMDEnergy(e, &ekin1, mom1);
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, zz, 2, MPIU_REAL, MPI_SUM, world));
  PetscCall(PetscPrintf(
    world, "summary: steps %" PetscInt_FMT "  t %g  N %" PetscInt_FMT "  ranks %d  wall %.3f s  (edmd, replica 0)\n",
    prm->steps, (double)(prm->steps * prm->dt), P->n, st->size, (double)el));
  PetscCall(PetscPrintf(
    world,
    "summary: edmd: collisions %" PetscInt64_FMT " (%.4g per disk), wall bounces %" PetscInt64_FMT
    ", stale pops %" PetscInt64_FMT ", cell crossings %" PetscInt64_FMT
    ", %.4e collisions/s (%.4e after equilibration)\n",
    c[0], P->n ? (double)c[0] / (double)P->n : 0.0, c[1], c[2], c[3], el > 0 ? (double)((PetscReal)c[0] / el) : 0.0,
    st->t1 > st->tEq ? (double)((PetscReal)(e->collisions - st->coll0) / (PetscReal)(st->t1 - st->tEq)) : 0.0));
  PetscCall(PetscPrintf(world,
                        "summary: edmd: energy drift %.3e (relative), momentum %.3e %.3e, max_overlap %.3e of a "
                        "diameter (at the reports), contact error %.3e (at the collisions)\n",
                        (double)(st->ekin > 0 ? (ekin1 - st->ekin) / st->ekin : 0), (double)mom1[0], (double)mom1[1],
                        (double)st->worst, (double)e->contact));
  {
    const PetscReal mean = zz[0] / st->size, var = st->size > 1 ? (zz[1] - st->size * mean * mean) / (st->size - 1) : 0,
                    se = st->size > 1 ? PetscSqrtReal(PetscMax(var, 0) / st->size) : 0;
    PetscCall(PetscPrintf(world,
                          "summary: edmd: eta %.6g  Z %.6g (%s, replica 0)  Z %.6g +- %.2g (mean of %d replicas)  "
                          "Henderson %.6g  deviation %+.3f %%  over t = %g (%" PetscInt64_FMT " collisions)\n",
                          (double)st->eta, (double)(prm->periodic ? z : zw),
                          prm->periodic ? "collision virial" : "wall momentum", (double)mean, (double)se, st->size,
                          (double)henderson, (double)(100 * (mean - henderson) / henderson), (double)tm,
                          e->collisions - st->coll0));
  }
  /* SIMULATE's last line: every disk moves to the final time */
  EDMDStateAt(e, prm->steps * prm->dt, P->x, P->y, ParticlesField(P, kvx), ParticlesField(P, kvy));
  PetscCall(StateDigest(self, P, &dg));
  DigestFormat(&dg, hex);
  PetscCall(PetscPrintf(world, "state-digest: %s\n", hex));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode EDMDRun(MPI_Comm world, const Params *prm0, PetscInt *exitCode)
{
  PetscMPIInt     rank, size;
  MPI_Comm        self;
  Params          prm = *prm0;
  Sim             s;
  EDMD            e;
  Particles      *P;
  PetscReal      *vx, *vy, *m, lo[2], L[2], ekin, mom[2], kT, eta = 0, ovl, worst = -1;
  PetscReal       vir0 = 0, wall0 = 0, tstat;
  PetscInt64      coll0 = 0;
  PetscInt        kvx, kvy;
  PetscLogDouble  t0, t1, tEq = 0;
  H5MDWriter      w;
  const PetscBool output = strcmp(prm.output, "none") ? PETSC_TRUE : PETSC_FALSE;
  PetscBool       out    = PETSC_FALSE, statsOn;

  PetscFunctionBeginUser;
  *exitCode = 0;
  PetscCallMPI(MPI_Comm_rank(world, &rank));
  PetscCallMPI(MPI_Comm_size(world, &size));
  PetscCallMPI(MPI_Comm_split(world, rank, 0, &self));
  prm.seed += rank; /* replica `rank` */
  PetscCall(SimCreate(self, &prm, &s));
  P = &s.P;
  PetscCall(PetscMalloc3(P->n + 1, &vx, P->n + 1, &vy, P->n + 1, &m));
  PetscCall(ReplicaStart(&prm, P, vx, vy, m, &eta));
  /* the velocities at the output times, a snapshot field of their own */
  PetscCall(ParticlesRegisterField(P, "vx", FIELD_REAL, FIELD_OWNED | FIELD_SNAPSHOT, &kvx));
  PetscCall(ParticlesRegisterField(P, "vy", FIELD_REAL, FIELD_OWNED | FIELD_SNAPSHOT, &kvy));
  lo[0] = prm.box[0], lo[1] = prm.box[1], L[0] = prm.box[2] - prm.box[0], L[1] = prm.box[3] - prm.box[1];
  eta /= L[0] * L[1];
  { /* a replica's bad start becomes one collective message, replica 0's if it has one */
    PetscErrorCode ierr;
    int            bad, any[2];
    char           msg[1024] = "";
    ierr                     = EDMDCreate(P->n, P->x, P->y, vx, vy, P->r, m, lo, L, prm.periodic, prm.brute,
                                          &e); /* errors.c records, does not print */
    bad                      = ierr != 0;
    if (bad) PetscCall(PetscStrncpy(msg, ErrorsLastMessage(), sizeof(msg)));
    any[0] = bad, any[1] = rank == 0 && bad;
    PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, any, 2, MPI_INT, MPI_MAX, world));
    PetscCallMPI(MPI_Bcast(msg, sizeof(msg), MPI_CHAR, 0, world));
    PetscCheck(!any[0], world, PETSC_ERR_USER_INPUT, "-solver edmd: not a valid hard-disk start on %s: %s",
               any[1] ? "replica 0" : "a replica",
               any[1]
                 ? msg
                 : "disks overlap or touch (with -edmd_periodic also across the boundary), or stick out of the walls");
  }
  if (prm.edmdLog[0] && !rank) {
    e.log = fopen(prm.edmdLog, "w");
    PetscCheck(e.log, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "cannot write -edmd_log '%s'", prm.edmdLog);
  }
  EDMDEnergy(&e, &ekin, mom);
  kT = P->n ? ekin / (PetscReal)P->n : 0;
  if (!prm.quiet)
    PetscCall(PetscPrintf(
      world,
      "throng: edmd: %" PetscInt_FMT
      " disks, eta %.6g, kT %g, %s box %g x %g, %s, %d replica%s (one per rank; replica k uses -seed + k)\n",
      P->n, (double)eta, (double)kT, prm.periodic ? "periodic" : "walled", (double)L[0], (double)L[1],
      e.brute ? "brute-force prediction (every disk)" : "cell lists", size, size > 1 ? "s" : ""));
  if (output && !rank) {
    PetscCall(H5MDOpen(self, prm.output, &s, PETSC_FALSE, 0, &w));
    EDMDStateAt(&e, 0, P->x, P->y, ParticlesField(P, kvx), ParticlesField(P, kvy));
    PetscCall(H5MDWriteFrame(&w, &s));
    out = PETSC_TRUE;
  }
  statsOn = prm.equil <= 0;
  tstat   = 0;
  PetscCall(PetscTime(&t0));
  tEq = t0;
  for (PetscInt k = 1; k <= prm.steps; k++) {
    const PetscReal limit = (PetscReal)k * prm.dt;
    if (!statsOn && limit > prm.equil) { /* the statistics start at the equilibration time */
      PetscCall(EDMDAdvance(&e, prm.equil));
      vir0 = e.virial, wall0 = e.wallImpulse, coll0 = e.collisions, tstat = prm.equil;
      PetscCall(PetscTime(&tEq));
      statsOn = PETSC_TRUE;
    }
    PetscCall(EDMDAdvance(&e, limit));
    s.step = k, s.time = limit;
    const PetscBool frame = out && ((prm.outputEvery > 0 && k % prm.outputEvery == 0) || k == prm.steps);
    const PetscBool prog =
      !prm.quiet && !rank && (prm.progress > 0 ? k % prm.progress == 0 : k % PetscMax(1, prm.steps / 10) == 0);
    if (frame || prog || k == prm.steps) {
      PetscReal wo;
      PetscCall(EDMDMaxOverlap(&e, limit, &ovl, &wo));
      worst = PetscMax(worst, PetscMax(ovl, wo));
    }
    if (frame) {
      EDMDStateAt(&e, limit, P->x, P->y, ParticlesField(P, kvx), ParticlesField(P, kvy));
      PetscCall(H5MDWriteFrame(&w, &s));
    }
    if (prog) {
      PetscLogDouble  now;
      const PetscReal tm = limit - tstat;
      PetscCall(PetscTime(&now));
      PetscCall(PetscPrintf(PETSC_COMM_SELF,
                            "step %" PetscInt_FMT "  t %g  collisions %" PetscInt64_FMT
                            " (%.4g per disk)  %.4e collisions/s  Z %.5g  max_overlap %.3e\n",
                            k, (double)limit, e.collisions, P->n ? (double)e.collisions / (double)P->n : 0.0,
                            now > t0 ? (double)e.collisions / (now - t0) : 0.0,
                            statsOn && tm > 0 && P->n ? (double)(1 + (e.virial - vir0) / (2 * P->n * kT * tm)) : 0.0,
                            (double)ovl));
    }
  }
  PetscCall(PetscTime(&t1));
  if (e.log) fclose(e.log);
  {
    const ReplicaStats st = {ekin, kT, eta, worst, vir0, wall0, tstat, {L[0], L[1]}, coll0, t0, t1, tEq, size};
    PetscCall(ReplicaSummary(world, self, &prm, &e, P, kvx, kvy, &st));
  }
  if (out) PetscCall(H5MDClose(&w, (PetscReal)(t1 - t0)));
  PetscCall(EDMDDestroy(&e));
  PetscCall(PetscFree3(vx, vy, m));
  PetscCall(SimDestroy(&s));
  PetscCallMPI(MPI_Comm_free(&self));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode EDMDCheck(MPI_Comm comm, Params *p)
{
  PetscFunctionBeginUser;
  PetscCheck(!(p->noise > 0), comm, PETSC_ERR_USER_INPUT,
             "-noise is a term of the time-stepped dynamics; -solver edmd has none");
  PetscCheck(!p->geometry[0], comm, PETSC_ERR_USER_INPUT,
             "-solver edmd runs hard disks in a box: it takes no -geometry");
  PetscCheck(!p->restart[0], comm, PETSC_ERR_USER_INPUT,
             "-solver edmd cannot restart yet (its checkpoints would need velocities and event times)");
  { /* options of the time-stepped runs that the event-driven run would ignore */
    static const char *const unused[][2] = {
      {"checkpoint_every", "it cannot checkpoint yet (a restart would need velocities and event times)"},
      {"checkpoint_wall", "it cannot checkpoint yet (a restart would need velocities and event times)"},
      {"checkpoint", "it cannot checkpoint yet (a restart would need velocities and event times)"},
      {"trajectory", "it writes no pedestrian trajectories (-output writes its snapshots)"},
      {"trajectory_fps", "it writes no pedestrian trajectories (-output writes its snapshots)"},
      {"gravity", "hard disks fly freely between collisions: it has no driver"},
      {"gravity_schedule", "hard disks fly freely between collisions: it has no driver"},
      {"attract_gamma", "hard disks fly freely between collisions: it has no driver"},
      {"attract_center", "hard disks fly freely between collisions: it has no driver"}};
    for (size_t k = 0; k < sizeof(unused) / sizeof(unused[0]); k++)
      PetscCheck(!ParamsGiven(p, unused[k][0]) || (!strcmp(unused[k][0], "attract_gamma") && p->gamma == 0) ||
                   (!strcmp(unused[k][0], "gravity") && p->gravity[0] == 0 && p->gravity[1] == 0),
                 comm, PETSC_ERR_USER_INPUT, "-solver edmd ignores -%s: %s", unused[k][0], unused[k][1]);
  }
  PetscCheck(p->nhalf == 0, comm, PETSC_ERR_USER_INPUT,
             "-solver edmd knows the box walls (or -edmd_periodic) only, not -halfplanes");
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode EDMDView(MPI_Comm comm, const Params *p)
{
  PetscFunctionBeginUser;
  PetscCall(PetscPrintf(
    comm, "throng: solver=edmd (event-driven; -dt is the reporting interval) kT=%g %s equilibrate=%g%s\n",
    (double)p->kT, p->periodic ? "periodic" : "walls", (double)p->equil, p->brute ? " brute-force prediction" : ""));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SolverCreate_EDMD(SolverOps *ops)
{
  PetscFunctionBeginUser;
  ops->run   = EDMDRun;
  ops->check = EDMDCheck;
  ops->view  = EDMDView;
  PetscFunctionReturn(PETSC_SUCCESS);
}
