/* params — the run's parameters: their defaults, and what is derived from them alone.
 *
 * Params (util/params.h) holds every option's final value, and the declaration of each
 * option (OptionDecl: its name, its kind PHYS or RUN, where its value lies).  The options
 * are read into it by the helpers of opt.c, module by module (app/options.c composes
 * them).  The functions here only read it: the physics string a checkpoint keeps
 * (ParamsPhysics), the largest radius and speed, a population's share of the ids, the
 * checks of a time's size and of the trajectory's stride.  They include nothing of the
 * project above util/, so that every layer may call them.                              */
#include <throng/util/params.h>
#include <string.h>
#include <math.h>

PetscErrorCode ParamsSetDefaults(Params *p)
{
  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(p, sizeof(*p)));
  /* The embedded default scene: a layer of polydisperse disks settling under gravity
     onto the floor of a wide box, from a jittered lattice (a random packing at 55 %).
     About 25 layers deep: single-sweep PBD compresses a deep jammed pile by ~1.5 g h per
     layer (see README), and the default keeps that near 5 % of a diameter.            */
  p->n      = 20000;
  p->radius = 0.5;
  p->poly   = 0.2;
  p->dt     = 0.001;
  p->steps  = 16000;
  p->seed   = 1;
  p->box[0] = p->box[1] = p->box[2] = p->box[3] = 0; /* sized from n in ProcessOptions */
  p->wallBox                                    = PETSC_TRUE;
  p->nhalf                                      = 0;
  p->skin                                       = -1; /* default: 0.2 r_max */
  p->rebin                                      = 0.25;
  p->tile                                       = 0; /* default: chosen from the cell grid in ProcessOptions */
  p->balance                                    = 1.2;
  p->balanceInterval                            = 10;
  p->balanceCell                                = 0.03;
  p->gamma                                      = 0.0;
  p->center[0] = p->center[1] = PETSC_MAX_REAL; /* default: box centre */
  p->gravity[0]               = 0;
  p->gravity[1]               = -1;
  p->init                     = INIT_JITTER;
  p->region[0] = p->region[1] = p->region[2] = p->region[3] = 0; /* default: the box */
  p->phi                                                    = 0.55;
  p->overlap                                                = OVERLAP_PROJECT;
  p->overlapTol                                             = 1e-9;
  p->overlapMaxSweeps                                       = 100000;
  p->progress                                               = 0;
  p->overlapEvery      = -1;  /* default: 1 for crowds, 0 (the progress samples) otherwise */
  p->overlapAbort      = 0.5; /* half the smallest diameter: far beyond any sound run (main.c) */
  p->map               = PETSC_TRUE;
  p->checkConservation = PETSC_FALSE;
  p->quiet             = PETSC_FALSE;
  PetscCall(PetscStrncpy(p->output, "throng", sizeof(p->output)));
  p->outputEvery     = -1; /* default: ten snapshots per run */
  p->checkpoint[0]   = 0;
  p->chkEvery        = 0;
  p->chkWall         = 0;
  p->restart[0]      = 0;
  p->flushEvery      = 10;
  p->outputRound     = 65536;
  p->traj[0]         = 0;
  p->trajFps         = -1; /* default: near 10 fps, a whole number of steps (OutputCheck) */
  p->geometry[0]     = 0;
  p->walk            = PETSC_TRUE;
  p->eikH            = 0.1;
  p->eikWall         = 0;
  p->densH           = 0.5;
  p->kT              = 1;
  p->densDt          = 1.0;
  p->routeChoice     = ROUTE_NEAREST_EXIT;
  p->routeInterval   = 2;
  p->routeReconsider = 10;
  p->routeGain       = 10;
  p->routeCommit     = 30;
  p->routeFlow       = 1.9; /* CROWD_LAB_FLOW (crowd.h): laboratory bottlenecks */
  p->wayRadius       = 0.5;
  p->speed[0]        = 1.34; /* Weidmann (1993), as in RiMEA and JuPedSim: see docs/crowd.md */
  p->speed[1]        = 0.26;
  p->speed[2]        = 0.5;
  p->speed[3]        = 2.2;
  p->frac2           = 0;
  p->crowdModel      = CROWD_CSM;
  p->csmT[0]         = 0.9; /* calibrated on bottleneck flows: docs/crowd.md, docs/validation.md */
  p->csmT[1]         = -1;  /* default: the first population's */
  p->csmRep[0] = 8.0, p->csmRep[1] = 0.1;
  p->csmWall[0] = 5.0, p->csmWall[1] = 0.02;
  p->csmAvoid    = 0.5; /* docs/crowd.md: without it, platoons form behind the slowest */
  p->csmWidth    = 512;
  p->csmCorridor = 0.8; /* calibrated on bottleneck flows (docs/crowd.md); Tordeux et al.: 1 */
  for (int k = 0; k < 4; k++) p->speed2[k] = p->speed[k];
  PetscCall(PetscStrncpy(p->solver, "pbd", sizeof(p->solver)));
  p->rtol       = 1e-10;
  p->warm       = 1;
  p->atol       = 1e-12;
  p->maxIt      = 1000;
  p->penalty    = 1e3;
  p->active     = -1; /* default: the skin */
  p->tao        = PETSC_FALSE;
  p->monitor    = PETSC_FALSE;
  p->warmBlend  = 0.1; /* -pbdw_blend's kappa (warm.c) */
  p->warmSweeps = 2;   /* -pbdw_sweeps: the symmetric step (issue 46: the one-sweep step is unstable in wide piles) */
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode ParamsPhysics(const Params *p, char *buf, size_t len)
{
  char   v[64];
  size_t used;
  PetscFunctionBeginUser;
  buf[0] = 0;
  for (PetscInt k = 0; k < p->ndecl; k++) {
    const OptionDecl *d  = &p->decl[k];
    const char       *at = (const char *)p + d->off;
    const PetscInt    n  = d->n >= 0 ? d->n : d->per * *(const PetscInt *)((const char *)p + d->noff);
    if (d->kind != OPT_PHYS) continue;
    PetscCall(PetscStrlcat(buf, buf[0] ? " " : "", len));
    PetscCall(PetscStrlcat(buf, d->name, len));
    PetscCall(PetscStrlcat(buf, "=", len));
    for (PetscInt i = 0; i < n; i++) {
      switch (d->type) {
      case OPTT_REAL:
      case OPTT_REALS: PetscCall(PetscSNPrintf(v, sizeof(v), "%.17g", (double)((const PetscReal *)at)[i])); break;
      case OPTT_INT:
      case OPTT_INTS: PetscCall(PetscSNPrintf(v, sizeof(v), "%" PetscInt_FMT, ((const PetscInt *)at)[i])); break;
      case OPTT_INT64: PetscCall(PetscSNPrintf(v, sizeof(v), "%" PetscInt64_FMT, *(const PetscInt64 *)at)); break;
      case OPTT_BOOL: PetscCall(PetscSNPrintf(v, sizeof(v), "%d", (int)*(const PetscBool *)at)); break;
      case OPTT_ENUM: PetscCall(PetscStrncpy(v, d->list[*(const int *)at], sizeof(v))); break;
      case OPTT_STRING:
        v[0] = 0;
        PetscCall(PetscStrlcat(buf, at, len));
        break;
      }
      PetscCall(PetscStrlcat(buf, i ? "," : "", len));
      PetscCall(PetscStrlcat(buf, v, len));
    }
  }
  for (PetscInt k = 0; k < p->nsrc; k++)
    if (p->src[k].table[0]) { /* a source's table: its content, as the scene's */
      PetscCall(PetscSNPrintf(v, sizeof(v), " src_%s_table_content=%016llx", p->src[k].name,
                              (unsigned long long)p->src[k].tableHash));
      PetscCall(PetscStrlcat(buf, v, len));
    }
  if (p->geometry[0]) { /* the scene's content, not only its path: a file edited in place is another scene */
    PetscCall(PetscSNPrintf(v, sizeof(v), " geometry_content=%016llx", (unsigned long long)p->geomHash));
    PetscCall(PetscStrlcat(buf, v, len));
  }
  used = strlen(buf);
  PetscCheck(used + 1 < len, PETSC_COMM_SELF, PETSC_ERR_PLIB, "the physics options take more than %zu characters", len);
  PetscFunctionReturn(PETSC_SUCCESS);
}
PetscReal ParamsExitDepth(const Params *p)
{
  if (!(p->geometry[0] && p->walk && p->exitRule == EXIT_PASS && p->crowdModel == CROWD_CSM)) return 0;
  return 2 * ParamsRadiusMax(p) + ParamsSpeedMax(p) * ParamsTimeGapMax(p);
}

