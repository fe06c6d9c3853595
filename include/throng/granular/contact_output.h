/* contact_output — the contact network at the snapshot steps, for ParaView's force
   chains (-contact_output; see src/contact_output.c). */
#pragma once
#include <throng/util/opt.h>
#include <hdf5.h>

typedef struct Sim Sim;

/* -contact_output (a RUN option: recording does not change a bit of the run). */
PetscErrorCode ContactOutputSetFromOptions(Opt *o);
PetscErrorCode ContactOutputCheck(MPI_Comm comm, const Params *p);
/* Is step (the step about to be completed) a snapshot step whose contacts are kept? */
PetscBool ContactOutputStep(const Params *p, PetscInt step);

typedef struct {
  MPI_Comm    comm;
  hid_t       file, dxpl;
  char        h5[PETSC_MAX_PATH_LEN + 16], xdmf[PETSC_MAX_PATH_LEN + 16], h5base[PETSC_MAX_PATH_LEN];
  PetscInt    frames, cap; /* the frames in the file, in step order                       */
  PetscInt   *fstep;
  PetscReal  *ftime;
  PetscInt64 *fcount;
} ContactWriter;

/* Create PREFIX_contacts.h5 (or, for a restart with append, reopen it and drop its frames
   after step from).  Collective. */
PetscErrorCode ContactWriterOpen(MPI_Comm comm, const Sim *s, PetscBool append, PetscInt from, ContactWriter *w);
/* Write the contacts kept at this step (s->stress, contacts.c), if any were: a frame, and
   the XDMF sidecar anew.  Collective. */
PetscErrorCode ContactWriterWrite(ContactWriter *w, const Sim *s);
PetscErrorCode ContactWriterClose(ContactWriter *w);
