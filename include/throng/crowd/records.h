/* records — a crowd's records gathered on rank 0, and its final report (see
   src/crowd/records.c). */
#pragma once
#include <throng/crowd/crowd.h>

/* HDF5 compound types of the records (H5Tclose them). */
hid_t ExitType(void);
hid_t ArrivalType(void);
hid_t CrossType(void);
/* Every rank's records on rank 0, sorted: the exit records reduced to one passage per
   agent (passages, the report) or as they are (a checkpoint), the crossings and the
   density map.  Collective. */
PetscErrorCode GatherAll(const Sim *s, PetscBool passages, ExitRec **all, PetscInt *tot, CrossRec **crs, PetscInt *ncr,
                         PetscReal **dens);
/* The tables `exits` and `sensors` in group g (collective; rank 0's rows). */
PetscErrorCode WriteTables(MPI_Comm comm, hid_t g, hid_t dxpl, const ExitRec *all, PetscInt tot, const CrossRec *crs,
                           PetscInt ncr);
/* The module's finish hook: the summary lines, the CSV files and the group /crowd. */
PetscErrorCode CrowdFinish(Sim *s, void *ctx, PetscBool writeFiles, hid_t file, hid_t dxpl);
