/* opt — declaring an option: the helpers every XxxSetFromOptions reads its options with.
 *
 * PETSc's options database holds what the command line, PETSC_OPTIONS and the YAML
 * config file give (app/config.c).  A module reads its options only through the helpers
 * below, which check each value where it is read and record the option in Params with
 * its kind (see Declare).  The helpers include nothing of the project above util/: every
 * module of every layer may read its own options, and app/options.c only says in which
 * order the modules do.                                                                */
#include <throng/util/opt.h>
#include <string.h>
#include <stdlib.h>
#include <errno.h>
#include <limits.h>

/* ---- Declaring an option --------------------------------------------------------------
 * Every option is read by one of the helpers below, and by nothing else.  A helper
 *   - checks the value where it is read, for the command line and the YAML file alike:
 *     a real must be a finite number (no nan, no inf), an integer must fit its type;
 *   - records the option in p->decl[] with its kind, which every declaration must state:
 *       PHYS  the option defines the equations being integrated, or random draws that
 *             enter them (the free speeds, the noise): a restart must run with the same
 *             final value, and ParamsPhysics() prints all of them for checkpoint.c;
 *       RUN   it steers the run only (output, progress, decomposition, the initial
 *             state, which a restart takes from its checkpoint).
 * So no option can be left out of the restart check: a new one must say which it is.  */
static PetscErrorCode Declare(Opt *o, OptionKind kind, OptionType type, const char *name, const void *v, PetscInt n,
                              const PetscInt *count, PetscInt per, const char *const *list)
{
  Params     *p = o->p;
  OptionDecl *d;
  PetscFunctionBeginUser;
  PetscCheck(p->ndecl < THRONG_MAX_OPTIONS, PETSC_COMM_SELF, PETSC_ERR_PLIB,
             "more than %d options: raise THRONG_MAX_OPTIONS", THRONG_MAX_OPTIONS);
  PetscCheck((const char *)v >= (const char *)p && (const char *)v < (const char *)(p + 1), PETSC_COMM_SELF,
             PETSC_ERR_PLIB, "option %s: its value is not a field of Params", name);
  d       = &p->decl[p->ndecl++];
  d->name = name + 1;
  d->kind = kind;
  d->type = type;
  d->off  = (size_t)((const char *)v - (const char *)p);
  d->n    = n;
  d->noff = count ? (size_t)((const char *)count - (const char *)p) : 0;
  d->per  = per;
  d->list = list;
  PetscCall(PetscOptionsHasName(NULL, NULL, name, &d->given));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscBool ParamsGiven(const Params *p, const char *name)
{
  for (PetscInt k = 0; k < p->ndecl; k++)
    if (!strcmp(p->decl[k].name, name)) return p->decl[k].given;
  return PETSC_FALSE;
}

/* A value PETSc cannot parse ("abc" for a real, "maybe" for a bool, a YAML list for a
   choice) is one error that names the option and shows its whole text: PETSc's own
   message names neither.  The options are the same on every rank, so every rank fails
   here and the error is collective. */
static PetscErrorCode BadValue(Opt *o, const char *name, const char *want)
{
  char      raw[256] = "";
  PetscBool set;
  PetscFunctionBeginUser;
  PetscCall(PetscOptionsGetString(NULL, NULL, name, raw, sizeof(raw), &set));
  SETERRQ(o->comm, PETSC_ERR_USER_INPUT, "option %s: '%s' is not %s", name, raw, want);
}

/* call: a PETSc option query, run with PETSc's error handler silenced */
#define OPT_PARSE(o, name, want, call) \
  do { \
    PetscErrorCode ierr_; \
    PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL)); \
    ierr_ = (call); \
    PetscCall(PetscPopErrorHandler()); \
    if (ierr_) PetscCall(BadValue(o, name, want)); \
  } while (0)

