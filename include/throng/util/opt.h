/* opt — the helpers that declare an option (src/util/opt.c), for the files that read their
   own options (each XxxSetFromOptions).  Every option is read by
   one of them and by nothing else: each checks its value and records the option with its
   kind (PHYS: part of the equations, a restart must match it; RUN: steers the run only),
   see the comment above Declare() in opt.c. */
#pragma once
#include <throng/util/params.h>

typedef struct {
  MPI_Comm          comm;
  PetscOptionItems *PetscOptionsObject; /* of the options block of ProcessOptions        */
  Params           *p;                  /* every value is a field of it                  */
} Opt;

PetscErrorCode OptReal(Opt *o, OptionKind kind, const char *name, const char *help, PetscReal *v, PetscBool *set);
/* want numbers exactly (count NULL), or up to want in groups of per (what names them),
   *count = groups given */
PetscErrorCode OptReals(Opt *o, OptionKind kind, const char *name, const char *help, PetscInt want, PetscReal *v,
                        PetscInt *count, PetscInt per, const char *what, PetscBool *set);
PetscErrorCode OptInt(Opt *o, OptionKind kind, const char *name, const char *help, PetscInt *v, PetscBool *set);
PetscErrorCode OptInt64(Opt *o, OptionKind kind, const char *name, const char *help, PetscInt64 *v, PetscBool *set);
PetscErrorCode OptInts(Opt *o, OptionKind kind, const char *name, const char *help, PetscInt want, PetscInt *v,
                       PetscBool *set);
PetscErrorCode OptBool(Opt *o, OptionKind kind, const char *name, const char *help, PetscBool *v);
PetscErrorCode OptString(Opt *o, OptionKind kind, const char *name, const char *help, char *v, size_t len,
                         PetscBool *set);
/* list: n names, then PETSc's enum name and prefix, NULL; *v is an enum field */
PetscErrorCode OptEnum(Opt *o, OptionKind kind, const char *name, const char *help, const char *const *list, PetscInt n,
                       int *v);
/* A distribution (population.h): its text, kept in Params (text, len bytes; the default's
   text when not given, so that the physics string holds the final value), parsed into d. */
PetscErrorCode OptDist(Opt *o, OptionKind kind, const char *name, const char *help, char *text, size_t len, Dist *d,
                       PetscBool *set);
/* An option name made at run time ("-pop_" NAME "_count"): kept in Params, so that its
   declaration outlives the caller's buffer. */
PetscErrorCode OptName(Opt *o, const char *prefix, const char *name, const char *suffix, const char **opt);
