/* files — the run's input and output files as the file system sees them.
 *
 * Reading an input.  Every input of throng (the scene file, the YAML options, the
 * initial positions, a restart) is read by rank 0 alone, and every other rank waits for
 * what it found.  So rank 0 must never fail alone: whatever goes wrong there (no such
 * file, a directory given as a file, a FIFO, a file too large to hold in memory, binary
 * data where text is expected) becomes a message that rank 0 broadcasts, and every rank
 * raises the same error on the run's communicator (errors.c: one line on rank 0, exit 1,
 * no hang).  fopen() alone is not a test: on Linux it opens a directory for reading and
 * ftell() then answers LONG_MAX; stat() says what the path is before anything is read.
 *
 * The text is broadcast whole (a scene file is kilobytes; maxBytes bounds it), so every
 * rank parses the same bytes and a parse error is raised by every rank at the same line.
 * A UTF-8 byte-order mark, which some Windows editors put at the start of a text file,
 * is dropped.
 *
 * Telling files apart.  Two options that name one file destroy it: a trajectory written
 * over the scene file, a checkpoint over the trajectory.  Comparing the strings misses
 * "o.h5", "./o.h5" and "/abs/path/o.h5".  A file that exists is identified by its device
 * and inode (which also sees hard links and symbolic links); one that does not exist yet
 * by the canonical path of its directory (realpath) and its name.                       */
#define _DEFAULT_SOURCE /* realpath, PATH_MAX */
#include <throng/util/files.h>
#include <sys/stat.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#define FILES_MSG 768

/* rank 0's verdict: an empty message is success */
static PetscErrorCode Agree(MPI_Comm comm, char msg[FILES_MSG])
{
  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Bcast(msg, FILES_MSG, MPI_CHAR, 0, comm));
  msg[FILES_MSG - 1] = 0;
  PetscCheck(!msg[0], comm, PETSC_ERR_FILE_OPEN, "%s", msg);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* On rank 0: why the path cannot be read as a regular file, or "" */
static void Readable(const char *what, const char *path, struct stat *st, char msg[FILES_MSG])
{
  FILE *f;
  msg[0] = 0;
  if (stat(path, st)) {
    snprintf(msg, FILES_MSG, "%s '%s': cannot read it: %s", what, path, strerror(errno));
    return;
  }
  if (S_ISDIR(st->st_mode)) {
    snprintf(msg, FILES_MSG, "%s '%s' is a directory, not a file", what, path);
    return;
  }
  if (!S_ISREG(st->st_mode)) {
    snprintf(msg, FILES_MSG, "%s '%s' is not a regular file (a device, a FIFO or a socket)", what, path);
    return;
  }
  if (!(f = fopen(path, "rb"))) {
    snprintf(msg, FILES_MSG, "%s '%s': cannot read it: %s", what, path, strerror(errno));
    return;
  }
  fclose(f);
}