static PetscErrorCode CheckFinite(Opt *o, const char *name, PetscInt n, const PetscReal *v)
{
  PetscFunctionBeginUser;
  for (PetscInt k = 0; k < n; k++)
    PetscCheck(!PetscIsInfOrNanReal(v[k]), o->comm, PETSC_ERR_USER_INPUT,
               "option %s: %s%s is not a finite number (every real value must be)", name,
               PetscIsNanReal(v[k]) ? "nan"
               : v[k] > 0           ? "inf"
                                    : "-inf",
               n > 1 ? ", one of its values," : "");
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode OptReal(Opt *o, OptionKind kind, const char *name, const char *help, PetscReal *v, PetscBool *set)
{
  PetscOptionItems *PetscOptionsObject = o->PetscOptionsObject;
  PetscBool         s;
  PetscFunctionBeginUser;
  OPT_PARSE(o, name, "a number", PetscOptionsReal(name, help, NULL, *v, v, &s));
  if (s) PetscCall(CheckFinite(o, name, 1, v));
  if (set) *set = s;
  PetscCall(Declare(o, kind, OPTT_REAL, name, v, 1, NULL, 1, NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* want numbers exactly (count NULL), or up to want in groups of per (what names them),
   *count = groups given */
PetscErrorCode OptReals(Opt *o, OptionKind kind, const char *name, const char *help, PetscInt want, PetscReal *v,
                        PetscInt *count, PetscInt per, const char *what, PetscBool *set)
{
  PetscOptionItems *PetscOptionsObject = o->PetscOptionsObject;
  PetscInt          n                  = want + 1; /* one more than fits: a value too many is seen */
  PetscReal        *buf;
  PetscBool         s = PETSC_FALSE, bad;
  PetscErrorCode    ierr;
  PetscFunctionBeginUser;
  PetscCall(PetscMalloc1(want + 1, &buf));
  PetscCall(PetscArraycpy(buf, v, want));
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = PetscOptionsRealArray(name, help, NULL, buf, &n, &s);
  PetscCall(PetscPopErrorHandler());
  bad = (PetscBool)(!ierr && s && (count ? !(n > 0 && n <= want && n % per == 0) : n != want));
  if (!ierr && s && !bad) PetscCall(PetscArraycpy(v, buf, n));
  PetscCall(PetscFree(buf)); /* before any error below: nothing leaks (the fuzzer checks) */
  if (ierr) PetscCall(BadValue(o, name, "a list of comma-separated numbers"));
  if (s) {
    if (!count)
      PetscCheck(!bad, o->comm, PETSC_ERR_USER_INPUT,
                 "option %s needs %" PetscInt_FMT " comma-separated numbers, got %s%" PetscInt_FMT, name, want,
                 n > want ? "more than " : "", n > want ? want : n);
    else
      PetscCheck(!bad, o->comm, PETSC_ERR_USER_INPUT,
                 "option %s needs groups of %" PetscInt_FMT " numbers %s (at most %" PetscInt_FMT
                 " numbers); got %s%" PetscInt_FMT " numbers",
                 name, per, what, want, n > want ? "more than " : "", n > want ? want : n);
    PetscCall(CheckFinite(o, name, n, v));
    if (count) *count = n / per;
  }
  if (set) *set = s;
  PetscCall(Declare(o, kind, OPTT_REALS, name, v, count ? -1 : want, count, per, NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* An integer read as text, so that a number too large for its type is refused instead
   of wrapping around (PETSc's own parser turns 10^20 into -1). */
static PetscErrorCode ParseInteger(Opt *o, const char *name, const char *help, PetscInt64 cur, PetscInt64 lo,
                                   PetscInt64 hi, PetscInt64 *v, PetscBool *set)
{
  PetscOptionItems *PetscOptionsObject = o->PetscOptionsObject;
  char              buf[64], *end;
  PetscBool         s;
  PetscFunctionBeginUser;
  PetscCall(PetscSNPrintf(buf, sizeof(buf), "%" PetscInt64_FMT, cur));
  PetscCall(PetscOptionsString(name, help, NULL, buf, buf, sizeof(buf), &s));
  *v = cur;
  if (s) {
    errno         = 0;
    long long val = strtoll(buf, &end, 10);
    PetscCheck(end != buf && *end == 0, o->comm, PETSC_ERR_USER_INPUT, "option %s: '%s' is not an integer", name, buf);
    PetscCheck(!(errno == ERANGE && val > 0) && val <= hi, o->comm, PETSC_ERR_USER_INPUT,
               "option %s: %s is too large (at most %" PetscInt64_FMT ")", name, buf, hi);
    PetscCheck(!(errno == ERANGE && val < 0) && val >= lo, o->comm, PETSC_ERR_USER_INPUT,
               "option %s: %s is too small (at least %" PetscInt64_FMT ")", name, buf, lo);
    *v = (PetscInt64)val;
  }
  if (set) *set = s;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode OptInt(Opt *o, OptionKind kind, const char *name, const char *help, PetscInt *v, PetscBool *set)
{
  PetscInt64 val = 0;
  PetscFunctionBeginUser;
  PetscCall(ParseInteger(o, name, help, *v, PETSC_MIN_INT, PETSC_MAX_INT, &val, set));
  *v = (PetscInt)val;
  PetscCall(Declare(o, kind, OPTT_INT, name, v, 1, NULL, 1, NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode OptInt64(Opt *o, OptionKind kind, const char *name, const char *help, PetscInt64 *v, PetscBool *set)
{
  PetscFunctionBeginUser;
  PetscCall(ParseInteger(o, name, help, *v, (PetscInt64)LLONG_MIN, (PetscInt64)LLONG_MAX, v, set));
  PetscCall(Declare(o, kind, OPTT_INT64, name, v, 1, NULL, 1, NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode OptInts(Opt *o, OptionKind kind, const char *name, const char *help, PetscInt want, PetscInt *v,
                       PetscBool *set)
{
  PetscOptionItems *PetscOptionsObject = o->PetscOptionsObject;
  PetscInt          n                  = want + 1; /* one more than fits: a value too many is seen */
  PetscInt         *buf;
  PetscBool         s = PETSC_FALSE;
  PetscErrorCode    ierr;
  PetscFunctionBeginUser;
  PetscCall(PetscMalloc1(want + 1, &buf));
  PetscCall(PetscArraycpy(buf, v, want));
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = PetscOptionsIntArray(name, help, NULL, buf, &n, &s);
  PetscCall(PetscPopErrorHandler());
  if (!ierr && s && n == want) PetscCall(PetscArraycpy(v, buf, want));
  PetscCall(PetscFree(buf)); /* before any error below: nothing leaks */
  if (ierr) PetscCall(BadValue(o, name, "a list of comma-separated integers"));
  PetscCheck(!s || n == want, o->comm, PETSC_ERR_USER_INPUT,
             "option %s needs %" PetscInt_FMT " comma-separated integers, got %s%" PetscInt_FMT, name, want,
             n > want ? "more than " : "", n > want ? want : n);
  if (set) *set = s;
  PetscCall(Declare(o, kind, OPTT_INTS, name, v, want, NULL, 1, NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode OptBool(Opt *o, OptionKind kind, const char *name, const char *help, PetscBool *v)
{
  PetscOptionItems *PetscOptionsObject = o->PetscOptionsObject;
  PetscFunctionBeginUser;
  OPT_PARSE(o, name, "a boolean (true or false, yes or no, 1 or 0)", PetscOptionsBool(name, help, NULL, *v, v, NULL));
  PetscCall(Declare(o, kind, OPTT_BOOL, name, v, 1, NULL, 1, NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode OptString(Opt *o, OptionKind kind, const char *name, const char *help, char *v, size_t len,
                         PetscBool *set)
{
  PetscOptionItems *PetscOptionsObject = o->PetscOptionsObject;
  PetscFunctionBeginUser;
  PetscCall(PetscOptionsString(name, help, NULL, v, v, len, set));
  PetscCall(Declare(o, kind, OPTT_STRING, name, v, 1, NULL, 1, NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* list: n names, then PETSc's enum name and prefix, NULL; *v is an enum field */
PetscErrorCode OptEnum(Opt *o, OptionKind kind, const char *name, const char *help, const char *const *list, PetscInt n,
                       int *v)
{
  PetscOptionItems *PetscOptionsObject = o->PetscOptionsObject;
  PetscInt          k                  = *v;
  PetscFunctionBeginUser;
  char want[256] = "one of:";
  for (PetscInt i = 0; i < n; i++) {
    PetscCall(PetscStrlcat(want, " ", sizeof(want)));
    PetscCall(PetscStrlcat(want, list[i], sizeof(want)));
  }
  OPT_PARSE(o, name, want, PetscOptionsEList(name, help, NULL, list, n, list[*v], &k, NULL));
  *v = (int)k;
  PetscCall(Declare(o, kind, OPTT_ENUM, name, v, 1, NULL, 1, list));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode OptDist(Opt *o, OptionKind kind, const char *name, const char *help, char *text, size_t len, Dist *d,
                       PetscBool *set)
{
  PetscBool s;
  PetscFunctionBeginUser;
  DistText(d, text, len); /* the default, unless given */
  PetscCall(OptString(o, kind, name, help, text, len, &s));
  if (s) PetscCall(DistParse(o->comm, name, text, d));
  if (set) *set = s;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode OptName(Opt *o, const char *prefix, const char *name, const char *suffix, const char **opt)
{
  Params *p = o->p;
  PetscFunctionBeginUser;
  PetscCheck(p->noptName < (PetscInt)(sizeof(p->optName) / sizeof(p->optName[0])), PETSC_COMM_SELF, PETSC_ERR_PLIB,
             "too many option names made at run time");
  PetscCall(PetscSNPrintf(p->optName[p->noptName], sizeof(p->optName[0]), "%s%s%s", prefix, name, suffix));
  *opt = p->optName[p->noptName++];
  PetscFunctionReturn(PETSC_SUCCESS);
}
