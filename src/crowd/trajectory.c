/* trajectory — pedestrian trajectories in the Pedestrian Dynamics Data Archive's HDF5 layout.
 *
 * Crowd researchers analyse trajectories with PedPy (Jülich), which reads the layout of
 * the Pedestrian Dynamics Data Archive (ped.fz-juelich.de/da) directly:
 *   - a dataset `trajectory` at the root: a table of compound rows (id, frame, x, y), in
 *     metres, with an attribute `fps`, the frame rate;
 *   - an attribute `wkt_geometry` at the root: the walkable area as WKT, a variable-length
 *     UTF-8 string (h5py returns it as str; PedPy's WalkableArea takes a str as WKT and
 *     anything else as coordinates, so a fixed-length string, read as bytes, fails).
 *     Here: the geometry's walkable area joined with the doors' lanes, where agents walk
 *     on after their passage until they are removed (exits.c), so every row lies in it.
 * (PedPy's load_trajectory_from_ped_data_archive_hdf5 requires the dataset, the four
 * columns and the attribute fps; load_walkable_area_from_ped_data_archive_hdf5 requires
 * the root attribute, and WalkableArea one polygon: a walkable area of separate parts
 * is written as the MULTIPOLYGON it is, with a warning that PedPy will refuse it.)
 * -trajectory FILE writes it, at -trajectory_fps frames per second
 * of simulated time: frame k is the state at t = k / fps, which must be a whole number
 * of steps.  The rows of a frame are its agents in id order (idorder.c), so the file
 * does not depend on the rank count; frames follow each other.  The table grows by one
 * frame at a time (chunked, unlimited), written collectively by every rank's block of
 * rows.  The file is flushed like the snapshots (at most every -output_flush_every
 * seconds, rank 0's clock deciding for all) and always before a checkpoint is written,
 * so a run killed with SIGKILL leaves a readable file that holds at least every frame up
 * to its last checkpoint.  A restart reopens the file and drops the rows of frames after
 * the checkpoint's step (the frame column is sorted: a binary search finds where they
 * start), and flushes the cut at once: parallel HDF5 1.10 keeps the chunk a shrink cuts
 * through in its cache, filled beyond the new end, and would write it back over the
 * first frame the restart appends (io_h5md.c, CutSeries).  A file the checkpoint's run
 * wrote must still be there (checkpoint.c).  It refuses a file that is no trajectory of throng's, or one written at another
 * frame rate: its frame numbers would mean other times.
 * A scene of floors (floors.c) is written once whole (its walkable area the floors side
 * by side, a MULTIPOLYGON that PedPy's WalkableArea refuses) and once per floor, in
 * FILE.NAME.h5 for FILE.h5: the rows of the agents on that floor (an agent in the lane
 * behind a link line counts on the line's floor), with that floor's polygon as
 * wkt_geometry, so that PedPy analyses each floor as the 2-D scene it is.              */
#include <throng/crowd/trajectory.h>
#include <throng/crowd/crowd.h>
#include <throng/core/idorder.h>
#include <string.h>
#include <math.h>

typedef struct {
  int64_t id, frame;
  double  x, y;
} TrajRow;

static hid_t RowType(void)
{
  hid_t t = H5Tcreate(H5T_COMPOUND, sizeof(TrajRow));
  H5Tinsert(t, "id", HOFFSET(TrajRow, id), H5T_NATIVE_INT64);
  H5Tinsert(t, "frame", HOFFSET(TrajRow, frame), H5T_NATIVE_INT64);
  H5Tinsert(t, "x", HOFFSET(TrajRow, x), H5T_NATIVE_DOUBLE);
  H5Tinsert(t, "y", HOFFSET(TrajRow, y), H5T_NATIVE_DOUBLE);
  return t;
}

/* Create the file `path` with the walkable area `wkt` (or, restarting, reopen it and drop
   the frames after the step).  Collective. */