PetscErrorCode FilesCheckReadable(MPI_Comm comm, const char *what, const char *path)
{
  PetscMPIInt rank;
  char        msg[FILES_MSG] = "";
  struct stat st;
  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  if (!rank) Readable(what, path, &st, msg);
  PetscCall(Agree(comm, msg));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode FilesReadText(MPI_Comm comm, const char *what, const char *path, size_t maxBytes, PetscBool text,
                             char **textp, size_t *lenp)
{
  PetscMPIInt rank;
  char        msg[FILES_MSG] = "", *buf = NULL;
  long long   len = 0;
  struct stat st;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  if (!rank) {
    Readable(what, path, &st, msg);
    if (!msg[0] && (unsigned long long)st.st_size > (unsigned long long)maxBytes)
      snprintf(msg, FILES_MSG, "%s '%s' is %lld bytes, more than the %zu bytes such a file may have", what, path,
               (long long)st.st_size, maxBytes);
    if (!msg[0]) {
      FILE  *f = fopen(path, "rb");
      size_t got;
      len = (long long)st.st_size;
      buf = malloc((size_t)len + 1);
      if (!f || !buf)
        snprintf(msg, FILES_MSG, "%s '%s': cannot read it (%s)", what, path, f ? "out of memory" : strerror(errno));
      else if ((got = fread(buf, 1, (size_t)len, f)) != (size_t)len || ferror(f))
        snprintf(msg, FILES_MSG, "%s '%s': cannot read it: read %zu of %lld bytes", what, path, got, len);
      if (f) fclose(f);
    }
    if (!msg[0]) {
      buf[len] = 0;
      if (len >= 3 && !memcmp(buf, "\xEF\xBB\xBF", 3)) { /* a UTF-8 byte-order mark */
        memmove(buf, buf + 3, (size_t)len - 2);
        len -= 3;
      }
      if (text && (long long)strlen(buf) != len)
        snprintf(msg, FILES_MSG, "%s '%s' holds a NUL byte at byte %zu: it is binary data, not a text file", what, path,
                 strlen(buf));
    }
  }
  PetscErrorCode ierr = Agree(comm, msg);
  if (ierr) free(buf);
  PetscCall(ierr);
  PetscCallMPI(MPI_Bcast(&len, 1, MPI_LONG_LONG, 0, comm));
  PetscCall(PetscMalloc1((size_t)len + 1, textp));
  if (!rank) {
    PetscCall(PetscMemcpy(*textp, buf, (size_t)len + 1));
    free(buf);
  }
  for (long long at = 0; at <= len; at += INT_MAX / 2) /* counts of MPI are ints */
    PetscCallMPI(MPI_Bcast(*textp + at, (PetscMPIInt)PetscMin(len + 1 - at, INT_MAX / 2), MPI_CHAR, 0, comm));
  if (lenp) *lenp = (size_t)len;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* On rank 0: the identity of a path: (device, inode) if it exists, else the canonical
   path of its directory followed by its name. */
typedef struct {
  int   exists, regular;
  dev_t dev;
  ino_t ino;
  char  canon[PATH_MAX + 256];
} Identity;

static void Identify(const char *path, Identity *id)
{
  struct stat st;
  char        dir[PATH_MAX], real[PATH_MAX];
  const char *slash = strrchr(path, '/'), *base = slash ? slash + 1 : path;
  memset(id, 0, sizeof(*id));
  if (!stat(path, &st)) {
    id->exists = 1, id->regular = S_ISREG(st.st_mode), id->dev = st.st_dev, id->ino = st.st_ino;
    return;
  }
  if (slash) snprintf(dir, sizeof(dir), "%.*s", slash == path ? 1 : (int)(slash - path), path);
  else snprintf(dir, sizeof(dir), ".");
  if (realpath(dir, real)) snprintf(id->canon, sizeof(id->canon), "%s/%s", real, base);
  else snprintf(id->canon, sizeof(id->canon), "%s", path);
}

static int Same(const Identity *a, const Identity *b)
{
  if (a->exists != b->exists) return 0;
  if (a->exists) return a->dev == b->dev && a->ino == b->ino;
  return !strcmp(a->canon, b->canon);
}

PetscErrorCode FilesCheckDistinct(MPI_Comm comm, PetscInt n, const FileRole roles[])
{
  PetscMPIInt rank;
  char        msg[FILES_MSG] = "";
  Identity   *id;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  if (!rank) {
    PetscCall(PetscMalloc1(n, &id));
    for (PetscInt i = 0; i < n; i++)
      if (roles[i].path && roles[i].path[0]) Identify(roles[i].path, &id[i]);
    for (PetscInt i = 0; i < n && !msg[0]; i++) /* an output replaces a file, never a device or a directory */
      if (roles[i].path && roles[i].path[0] && !roles[i].input && id[i].exists && !id[i].regular)
        snprintf(
          msg, FILES_MSG,
          "%s '%s' exists and is not a regular file (a directory or a device such as /dev/null): choose a file name",
          roles[i].what, roles[i].path);
    for (PetscInt i = 0; i < n && !msg[0]; i++)
      for (PetscInt j = i + 1; j < n && !msg[0]; j++) {
        const FileRole *a = &roles[i], *b = &roles[j];
        if (!a->path || !a->path[0] || !b->path || !b->path[0] || (a->input && b->input)) continue;
        if ((a->mayEqual && !strcmp(a->mayEqual, b->what)) || (b->mayEqual && !strcmp(b->mayEqual, a->what))) continue;
        if (!Same(&id[i], &id[j])) continue;
        if (a->input || b->input) {
          const FileRole *in = a->input ? a : b, *out = a->input ? b : a;
          snprintf(msg, FILES_MSG,
                   "%s '%s' is the file %s '%s' reads: the run would overwrite its input; choose another name",
                   out->what, out->path, in->what, in->path);
        } else
          snprintf(msg, FILES_MSG,
                   "%s '%s' and %s '%s' are the same file: one would destroy the other; choose another name", a->what,
                   a->path, b->what, b->path);
      }
    PetscCall(PetscFree(id));
  }
  PetscCall(Agree(comm, msg));
  PetscFunctionReturn(PETSC_SUCCESS);
}
