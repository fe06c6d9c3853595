/* io_util — what every HDF5 file of throng shares: attributes, metadata, whole tables
 * written from rank 0, hyperslabs, opening a file for MPI-IO, a sidecar written safely,
 * and the agreement of the ranks on a failure.
 *
 * Every function here that takes a communicator is collective over it and turns a
 * failure on any rank into one error on all of them (PetscCallHDF5, IoAgree): one rank
 * alone failing (a metadata write, a damaged block read on rank 0, a full disk) must not
 * leave the others waiting in the next collective.  Readers of a checkpoint read on
 * rank 0 and broadcast (IoReadAttr); writers call HDF5 on every rank, rank 0 holding
 * the data of a root table (IoWriteRoot: HDF5 1.10 needs every rank in a collective
 * write, also with nothing to write).  The snapshots (io_h5md.c), the trajectories
 * (trajectory.c), the contact files (contact_output.c) and the checkpoints
 * (checkpoint.c and the modules' own groups) are built from these.                     */
#include <throng/io/io.h>
#include <string.h>
#include <stdlib.h>

PetscErrorCode IoWriteStringAttr(MPI_Comm comm, hid_t obj, const char *name, const char *value)
{
  hid_t t, sp, a;
  PetscFunctionBeginUser;
  PetscCallHDF5(comm, t = H5Tcopy(H5T_C_S1));
  PetscCallHDF5(comm, H5Tset_size(t, strlen(value) + 1));
  PetscCallHDF5(comm, sp = H5Screate(H5S_SCALAR));
  PetscCallHDF5(comm, a = H5Acreate2(obj, name, t, sp, H5P_DEFAULT, H5P_DEFAULT));
  PetscCallHDF5(comm, H5Awrite(a, t, value));
  PetscCallHDF5(comm, H5Aclose(a));
  PetscCallHDF5(comm, H5Sclose(sp));
  PetscCallHDF5(comm, H5Tclose(t));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode IoWriteTextAttr(MPI_Comm comm, hid_t obj, const char *name, const char *value)
{
  hid_t t, sp, a;
  PetscFunctionBeginUser;
  PetscCallHDF5(comm, t = H5Tcopy(H5T_C_S1));
  PetscCallHDF5(comm, H5Tset_size(t, H5T_VARIABLE));
  PetscCallHDF5(comm, H5Tset_cset(t, H5T_CSET_UTF8));
  PetscCallHDF5(comm, sp = H5Screate(H5S_SCALAR));
  PetscCallHDF5(comm, a = H5Acreate2(obj, name, t, sp, H5P_DEFAULT, H5P_DEFAULT));
  PetscCallHDF5(comm, H5Awrite(a, t, &value));
  PetscCallHDF5(comm, H5Aclose(a));
  PetscCallHDF5(comm, H5Sclose(sp));
  PetscCallHDF5(comm, H5Tclose(t));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode IoWriteAttr(MPI_Comm comm, hid_t obj, const char *name, hid_t type, hsize_t n, const void *v)
{
  hid_t sp, a;
  PetscFunctionBeginUser;
  PetscCallHDF5(comm, sp = n ? H5Screate_simple(1, &n, NULL) : H5Screate(H5S_SCALAR));
  PetscCallHDF5(comm, a = H5Acreate2(obj, name, type, sp, H5P_DEFAULT, H5P_DEFAULT));
  PetscCallHDF5(comm, H5Awrite(a, type, v));
  PetscCallHDF5(comm, H5Aclose(a));
  PetscCallHDF5(comm, H5Sclose(sp));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode IoAgree(MPI_Comm comm, int *bad)
{
  PetscMPIInt size;
  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_size(comm, &size));
  if (size > 1) PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, bad, 1, MPI_INT, MPI_MAX, comm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscBool IoInjectFault(MPI_Comm comm, const char *place)
{
  const char *want = getenv("THRONG_INJECT_FAULT");
  int         rank = 0;
  if (!want || strcmp(want, place)) return PETSC_FALSE;
  MPI_Comm_rank(comm, &rank);
  return rank == 0 ? PETSC_TRUE : PETSC_FALSE;
}

PetscErrorCode IoTransferProperties(MPI_Comm comm, PetscBool twoPhase, hid_t *dxpl)
{
  PetscFunctionBeginUser;
  PetscCallHDF5(comm, *dxpl = H5Pcreate(H5P_DATASET_XFER));
  PetscCallHDF5(comm, H5Pset_dxpl_mpio(*dxpl, H5FD_MPIO_COLLECTIVE));
  if (!twoPhase) PetscCallHDF5(comm, H5Pset_dxpl_mpio_collective_opt(*dxpl, H5FD_MPIO_INDIVIDUAL_IO));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode IoWriteMetadata(MPI_Comm comm, hid_t obj)
{
  char       *opts, petsc[128], mpi[MPI_MAX_LIBRARY_VERSION_STRING], hdf5[64];
  int         len;
  unsigned    maj, min, rel;
  PetscMPIInt size;
  PetscFunctionBeginUser;
  PetscCall(PetscOptionsGetAll(NULL, &opts));
  PetscCall(IoWriteStringAttr(comm, obj, "options", opts));
  PetscCall(PetscFree(opts));
  PetscCall(PetscGetVersion(petsc, sizeof(petsc)));
  PetscCall(IoWriteStringAttr(comm, obj, "petsc_version", petsc));
  PetscCallMPI(MPI_Get_library_version(mpi, &len));
  mpi[strcspn(mpi, "\n")] = 0;
  PetscCall(IoWriteStringAttr(comm, obj, "mpi_version", mpi));
  H5get_libversion(&maj, &min, &rel);
  PetscCall(PetscSNPrintf(hdf5, sizeof(hdf5), "%u.%u.%u", maj, min, rel));
  PetscCall(IoWriteStringAttr(comm, obj, "hdf5_version", hdf5));
  PetscCall(IoWriteStringAttr(comm, obj, "throng_version", THRONG_VERSION));
  PetscCall(IoWriteStringAttr(comm, obj, "git_revision", THRONG_GIT_REVISION));
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCall(IoWriteAttr(comm, obj, "ranks", H5T_NATIVE_INT, 0, &size));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode IoReadAttr(MPI_Comm comm, hid_t obj, const char *name, hid_t type, MPI_Datatype mt, int n, void *v,
                          PetscBool *found)
{
  PetscMPIInt rank;
  int         bad = 1;
  hid_t       a   = -1;
  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  if (!rank && H5Aexists(obj, name) > 0 && (a = H5Aopen(obj, name, H5P_DEFAULT)) >= 0) {
    hid_t sp = H5Aget_space(a);
    bad      = sp < 0 || H5Sget_simple_extent_npoints(sp) != n || H5Aread(a, type, v) < 0;
    if (sp >= 0) H5Sclose(sp);
  }
  if (a >= 0) H5Aclose(a);
  PetscCallMPI(MPI_Bcast(&bad, 1, MPI_INT, 0, comm));
  if (!bad) PetscCallMPI(MPI_Bcast(v, n, mt, 0, comm));
  *found = bad ? PETSC_FALSE : PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode IoWriteSidecar(MPI_Comm comm, const char *path, void (*body)(FILE *, const void *), const void *ctx)
{
  PetscMPIInt rank;
  char        tmp[PETSC_MAX_PATH_LEN + 40];
  int         bad = 0;
  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCall(PetscSNPrintf(tmp, sizeof(tmp), "%s.tmp", path));
  if (!rank) {
    FILE *f = IoInjectFault(comm, "xdmf") ? NULL : fopen(tmp, "w");
    if (f) {
      body(f, ctx);
      bad = fclose(f) != 0 || rename(tmp, path) != 0; /* a full disk shows at fclose */
    } else bad = 1;
  }
  PetscCall(IoAgree(comm, &bad));
  PetscCheck(!bad, comm, PETSC_ERR_FILE_WRITE, "cannot write the ParaView sidecar %s", tmp);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode IoFileExists(MPI_Comm comm, const char *path, PetscBool *exists)
{
  PetscMPIInt rank;
  int         e = 0;
  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  if (!rank) {
    FILE *f = fopen(path, "rb");
    e       = f != NULL;
    if (f) fclose(f);
  }
  PetscCallMPI(MPI_Bcast(&e, 1, MPI_INT, 0, comm));
  *exists = e ? PETSC_TRUE : PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode IoOpenFile(MPI_Comm comm, const char *path, PetscBool create, hid_t *file)
{
  hid_t fapl;
  PetscFunctionBeginUser;
  PetscCallHDF5(comm, fapl = H5Pcreate(H5P_FILE_ACCESS));
  PetscCallHDF5(comm, H5Pset_fapl_mpio(fapl, comm, MPI_INFO_NULL));
  *file = create ? H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl) : H5Fopen(path, H5F_ACC_RDWR, fapl);
  PetscCallHDF5(comm, H5Pclose(fapl));
  PetscCheck(*file >= 0, comm, PETSC_ERR_FILE_OPEN,
             "cannot %s HDF5 file '%s' (directory missing or not writable, or not an HDF5 file?)",
             create ? "create" : "open", path);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode IoWriteHyperslab(MPI_Comm comm, hid_t ds, hid_t dxpl, hid_t memtype, int ndim, const hsize_t *start,
                                const hsize_t *cnt, const void *buf)
{
  hid_t   fs, ms;
  hsize_t nelem = 1, zero = 0;
  herr_t  e;
  PetscFunctionBeginUser;
  PetscCall(PetscLogEventBegin(THRONG_EV.ioWrite, 0, 0, 0, 0));
  for (int d = 0; d < ndim; d++) nelem *= cnt[d];
  PetscCallHDF5(comm, fs = H5Dget_space(ds));
  /* the memory space has the selection's shape: with another shape HDF5 1.10 maps
     chunks element by element, which costs more than the write itself.  A rank with
     nothing to write selects nothing and still takes part in the collective call.
     The ranks take different branches: each reports one status (PetscCallHDF5 agrees). */
  if (nelem)
    e = (ms = H5Screate_simple(ndim, cnt, NULL)) < 0 ? -1
                                                     : H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, cnt, NULL);
  else e = (ms = H5Screate_simple(1, &zero, NULL)) < 0 || H5Sselect_none(fs) < 0 || H5Sselect_none(ms) < 0 ? -1 : 0;
  PetscCallHDF5(comm, e);
  PetscCallHDF5Agree(comm, H5Dwrite(ds, memtype, ms, fs, dxpl, buf), "writing a dataset");
  PetscCallHDF5(comm, H5Sclose(ms));
  PetscCallHDF5(comm, H5Sclose(fs));
  PetscCall(PetscLogEventEnd(THRONG_EV.ioWrite, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Dataset `name` of loc with the shape dims (ndim 1 or 2), written from rank 0's buf
   (collective; nothing is written when it is empty, as HDF5 1.10 requires). */
PetscErrorCode IoWriteRoot(MPI_Comm comm, hid_t loc, hid_t dxpl, const char *name, hid_t type, int ndim,
                           const hsize_t *dims, const void *buf)
{
  PetscMPIInt rank;
  hid_t       sp, ds;
  hsize_t     zero[2] = {0, 0}, cnt[2];

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCallHDF5(comm, sp = H5Screate_simple(ndim, dims, NULL));
  PetscCallHDF5(comm, ds = H5Dcreate2(loc, name, type, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
  PetscCallHDF5(comm, H5Sclose(sp));
  if (dims[0] * (ndim > 1 ? dims[1] : 1) > 0) {
    for (int k = 0; k < ndim; k++) cnt[k] = rank ? 0 : dims[k];
    PetscCall(IoWriteHyperslab(comm, ds, dxpl, type, ndim, zero, cnt, buf));
  }
  PetscCallHDF5(comm, H5Dclose(ds));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Rank 0 reads one table of `want` rows (or fails). */
herr_t IoReadRoot(hid_t g, const char *name, hid_t type, hsize_t want, void *buf)
{
  hid_t   ds, sp;
  hsize_t n = 0;
  herr_t  e = -1;
  if (H5Lexists(g, name, H5P_DEFAULT) <= 0 || (ds = H5Dopen2(g, name, H5P_DEFAULT)) < 0) return -1;
  if ((sp = H5Dget_space(ds)) >= 0 && H5Sget_simple_extent_ndims(sp) == 1 &&
      H5Sget_simple_extent_dims(sp, &n, NULL) == 1 && n == want)
    e = want ? H5Dread(ds, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) : 0;
  if (sp >= 0) H5Sclose(sp);
  H5Dclose(ds);
  return e;
}
