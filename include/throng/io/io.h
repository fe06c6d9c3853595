/* io — collective parallel HDF5 output: H5MD snapshots with an XDMF sidecar for
   ParaView, and exact checkpoints. See src/io_h5md.c and src/checkpoint.c.           */
#pragma once
#include <throng/core/sim.h>
#include <throng/core/idorder.h>
#include <hdf5.h>

/* An HDF5 call that every rank of comm makes: a negative status on any rank becomes one
   error on all of them.  The ranks agree on it by a reduction first, so that a failure
   of one rank alone (a metadata write, a read of a damaged block) cannot leave the
   others waiting in the next collective.  Every rank of comm must reach the call: where
   only some ranks have work, the others make a no-op call in its place (see the time
   series in io_h5md.c).  The reduction costs microseconds; no HDF5 call is in a step.  */
#define PetscCallHDF5(comm, expr) \
  do { \
    int bad_ = (expr) < 0 ? 1 : 0; \
    PetscCall(IoAgree((comm), &bad_)); \
    PetscCheck(!bad_, (comm), PETSC_ERR_LIB, "HDF5 call failed: %s", #expr); \
  } while (0)

/* A collective HDF5 call whose failure may be one rank's alone (a write that meets a full
   disk): the ranks agree on failure by a reduction, so that all of them stop with one
   message instead of one rank leaving the others in the next collective.             */
#define PetscCallHDF5Agree(comm, expr, what) \
  do { \
    int bad_ = (expr) < 0 ? 1 : 0, any_ = 0; \
    PetscCallMPI(MPI_Allreduce(&bad_, &any_, 1, MPI_INT, MPI_MAX, (comm))); \
    PetscCheck(!any_, (comm), PETSC_ERR_FILE_WRITE, \
               "%s failed (disk full, quota exceeded, or the file system went away?)", (what)); \
  } while (0)

/* *bad (0 or 1) becomes its maximum over comm. Collective. */
PetscErrorCode IoAgree(MPI_Comm comm, int *bad);
/* Test-only fault injection: true when the environment variable THRONG_INJECT_FAULT
   names this place and this is rank 0 (tests/test_inject.sh). */
PetscBool IoInjectFault(MPI_Comm comm, const char *place);

typedef struct {
  MPI_Comm comm;
  hid_t    file, dxpl;
  hid_t    pos, rad, idv, vel, step, time, count; /* value datasets, step/time/count series */
  /* the state one step before a frame, for the velocity: (x, y) for every id of this
     rank's block of every round, in id order, NaN where no disk has the id; prevM:
     the id range it was gathered over                                               */
  PetscInt64 prevM;
  PetscReal *prevXY;
  PetscInt   prevCap, prevStep;
  PetscInt64 round; /* ids per write round: -output_round x ranks                   */
  /* the other snapshot fields (particles.h): /particles/disks/NAME/value, one each */
  PetscInt       nx;
  PetscInt       xfield[PARTICLES_MAX_FIELDS];
  hid_t          xds[PARTICLES_MAX_FIELDS];
  char           xname[PARTICLES_MAX_FIELDS][16];
  PetscBool      xint[PARTICLES_MAX_FIELDS];
  PetscInt       frames;
  PetscInt       flushed;    /* frames on disk: the XDMF lists only those       */
  PetscReal      flushEvery; /* seconds between flushes (0: every frame)        */
  PetscLogDouble lastFlush;
  PetscBool      appended; /* reopened an existing file (restart)             */
  PetscInt64     nmax;     /* second extent of the value datasets            */
  PetscInt       cap;      /* frame metadata for the XDMF (rank 0)           */
  PetscInt      *fstep;
  PetscReal     *ftime;
  PetscInt64    *fcount;
  char           h5[PETSC_MAX_PATH_LEN], xdmf[PETSC_MAX_PATH_LEN], h5base[PETSC_MAX_PATH_LEN];
  /* -stress: /observables/stress (step, time, value[k][2][2]), pressure, packing_fraction,
     contact_number; nstress samples written                                           */
  hid_t    sstep, stime, sval, spres, sphi, sz, sznr;
  PetscInt nstress;
} H5MDWriter;

/* Create PREFIX.h5 and PREFIX.xdmf, or (append: a restart) reopen an existing PREFIX.h5
   and drop its frames after step `from`; w->appended tells which. Collective.        */
PetscErrorCode H5MDOpen(MPI_Comm comm, const char *prefix, const Sim *s, PetscBool append, PetscInt from,
                        H5MDWriter *w);
/* Append the current state as a frame (rows in id order) and refresh the XDMF. Collective. */
PetscErrorCode H5MDWriteFrame(H5MDWriter *w, const Sim *s);
PetscErrorCode H5MDClose(H5MDWriter *w, PetscReal wallTime);
/* -stress: append the sample of this step (contacts.c) to the stress time series, if the
   step has one. Collective. */
PetscErrorCode H5MDWriteStress(H5MDWriter *w, const Sim *s);

/* Remember the state before the step that ends at a frame, for the frame's velocities
   (x_k - x_{k-1}) / h. Collective.                                                     */
PetscErrorCode H5MDRememberPrevious(H5MDWriter *w, const Sim *s);

/* Write a checkpoint atomically (PATH.tmp, then rename). Collective. */
PetscErrorCode CheckpointWrite(const Sim *s, const char *path);
/* Read a checkpoint into s (domain and helpers already created): disks, binning, step,
   time. Checks format, version and that the physics parameters match. Collective.     */
PetscErrorCode CheckpointRead(Sim *s, const char *path);
/* Collective transfer; each rank's hyperslab written directly unless twoPhase. */
PetscErrorCode IoTransferProperties(MPI_Comm comm, PetscBool twoPhase, hid_t *dxpl);
/* Attributes with the options in force, versions, git revision and rank count. */
PetscErrorCode IoWriteMetadata(MPI_Comm comm, hid_t obj);
PetscErrorCode IoWriteStringAttr(MPI_Comm comm, hid_t obj, const char *name, const char *value);
/* A variable-length UTF-8 string attribute: what h5py returns as str (PedPy's loaders
   need it for wkt_geometry; a fixed-length ASCII string comes back as bytes).          */
PetscErrorCode IoWriteTextAttr(MPI_Comm comm, hid_t obj, const char *name, const char *value);
/* Collective write of the ndim-dimensional hyperslab (start, cnt) of ds from a buffer
   of that shape; a rank with an empty hyperslab still calls H5Dwrite, as HDF5 requires. */
PetscErrorCode IoWriteHyperslab(MPI_Comm comm, hid_t ds, hid_t dxpl, hid_t memtype, int ndim, const hsize_t *start,
                                const hsize_t *cnt, const void *buf);
/* Rank 0 writes a table (a dataset of ndim 1 or 2 of the shape dims) from its buf into a
   checkpoint or a file (collective; nothing is written when it is empty, as HDF5 1.10
   requires), and reads one of `want` rows (rank 0 alone; < 0: missing or damaged). */
PetscErrorCode IoWriteRoot(MPI_Comm comm, hid_t loc, hid_t dxpl, const char *name, hid_t type, int ndim,
                           const hsize_t *dims, const void *buf);
herr_t         IoReadRoot(hid_t g, const char *name, hid_t type, hsize_t want, void *buf);
/* Does path exist (rank 0 looks; every rank gets the answer)? Collective. */
PetscErrorCode IoFileExists(MPI_Comm comm, const char *path, PetscBool *exists);
/* Create (truncating) or open read-write an HDF5 file through MPI-IO; one clear error.
   Collective. */
PetscErrorCode IoOpenFile(MPI_Comm comm, const char *path, PetscBool create, hid_t *file);
/* Rank 0 writes a ParaView sidecar by body(f, ctx) into PATH.tmp and renames it when
   complete; the ranks agree on failure (one error on all of them). Collective.        */
PetscErrorCode IoWriteSidecar(MPI_Comm comm, const char *path, void (*body)(FILE *, const void *), const void *ctx);
/* The frame list of a writer (steps, times, counts) grown to hold n frames. */
PetscErrorCode IoReserveFrames(PetscInt n, PetscInt *cap, PetscInt **fstep, PetscReal **ftime, PetscInt64 **fcount);
/* An attribute of n values of type (n = 0: a scalar). Collective. */
PetscErrorCode IoWriteAttr(MPI_Comm comm, hid_t obj, const char *name, hid_t type, hsize_t n, const void *v);
/* The n values of an attribute, read on rank 0 and broadcast (mt: their MPI type), or
   *found false on every rank when it is missing or holds another number of values (the
   caller names what the file lacks). Collective. */
PetscErrorCode IoReadAttr(MPI_Comm comm, hid_t obj, const char *name, hid_t type, MPI_Datatype mt, int n, void *v,
                          PetscBool *found);

/* preflight.c: before the run, rank 0 checks that the directories of -output and
   -checkpoint accept a file and hold at least what the run will write; one collective
   error otherwise. */
PetscErrorCode OutputPreflight(MPI_Comm comm, const Params *prm);
