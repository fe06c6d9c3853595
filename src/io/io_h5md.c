/* io_h5md — snapshots in H5MD 1.1, written collectively through MPI-IO, read by ParaView.
 *
 * Layout (H5MD 1.1, the particles group "disks"):
 *   /h5md                     version = {1, 1}; author/name; creator/{name, version}
 *   /particles/disks/box      dimension = 2, boundary = {"none" or "periodic" per axis}, edges
 *                             (with -deform_rate: the box of the latest frame)
 *   /particles/disks/position/{step, time, value[frame][row][2]}
 *   /particles/disks/radius/{step, time, value[frame][row]}   (step, time: hard links)
 *   /particles/disks/id/{step, time, value[frame][row]}
 *   /particles/disks/velocity/{step, time, value[frame][row][2]}: (x_k - x_{k-1}) / h,
 *                             the step that led to the frame (NaN in a run's first frame)
 *   /observables/particle_number/{step, time, value[frame]}
 *   /observables/stress/{step, time, value[k][2][2]}    with -stress: the contact stress
 *                             of each -progress sample (contacts.c), row i column j
 *                             sigma_ij; pressure, packing_fraction, contact_number and
 *                             contact_number_no_rattlers (contacts.c's z_nr)
 *                             /{step, time, value[k]} (step, time: hard links to stress's)
 *   /parameters/throng        options in force, versions, git revision, ranks, wall time
 * value datasets are chunked and extendible in both the frame and the row dimension:
 * the number of disks may change between frames (crowds leave); unused rows hold the
 * fill values (NaN, id -1).  Row k of a frame is the disk with the k-th smallest id
 * (idorder.c), so the file does not depend on the rank count.
 *
 * Every write is collective (H5FD_MPIO_COLLECTIVE) and every rank calls H5Dwrite, also
 * with zero rows (HDF5 1.10 needs all ranks in a collective write); a frame with no disk
 * at all skips the value datasets, which HDF5 1.10 cannot write collectively when empty.
 * Each rank's rows are one contiguous hyperslab, so by default the collective call lets
 * every rank write its own piece (H5FD_MPIO_INDIVIDUAL_IO): MPI-IO's two-phase
 * aggregation only added copies on one node (slower in jobs/bench_io.sh); on a parallel file system
 * with many ranks per file stripe, -io_collective_buffering turns it on.
 * A chunk holds one frame (up to 2^22 rows) and is never pre-filled (parallel HDF5
 * allocates chunks early and would otherwise write every frame twice); rows beyond a
 * frame's disks are written.  A frame allocates little: the id-ordered records, and one
 * column buffer packed anew for each dataset (fresh pages are costly to fault in).
 * After a frame the file is flushed (-output_flush_every seconds apart at most; a flush is
 * an fsync) and rank 0 rewrites the XDMF 2 sidecar (ParaView
 * 5.11's XDMF 3 reader crashes on Polyvertex grids; its XDMF 2 reader works) (via a
 * temporary file and rename), so ParaView can open a running job at any time.         */
#include <throng/io/io.h>
#include <throng/core/idorder.h>
#include <string.h>
#include <stdlib.h>

