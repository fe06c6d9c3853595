/* periodic — periodic boundaries: a box without walls along x, y or both.
 *
 * A bulk granular or jamming study puts its disks in a periodic box, so that no wall
 * orders the packing next to it.  With -periodic x (or y, or xy) a disk that leaves
 * the box on one side comes back on the other, and a disk near one side touches the
 * disks near the other side through their periodic images.
 *
 * The images are ghosts.  Nothing in the sweep knows about periodicity: the one-cell
 * ring around a rank's block (halo.c) is filled, across a periodic side, with copies of
 * the disks of the cells on the far side, shifted by the box length L.  A rank whose
 * block touches a periodic side has a neighbour beyond it: the rank at the other end
 * of the rank grid, or itself when it holds the whole length (then it sends to itself).
 * For each neighbour slot the domain records the wrap w in {-1, 0, +1} per axis; a
 * received ghost is binned in the cell of its owner shifted by w times the cell count
 * (computed from the owner's own bits, never from the shifted position), its position
 * is the owner's plus w L, and a ghost that a sweep moved goes back to its owner as its
 * position minus w L.  So the sweep projects pairs across the boundary exactly as any
 * other pair, through the same halo exchanges, and the order of the projections is the
 * same on any number of ranks: the trajectory stays bitwise the same on 1, 2 or 3 ranks
 * (ctest -R periodic).  Positions are wrapped back into [lo, hi) when the disks are
 * rebinned — a global event, the same on every rank count — so that between rebinnings
 * a disk's path is continuous and the displacement checks of pbd.c hold unchanged.
 *
 * The colours across the boundary.  Tiles of one colour must have disjoint footprints
 * (domain.c): at least two cells apart.  Across a periodic side the last tile is next to
 * the first, so along a periodic axis the number of tiles must be even and the last
 * tile at least two cells wide; PeriodicCellCount picks the most cells (of edge at least
 * 2 r_max + skin) for which that holds.  The smallest periodic box is therefore tile + 2
 * cells long (4 cells with -tile 2): shorter, a disk could touch its own image.
 *
 * The prediction moves owners and images by the same field, but (x + L) + h f is not
 * bitwise x + h f + L, so with periodic axes the images are refreshed from their owners
 * after each prediction (one forward exchange) instead of being predicted in place.
 *
 * What it composes with.  Walls on the other axis (a channel: -periodic x with the box's
 * floor and ceiling), gravity, noise, and the steppers pbd, pbdw, pngs and penalty.  It
 * does not compose with a wall on a periodic side (-halfplanes whose normal has a
 * component along a periodic axis: such a wall would cut the periodic images), with an
 * attraction to a point (-attract_gamma: not periodic), with a crowd geometry, or with
 * pgs (its assembled operator has no images yet) and edmd (which has -edmd_periodic).   */
#include <throng/core/periodic.h>

static const char *const PbcNames[] = {"none", "x", "y", "xy", "PeriodicAxes", "PBC_", NULL};

PetscErrorCode PeriodicSetFromOptions(Opt *o)
{
  Params *p = o->p;
  PetscFunctionBeginUser;
  PetscCall(OptEnum(o, OPT_PHYS, "-periodic",
                    "Periodic box along x, y or xy (none: walls or open sides); docs/granular.md", PbcNames, 4,
                    &p->pbcAxes));
  p->pbc[0] = (p->pbcAxes & 1) ? PETSC_TRUE : PETSC_FALSE;
  p->pbc[1] = (p->pbcAxes & 2) ? PETSC_TRUE : PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscInt PeriodicCellCount(PetscReal L, PetscReal cellMin, PetscInt tile)
{
  const PetscReal m = PetscFloorReal(L / cellMin);
  if (!(m >= 4) || m >= 1e9) return 0;
  for (PetscInt n = (PetscInt)m; n >= tile + 2 && n >= 4; n--) {
    const PetscInt nt = (n + tile - 1) / tile, last = n - (nt - 1) * tile;
    if (nt % 2 == 0 && last >= 2) return n;
  }
  return 0;
}

void PeriodicCellMin(const Params *p, PetscReal rmax, PetscReal cm[2])
{
  cm[0] = cm[1] = 2 * rmax + p->skin;
  if (p->shearRate != 0) { /* the tilt reaches Lx / 2: a cell's width across is w / sqrt(1 + (Lx / 2 Ly)^2) */
    const PetscReal s = (p->box[2] - p->box[0]) / (2 * (p->box[3] - p->box[1]));
    cm[0] *= PetscSqrtReal(1 + s * s);
  }
}

PetscErrorCode PeriodicCheck(MPI_Comm comm, const Params *p)
{
  static const char *ax = "xy";
  PetscFunctionBeginUser;
  if (!p->pbc[0] && !p->pbc[1]) PetscFunctionReturn(PETSC_SUCCESS);
  const char *name = p->pbc[0] && p->pbc[1] ? "xy" : (p->pbc[0] ? "x" : "y");
  PetscCheck(!p->geometry[0], comm, PETSC_ERR_SUP,
             "-periodic %s with -geometry: a crowd geometry has walls and exits, not periodic sides; "
             "periodic boxes are for granular and bulk studies (docs/granular.md)",
             name);
  PetscCheck(strcmp(p->solver, "pgs") && strcmp(p->solver, "edmd"), comm, PETSC_ERR_SUP,
             "-periodic %s with -solver %s: periodic boxes work with pbd, pbdw, pngs and penalty%s", name, p->solver,
             strcmp(p->solver, "edmd") ? "" : " (edmd has its own: -edmd_periodic)");
  PetscCheck(p->gamma == 0, comm, PETSC_ERR_USER_INPUT,
             "-periodic %s with -attract_gamma %.6g: an attraction to a point is not periodic; use -gravity or none",
             name, (double)p->gamma);
  for (PetscInt k = 0; k < p->nhalf; k++)
    for (int a = 0; a < 2; a++)
      PetscCheck(!p->pbc[a] || p->half[3 * k + a] == 0, comm, PETSC_ERR_USER_INPUT,
                 "-periodic %s with -halfplanes triple %" PetscInt_FMT
                 " (%.6g,%.6g,%.6g): a wall across the periodic %c "
                 "direction would cut the periodic images; walls may only face the non-periodic axis",
                 name, k + 1, (double)p->half[3 * k], (double)p->half[3 * k + 1], (double)p->half[3 * k + 2], ax[a]);
  {
    PetscReal cm[2];
    PeriodicCellMin(p, ParamsRadiusMax(p), cm);
    for (int a = 0; a < 2; a++) {
      const PetscReal cell = cm[a];
      if (!p->pbc[a]) continue;
      const PetscReal L = p->box[2 + a] - p->box[a];
      PetscCheck(PeriodicCellCount(L, cell, p->tile) > 0, comm, PETSC_ERR_USER_INPUT,
                 "-periodic %s: the box is %.6g long along %c, %.6g cells of %.6g (2 r_max + skin, more along x when "
                 "sheared); a periodic direction "
                 "needs at least %" PetscInt_FMT " cells (two tiles of -tile %" PetscInt_FMT
                 ", the last >= 2 cells wide), so that no disk meets its own image: enlarge -box or lower -tile",
                 name, (double)L, ax[a], (double)PetscFloorReal(L / cell), (double)cell,
                 PetscMax(p->tile + 2, (PetscInt)4), p->tile);
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
