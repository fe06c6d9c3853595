/* options — the composition of the run's options: which modules read theirs, in what
   order, and the checks across modules (src/app/options.c); the config file. */
#pragma once
#include <throng/util/params.h>

/* Every option of the run into p: each module's XxxSetFromOptions, then the checks.
   Collective (every rank raises the same error). */
PetscErrorCode ProcessOptions(MPI_Comm comm, Params *p);
/* Any option left unused is an error naming it (a YAML mapping given as a value, which
   PETSc flattens to -name_key, is said to be one). */
PetscErrorCode CheckUnusedOptions(MPI_Comm comm, const Params *p);
/* Before PetscInitialize(): take -options_file_yaml FILE out of argv (see config.c). */
void           TakeConfigFile(int *argc, char ***argv);
PetscErrorCode LoadConfigFile(MPI_Comm comm, int *argc, char ***argv);
/* The config file taken from argv (NULL: none). */
const char    *ConfigFile(void);
PetscErrorCode ParamsView(MPI_Comm comm, const Params *p);

/* scenarios.c: -scenario NAME sets its options (unless given); the names for -help. */
PetscErrorCode ScenarioApply(MPI_Comm comm);
const char    *ScenarioHelp(void);
