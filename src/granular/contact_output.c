/* contact_output — the contact network at the snapshot steps (-contact_output).
 *
 * A granular packing is read through its contacts: which disks touch, how hard they push,
 * and the force chains that carry the load.  With -contact_output every snapshot step is
 * also recorded (contacts.c: the sweep that records keeps one record per contact), and the
 * contacts are written collectively to PREFIX_contacts.h5, one group per snapshot:
 *
 *   /contacts/step_NNNNNNNNNN       attributes step, time, count; for its count contacts c:
 *       ids[c][2]          the ids of the two ends (a, b); a wall is -1 - its index (the
 *                          -walls half-planes first, then the -geometry segments)
 *       force[c][2]        the force on end b over the step, Delta_b / h (on a: minus it)
 *       normal_force[c]    force . l / |l| (> 0: the contact pushes the ends apart)
 *       branch[c][2]       l = b - a: centre to centre, or from the wall's contact point to
 *                          the centre (a periodic image's, across a periodic side)
 *       ends[2c][2]        a and b after the step, to draw the contact as a line
 *       connectivity[c][2] 2c, 2c + 1: the XDMF Polyline's
 *   PREFIX_contacts.xdmf  an XDMF 2 temporal collection of Polyline grids, cell arrays
 *                          normal_force, force, id_a, id_b.  Open it in ParaView beside
 *                          PREFIX.xdmf; postproc/forcechains.py renders both.
 *
 * Which forces.  They are those of contacts.c (docs/granular.md): the impulse of one
 * sweep over h for pbd, the summed impulses of the step's sweeps for pngs (the converged
 * multipliers), lambda / 2h and lambda / h (pair, wall) for pbdw.  The sum over the
 * contacts of force (x) branch, divided by the box's area, is the Love–Weber stress that
 * -stress prints at the same step (ctest -R contacts checks it).  In a hyperstatic packing
 * the forces are not unique; the stress is.
 *
 * Rows.  Each rank writes its own contacts, sorted by (id_a, id_b), at the offset of the
 * ranks before it (MPI_Exscan): the rows are in rank order, so compare files of
 * different rank counts after sorting by ids (the records themselves are the same bit for
 * bit: the sweep is).  A contact is written by the rank that owns disk a (disk b for a
 * wall).  Every rank calls H5Dwrite, with nothing selected when it has no contact, and a
 * frame without any contact writes no data (HDF5 1.10 cannot write a globally empty
 * selection collectively) but still has its group, with empty datasets.
 *
 * A restart with -restart reopens the file and drops the frames after the checkpoint's
 * step, as the snapshot file does.                                                     */
#include <throng/core/sim.h>
#include <throng/io/io.h>
#include <throng/granular/contact_output.h>
#include <throng/core/stress.h>
#include <string.h>