static PetscErrorCode OpenOne(MPI_Comm comm, const Sim *s, const TrajWriter *t, const char *path, const char *wkt,
                              hid_t *filep, hid_t *dsp, hsize_t *rowsp)
{
  const Params *prm = &s->prm;
  hid_t         fapl, type, file, ds = -1;
  PetscBool     exists = PETSC_FALSE;
  PetscFunctionBeginUser;
  if (prm->restart[0]) PetscCall(IoFileExists(comm, path, &exists));
  PetscCallHDF5(comm, fapl = H5Pcreate(H5P_FILE_ACCESS));
  PetscCallHDF5(comm, H5Pset_fapl_mpio(fapl, comm, MPI_INFO_NULL));
  file = exists ? H5Fopen(path, H5F_ACC_RDWR, fapl) : H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
  PetscCallHDF5(comm, H5Pclose(fapl));
  PetscCheck(file >= 0, comm, PETSC_ERR_FILE_OPEN,
             exists ? "-trajectory '%s' exists but is not a readable HDF5 file: give the trajectory file of the run "
                      "this checkpoint belongs to, or a new name"
                    : "-trajectory: cannot create HDF5 file '%s' (directory missing or not writable?)",
             path);
  type   = RowType();
  *rowsp = 0;
  if (!exists) {
    const hsize_t zero = 0, unlim = H5S_UNLIMITED, chunk = 16384;
    const double  fps = (double)prm->trajFps;
    hid_t         sp, dcpl;
    PetscCallHDF5(comm, sp = H5Screate_simple(1, &zero, &unlim));
    PetscCallHDF5(comm, dcpl = H5Pcreate(H5P_DATASET_CREATE));
    PetscCallHDF5(comm, H5Pset_chunk(dcpl, 1, &chunk));
    PetscCallHDF5(comm, H5Pset_fill_time(dcpl, H5D_FILL_TIME_NEVER));
    PetscCallHDF5(comm, ds = H5Dcreate2(file, "trajectory", type, sp, H5P_DEFAULT, dcpl, H5P_DEFAULT));
    PetscCallHDF5(comm, H5Pclose(dcpl));
    PetscCallHDF5(comm, H5Sclose(sp));
    PetscCall(IoWriteAttr(comm, ds, "fps", H5T_NATIVE_DOUBLE, 0, &fps));
    PetscCall(IoWriteTextAttr(comm, file, "wkt_geometry", wkt));
    PetscCall(IoWriteTextAttr(comm, ds, "units", "id, frame: integers; x, y: m; frame k is at t = k / fps"));
  } else { /* a restart: keep the frames up to the checkpoint's */
    hid_t   sp;
    hsize_t n, lo = 0, hi;
    double  fps = 0;
    int     bad = H5Lexists(file, "trajectory", H5P_DEFAULT) <= 0;
    if (!bad) {
      hid_t dt, a;
      ds = H5Dopen2(file, "trajectory", H5P_DEFAULT);
      dt = ds >= 0 ? H5Dget_type(ds) : -1;
      bad =
        dt < 0 || H5Tget_class(dt) != H5T_COMPOUND || H5Tget_nmembers(dt) != 4 || H5Tget_size(dt) != sizeof(TrajRow);
      if (dt >= 0) H5Tclose(dt);
      a   = !bad && H5Aexists(ds, "fps") > 0 ? H5Aopen(ds, "fps", H5P_DEFAULT) : -1;
      bad = bad || a < 0 || H5Aread(a, H5T_NATIVE_DOUBLE, &fps) < 0;
      if (a >= 0) H5Aclose(a);
    }
    PetscCall(IoAgree(comm, &bad));
    PetscCheck(!bad, comm, PETSC_ERR_FILE_UNEXPECTED,
               "-trajectory '%s' is an HDF5 file but not a trajectory that throng wrote (no 'trajectory' table of id, "
               "frame, x, y with fps): give the trajectory file of the run this checkpoint belongs to, or a new name",
               path);
    PetscCheck(PetscAbsReal((PetscReal)fps - prm->trajFps) <= 1e-9 * prm->trajFps, comm, PETSC_ERR_USER_INPUT,
               "-trajectory '%s' holds frames at %.6g fps, but this run writes %.6g fps: its frame numbers would mean "
               "other times. Give -trajectory_fps %.17g, or another -trajectory file",
               path, fps, (double)prm->trajFps, fps);
    PetscCallHDF5(comm, sp = H5Dget_space(ds));
    PetscCallHDF5(comm, H5Sget_simple_extent_dims(sp, &n, NULL));
    PetscCallHDF5(comm, H5Sclose(sp));
    /* the frames up to the checkpoint's step were written before it: keep them, drop
       the rest (the first row whose frame is past the checkpoint's) */
    const int64_t now = (int64_t)(s->step / t->stride);
    hi                = n;
    while (lo < hi) {
      const hsize_t mid = lo + (hi - lo) / 2, one = 1;
      TrajRow       r;
      hid_t         fs, ms;
      PetscCallHDF5(comm, fs = H5Dget_space(ds));
      PetscCallHDF5(comm, H5Sselect_hyperslab(fs, H5S_SELECT_SET, &mid, NULL, &one, NULL));
      PetscCallHDF5(comm, ms = H5Screate_simple(1, &one, NULL));
      PetscCallHDF5(comm, H5Dread(ds, type, ms, fs, H5P_DEFAULT, &r));
      PetscCallHDF5(comm, H5Sclose(ms));
      PetscCallHDF5(comm, H5Sclose(fs));
      if (r.frame <= now) lo = mid + 1;
      else hi = mid;
    }
    *rowsp = lo;
    PetscCallHDF5(comm, H5Dset_extent(ds, rowsp));
    PetscCallHDF5(comm, H5Fflush(file, H5F_SCOPE_GLOBAL)); /* before any write: see above */
  }
  H5Tclose(type);
  *filep = file;
  *dsp   = ds;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode TrajectoryOpen(MPI_Comm comm, const Sim *s, TrajWriter *t)
{
  const Params   *prm = &s->prm;
  const Geometry *g   = &s->geom;
  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(t, sizeof(*t)));
  t->comm = comm;
  t->file = t->ds = t->dxpl = -1;
  if (!prm->traj[0]) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCheck(CrowdOf(s), comm, PETSC_ERR_USER_INPUT,
             "-trajectory writes pedestrian trajectories: it needs a crowd (-geometry, with -walk)");
  PetscCall(TrajectoryStride(comm, prm, &t->stride));
  t->flushEvery = prm->flushEvery;
  t->lastFlush  = -1e30;
  PetscCall(IoTransferProperties(comm, prm->ioTwoPhase, &t->dxpl));
  {
    char    *wkt;
    PetscInt parts;
    PetscCall(CrowdAreaWKT(s, -1, &wkt, &parts));
    PetscCall(OpenOne(comm, s, t, prm->traj, wkt, &t->file, &t->ds, &t->rows));
    PetscCall(PetscFree(wkt));
    if (parts > 1 && !g->nfloors)
      PetscCall(PetscFPrintf(comm, PETSC_STDERR,
                             "throng: warning: the walkable area is %" PetscInt_FMT
                             " separate polygons: PedPy's WalkableArea takes one polygon and will refuse "
                             "-trajectory %s's wkt_geometry (the trajectory itself loads; docs/crowd.md)\n",
                             parts, prm->traj));
  }
  if (g->nfloors) { /* one more file per floor, with its own walkable area: PedPy is 2-D */
    t->nfloor = g->nfloors;
    t->kfloor = ParticlesFindField(&s->P, "floor");
    PetscCall(PetscMalloc3(t->nfloor, &t->ffile, t->nfloor, &t->fds, t->nfloor, &t->frows));
    for (PetscInt f = 0; f < t->nfloor; f++) {
      char     path[PETSC_MAX_PATH_LEN + GEOM_NAME_LEN + 8];
      char    *wkt;
      PetscInt parts;
      TrajectoryFloorPath(prm->traj, g->floor[f].name, path, sizeof(path));
      PetscCall(CrowdAreaWKT(s, f, &wkt, &parts)); /* the floor and its doors' lanes */
      PetscCall(OpenOne(comm, s, t, path, wkt, &t->ffile[f], &t->fds[f], &t->frows[f]));
      PetscCall(PetscFree(wkt));
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Append this rank's count rows (ranks in order) to ds. Collective. */
static PetscErrorCode AppendRows(TrajWriter *t, hid_t ds, hsize_t *rowsp, PetscInt64 count, const TrajRow *rows)
{
  PetscInt64 offset = 0, total = count;
  hid_t      type;
  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Exscan(&count, &offset, 1, MPIU_INT64, MPI_SUM, t->comm));
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &total, 1, MPIU_INT64, MPI_SUM, t->comm));
  if (!total) PetscFunctionReturn(PETSC_SUCCESS); /* a globally empty write fails in HDF5 1.10 */
  {
    PetscMPIInt rank;
    PetscCallMPI(MPI_Comm_rank(t->comm, &rank));
    if (!rank) offset = 0;
  }
  const hsize_t n = *rowsp + (hsize_t)total, start = *rowsp + (hsize_t)offset, cnt = (hsize_t)count;
  PetscCallHDF5(t->comm, H5Dset_extent(ds, &n));
  type = RowType();
  PetscCall(IoWriteHyperslab(t->comm, ds, t->dxpl, type, 1, &start, &cnt, rows));
  H5Tclose(type);
  *rowsp = n;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode TrajectoryWrite(TrajWriter *t, const Sim *s)
{
  IoRecs     recs;
  PetscInt64 offset, total;
  TrajRow   *rows;

  PetscFunctionBeginUser;
  if (t->file < 0 || s->step % t->stride) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscLogEventBegin(THRONG_EV.io, 0, 0, 0, 0));
  PetscCall(IdOrderGather(t->comm, &s->P, FIELD_SNAPSHOT, &recs, &offset, &total));
  if (total > 0) {
    const PetscInt count = recs.n;
    const int64_t  frame = (int64_t)(s->step / t->stride);
    PetscCall(PetscMalloc1(count + 1, &rows));
    for (PetscInt i = 0; i < count; i++)
      rows[i] = (TrajRow){IoRecsId(&recs, i), frame, IoRecsReal(&recs, i, PF_X), IoRecsReal(&recs, i, PF_Y)};
    PetscCall(AppendRows(t, t->ds, &t->rows, count, rows));
    for (PetscInt f = 0; f < t->nfloor; f++) { /* each floor's rows, in the same order */
      PetscInt64 m = 0;
      for (PetscInt i = 0; i < count; i++) {
        PetscInt64 fl;
        memcpy(&fl, recs.rec + (size_t)recs.words * i + recs.word[t->kfloor], 8);
        if (fl == f)
          rows[m++] = (TrajRow){IoRecsId(&recs, i), frame, IoRecsReal(&recs, i, PF_X), IoRecsReal(&recs, i, PF_Y)};
      }
      PetscCall(AppendRows(t, t->fds[f], &t->frows[f], m, rows));
    }
    PetscCall(PetscFree(rows));
    t->frames++;
  }
  PetscCall(IoRecsDestroy(&recs));
  { /* flush at most every flushEvery seconds: rank 0's clock decides for all ranks */
    PetscLogDouble now;
    int            flush;
    PetscCall(PetscTime(&now));
    flush = now - t->lastFlush >= t->flushEvery;
    PetscCallMPI(MPI_Bcast(&flush, 1, MPI_INT, 0, t->comm));
    if (flush) {
      PetscCall(TrajectoryFlush(t));
      t->lastFlush = now;
    }
  }
  PetscCall(PetscLogEventEnd(THRONG_EV.io, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode TrajectoryFlush(TrajWriter *t)
{
  PetscFunctionBeginUser;
  if (t->file < 0) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCallHDF5Agree(t->comm, H5Fflush(t->file, H5F_SCOPE_GLOBAL), "flushing the trajectory file");
  for (PetscInt f = 0; f < t->nfloor; f++)
    PetscCallHDF5Agree(t->comm, H5Fflush(t->ffile[f], H5F_SCOPE_GLOBAL), "flushing a floor's trajectory file");
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode TrajectoryClose(TrajWriter *t)
{
  PetscFunctionBeginUser;
  if (t->file < 0) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCallHDF5(t->comm, H5Dclose(t->ds));
  for (PetscInt f = 0; f < t->nfloor; f++) {
    PetscCallHDF5(t->comm, H5Dclose(t->fds[f]));
    PetscCallHDF5(t->comm, H5Fclose(t->ffile[f]));
  }
  PetscCall(PetscFree3(t->ffile, t->fds, t->frows));
  t->nfloor = 0;
  PetscCallHDF5(t->comm, H5Pclose(t->dxpl));
  PetscCallHDF5(t->comm, H5Fclose(t->file));
  t->file = -1;
  PetscFunctionReturn(PETSC_SUCCESS);
}
