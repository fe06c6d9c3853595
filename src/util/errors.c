/* errors — one clear message on rank 0 instead of PETSc's traceback, and no hang.
 *
 * PETSc calls the handler below for every frame of an error's unwinding; only the
 * first frame (PETSC_ERROR_INITIAL) carries the message.  We keep the newest initial
 * message (and the one before it, its cause, when an error is caught and re-raised with
 * context, as LoadConfigFile does) and whether it was raised on a communicator larger
 * than PETSC_COMM_SELF.
 *
 * Convention of the whole code base: an error raised on PETSC_COMM_WORLD (or the run's
 * communicator) is raised by every rank at the same point — user input is checked on
 * replicated data, data-dependent failures are first agreed on by a reduction — so the
 * run can end with PetscFinalize() and exit status 1.  Anything raised on
 * PETSC_COMM_SELF may concern one rank only; that rank prints where it happened and
 * calls MPI_Abort so no other rank waits forever in a collective.                       */
#include <throng/util/errors.h>
#include <string.h>

static char      g_msg[2048], g_cause[2048], g_where[512];
static PetscBool g_have = PETSC_FALSE, g_collective = PETSC_FALSE;

static PetscErrorCode Handler(MPI_Comm comm, int line, const char *fun, const char *file, PetscErrorCode n,
                              PetscErrorType p, const char *mess, void *ctx)
{
  if (p == PETSC_ERROR_INITIAL) {
    int self = 1;
    if (g_have) memcpy(g_cause, g_msg, sizeof(g_msg));
    snprintf(g_msg, sizeof(g_msg), "%s", mess && mess[0] ? mess : "unspecified error");
    snprintf(g_where, sizeof(g_where), "%s() at %s:%d, PETSc error %d", fun ? fun : "?", file ? file : "?", line,
             (int)n);
    if (comm != MPI_COMM_NULL && comm != MPI_COMM_SELF) {
      int result = MPI_UNEQUAL;
      MPI_Comm_compare(comm, MPI_COMM_SELF, &result);
      self = (result == MPI_IDENT); /* one rank: WORLD is congruent to SELF, yet collective */
    }
    g_collective = self ? PETSC_FALSE : PETSC_TRUE;
    g_have       = PETSC_TRUE;
  }
  return n;
}

PetscErrorCode ErrorsInstall(void)
{
  PetscFunctionBeginUser;
  PetscCall(PetscPushErrorHandler(Handler, NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

const char *ErrorsLastMessage(void) { return g_have ? g_msg : "unknown error"; }

int ErrorsFinish(PetscErrorCode ierr)
{
  int rank = 0, init = 0;
  if (!ierr) return 0;
  MPI_Initialized(&init);
  if (init) MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  /* what was printed before goes out first: a full stdout buffer flushed later would
     split its line around the error line, which then no longer starts a line */
  fflush(stdout);
  if (g_collective) {
    if (rank == 0) {
      fprintf(stderr, "throng: error: %s\n", g_have ? g_msg : "unknown error");
      if (g_cause[0] && !strstr(g_msg, g_cause)) fprintf(stderr, "throng:   caused by: %s\n", g_cause);
      fflush(stderr);
    }
    (void)PetscFinalize();
    return 1;
  }
  fprintf(stderr, "throng: error on rank %d: %s\nthrong:   (%s)\n", rank, g_have ? g_msg : "unknown error", g_where);
  fflush(stderr);
  if (init) MPI_Abort(MPI_COMM_WORLD, 1);
  return 1;
}