/* An extendible series: value[frame][row](x2), chunked, with a fill value. */
static PetscErrorCode CreateValue(MPI_Comm comm, hid_t grp, int ncomp, hid_t type, const void *fill, hsize_t chunkRows,
                                  hid_t *ds)
{
  const int rank    = ncomp > 1 ? 3 : 2;
  hsize_t   dims[3] = {0, 0, (hsize_t)ncomp}, maxd[3] = {H5S_UNLIMITED, H5S_UNLIMITED, (hsize_t)ncomp},
          chunk[3] = {1, chunkRows, (hsize_t)ncomp};
  hid_t sp, dcpl;
  PetscFunctionBeginUser;
  PetscCallHDF5(comm, sp = H5Screate_simple(rank, dims, maxd));
  PetscCallHDF5(comm, dcpl = H5Pcreate(H5P_DATASET_CREATE));
  PetscCallHDF5(comm, H5Pset_chunk(dcpl, rank, chunk));
  PetscCallHDF5(comm, H5Pset_fill_value(dcpl, type, fill));
  /* Parallel HDF5 allocates chunks early; with a fill time it would write every frame
     twice (fill, then data). Rows beyond a frame's disks are written explicitly.     */
  PetscCallHDF5(comm, H5Pset_fill_time(dcpl, H5D_FILL_TIME_NEVER));
  PetscCallHDF5(comm, *ds = H5Dcreate2(grp, "value", type, sp, H5P_DEFAULT, dcpl, H5P_DEFAULT));
  PetscCallHDF5(comm, H5Pclose(dcpl));
  PetscCallHDF5(comm, H5Sclose(sp));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CreateSeries1(MPI_Comm comm, hid_t grp, const char *name, hid_t type, hid_t *ds)
{
  hsize_t dims = 0, maxd = H5S_UNLIMITED, chunk = 256;
  hid_t   sp, dcpl;
  PetscFunctionBeginUser;
  PetscCallHDF5(comm, sp = H5Screate_simple(1, &dims, &maxd));
  PetscCallHDF5(comm, dcpl = H5Pcreate(H5P_DATASET_CREATE));
  PetscCallHDF5(comm, H5Pset_chunk(dcpl, 1, &chunk));
  PetscCallHDF5(comm, *ds = H5Dcreate2(grp, name, type, sp, H5P_DEFAULT, dcpl, H5P_DEFAULT));
  PetscCallHDF5(comm, H5Pclose(dcpl));
  PetscCallHDF5(comm, H5Sclose(sp));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode IoReserveFrames(PetscInt n, PetscInt *cap, PetscInt **fstep, PetscReal **ftime, PetscInt64 **fcount)
{
  PetscFunctionBeginUser;
  if (n <= *cap) PetscFunctionReturn(PETSC_SUCCESS);
  n = PetscMax(n, 2 * *cap + 16);
  PetscCall(PetscRealloc(sizeof(PetscInt) * n, fstep));
  PetscCall(PetscRealloc(sizeof(PetscReal) * n, ftime));
  PetscCall(PetscRealloc(sizeof(PetscInt64) * n, fcount));
  *cap = n;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode ReserveFrames(H5MDWriter *w, PetscInt n)
{
  PetscFunctionBeginUser;
  PetscCall(IoReserveFrames(n, &w->cap, &w->fstep, &w->ftime, &w->fcount));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A series of samples with their own steps: value[k](shape), extendible in k. */
static PetscErrorCode CreateSeriesShaped(MPI_Comm comm, hid_t grp, const char *name, hid_t type, int nd,
                                         const hsize_t *shape, hid_t *ds)
{
  hsize_t dims[3] = {0, 0, 0}, maxd[3] = {H5S_UNLIMITED, 0, 0}, chunk[3] = {64, 1, 1};
  hid_t   sp, dcpl;
  PetscFunctionBeginUser;
  for (int a = 0; a < nd; a++) dims[1 + a] = maxd[1 + a] = chunk[1 + a] = shape[a];
  PetscCallHDF5(comm, sp = H5Screate_simple(1 + nd, dims, maxd));
  PetscCallHDF5(comm, dcpl = H5Pcreate(H5P_DATASET_CREATE));
  PetscCallHDF5(comm, H5Pset_chunk(dcpl, 1 + nd, chunk));
  PetscCallHDF5(comm, *ds = H5Dcreate2(grp, name, type, sp, H5P_DEFAULT, dcpl, H5P_DEFAULT));
  PetscCallHDF5(comm, H5Pclose(dcpl));
  PetscCallHDF5(comm, H5Sclose(sp));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* -stress: the time series of the contact stress (contacts.c), created in a new file or
   in one reopened that has none; a reopened file keeps its samples up to step from.  */
static PetscErrorCode StressSeriesSetUp(H5MDWriter *w, PetscBool reopen, PetscInt from)
{
  MPI_Comm      comm    = w->comm;
  const char   *alias[] = {"pressure", "packing_fraction", "contact_number", "contact_number_no_rattlers"};
  hid_t        *ds[]    = {&w->spres, &w->sphi, &w->sz, &w->sznr};
  const hsize_t two[2]  = {2, 2};
  PetscFunctionBeginUser;
  if (reopen && H5Lexists(w->file, "/observables/stress", H5P_DEFAULT) > 0) {
    hid_t   sp;
    hsize_t n;
    int    *st;
    PetscCallHDF5(comm, w->sstep = H5Dopen2(w->file, "/observables/stress/step", H5P_DEFAULT));
    PetscCallHDF5(comm, w->stime = H5Dopen2(w->file, "/observables/stress/time", H5P_DEFAULT));
    PetscCallHDF5(comm, w->sval = H5Dopen2(w->file, "/observables/stress/value", H5P_DEFAULT));
    for (int k = 0; k < 4; k++) {
      char path[64];
      PetscCall(PetscSNPrintf(path, sizeof(path), "/observables/%s/value", alias[k]));
      PetscCallHDF5(comm, *ds[k] = H5Dopen2(w->file, path, H5P_DEFAULT));
    }
    PetscCallHDF5(comm, sp = H5Dget_space(w->sstep));
    PetscCallHDF5(comm, H5Sget_simple_extent_dims(sp, &n, NULL));
    PetscCallHDF5(comm, H5Sclose(sp));
    PetscCall(PetscMalloc1(n + 1, &st));
    if (n) PetscCallHDF5(comm, H5Dread(w->sstep, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, st));
    w->nstress = 0;
    while (w->nstress < (PetscInt)n && st[w->nstress] <= from) w->nstress++; /* the restart writes the rest anew */
    PetscCall(PetscFree(st));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  {
    hid_t obs, g;
    PetscCallHDF5(comm, obs = H5Gopen2(w->file, "/observables", H5P_DEFAULT));
    PetscCallHDF5(comm, g = H5Gcreate2(obs, "stress", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
    PetscCall(CreateSeriesShaped(comm, g, "step", H5T_NATIVE_INT, 0, NULL, &w->sstep));
    PetscCall(CreateSeriesShaped(comm, g, "time", H5T_NATIVE_DOUBLE, 0, NULL, &w->stime));
    PetscCall(CreateSeriesShaped(comm, g, "value", H5T_NATIVE_DOUBLE, 2, two, &w->sval));
    PetscCallHDF5(comm, H5Gclose(g));
    for (int k = 0; k < 4; k++) {
      PetscCallHDF5(comm, g = H5Gcreate2(obs, alias[k], H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
      PetscCall(CreateSeriesShaped(comm, g, "value", H5T_NATIVE_DOUBLE, 0, NULL, ds[k]));
      PetscCallHDF5(comm, H5Lcreate_hard(w->file, "/observables/stress/step", g, "step", H5P_DEFAULT, H5P_DEFAULT));
      PetscCallHDF5(comm, H5Lcreate_hard(w->file, "/observables/stress/time", g, "time", H5P_DEFAULT, H5P_DEFAULT));
      PetscCallHDF5(comm, H5Gclose(g));
    }
    PetscCallHDF5(comm, H5Gclose(obs));
    w->nstress = 0;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Element k of a time series (n values; what names it in an error): the series is
   extended to k + 1 and rank 0 writes the element within a collective call, the others
   selecting nothing; every rank reports its status.                                 */
static PetscErrorCode AppendElement(H5MDWriter *w, hid_t ds, hid_t type, hsize_t k, hsize_t n, const void *v,
                                    const char *what)
{
  MPI_Comm    comm = w->comm;
  PetscMPIInt rank;
  hsize_t     dims[3], start[3] = {k, 0, 0}, cnt[3] = {1, 1, 1};
  hid_t       fs, ms;
  int         nd;
  herr_t      e;
  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCallHDF5(comm, fs = H5Dget_space(ds));
  PetscCallHDF5(comm, nd = H5Sget_simple_extent_dims(fs, dims, NULL));
  PetscCallHDF5(comm, H5Sclose(fs));
  dims[0] = k + 1;
  for (int a = 1; a < nd; a++) cnt[a] = dims[a];
  PetscCallHDF5(comm, H5Dset_extent(ds, dims));
  PetscCallHDF5(comm, fs = H5Dget_space(ds));
  PetscCallHDF5(comm, ms = H5Screate_simple(1, &n, NULL));
  if (!rank) e = IoInjectFault(comm, "series") ? -1 : H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, cnt, NULL);
  else e = H5Sselect_none(fs) < 0 || H5Sselect_none(ms) < 0 ? -1 : 0;
  {
    int bad = e < 0;
    PetscCall(IoAgree(comm, &bad));
    PetscCheck(!bad, comm, PETSC_ERR_LIB, "HDF5: cannot select the element of %s %d in a time series of '%s'", what,
               (int)k, w->h5);
  }
  PetscCallHDF5Agree(comm, H5Dwrite(ds, type, ms, fs, w->dxpl, v), "writing a time series");
  PetscCallHDF5(comm, H5Sclose(ms));
  PetscCallHDF5(comm, H5Sclose(fs));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode H5MDWriteStress(H5MDWriter *w, const Sim *s)
{
  const Stress *st = &s->stress;
  const hsize_t k  = (hsize_t)w->nstress;
  const int     sp = (int)s->step;
  const double  tm = (double)s->time;
  PetscFunctionBeginUser;
  if (!w->file || !w->sval || st->sampleStep != s->step) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscLogEventBegin(THRONG_EV.io, 0, 0, 0, 0));
  PetscCall(AppendElement(w, w->sstep, H5T_NATIVE_INT, k, 1, &sp, "stress sample"));
  PetscCall(AppendElement(w, w->stime, H5T_NATIVE_DOUBLE, k, 1, &tm, "stress sample"));
  PetscCall(AppendElement(w, w->sval, H5T_NATIVE_DOUBLE, k, 4, st->sample, "stress sample"));
  PetscCall(AppendElement(w, w->spres, H5T_NATIVE_DOUBLE, k, 1, &st->sample[4], "stress sample"));
  PetscCall(AppendElement(w, w->sphi, H5T_NATIVE_DOUBLE, k, 1, &st->sample[5], "stress sample"));
  PetscCall(AppendElement(w, w->sz, H5T_NATIVE_DOUBLE, k, 1, &st->sample[6], "stress sample"));
  PetscCall(AppendElement(w, w->sznr, H5T_NATIVE_DOUBLE, k, 1, &st->sample[7], "stress sample"));
  w->nstress++;
  PetscCall(PetscLogEventEnd(THRONG_EV.io, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The XDMF 2 document of the flushed frames. */
static void XdmfBody(FILE *f, const H5MDWriter *w)
{
  fprintf(f, "<?xml version=\"1.0\" ?>\n<!DOCTYPE Xdmf SYSTEM \"Xdmf.dtd\" []>\n<Xdmf Version=\"2.0\">\n <Domain>\n");
  fprintf(f, "  <Grid Name=\"disks\" GridType=\"Collection\" CollectionType=\"Temporal\">\n");
  for (PetscInt k = 0; k < w->flushed; k++) {
    const long long n = (long long)w->fcount[k], F = (long long)w->flushed, M = (long long)w->nmax;
    if (n == 0) continue;
    fprintf(f, "   <Grid Name=\"step %d\" GridType=\"Uniform\">\n    <Time Value=\"%.17g\"/>\n", (int)w->fstep[k],
            (double)w->ftime[k]);
    fprintf(f, "    <Topology TopologyType=\"Polyvertex\" NumberOfElements=\"%lld\"/>\n", n);
    PetscInt zf = -1; /* floors (floors.c): (xs, ys, z), the floors stacked */
    for (PetscInt e = 0; e < w->nx; e++)
      if (!strcmp(w->xname[e], "z")) zf = e;
    if (zf < 0) {
      fprintf(f, "    <Geometry GeometryType=\"XY\">\n     <DataItem ItemType=\"HyperSlab\" Dimensions=\"%lld 2\">\n",
              n);
      fprintf(f, "      <DataItem Dimensions=\"3 3\" Format=\"XML\">%d 0 0 1 1 1 1 %lld 2</DataItem>\n", (int)k, n);
      fprintf(f,
              "      <DataItem Dimensions=\"%lld %lld 2\" NumberType=\"Float\" Precision=\"8\" "
              "Format=\"HDF\">%s:/particles/disks/position/value</DataItem>\n     </DataItem>\n    </Geometry>\n",
              F, M, w->h5base);
    } else {
      fprintf(f, "    <Geometry GeometryType=\"X_Y_Z\">\n");
      for (int c = 0; c < 3; c++) {
        fprintf(f, "     <DataItem ItemType=\"HyperSlab\" Dimensions=\"%lld\">\n", n);
        fprintf(f, "      <DataItem Dimensions=\"3 2\" Format=\"XML\">%d 0 1 1 1 %lld</DataItem>\n", (int)k, n);
        fprintf(f,
                "      <DataItem Dimensions=\"%lld %lld\" NumberType=\"Float\" Precision=\"8\" "
                "Format=\"HDF\">%s:/particles/disks/%s/value</DataItem>\n     </DataItem>\n",
                F, M, w->h5base,
                c == 0   ? "xs"
                : c == 1 ? "ys"
                         : "z");
      }
      fprintf(f, "    </Geometry>\n");
    }
    const char *names[2 + PARTICLES_MAX_FIELDS] = {"radius", "id"}, *types[2 + PARTICLES_MAX_FIELDS] = {"Float", "Int"};
    for (PetscInt e = 0; e < w->nx; e++) names[2 + e] = w->xname[e], types[2 + e] = w->xint[e] ? "Int" : "Float";
    for (PetscInt a = 0; a < 2 + w->nx; a++) {
      fprintf(f,
              "    <Attribute Name=\"%s\" AttributeType=\"Scalar\" Center=\"Node\">\n     <DataItem "
              "ItemType=\"HyperSlab\" Dimensions=\"%lld\">\n",
              names[a], n);
      fprintf(f, "      <DataItem Dimensions=\"3 2\" Format=\"XML\">%d 0 1 1 1 %lld</DataItem>\n", (int)k, n);
      fprintf(f,
              "      <DataItem Dimensions=\"%lld %lld\" NumberType=\"%s\" Precision=\"8\" "
              "Format=\"HDF\">%s:/particles/disks/%s/value</DataItem>\n     </DataItem>\n    </Attribute>\n",
              F, M, types[a], w->h5base, names[a]);
    }
    fprintf(f,
            "    <Attribute Name=\"velocity\" AttributeType=\"Vector\" Center=\"Node\">\n     <DataItem "
            "ItemType=\"HyperSlab\" Dimensions=\"%lld 2\">\n",
            n);
    fprintf(f, "      <DataItem Dimensions=\"3 3\" Format=\"XML\">%d 0 0 1 1 1 1 %lld 2</DataItem>\n", (int)k, n);
    fprintf(f,
            "      <DataItem Dimensions=\"%lld %lld 2\" NumberType=\"Float\" Precision=\"8\" "
            "Format=\"HDF\">%s:/particles/disks/velocity/value</DataItem>\n     </DataItem>\n    </Attribute>\n",
            F, M, w->h5base);
    fprintf(f, "   </Grid>\n");
  }
  fprintf(f, "  </Grid>\n </Domain>\n</Xdmf>\n");
}

static void XdmfBodyOf(FILE *f, const void *w) { XdmfBody(f, (const H5MDWriter *)w); }

static PetscErrorCode WriteXdmf(H5MDWriter *w)
{
  PetscFunctionBeginUser;
  PetscCall(IoWriteSidecar(w->comm, w->xdmf, XdmfBodyOf, w));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static inline PetscReal MinimumImage(PetscReal e, PetscReal L) { return e - L * round(e / L); }

/* The snapshot fields beyond position, radius, id and velocity: each is written as its
   own H5MD element, /particles/disks/NAME/value, and is an attribute in the XDMF. */
static PetscErrorCode ExtraFields(H5MDWriter *w, const Sim *s)
{
  const Particles *p = &s->P;
  PetscFunctionBeginUser;
  w->nx = 0;
  for (PetscInt k = 0; k < p->nfield; k++) {
    const char *nm = p->field[k].name;
    if (!(p->field[k].flags & FIELD_SNAPSHOT) || k == PF_ID || k == PF_X || k == PF_Y || k == PF_R ||
        !strcmp(nm, "vx") || !strcmp(nm, "vy"))
      continue;
    w->xfield[w->nx] = k;
    w->xint[w->nx]   = p->field[k].type == FIELD_INT64 ? PETSC_TRUE : PETSC_FALSE;
    PetscCall(PetscStrncpy(w->xname[w->nx], nm, sizeof(w->xname[0])));
    w->nx++;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode Extend(MPI_Comm comm, hid_t ds, hsize_t frames, hsize_t rows)
{
  hsize_t dims[3] = {frames, rows, 2};
  PetscFunctionBeginUser;
  PetscCallHDF5(comm, H5Dset_extent(ds, dims)); /* reads as many dims as ds has */
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A restart: every series of the file cut back to what the checkpoint's run had written
   by its step (w->frames frames, w->nstress stress samples), and the cut flushed at once.
   The flush matters: parallel HDF5 1.10 prunes the chunk that a shrink cuts through in
   its chunk cache (the rows beyond the new end set to the fill value) and writes it back
   at the next flush or extension; without the flush here that write-back lands after,
   and over, the first rows the restarted run writes into the chunk (the first record
   after the checkpoint came out zeroed: issue 44).  Collective. */
static PetscErrorCode CutSeries(H5MDWriter *w)
{
  MPI_Comm      comm = w->comm;
  const hsize_t n1   = (hsize_t)w->frames;
  PetscFunctionBeginUser;
  PetscCall(Extend(comm, w->pos, n1, (hsize_t)w->nmax));
  PetscCall(Extend(comm, w->rad, n1, (hsize_t)w->nmax));
  PetscCall(Extend(comm, w->idv, n1, (hsize_t)w->nmax));
  PetscCall(Extend(comm, w->vel, n1, (hsize_t)w->nmax));
  for (PetscInt e = 0; e < w->nx; e++) PetscCall(Extend(comm, w->xds[e], n1, (hsize_t)w->nmax));
  PetscCallHDF5(comm, H5Dset_extent(w->step, &n1));
  PetscCallHDF5(comm, H5Dset_extent(w->time, &n1));
  PetscCallHDF5(comm, H5Dset_extent(w->count, &n1));
  if (w->sval) {
    hid_t         ds[7] = {w->sstep, w->stime, w->sval, w->spres, w->sphi, w->sz, w->sznr};
    const hsize_t ns[3] = {(hsize_t)w->nstress, 2, 2};
    for (int k = 0; k < 7; k++) PetscCallHDF5(comm, H5Dset_extent(ds[k], ns));
  }
  PetscCallHDF5Agree(comm, H5Fflush(w->file, H5F_SCOPE_GLOBAL), "flushing the snapshot file");
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A restart: reopen the run's snapshot file and keep its frames up to step `from`. */
static PetscErrorCode Reopen(MPI_Comm comm, const Sim *s, PetscInt from, H5MDWriter *w)
{
  PetscFunctionBeginUser;
  PetscCall(IoOpenFile(comm, w->h5, PETSC_FALSE, &w->file));
  PetscCallHDF5(comm, w->pos = H5Dopen2(w->file, "/particles/disks/position/value", H5P_DEFAULT));
  PetscCallHDF5(comm, w->rad = H5Dopen2(w->file, "/particles/disks/radius/value", H5P_DEFAULT));
  PetscCallHDF5(comm, w->idv = H5Dopen2(w->file, "/particles/disks/id/value", H5P_DEFAULT));
  PetscCallHDF5(comm, w->vel = H5Dopen2(w->file, "/particles/disks/velocity/value", H5P_DEFAULT));
  PetscCallHDF5(comm, w->step = H5Dopen2(w->file, "/particles/disks/position/step", H5P_DEFAULT));
  PetscCallHDF5(comm, w->time = H5Dopen2(w->file, "/particles/disks/position/time", H5P_DEFAULT));
  PetscCallHDF5(comm, w->count = H5Dopen2(w->file, "/observables/particle_number/value", H5P_DEFAULT));
  PetscCall(ExtraFields(w, s));
  for (PetscInt e = 0; e < w->nx; e++) {
    char path[64];
    int  bad;
    PetscCall(PetscSNPrintf(path, sizeof(path), "/particles/disks/%s/value", w->xname[e]));
    w->xds[e] = H5Lexists(w->file, "/particles/disks", H5P_DEFAULT) > 0 && H5Lexists(w->file, path, H5P_DEFAULT) > 0
                  ? H5Dopen2(w->file, path, H5P_DEFAULT)
                  : -1;
    bad       = w->xds[e] < 0;
    PetscCall(IoAgree(comm, &bad));
    PetscCheck(!bad, comm, PETSC_ERR_FILE_UNEXPECTED,
               "snapshot file '%s' has no per-disk field '%s' to continue: it was written without it", w->h5,
               w->xname[e]);
  }
  { /* keep the frames up to step `from`: the restart continues from there */
    hid_t   sp;
    hsize_t dims[3];
    PetscCallHDF5(comm, sp = H5Dget_space(w->pos));
    PetscCallHDF5(comm, H5Sget_simple_extent_dims(sp, dims, NULL));
    PetscCallHDF5(comm, H5Sclose(sp));
    w->nmax = (PetscInt64)dims[1];
    PetscCall(ReserveFrames(w, (PetscInt)dims[0] + 1));
    if (dims[0]) {
      PetscCallHDF5(comm, H5Dread(w->step, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, w->fstep));
      PetscCallHDF5(comm, H5Dread(w->time, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, w->ftime));
      PetscCallHDF5(comm, H5Dread(w->count, H5T_NATIVE_LLONG, H5S_ALL, H5S_ALL, H5P_DEFAULT, w->fcount));
    }
    while (w->frames < (PetscInt)dims[0] && w->fstep[w->frames] <= from) w->frames++;
    w->flushed = w->frames;
  }
  if (s->prm.stress) PetscCall(StressSeriesSetUp(w, PETSC_TRUE, from));
  PetscCall(CutSeries(w));
  PetscCall(WriteXdmf(w));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The H5MD box edges: (L_x, L_y), or for a sheared box (deform.c) the matrix of its edge
   vectors, rows (L_x, 0) and (tilt, L_y). */
static void BoxEdges(const Sim *s, double e[4])
{
  const double Lx = s->dom.hi[0] - s->dom.lo[0], Ly = s->dom.hi[1] - s->dom.lo[1];
  if (s->prm.shearRate != 0) e[0] = Lx, e[1] = 0, e[2] = s->dom.tilt, e[3] = Ly;
  else e[0] = Lx, e[1] = Ly, e[2] = e[3] = 0;
}

PetscErrorCode H5MDOpen(MPI_Comm comm, const char *prefix, const Sim *s, PetscBool append, PetscInt from, H5MDWriter *w)
{
  const double    nanv   = NAN;
  const long long negone = -1;
  hid_t           g, gp;
  const char     *slash;

  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(w, sizeof(*w)));
  w->comm       = comm;
  w->flushEvery = s->prm.flushEvery;
  { /* a frame is written in rounds of ids, -output_round records per rank each: the
       records in flight (gathered, sent, received, packed) stay bounded whatever the
       number of disks, and the rows and values do not depend on it                   */
    PetscMPIInt size;
    PetscCallMPI(MPI_Comm_size(comm, &size));
    w->round = (PetscInt64)s->prm.outputRound * size;
  }
  w->lastFlush = -1e30; /* the first frame is flushed at once */
  PetscCall(PetscSNPrintf(w->h5, sizeof(w->h5), "%s.h5", prefix));
  PetscCall(PetscSNPrintf(w->xdmf, sizeof(w->xdmf), "%s.xdmf", prefix));
  slash = strrchr(w->h5, '/');
  PetscCall(PetscStrncpy(w->h5base, slash ? slash + 1 : w->h5, sizeof(w->h5base))); /* the XDMF sits beside the .h5 */
  PetscCall(IoTransferProperties(comm, s->prm.ioTwoPhase, &w->dxpl));
  if (append) PetscCall(IoFileExists(comm, w->h5, &append)); /* a restart continues the run's snapshot file, if any */
  w->appended = append;
  if (append) {
    PetscCall(Reopen(comm, s, from, w));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(IoOpenFile(comm, w->h5, PETSC_TRUE, &w->file));
  { /* /h5md */
    const int version[2] = {1, 1};
    hid_t     a, c;
    PetscCallHDF5(comm, g = H5Gcreate2(w->file, "h5md", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
    PetscCall(IoWriteAttr(comm, g, "version", H5T_NATIVE_INT, 2, version));
    PetscCallHDF5(comm, a = H5Gcreate2(g, "author", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
    PetscCall(IoWriteStringAttr(comm, a, "name", "throng user"));
    PetscCallHDF5(comm, H5Gclose(a));
    PetscCallHDF5(comm, c = H5Gcreate2(g, "creator", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
    PetscCall(IoWriteStringAttr(comm, c, "name", "throng"));
    PetscCall(IoWriteStringAttr(comm, c, "version", THRONG_VERSION));
    PetscCallHDF5(comm, H5Gclose(c));
    PetscCallHDF5(comm, H5Gclose(g));
  }
  { /* /parameters/throng */
    hid_t p;
    PetscCallHDF5(comm, gp = H5Gcreate2(w->file, "parameters", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
    PetscCallHDF5(comm, p = H5Gcreate2(gp, "throng", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
    PetscCall(IoWriteMetadata(comm, p));
    PetscCallHDF5(comm, H5Gclose(p));
    PetscCallHDF5(comm, H5Gclose(gp));
  }
  {
    hid_t         parts, disks, box, sub;
    const int     dim = 2;
    double        edges[4];
    const hsize_t chunkRows =
      (hsize_t)PetscMax(1, PetscMin(s->prm.n, 1 << 22)); /* a frame is one chunk up to 4M disks */
    PetscCallHDF5(comm, parts = H5Gcreate2(w->file, "particles", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
    PetscCallHDF5(comm, disks = H5Gcreate2(parts, "disks", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
    PetscCallHDF5(comm, box = H5Gcreate2(disks, "box", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
    PetscCall(IoWriteAttr(comm, box, "dimension", H5T_NATIVE_INT, 0, &dim));
    {
      hid_t   t, sp, a;
      hsize_t two       = 2;
      char    bnd[2][9] = {"none", "none"};
      for (int a = 0; a < 2; a++)
        if (s->dom.per[a]) PetscCall(PetscStrncpy(bnd[a], "periodic", sizeof(bnd[a])));
      PetscCallHDF5(comm, t = H5Tcopy(H5T_C_S1));
      PetscCallHDF5(comm, H5Tset_size(t, 9));
      PetscCallHDF5(comm, sp = H5Screate_simple(1, &two, NULL));
      PetscCallHDF5(comm, a = H5Acreate2(box, "boundary", t, sp, H5P_DEFAULT, H5P_DEFAULT));
      PetscCallHDF5(comm, H5Awrite(a, t, bnd));
      PetscCallHDF5(comm, H5Aclose(a));
      PetscCallHDF5(comm, H5Sclose(sp));
      PetscCallHDF5(comm, H5Tclose(t));
    }
    {
      hid_t   sp, d;
      hsize_t two[2] = {2, 2};
      BoxEdges(s, edges); /* a sheared box: the matrix of its edge vectors, rows (L_x, 0), (tilt, L_y) */
      PetscCallHDF5(comm, sp = H5Screate_simple(s->prm.shearRate != 0 ? 2 : 1, two, NULL));
      PetscCallHDF5(comm, d = H5Dcreate2(box, "edges", H5T_NATIVE_DOUBLE, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
      PetscCallHDF5(comm, H5Dwrite(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, w->dxpl, edges));
      PetscCallHDF5(comm, H5Dclose(d));
      PetscCallHDF5(comm, H5Sclose(sp));
      PetscCall(IoWriteAttr(comm, box, "offset", H5T_NATIVE_DOUBLE, 2, s->dom.lo));
    }
    PetscCallHDF5(comm, H5Gclose(box));
    PetscCallHDF5(comm, sub = H5Gcreate2(disks, "position", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
    PetscCall(CreateValue(comm, sub, 2, H5T_NATIVE_DOUBLE, &nanv, chunkRows, &w->pos));
    PetscCall(CreateSeries1(comm, sub, "step", H5T_NATIVE_INT, &w->step));
    PetscCall(CreateSeries1(comm, sub, "time", H5T_NATIVE_DOUBLE, &w->time));
    PetscCallHDF5(comm, H5Gclose(sub));
    const char *other[3 + PARTICLES_MAX_FIELDS] = {"radius", "id", "velocity"};
    PetscCall(ExtraFields(w, s));
    for (PetscInt e = 0; e < w->nx; e++) other[3 + e] = w->xname[e];
    for (PetscInt k = 0; k < 3 + w->nx; k++) {
      const PetscBool isInt = k == 1 || (k >= 3 && w->xint[k - 3]);
      PetscCallHDF5(comm, sub = H5Gcreate2(disks, other[k], H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
      if (k == 2) PetscCall(CreateValue(comm, sub, 2, H5T_NATIVE_DOUBLE, &nanv, chunkRows, &w->vel));
      else
        PetscCall(CreateValue(comm, sub, 1, isInt ? H5T_NATIVE_LLONG : H5T_NATIVE_DOUBLE,
                              isInt ? (const void *)&negone : (const void *)&nanv, chunkRows,
                              k == 0   ? &w->rad
                              : k == 1 ? &w->idv
                                       : &w->xds[k - 3]));
      PetscCallHDF5(comm,
                    H5Lcreate_hard(w->file, "/particles/disks/position/step", sub, "step", H5P_DEFAULT, H5P_DEFAULT));
      PetscCallHDF5(comm,
                    H5Lcreate_hard(w->file, "/particles/disks/position/time", sub, "time", H5P_DEFAULT, H5P_DEFAULT));
      PetscCallHDF5(comm, H5Gclose(sub));
    }
    PetscCallHDF5(comm, H5Gclose(disks));
    PetscCallHDF5(comm, H5Gclose(parts));
    PetscCallHDF5(comm, g = H5Gcreate2(w->file, "observables", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
    PetscCallHDF5(comm, sub = H5Gcreate2(g, "particle_number", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
    PetscCall(CreateSeries1(comm, sub, "value", H5T_NATIVE_LLONG, &w->count));
    PetscCallHDF5(comm,
                  H5Lcreate_hard(w->file, "/particles/disks/position/step", sub, "step", H5P_DEFAULT, H5P_DEFAULT));
    PetscCallHDF5(comm,
                  H5Lcreate_hard(w->file, "/particles/disks/position/time", sub, "time", H5P_DEFAULT, H5P_DEFAULT));
    PetscCallHDF5(comm, H5Gclose(sub));
    PetscCallHDF5(comm, H5Gclose(g));
  }
  if (s->prm.stress) PetscCall(StressSeriesSetUp(w, PETSC_FALSE, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Write rows [offset, offset + count) of frame f (every rank calls, count may be 0). */
static PetscErrorCode WriteRows(MPI_Comm comm, hid_t ds, hid_t dxpl, hid_t memtype, int ncomp, hsize_t f,
                                PetscInt64 offset, PetscInt count, const void *buf)
{
  const hsize_t start[3] = {f, (hsize_t)offset, 0}, cnt[3] = {1, (hsize_t)count, (hsize_t)ncomp};
  PetscFunctionBeginUser;
  PetscCall(IoWriteHyperslab(comm, ds, dxpl, memtype, ncomp > 1 ? 3 : 2, start, cnt, buf));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Fill values (NaN, id -1) into rows [a, b) of frames [f0, f1), written by the last
   rank inside collective calls: the datasets are never pre-filled.                    */
static PetscErrorCode FillRows(H5MDWriter *w, hsize_t f0, hsize_t f1, PetscInt64 a, PetscInt64 b)
{
  MPI_Comm    comm = w->comm;
  PetscMPIInt rank, size;
  PetscInt    m;
  PetscReal  *nanv;
  long long  *neg;
  PetscFunctionBeginUser;
  if (b <= a || f1 <= f0) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCallMPI(MPI_Comm_size(comm, &size));
  m = rank == size - 1 ? (PetscInt)(b - a) : 0;
  PetscCall(PetscMalloc2(2 * m + 2, &nanv, m + 1, &neg));
  for (PetscInt i = 0; i < 2 * m; i++) nanv[i] = NAN;
  for (PetscInt i = 0; i < m; i++) neg[i] = -1;
  for (hsize_t f = f0; f < f1; f++) {
    PetscCall(WriteRows(comm, w->pos, w->dxpl, H5T_NATIVE_DOUBLE, 2, f, a, m, nanv));
    PetscCall(WriteRows(comm, w->vel, w->dxpl, H5T_NATIVE_DOUBLE, 2, f, a, m, nanv));
    PetscCall(WriteRows(comm, w->rad, w->dxpl, H5T_NATIVE_DOUBLE, 1, f, a, m, nanv));
    PetscCall(WriteRows(comm, w->idv, w->dxpl, H5T_NATIVE_LLONG, 1, f, a, m, neg));
    for (PetscInt e = 0; e < w->nx; e++)
      PetscCall(WriteRows(comm, w->xds[e], w->dxpl, w->xint[e] ? H5T_NATIVE_LLONG : H5T_NATIVE_DOUBLE, 1, f, a, m,
                          w->xint[e] ? (const void *)neg : (const void *)nanv));
  }
  PetscCall(PetscFree2(nanv, neg));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode H5MDWriteFrame(H5MDWriter *w, const Sim *s)
{
  MPI_Comm        comm  = w->comm;
  PetscInt64      total = s->P.n, M, rowBase = 0;
  PetscMPIInt     rank;
  const hsize_t   f        = (hsize_t)w->frames;
  const PetscInt  kv       = ParticlesFindField(&s->P, "vx"); /* a solver's own velocities (edmd) */
  const PetscBool withPrev = kv < 0 && w->prevXY && w->prevStep == s->step - 1 ? PETSC_TRUE : PETSC_FALSE;
  PetscInt64      base     = 0; /* this rank's first slot of the round in prevXY */
  PetscMPIInt     size;

  PetscFunctionBeginUser;
  PetscCall(PetscLogEventBegin(THRONG_EV.io, 0, 0, 0, 0));
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &total, 1, MPIU_INT64, MPI_SUM, comm));
  PetscCall(IdOrderEnd(comm, &s->P, &M));
  if (withPrev) M = PetscMax(M, w->prevM); /* the rounds and blocks of the previous state */
  const PetscInt64 oldmax = w->nmax;
  w->nmax                 = PetscMax(w->nmax, total);
  PetscCall(Extend(comm, w->pos, f + 1, (hsize_t)w->nmax));
  PetscCall(Extend(comm, w->rad, f + 1, (hsize_t)w->nmax));
  PetscCall(Extend(comm, w->idv, f + 1, (hsize_t)w->nmax));
  PetscCall(Extend(comm, w->vel, f + 1, (hsize_t)w->nmax));
  for (PetscInt e = 0; e < w->nx; e++) PetscCall(Extend(comm, w->xds[e], f + 1, (hsize_t)w->nmax));
  if (ParamsBoxMoves(&s->prm)) { /* a deforming box (deform.c): the edges of the latest frame */
    double edges[4];
    hid_t  d;
    BoxEdges(s, edges);
    PetscCallHDF5(comm, d = H5Dopen2(w->file, "/particles/disks/box/edges", H5P_DEFAULT));
    PetscCallHDF5(comm, H5Dwrite(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, w->dxpl, edges));
    PetscCallHDF5(comm, H5Dclose(d));
  }
  /* in rounds of ids: each round's disks are routed to their rows' ranks and written,
     so memory stays bounded by a round (RoundIds), not by the disks of the rank.  With
     the previous state the rounds below its id bound prevM are exactly its rounds (the
     velocity is a merge by id within a block); ids at and above prevM (disks that
     arrived since, from a source) follow in rounds of their own.  Rows stay in id
     order: rounds are consecutive ranges of ids.                                    */
  for (PetscInt64 ida = 0, idb; ida < M; ida = idb) {
    idb                 = PetscMin(withPrev && ida < w->prevM ? w->prevM : M, ida + w->round);
    const PetscInt64 lo = ida + ((PetscInt64)rank * (idb - ida) + size - 1) / size; /* this rank's block */
    const PetscInt64 hi = ida + ((PetscInt64)(rank + 1) * (idb - ida) + size - 1) / size;
    IoRecs           recs;
    PetscInt64       offset, tot;
    PetscCall(IdOrderGatherRange(comm, &s->P, FIELD_SNAPSHOT, ida, idb, &recs, &offset, &tot));
    PetscCheck(kv < 0 || (recs.word[kv] >= 0 && recs.word[kv + 1] >= 0), comm, PETSC_ERR_PLIB,
               "the velocity fields vx, vy must be consecutive snapshot fields");
    if (tot > 0) { /* HDF5 1.10 cannot write a globally empty selection collectively */
      /* one contiguous buffer, packed anew for each dataset: HDF5 writes a strided
         memory selection through a hidden copy of the same size anyway               */
      const PetscInt   count = recs.n;
      const PetscInt64 row   = rowBase + offset;
      PetscReal       *buf;
      long long       *ids;
      PetscCall(PetscMalloc1(2 * count + 2, &buf));
      ids = (long long *)buf;
      for (PetscInt i = 0; i < count; i++)
        buf[2 * i] = IoRecsReal(&recs, i, PF_X), buf[2 * i + 1] = IoRecsReal(&recs, i, PF_Y);
      PetscCall(WriteRows(comm, w->pos, w->dxpl, H5T_NATIVE_DOUBLE, 2, f, row, count, buf));
      /* the velocity: the solver's own, or (x_k - x_{k-1}) / h from the state one step
         earlier, gathered in the same rounds and blocks, also sorted: merge by id     */
      for (PetscInt i = 0; i < count; i++) {
        PetscReal vx = NAN, vy = NAN;
        if (kv >= 0) vx = IoRecsReal(&recs, i, kv), vy = IoRecsReal(&recs, i, kv + 1);
        else if (withPrev && ida < w->prevM) { /* NaN where the disk had no previous state */
          const PetscInt64 j  = base + IoRecsId(&recs, i) - lo;
          PetscReal        ex = IoRecsReal(&recs, i, PF_X) - w->prevXY[2 * j],
                    ey        = IoRecsReal(&recs, i, PF_Y) - w->prevXY[2 * j + 1];
          if (s->prm.shearRate != 0) { /* across the top of a sheared box x jumps by the tilt */
            const PetscReal Ly = s->dom.hi[1] - s->dom.lo[1], k = nearbyint(ey / Ly);
            ey -= k * Ly, ex -= k * s->dom.tilt;
          }
          if (s->dom.per[0]) ex = MinimumImage(ex, s->dom.hi[0] - s->dom.lo[0]); /* a wrap is not a velocity */
          if (s->dom.per[1]) ey = MinimumImage(ey, s->dom.hi[1] - s->dom.lo[1]);
          vx = ex / s->prm.dt;
          vy = ey / s->prm.dt;
        }
        buf[2 * i] = vx, buf[2 * i + 1] = vy;
      }
      PetscCall(WriteRows(comm, w->vel, w->dxpl, H5T_NATIVE_DOUBLE, 2, f, row, count, buf));
      for (PetscInt i = 0; i < count; i++) buf[i] = IoRecsReal(&recs, i, PF_R);
      PetscCall(WriteRows(comm, w->rad, w->dxpl, H5T_NATIVE_DOUBLE, 1, f, row, count, buf));
      for (PetscInt i = 0; i < count; i++) ids[i] = (long long)IoRecsId(&recs, i);
      PetscCall(WriteRows(comm, w->idv, w->dxpl, H5T_NATIVE_LLONG, 1, f, row, count, ids));
      for (PetscInt e = 0; e < w->nx; e++) { /* the other snapshot fields, bytewise from the records */
        const PetscInt k = w->xfield[e];
        for (PetscInt i = 0; i < count; i++) memcpy(&buf[i], recs.rec + (size_t)recs.words * i + recs.word[k], 8);
        PetscCall(WriteRows(comm, w->xds[e], w->dxpl, w->xint[e] ? H5T_NATIVE_LLONG : H5T_NATIVE_DOUBLE, 1, f, row,
                            count, buf));
      }
      PetscCall(PetscFree(buf));
    }
    rowBase += tot;
    base += hi - lo;
    PetscCall(IoRecsDestroy(&recs));
  }
  PetscCall(PetscFree(w->prevXY));
  w->prevCap = 0;
  PetscCall(FillRows(w, 0, f, oldmax, w->nmax));    /* earlier frames' new rows (N grew)    */
  PetscCall(FillRows(w, f, f + 1, total, w->nmax)); /* this frame's rows beyond its disks */
  { /* step, time, count: one element, written by rank 0 within a collective call */
    const int       st = (int)s->step;
    const double    tm = (double)s->time;
    const long long nn = (long long)total;
    hid_t series[3] = {w->step, w->time, w->count}, types[3] = {H5T_NATIVE_INT, H5T_NATIVE_DOUBLE, H5T_NATIVE_LLONG};
    const void *vals[3] = {&st, &tm, &nn};
    for (int k = 0; k < 3; k++) PetscCall(AppendElement(w, series[k], types[k], f, 1, vals[k], "frame"));
    PetscCall(ReserveFrames(w, w->frames + 1));
    w->fstep[w->frames]  = st;
    w->ftime[w->frames]  = tm;
    w->fcount[w->frames] = total;
    w->frames++;
  }
  { /* flush (an fsync) and refresh the XDMF at most every flushEvery seconds: rank 0's
       clock decides, so the collective H5Fflush is called by all ranks or by none    */
    PetscLogDouble now;
    int            flush;
    PetscCall(PetscTime(&now));
    flush = now - w->lastFlush >= w->flushEvery;
    PetscCallMPI(MPI_Bcast(&flush, 1, MPI_INT, 0, comm));
    if (flush) {
      PetscCall(PetscLogEventBegin(THRONG_EV.ioFlush, 0, 0, 0, 0));
      PetscCallHDF5Agree(comm, H5Fflush(w->file, H5F_SCOPE_GLOBAL), "flushing the snapshot file");
      w->flushed   = w->frames;
      w->lastFlush = now;
      PetscCall(WriteXdmf(w));
      PetscCall(PetscLogEventEnd(THRONG_EV.ioFlush, 0, 0, 0, 0));
    }
  }
  PetscCall(PetscLogEventEnd(THRONG_EV.io, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode H5MDClose(H5MDWriter *w, PetscReal wallTime)
{
  MPI_Comm comm = w->comm;
  hid_t    p;
  PetscFunctionBeginUser;
  if (!w->file) PetscFunctionReturn(PETSC_SUCCESS);
  if (w->sval) {
    hid_t ds[7] = {w->sstep, w->stime, w->sval, w->spres, w->sphi, w->sz, w->sznr};
    for (int k = 0; k < 7; k++) PetscCallHDF5(comm, H5Dclose(ds[k]));
    w->sval = 0;
  }
  PetscCallMPI(MPI_Bcast(&wallTime, 1, MPIU_REAL, 0, comm));
  PetscCallHDF5(comm, p = H5Gopen2(w->file, "/parameters/throng", H5P_DEFAULT));
  if (H5Aexists(p, "wall_time") > 0) PetscCallHDF5(comm, H5Adelete(p, "wall_time"));
  PetscCall(IoWriteAttr(comm, p, "wall_time", H5T_NATIVE_DOUBLE, 0, &wallTime));
  PetscCallHDF5(comm, H5Gclose(p));
  PetscCallHDF5(comm, H5Dclose(w->pos));
  PetscCallHDF5(comm, H5Dclose(w->rad));
  PetscCallHDF5(comm, H5Dclose(w->idv));
  PetscCallHDF5(comm, H5Dclose(w->vel));
  for (PetscInt e = 0; e < w->nx; e++) PetscCallHDF5(comm, H5Dclose(w->xds[e]));
  PetscCall(PetscFree(w->prevXY));
  PetscCallHDF5(comm, H5Dclose(w->step));
  PetscCallHDF5(comm, H5Dclose(w->time));
  PetscCallHDF5(comm, H5Dclose(w->count));
  PetscCallHDF5(comm, H5Pclose(w->dxpl));
  PetscCallHDF5Agree(comm, H5Fclose(w->file), "closing the snapshot file");
  w->file    = 0;
  w->flushed = w->frames;
  PetscCall(WriteXdmf(w));
  PetscCall(PetscFree(w->fstep));
  PetscCall(PetscFree(w->ftime));
  PetscCall(PetscFree(w->fcount));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode H5MDRememberPrevious(H5MDWriter *w, const Sim *s)
{
  MPI_Comm comm = w->comm;
  PetscFunctionBeginUser;
  PetscCall(PetscLogEventBegin(THRONG_EV.io, 0, 0, 0, 0));
  PetscCall(PetscFree(w->prevXY));
  w->prevCap = 0;
  PetscCall(IdOrderEnd(comm, &s->P, &w->prevM));
  {
    PetscMPIInt size, rank;
    PetscInt64  cap = 0, base = 0;
    PetscCallMPI(MPI_Comm_size(comm, &size));
    PetscCallMPI(MPI_Comm_rank(comm, &rank));
    for (PetscInt64 ida = 0; ida < w->prevM; ida += w->round) { /* a slot per id of this rank's blocks */
      const PetscInt64 m = PetscMin(w->prevM, ida + w->round) - ida;
      cap += ((PetscInt64)(rank + 1) * m + size - 1) / size - ((PetscInt64)rank * m + size - 1) / size;
    }
    w->prevCap = (PetscInt)cap;
    PetscCall(PetscMalloc1(2 * cap + 2, &w->prevXY));
    for (PetscInt64 k = 0; k < 2 * cap; k++) w->prevXY[k] = NAN;
    for (PetscInt64 ida = 0; ida < w->prevM; ida += w->round) {
      const PetscInt64 idb = PetscMin(w->prevM, ida + w->round);
      const PetscInt64 lo  = ida + ((PetscInt64)rank * (idb - ida) + size - 1) / size;
      const PetscInt64 hi  = ida + ((PetscInt64)(rank + 1) * (idb - ida) + size - 1) / size;
      IoRecs           recs;
      PetscInt64       offset, tot;
      PetscCall(IdOrderGatherRange(comm, &s->P, FIELD_SNAPSHOT, ida, idb, &recs, &offset, &tot));
      for (PetscInt i = 0; i < recs.n; i++) {
        const PetscInt64 j   = base + IoRecsId(&recs, i) - lo;
        w->prevXY[2 * j]     = IoRecsReal(&recs, i, PF_X);
        w->prevXY[2 * j + 1] = IoRecsReal(&recs, i, PF_Y);
      }
      base += hi - lo;
      PetscCall(IoRecsDestroy(&recs));
    }
  }
  w->prevStep = s->step;
  PetscCall(PetscLogEventEnd(THRONG_EV.io, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}
