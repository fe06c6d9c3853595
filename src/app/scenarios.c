/* scenarios — ready-made jobs: -scenario NAME sets a list of options, each one used
 * unless the command line or the config file gives it.
 *
 * A scenario is a table of (option, value) pairs and one line in the list below, with a
 * few words for -help.  The Quick start's job is `evacuation`.                        */
#include <throng/app/options.h>
#include <string.h>

typedef const char *const ScenarioOptions[2];

/* 10 000 agents leave an 80 m x 50 m hall through four doors, each by the door it expects
   to pass soonest (route.c), the Quick start's job. */
static ScenarioOptions Evacuation[] = {
  {"-geometry", "builtin:venue"},
  {"-n", "10000"},
  {"-radius", "0.15"},
  {"-polydispersity", "0"},
  {"-init", "jitter"},
  {"-init_phi", "0.4"},
  {"-dt", "0.03"},
  {"-steps", "100000"},
  {"-eikonal_h", "0.1"},
  {"-output_every", "500"},
  {"-progress", "2500"},
  {"-map", "false"},
  {"-route_choice", "quickest"}, /* each agent takes the exit it expects to leave by soonest */
  {NULL, NULL},
};

static const struct {
  const char      *name, *help;
  ScenarioOptions *options;
} scenarios[] = {
  {"evacuation",
   "10 000 agents leave an 80 m x 50 m hall through 4 doors, choosing doors by expected travel time; the Quick start's "
   "job",
   Evacuation},
};
#define NSCENARIOS (sizeof(scenarios) / sizeof(scenarios[0]))

const char *ScenarioHelp(void)
{
  static char help[1024] = "";
  if (!help[0]) {
    PetscStrlcat(help, "Ready-made job:", sizeof(help));
    for (size_t k = 0; k < NSCENARIOS; k++) {
      PetscStrlcat(help, k ? "; " : " ", sizeof(help));
      PetscStrlcat(help, scenarios[k].name, sizeof(help));
      PetscStrlcat(help, " (", sizeof(help));
      PetscStrlcat(help, scenarios[k].help, sizeof(help));
      PetscStrlcat(help, ")", sizeof(help));
    }
  }
  return help;
}

PetscErrorCode ScenarioApply(MPI_Comm comm)
{
  char      name[64] = "", names[256] = "";
  PetscBool set;
  size_t    k;

  PetscFunctionBeginUser;
  PetscCall(PetscOptionsGetString(NULL, NULL, "-scenario", name, sizeof(name), &set));
  if (!set) PetscFunctionReturn(PETSC_SUCCESS);
  for (k = 0; k < NSCENARIOS && strcmp(name, scenarios[k].name); k++) {}
  if (k == NSCENARIOS) {
    for (size_t i = 0; i < NSCENARIOS; i++) {
      PetscCall(PetscStrlcat(names, i ? "', '" : "'", sizeof(names)));
      PetscCall(PetscStrlcat(names, scenarios[i].name, sizeof(names)));
    }
    SETERRQ(comm, PETSC_ERR_USER_INPUT, "-scenario %s: the %s %s'", name,
            NSCENARIOS > 1 ? "scenarios are" : "only scenario is", names);
  }
  for (ScenarioOptions *o = scenarios[k].options; (*o)[0]; o++) {
    PetscBool has;
    PetscCall(PetscOptionsHasName(NULL, NULL, (*o)[0], &has));
    if (!has) PetscCall(PetscOptionsSetValue(NULL, (*o)[0], (*o)[1]));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
