/* errors — one clear message on rank 0 instead of PETSc's traceback, and no hang.
 *
 * A PetscCheck/SETERRQ raised on PETSC_COMM_WORLD is by convention raised by every rank
 * (the condition was evaluated on replicated data or after a reduction); such an error
 * ends the run cleanly: rank 0 prints "throng: error: <message>", everybody finalizes
 * and exits with status 1.  An error raised on PETSC_COMM_SELF may be local to one rank;
 * then the rank that saw it prints it and aborts the whole job (MPI_Abort), so the other
 * ranks never wait in a collective that will not complete.                              */
#pragma once
#include <throng/throng.h>

PetscErrorCode ErrorsInstall(void);
/* The message of the newest error raised (for re-raising it with context). */
const char *ErrorsLastMessage(void);
/* Finish after an error returned to main(): prints the message, returns the exit code.  */
int ErrorsFinish(PetscErrorCode ierr);