PetscErrorCode ParamsCheckTime(MPI_Comm comm, const char *name, const char *text, PetscReal t)
{
  PetscFunctionBeginUser;
  PetscCheck(PetscAbsReal(t) <= THRONG_MAX_TIME, comm, PETSC_ERR_USER_INPUT,
             "%s %s: a time must be at most 10^9 s (about 32 years)", name, text);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode ParamsCheckTimeReal(MPI_Comm comm, const char *name, PetscReal t)
{
  char text[64];
  PetscFunctionBeginUser;
  PetscCall(PetscSNPrintf(text, sizeof(text), "%.6g", (double)t));
  PetscCall(ParamsCheckTime(comm, name, text, t));
  PetscFunctionReturn(PETSC_SUCCESS);
}

void TrajectoryFloorPath(const char *path, const char *name, char *out, size_t len)
{
  const size_t n = strlen(path);
  if (n > 3 && !strcmp(path + n - 3, ".h5")) snprintf(out, len, "%.*s.%s.h5", (int)(n - 3), path, name);
  else snprintf(out, len, "%s.%s.h5", path, name);
}

PetscErrorCode TrajectoryStride(MPI_Comm comm, const Params *prm, PetscInt *stride)
{
  const PetscReal k = 1 / (prm->trajFps * prm->dt), dt = prm->dt;
  PetscFunctionBeginUser;
  PetscCheck(k >= 0.5, comm, PETSC_ERR_USER_INPUT,
             "-trajectory_fps %.6g with -dt %.6g: more than one frame a step; the most is 1 / dt = %.6g fps",
             (double)prm->trajFps, (double)dt, (double)(1 / dt));
  PetscCheck(k <= 1e9, comm, PETSC_ERR_USER_INPUT,
             "-trajectory_fps %.6g with -dt %.6g: fewer than one frame in 10^9 steps; the fewest is 1 / (10^9 dt) = "
             "%.6g fps",
             (double)prm->trajFps, (double)dt, (double)(1 / (1e9 * dt)));
  *stride = (PetscInt)PetscFloorReal(k + 0.5);
  if (PetscAbsReal(k - (PetscReal)*stride) > 1e-9 * k) { /* the two rates of whole strides around it */
    const PetscReal lo = PetscFloorReal(k), hi = PetscCeilReal(k);
    SETERRQ(comm, PETSC_ERR_USER_INPUT,
            "-trajectory_fps %.6g with -dt %.6g: a frame must be a whole number k of steps, fps = 1 / (k dt); "
            "the nearest are %.6g fps (k = %.0f) and %.6g fps (k = %.0f)",
            (double)prm->trajFps, (double)dt, (double)(1 / (hi * dt)), (double)hi, (double)(1 / (PetscMax(lo, 1) * dt)),
            (double)PetscMax(lo, 1));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---- the populations, radii and speeds ------------------------------------------------ */

PetscBool PopulationHolds(const Population *q, PetscReal x, PetscReal y)
{
  PetscBool in = PETSC_FALSE;
  if (x < q->bbox[0] || x > q->bbox[2] || y < q->bbox[1] || y > q->bbox[3]) return PETSC_FALSE;
  for (PetscInt i = 0, j = q->nvert - 1; i < q->nvert; j = i++) {
    const PetscReal xi = q->vert[2 * i], yi = q->vert[2 * i + 1], xj = q->vert[2 * j], yj = q->vert[2 * j + 1];
    if ((yi > y) != (yj > y) && x < (xj - xi) * (y - yi) / (yj - yi) + xi) in = (PetscBool)!in;
  }
  return in;
}

PetscInt ParamsPopulationOf(const Params *p, PetscInt64 id)
{
  for (PetscInt k = p->npop - 1; k > 0; k--)
    if (id >= p->pop[k].first) return k;
  return 0;
}

PetscReal ParamsSpeedMax(const Params *p)
{
  PetscReal v = 0;
  if (!p->npop) return PetscMax(p->speed[3], p->frac2 > 0 ? p->speed2[3] : 0);
  for (PetscInt k = 0; k < p->npop; k++) v = PetscMax(v, DistMax(&p->pop[k].speed));
  return v;
}

PetscReal ParamsTimeGapMax(const Params *p)
{
  PetscReal T = 0;
  if (!p->npop) return PetscMax(p->csmT[0], p->frac2 > 0 ? p->csmT[1] : 0);
  for (PetscInt k = 0; k < p->npop; k++) T = PetscMax(T, p->pop[k].timeGap > 0 ? p->pop[k].timeGap : p->csmT[0]);
  return T;
}

void ParamsRadiusOption(const Params *p, char *buf, size_t len)
{
  PetscInt  k = -1;
  PetscReal r = 0;
  for (PetscInt j = 0; j < p->npop; j++) { /* the largest of those given with -pop_NAME_radius */
    char name[THRONG_POP_NAME_LEN + 16];
    snprintf(name, sizeof(name), "pop_%s_radius", p->pop[j].name);
    if (ParamsGiven(p, name) && DistMax(&p->pop[j].radius) > r) r = DistMax(&p->pop[j].radius), k = j;
  }
  if (k >= 0 && r >= p->radius * (1 + p->poly)) snprintf(buf, len, "-pop_%s_radius", p->pop[k].name);
  else
    snprintf(buf, len,
             p->poly > 0         ? "-radius and -polydispersity"
             : p->bidisperse > 0 ? "-radius and -bidisperse"
                                 : "-radius");
}

PetscReal ParamsRadiusMax(const Params *prm)
{
  PetscReal r = 0;
  if (!prm->npop) return PetscMax(prm->radius * (prm->bidisperse > 0 ? prm->bidisperse : 1 + prm->poly), prm->rmaxFile);
  for (PetscInt k = 0; k < prm->npop; k++) r = PetscMax(r, DistMax(&prm->pop[k].radius));
  return r;
}

PetscBool ParamsBoxMoves(const Params *p)
{
  return p->deformRate != 0 || p->shearRate != 0 || p->baroP > 0 ? PETSC_TRUE : PETSC_FALSE;
}

void ParamsBarostatAxes(const Params *p, PetscReal w[2])
{
  w[0] = p->baroP > 0 && p->pbc[0] ? 1 : 0;
  w[1] = p->baroP > 0 && p->pbc[1] ? 1 : 0;
}
