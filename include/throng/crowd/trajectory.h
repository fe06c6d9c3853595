/* trajectory — -trajectory FILE: the agents' positions in the Pedestrian Dynamics Data
   Archive layout that PedPy reads, one file per floor beside it (see
   src/crowd/trajectory.c). */
#pragma once
#include <throng/io/io.h>

/* The writer of the trajectory files. */
typedef struct {
  MPI_Comm       comm;
  hid_t          file, ds, dxpl;
  hsize_t        rows;   /* rows written                                                    */
  PetscInt       stride; /* steps per frame                                                 */
  PetscInt       frames;
  PetscLogDouble lastFlush, flushEvery; /* -output_flush_every, as the snapshots        */
  PetscInt       nfloor;                /* floors (floors.c): a file for each, of its agents */
  hid_t         *ffile, *fds;
  hsize_t       *frows;
  PetscInt       kfloor; /* the per-disk field "floor"                                     */
} TrajWriter;
/* Create the file (or, restarting, reopen it and drop the frames after the step). Collective. */
PetscErrorCode TrajectoryOpen(MPI_Comm comm, const Sim *s, TrajWriter *t);
/* Append the current state if the step starts a frame. Collective. */
PetscErrorCode TrajectoryWrite(TrajWriter *t, const Sim *s);
/* Flush the trajectory file (collective); main.c calls it before every checkpoint. */
PetscErrorCode TrajectoryFlush(TrajWriter *t);
PetscErrorCode TrajectoryClose(TrajWriter *t);
