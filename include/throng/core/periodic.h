/* periodic — periodic boundaries of the box along x, y or both (-periodic). */
#pragma once
#include <throng/util/opt.h>

/* -periodic none|x|y|xy into p->pbc[2] (PHYS: a restart must match). */
PetscErrorCode PeriodicSetFromOptions(Opt *o);
/* What a periodic box cannot be combined with, and a box too short for its cells: one
   message, on every rank.  After the box and the tile are known (options.c). */
PetscErrorCode PeriodicCheck(MPI_Comm comm, const Params *p);
/* Cells along a periodic axis of length L: the most cells of edge >= cellMin such that
   the tiles of `tile` cells are even in number and the last one is >= 2 cells wide
   (domain.c says why); 0 if there is no such count. */
PetscInt PeriodicCellCount(PetscReal L, PetscReal cellMin, PetscInt tile);
/* The least cell edges along x and y: 2 r_max + skin, and along x more in a sheared box
   (deform.c: the cells are parallelograms, narrower across than along x). */
void PeriodicCellMin(const Params *p, PetscReal rmax, PetscReal cm[2]);
