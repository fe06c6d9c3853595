/* config — the YAML config file of a run (-options_file_yaml FILE).
 *
 * Its keys are option names without the dash ("n: 1000", "box: [0, 0, 100, 100]"); a
 * mapping flattens to -name_key.  PETSc would read the file inside PetscInitialize(),
 * where a missing or malformed file ends the run with a traceback on every rank.  main()
 * therefore removes -options_file_yaml from argv before PetscInitialize() and
 * LoadConfigFile() reads it once throng's error handler is installed (rank 0 reads, every
 * rank parses the same text), then re-inserts the command line so that it keeps
 * precedence.                                                                           */
#include <throng/app/options.h>
#include <throng/util/files.h>
#include <string.h>

static const char *config = NULL; /* -options_file_yaml, taken from argv before PETSc */

const char *ConfigFile(void) { return config; }

/* Remove "-options_file_yaml FILE" from argv; return FILE (or NULL). */
static const char *TakeConfigArg(int *argc, char ***argv)
{
  const char *file = NULL;
  int         k    = 1;
  for (int i = 1; i < *argc; i++) {
    if (!strcmp((*argv)[i], "-options_file_yaml") && i + 1 < *argc) {
      file = (*argv)[++i];
      continue;
    }
    (*argv)[k++] = (*argv)[i];
  }
  *argc      = k;
  (*argv)[k] = NULL;
  return file;
}

/* Called before PetscInitialize(): hide the config file from PETSc. */
void TakeConfigFile(int *argc, char ***argv) { config = TakeConfigArg(argc, argv); }

/* The input files a config file names (-geometry, -init_file, -restart, -src_NAME_table)
   are found beside it: a relative path in it is taken from the file's folder, as most
   tools with config files do, so `throng -options_file_yaml /somewhere/scene.yaml` runs
   from any folder.  A path given on the command line stays relative to the working
   directory (the command line is inserted after this, and wins); so do the outputs a
   config file names (-output, -checkpoint, -trajectory): they go where the run is. */
static PetscErrorCode ConfigRelativePaths(void)
{
  const char *slash = strrchr(config, '/');
  PetscInt    n, nleft, nset = 0;
  char      **names, **values, (*set)[2][PETSC_MAX_PATH_LEN];
  PetscFunctionBeginUser;
  if (!slash) PetscFunctionReturn(PETSC_SUCCESS); /* the file is in the working directory */
  PetscCall(PetscOptionsLeftGet(NULL, &n, &names, &values));
  nleft = n;
  PetscCall(PetscMalloc1(nleft + 1, &set));
  for (PetscInt i = 0; i < nleft; i++) {
    const char     *nm = names[i], *v = values[i];
    const size_t    l     = strlen(nm);
    const PetscBool input = (PetscBool)(!strcmp(nm, "geometry") || !strcmp(nm, "init_file") || !strcmp(nm, "restart") ||
                                        (!strncmp(nm, "src_", 4) && l > 10 && !strcmp(nm + l - 6, "_table")));
    if (!input || !v || !v[0] || v[0] == '/' || !strncmp(v, "builtin:", 8)) continue;
    PetscCall(PetscSNPrintf(set[nset][0], sizeof(set[0][0]), "-%s", nm));
    PetscCall(PetscSNPrintf(set[nset][1], sizeof(set[0][1]), "%.*s/%s", (int)(slash - config), config, v));
    nset++;
  }
  PetscCall(PetscOptionsLeftRestore(NULL, &n, &names, &values));
  for (PetscInt k = 0; k < nset; k++) PetscCall(PetscOptionsSetValue(NULL, set[k][0], set[k][1]));
  PetscCall(PetscFree(set));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode LoadConfigFile(MPI_Comm comm, int *argc, char ***argv)
{
  char          *text;
  PetscErrorCode ierr;

  PetscFunctionBeginUser;
  if (!config) PetscFunctionReturn(PETSC_SUCCESS);
  /* rank 0 reads the file for everybody (files.c: a directory, a binary file or a missing
     one is one collective error), so every rank parses the same text */
  PetscCall(FilesReadText(comm, "config file (-options_file_yaml)", config, (size_t)64 << 20, PETSC_TRUE, &text, NULL));
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = PetscOptionsInsertStringYAML(NULL, text);
  PetscCall(PetscPopErrorHandler());
  PetscCall(PetscFree(text));
  PetscCheck(!ierr, comm, PETSC_ERR_USER_INPUT,
             "config file '%s' is not a valid YAML file of options (a mapping of option names to values)", config);
  PetscCall(ConfigRelativePaths());
  /* the command line keeps precedence over the file */
  PetscCall(PetscOptionsInsert(NULL, argc, argv, NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}