PetscErrorCode ContactOutputSetFromOptions(Opt *o)
{
  PetscFunctionBeginUser;
  PetscCall(OptBool(o, OPT_RUN, "-contact_output",
                    "Write every contact (ids, force, branch vector) at the snapshot steps to PREFIX_contacts.h5 "
                    "with an XDMF for ParaView's force chains (pbd, pngs, pbdw, penalty; docs/granular.md)",
                    &o->p->contactOutput));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode ContactOutputCheck(MPI_Comm comm, const Params *p)
{
  PetscFunctionBeginUser;
  PetscCheck(!p->contactOutput || StressRecords(p->solver), comm, PETSC_ERR_SUP,
             "-contact_output with -solver %s: contact forces are recorded for pbd, pngs, pbdw and penalty only "
             "(docs/granular.md)",
             p->solver);
  PetscCheck(!p->contactOutput || strcmp(p->output, "none"), comm, PETSC_ERR_USER_INPUT,
             "-contact_output needs snapshots: give -output PREFIX (not none)");
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscBool ContactOutputStep(const Params *p, PetscInt step)
{
  if (!p->contactOutput) return PETSC_FALSE;
  return (p->outputEvery > 0 && step % p->outputEvery == 0) || step == p->steps ? PETSC_TRUE : PETSC_FALSE;
}

static PetscErrorCode Reserve(ContactWriter *w, PetscInt n)
{
  PetscFunctionBeginUser;
  PetscCall(IoReserveFrames(n, &w->cap, &w->fstep, &w->ftime, &w->fcount));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The XDMF 2 document of the frames with contacts (an empty grid confuses ParaView). */
static void XdmfBody(FILE *f, const void *ctx)
{
  const ContactWriter *w = (const ContactWriter *)ctx;
  fprintf(f, "<?xml version=\"1.0\" ?>\n<!DOCTYPE Xdmf SYSTEM \"Xdmf.dtd\" []>\n<Xdmf Version=\"2.0\">\n <Domain>\n");
  fprintf(f, "  <Grid Name=\"contacts\" GridType=\"Collection\" CollectionType=\"Temporal\">\n");
  for (PetscInt k = 0; k < w->frames; k++) {
    const long long n = (long long)w->fcount[k];
    char            g[64];
    if (n == 0) continue;
    snprintf(g, sizeof(g), "/contacts/step_%010d", (int)w->fstep[k]);
    fprintf(f, "   <Grid Name=\"step %d\" GridType=\"Uniform\">\n    <Time Value=\"%.17g\"/>\n", (int)w->fstep[k],
            (double)w->ftime[k]);
    fprintf(f,
            "    <Topology TopologyType=\"Polyline\" NumberOfElements=\"%lld\" NodesPerElement=\"2\">\n"
            "     <DataItem Dimensions=\"%lld 2\" NumberType=\"Int\" Precision=\"8\" Format=\"HDF\">%s:%s/connectivity"
            "</DataItem>\n    </Topology>\n",
            n, n, w->h5base, g);
    fprintf(f,
            "    <Geometry GeometryType=\"XY\">\n     <DataItem Dimensions=\"%lld 2\" NumberType=\"Float\" "
            "Precision=\"8\" Format=\"HDF\">%s:%s/ends</DataItem>\n    </Geometry>\n",
            2 * n, w->h5base, g);
    fprintf(f,
            "    <Attribute Name=\"normal_force\" AttributeType=\"Scalar\" Center=\"Cell\">\n     <DataItem "
            "Dimensions=\"%lld\" NumberType=\"Float\" Precision=\"8\" Format=\"HDF\">%s:%s/normal_force</DataItem>\n"
            "    </Attribute>\n",
            n, w->h5base, g);
    fprintf(f,
            "    <Attribute Name=\"force\" AttributeType=\"Vector\" Center=\"Cell\">\n     <DataItem "
            "Dimensions=\"%lld 2\" NumberType=\"Float\" Precision=\"8\" Format=\"HDF\">%s:%s/force</DataItem>\n"
            "    </Attribute>\n",
            n, w->h5base, g);
    for (int e = 0; e < 2; e++)
      fprintf(f,
              "    <Attribute Name=\"id_%c\" AttributeType=\"Scalar\" Center=\"Cell\">\n     <DataItem "
              "ItemType=\"HyperSlab\" Dimensions=\"%lld 1\">\n      <DataItem Dimensions=\"3 2\" Format=\"XML\">0 %d 1 "
              "1 %lld 1</DataItem>\n      <DataItem Dimensions=\"%lld 2\" NumberType=\"Int\" Precision=\"8\" "
              "Format=\"HDF\">%s:%s/ids</DataItem>\n     </DataItem>\n    </Attribute>\n",
              e ? 'b' : 'a', n, e, n, n, w->h5base, g);
    fprintf(f, "   </Grid>\n");
  }
  fprintf(f, "  </Grid>\n </Domain>\n</Xdmf>\n");
}

static PetscErrorCode WriteXdmf(ContactWriter *w)
{
  PetscFunctionBeginUser;
  PetscCall(IoWriteSidecar(w->comm, w->xdmf, XdmfBody, w));
  PetscFunctionReturn(PETSC_SUCCESS);
}

typedef struct {
  PetscInt n, cap;
  char (*name)[32];
} Names;

static herr_t CollectName(hid_t g, const char *name, const H5L_info_t *info, void *ctx)
{
  Names *nm = (Names *)ctx;
  (void)g;
  (void)info;
  if (nm->n == nm->cap) {
    nm->cap = 2 * nm->cap + 16;
    if (PetscRealloc(sizeof(*nm->name) * (size_t)nm->cap, &nm->name)) return -1;
  }
  strncpy(nm->name[nm->n], name, sizeof(nm->name[0]) - 1);
  nm->name[nm->n][sizeof(nm->name[0]) - 1] = 0;
  nm->n++;
  return 0;
}

/* A restart: keep the frames up to step `from` (names sort as steps: step_%010d). */
static PetscErrorCode Reopen(ContactWriter *w, PetscInt from)
{
  MPI_Comm comm = w->comm;
  hid_t    g;
  Names    nm = {0, 0, NULL};
  PetscFunctionBeginUser;
  PetscCall(IoOpenFile(comm, w->h5, PETSC_FALSE, &w->file));
  {
    int bad = H5Lexists(w->file, "/contacts", H5P_DEFAULT) <= 0;
    PetscCall(IoAgree(comm, &bad));
    PetscCheck(!bad, comm, PETSC_ERR_FILE_UNEXPECTED, "'%s' is not a throng contact file (no /contacts)", w->h5);
  }
  PetscCallHDF5(comm, g = H5Gopen2(w->file, "/contacts", H5P_DEFAULT));
  PetscCallHDF5(comm, H5Literate(g, H5_INDEX_NAME, H5_ITER_INC, NULL, CollectName, &nm));
  for (PetscInt k = 0; k < nm.n; k++) {
    hid_t     fr, a;
    int       st;
    double    tm;
    long long n;
    PetscCallHDF5(comm, fr = H5Gopen2(g, nm.name[k], H5P_DEFAULT));
    PetscCallHDF5(comm, a = H5Aopen(fr, "step", H5P_DEFAULT));
    PetscCallHDF5(comm, H5Aread(a, H5T_NATIVE_INT, &st));
    PetscCallHDF5(comm, H5Aclose(a));
    PetscCallHDF5(comm, a = H5Aopen(fr, "time", H5P_DEFAULT));
    PetscCallHDF5(comm, H5Aread(a, H5T_NATIVE_DOUBLE, &tm));
    PetscCallHDF5(comm, H5Aclose(a));
    PetscCallHDF5(comm, a = H5Aopen(fr, "count", H5P_DEFAULT));
    PetscCallHDF5(comm, H5Aread(a, H5T_NATIVE_LLONG, &n));
    PetscCallHDF5(comm, H5Aclose(a));
    PetscCallHDF5(comm, H5Gclose(fr));
    if (st > from) PetscCallHDF5(comm, H5Ldelete(g, nm.name[k], H5P_DEFAULT)); /* the restart writes it anew */
    else {
      PetscCall(Reserve(w, w->frames + 1));
      w->fstep[w->frames]  = st;
      w->ftime[w->frames]  = tm;
      w->fcount[w->frames] = n;
      w->frames++;
    }
  }
  PetscCall(PetscFree(nm.name));
  PetscCallHDF5(comm, H5Gclose(g));
  PetscCall(WriteXdmf(w));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode ContactWriterOpen(MPI_Comm comm, const Sim *s, PetscBool append, PetscInt from, ContactWriter *w)
{
  const char *slash;
  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(w, sizeof(*w)));
  w->comm = comm;
  PetscCall(PetscSNPrintf(w->h5, sizeof(w->h5), "%s_contacts.h5", s->prm.output));
  PetscCall(PetscSNPrintf(w->xdmf, sizeof(w->xdmf), "%s_contacts.xdmf", s->prm.output));
  slash = strrchr(w->h5, '/');
  PetscCall(PetscStrncpy(w->h5base, slash ? slash + 1 : w->h5, sizeof(w->h5base)));
  PetscCall(IoTransferProperties(comm, s->prm.ioTwoPhase, &w->dxpl));
  if (append) PetscCall(IoFileExists(comm, w->h5, &append)); /* a restart continues the file, if any */
  if (append) {
    PetscCall(Reopen(w, from));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  {
    hid_t g;
    PetscCall(IoOpenFile(comm, w->h5, PETSC_TRUE, &w->file));
    PetscCallHDF5(comm, g = H5Gcreate2(w->file, "contacts", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
    PetscCall(IoWriteStringAttr(comm, g, "force_unit", "displacement / h (unit mobility)"));
    PetscCallHDF5(comm, H5Gclose(g));
    PetscCallHDF5(comm, g = H5Gcreate2(w->file, "parameters", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
    PetscCall(IoWriteMetadata(comm, g));
    PetscCallHDF5(comm, H5Gclose(g));
  }
  PetscCall(WriteXdmf(w));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A dataset of the frame: rows x ncomp values, this rank's rows at offset. */
static PetscErrorCode WriteSet(ContactWriter *w, hid_t g, const char *name, hid_t type, PetscInt64 total,
                               PetscInt64 offset, PetscInt64 n, int ncomp, const void *buf)
{
  const hsize_t dims[2] = {(hsize_t)total, (hsize_t)ncomp}, start[2] = {(hsize_t)offset, 0},
                cnt[2] = {(hsize_t)n, (hsize_t)ncomp};
  hid_t sp, ds;
  PetscFunctionBeginUser;
  PetscCallHDF5(w->comm, sp = H5Screate_simple(ncomp > 1 ? 2 : 1, dims, NULL));
  PetscCallHDF5(w->comm, ds = H5Dcreate2(g, name, type, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
  if (total > 0) PetscCall(IoWriteHyperslab(w->comm, ds, w->dxpl, type, ncomp > 1 ? 2 : 1, start, cnt, buf));
  PetscCallHDF5(w->comm, H5Dclose(ds));
  PetscCallHDF5(w->comm, H5Sclose(sp));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode ContactWriterWrite(ContactWriter *w, const Sim *s)
{
  MPI_Comm         comm  = w->comm;
  const Stress    *st    = &s->stress;
  const Particles *p     = &s->P;
  const PetscInt64 n     = st->nc;
  const PetscReal  h     = s->prm.dt;
  PetscInt64       total = n, offset = 0;
  PetscReal       *f, *fn, *l, *ends;
  long long       *ids, *conn;
  hid_t            g;
  char             name[64];
  PetscFunctionBeginUser;
  if (!w->file || st->recStep != s->step) PetscFunctionReturn(PETSC_SUCCESS); /* nothing kept at this step */
  PetscCall(PetscLogEventBegin(THRONG_EV.io, 0, 0, 0, 0));
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &total, 1, MPIU_INT64, MPI_SUM, comm));
  PetscCallMPI(MPI_Exscan(&n, &offset, 1, MPIU_INT64, MPI_SUM, comm));
  {
    PetscMPIInt rank;
    PetscCallMPI(MPI_Comm_rank(comm, &rank));
    if (!rank) offset = 0; /* MPI_Exscan leaves rank 0's undefined */
  }
  PetscCall(
    PetscMalloc6(2 * n + 1, &f, n + 1, &fn, 2 * n + 1, &l, 4 * n + 1, &ends, 2 * n + 1, &ids, 2 * n + 1, &conn));
  for (PetscInt64 k = 0; k < n; k++) {
    const ContactRec *c  = &st->c[k];
    const PetscReal   ll = PetscSqrtReal(c->lx * c->lx + c->ly * c->ly);
    PetscReal         ax, ay;
    f[2 * k] = c->dx / h, f[2 * k + 1] = c->dy / h;
    fn[k]    = ll > 0 ? (c->dx * c->lx + c->dy * c->ly) / (h * ll) : 0;
    l[2 * k] = c->lx, l[2 * k + 1] = c->ly;
    if (c->ida >= 0) ax = p->x[c->i], ay = p->y[c->i];     /* a pair: the owned disk is a */
    else ax = p->x[c->i] - c->lx, ay = p->y[c->i] - c->ly; /* a wall: the disk is b    */
    ends[4 * k] = ax, ends[4 * k + 1] = ay, ends[4 * k + 2] = ax + c->lx, ends[4 * k + 3] = ay + c->ly;
    ids[2 * k] = (long long)c->ida, ids[2 * k + 1] = (long long)c->idb;
    conn[2 * k] = (long long)(2 * (offset + k)), conn[2 * k + 1] = (long long)(2 * (offset + k) + 1);
  }
  PetscCall(PetscSNPrintf(name, sizeof(name), "/contacts/step_%010d", (int)s->step));
  {
    const int       stp = (int)s->step;
    const double    tm  = (double)s->time;
    const long long nn  = (long long)total;
    PetscCallHDF5(comm, g = H5Gcreate2(w->file, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
    PetscCall(IoWriteAttr(comm, g, "step", H5T_NATIVE_INT, 0, &stp));
    PetscCall(IoWriteAttr(comm, g, "time", H5T_NATIVE_DOUBLE, 0, &tm));
    PetscCall(IoWriteAttr(comm, g, "count", H5T_NATIVE_LLONG, 0, &nn));
  }
  PetscCall(WriteSet(w, g, "ids", H5T_NATIVE_LLONG, total, offset, n, 2, ids));
  PetscCall(WriteSet(w, g, "force", H5T_NATIVE_DOUBLE, total, offset, n, 2, f));
  PetscCall(WriteSet(w, g, "normal_force", H5T_NATIVE_DOUBLE, total, offset, n, 1, fn));
  PetscCall(WriteSet(w, g, "branch", H5T_NATIVE_DOUBLE, total, offset, n, 2, l));
  PetscCall(WriteSet(w, g, "ends", H5T_NATIVE_DOUBLE, 2 * total, 2 * offset, 2 * n, 2, ends));
  PetscCall(WriteSet(w, g, "connectivity", H5T_NATIVE_LLONG, total, offset, n, 2, conn));
  PetscCallHDF5(comm, H5Gclose(g));
  PetscCall(PetscFree6(f, fn, l, ends, ids, conn));
  PetscCall(Reserve(w, w->frames + 1));
  w->fstep[w->frames]  = s->step;
  w->ftime[w->frames]  = s->time;
  w->fcount[w->frames] = total;
  w->frames++;
  PetscCallHDF5Agree(comm, H5Fflush(w->file, H5F_SCOPE_GLOBAL), "flushing the contact file");
  PetscCall(WriteXdmf(w));
  PetscCall(PetscLogEventEnd(THRONG_EV.io, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode ContactWriterClose(ContactWriter *w)
{
  PetscFunctionBeginUser;
  if (!w->file) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCallHDF5(w->comm, H5Pclose(w->dxpl));
  PetscCallHDF5Agree(w->comm, H5Fclose(w->file), "closing the contact file");
  w->file = 0;
  PetscCall(PetscFree(w->fstep));
  PetscCall(PetscFree(w->ftime));
  PetscCall(PetscFree(w->fcount));
  PetscFunctionReturn(PETSC_SUCCESS);
}
