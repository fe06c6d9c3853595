/* source — agents that arrive during the run (see the essay at the top of
   src/crowd/source.c).  The sources as declared (SourceDecl) are part of Params
   (util/params.h); their run-time state is the crowd's (crowd.h). */
#pragma once
#include <throng/util/opt.h>
#include <throng/crowd/crowd.h>

/* -sources and every -src_NAME_* option (options.c calls it). */
PetscErrorCode SourceSetFromOptions(Opt *o);
/* The sources' spots and first arrival times; the arrivals due at the end of a step
   (collective); whether any is still to come; the memory. */
PetscErrorCode SourcesSetUp(Sim *s, Crowd *c);
PetscErrorCode SourcesStep(Sim *s, Crowd *c);
PetscBool      SourcesPending(const Crowd *c);
PetscErrorCode SourcesDestroy(Crowd *c);
