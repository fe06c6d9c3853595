/* preflight — the output directories are checked before the run starts.
 *
 * A run that fails at its first snapshot or checkpoint has wasted its set-up, and one
 * that fails at its last has wasted everything.  So before any disk is created, rank 0
 * checks each directory the run will write to (that of -output PREFIX, and that of
 * -checkpoint PATH):
 *   - that it exists and accepts a new file: a probe file is created (O_EXCL), written,
 *     and removed; this catches a missing directory, a read-only file system and
 *     permissions (even for root, which access(2) would wave through);
 *   - that it has room for at least what the run is sure to write: 16 bytes per disk
 *     and snapshot (the positions alone; radii, ids and velocities come on top) for
 *     the snapshots the schedule asks for, and two checkpoints of 48 bytes per disk
 *     (the file and its temporary copy); with -contact_output, 104 bytes per contact at
 *     every snapshot (contact_output.c), counted as one contact per disk (a packing at
 *     rest has about two).  Crowds may end early (agents leave), so for
 *     them only the first and last snapshots count.  The free space is statvfs's
 *     f_bavail (what an unprivileged writer may use).
 * The verdict is broadcast, so every rank stops with the same single message.  A disk
 * that fills up during the run (other writers) is still reported by the HDF5 write that
 * fails; the files written so far stay readable.                                       */
#include <throng/io/io.h>
#include <sys/statvfs.h>
#include <fcntl.h>
#include <unistd.h>
#include <errno.h>
#include <string.h>

/* The directory part of path ("." if none). */
static void DirOf(const char *path, char *dir, size_t len)
{
  const char *slash = strrchr(path, '/');
  if (!slash) snprintf(dir, len, ".");
  else if (slash == path) snprintf(dir, len, "/");
  else snprintf(dir, len, "%.*s", (int)(slash - path), path);
}

/* Rank 0's check of one directory: a probe file, then the free space against need bytes;
   an empty msg means fine. */
static void CheckDir(const char *what, const char *path, double need, char *msg, size_t len)
{
  char           dir[PETSC_MAX_PATH_LEN], probe[PETSC_MAX_PATH_LEN + 64];
  struct statvfs sv;
  int            fd;

  DirOf(path, dir, sizeof(dir));
  snprintf(probe, sizeof(probe), "%s/.throng-probe-%ld", dir, (long)getpid());
  fd = open(probe, O_WRONLY | O_CREAT | O_EXCL, 0600);
  if (fd < 0 || write(fd, "t", 1) != 1) {
    snprintf(msg, len, "cannot write in the directory '%s' of %s '%s': %s", dir, what, path, strerror(errno));
    if (fd >= 0) close(fd), unlink(probe);
    return;
  }
  close(fd);
  unlink(probe);
  if (statvfs(dir, &sv) == 0) {
    const double avail = (double)sv.f_bavail * (double)sv.f_frsize;
    if (avail < need)
      snprintf(msg, len,
               "the directory '%s' of %s '%s' has %.4g MB free, but the run will write at least %.4g MB there (fewer "
               "snapshots: -output_every; another directory; or free space)",
               dir, what, path, avail / 1e6, need / 1e6);
  }
}

PetscErrorCode OutputPreflight(MPI_Comm comm, const Params *prm)
{
  char        msg[2 * PETSC_MAX_PATH_LEN + 256] = "";
  PetscMPIInt rank;

  PetscFunctionBeginUser;
  if (!strcmp(prm->output, "none")) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  if (!rank) {
    const double n = (double)prm->n;
    const double frames =
      prm->geometry[0] || prm->outputEvery <= 0 ? 2 : 2 + (double)prm->steps / (double)prm->outputEvery;
    const double snap = (16 + (prm->contactOutput ? 104 : 0)) * n * frames, chk = prm->checkpoint[0] ? 2 * 48 * n : 0;
    char         d1[PETSC_MAX_PATH_LEN], d2[PETSC_MAX_PATH_LEN], h5[PETSC_MAX_PATH_LEN + 8];
    snprintf(h5, sizeof(h5), "%s.h5", prm->output);
    DirOf(h5, d1, sizeof(d1));
    if (prm->checkpoint[0]) DirOf(prm->checkpoint, d2, sizeof(d2));
    const PetscBool same =
      prm->checkpoint[0] && !strcmp(d1, d2) ? PETSC_TRUE : PETSC_FALSE; /* by name: a conservative sum */
    CheckDir("-output", h5, same ? snap + chk : snap, msg, sizeof(msg));
    if (!msg[0] && prm->checkpoint[0] && !same) CheckDir("-checkpoint", prm->checkpoint, chk, msg, sizeof(msg));
  }
  PetscCallMPI(MPI_Bcast(msg, (PetscMPIInt)sizeof(msg), MPI_CHAR, 0, comm));
  PetscCheck(!msg[0], comm, PETSC_ERR_FILE_OPEN, "%s", msg);
  PetscFunctionReturn(PETSC_SUCCESS);
}
