/* files — the run's input and output files as the file system sees them (src/files.c):
 * reading an input once for every rank, and telling whether two paths name one file.  */
#pragma once
#include <throng/throng.h>

/* FilesReadText - rank 0 reads a whole input file; every rank gets its text.
   Collective on comm.  Refuses, with one message that names the option (what) and the
   path, a path that is missing, unreadable, not a regular file (a directory, a FIFO) or
   larger than maxBytes; with text PETSC_TRUE, also a file that holds a NUL byte (binary
   data).  A UTF-8 byte-order mark at the start is dropped.
   Output: *text (free with PetscFree), NUL-terminated; *len its length in bytes.        */
PetscErrorCode FilesReadText(MPI_Comm comm, const char *what, const char *path, size_t maxBytes, PetscBool text,
                             char **textp, size_t *len);

/* FilesCheckReadable - the path names a readable regular file (checked on rank 0).
   Collective; the error names the option (what).                                        */
PetscErrorCode FilesCheckReadable(MPI_Comm comm, const char *what, const char *path);

/* A file of the run, named by the option that names it. */
typedef struct {
  const char *what; /* "-trajectory", "the snapshots of -output", ...  */
  const char *path; /* "" or NULL: not used                             */
  PetscBool   input;
  const char *mayEqual; /* the what of a role this one may be (a checkpoint replacing the
                           one it restarts from: written aside, then renamed), or NULL */
} FileRole;

/* FilesCheckDistinct - no two of the files name the same file: compared by device and
   inode where both exist, else by the canonical path of their directory and their name.
   Two inputs may be one file; an output may not be an input or another output, nor
   an existing directory or device (HDF5 cannot write /dev/null).
   Collective (rank 0 looks, every rank raises the same error).                           */
PetscErrorCode FilesCheckDistinct(MPI_Comm comm, PetscInt n, const FileRole roles[]);
