/* domain — cells, tiles, their colours, and the block decomposition over ranks. */
#pragma once
#include <throng/throng.h>

typedef struct {
  MPI_Comm    comm; /* the run's communicator                                     */
  MPI_Comm    nbr;  /* distributed-graph communicator of the 8-neighbourhood      */
  MPI_Comm    rev;  /* the same graph with the edges reversed (halo.c: HaloReverse) */
  PetscMPIInt rank, size;
  PetscMPIInt p[2];         /* ranks along x and y                                       */
  PetscBool   gridFixed;    /* -rank_grid given: the balancer keeps p                     */
  PetscMPIInt q[2];         /* this rank's block coordinates                             */
  PetscReal   lo[2], hi[2]; /* the decomposed box                                      */
  PetscReal   w[2];         /* cell widths                                               */
  PetscReal   winv[2];
  PetscInt    nc[2];        /* global number of cells                                    */
  PetscInt    tile;         /* tile edge in cells                                        */
  PetscInt    nt[2];        /* global number of tiles                                    */
  PetscInt   *cut[2];       /* block b along axis a owns tiles [cut[a][b], cut[a][b+1])   */
  PetscInt    t0[2], t1[2]; /* owned tiles [t0, t1)                                    */
  PetscInt    c0[2], c1[2]; /* owned cells [c0, c1)                                    */
  PetscInt    ln[2];        /* local grid = owned cells + a ring of one ghost cell        */
  PetscInt    ncell;        /* ln[0] * ln[1]                                             */
  PetscInt   *slot;         /* storage position of each owned local cell (ring: -1): tiles
                            colour by colour, row-major; cells row-major in a tile      */
  PetscBool   per[2];       /* periodic along x, y (periodic.c)                          */
  PetscMPIInt nnbr;         /* neighbours that exist (<= 8), counted as out-edges        */
  PetscMPIInt nbrRank[8];   /* out-edge k (send slot k): the rank in direction nbrDir[k] */
  PetscInt    nbrDir[8][2]; /* direction (dx, dy) in {-1,0,1}^2 of each neighbour      */
  PetscMPIInt inRank[8];    /* in-edge k (receive slot k): the rank in direction inDir[k], */
  PetscInt    inDir[8][2];  /*   which sent it in its send slot of direction -inDir[k]     */
  PetscInt    inWrap[8][2]; /* -1, 0, +1: that rank's disks are seen shifted by inWrap L   */
  PetscReal   tilt;         /* Lees-Edwards offset: the image one box up is shifted by tilt
                               along x, and cells are sheared with it (deform.c)          */
} Domain;

/* grid: ranks along x and y, or {0, 0} to choose the grid with the shortest halo. */
PetscErrorCode DomainCreate(MPI_Comm comm, const PetscReal box[4], const PetscBool per[2], const PetscReal cellMin[2],
                            PetscInt tile, const PetscInt grid[2], Domain *d);
PetscErrorCode DomainDestroy(Domain *d);
/* Make the rank grid p[0] x p[1] (p[0] p[1] = size) with block borders at the tile cuts
   cx[0..p[0]], cy[0..p[1]] (0 = cx[0] < cx[1] < ... < cx[p[0]] = nt[0], the same on
   every rank).  Collective when the grid changes (a new neighbour communicator); the
   caller rebuilds what depends on the local grid or the neighbours (cells, wall mask,
   halo, migrator) and moves the disks.                                              */
PetscErrorCode DomainSetGrid(Domain *d, const PetscMPIInt p[2], const PetscInt *cx, const PetscInt *cy);

/* The sheared abscissa of a point in a Lees-Edwards box: x less the tilt's shift at its
   height, so that the cells are parallelograms of the tilted box (deform.c). */
static inline PetscReal DomainShearedX(const Domain *d, PetscReal x, PetscReal y)
{
  return x - d->lo[0] - d->tilt * ((y - d->lo[1]) / (d->hi[1] - d->lo[1]));
}
/* Global cell of a point; points outside the box are clamped to the boundary cells
   (clamping never separates two points that are in neighbouring cells).  In a sheared
   box the cell is found from the sheared abscissa.                                    */
static inline void DomainCellOf(const Domain *d, PetscReal x, PetscReal y, PetscInt *cx, PetscInt *cy)
{
  PetscReal fx = (d->tilt != 0 ? DomainShearedX(d, x, y) : x - d->lo[0]) * d->winv[0], fy = (y - d->lo[1]) * d->winv[1];
  PetscInt  ix = fx < 0 ? 0 : (fx >= (PetscReal)d->nc[0] ? d->nc[0] - 1 : (PetscInt)fx);
  PetscInt  iy = fy < 0 ? 0 : (fy >= (PetscReal)d->nc[1] ? d->nc[1] - 1 : (PetscInt)fy);
  *cx          = ix;
  *cy          = iy;
}

/* The shift of the images received in slot k (halo.c), and whether there is one. */
static inline PetscBool DomainImageShift(const Domain *d, PetscMPIInt k, PetscReal sh[2])
{
  sh[0] = (PetscReal)d->inWrap[k][0] * (d->hi[0] - d->lo[0]);
  if (d->tilt != 0) sh[0] += (PetscReal)d->inWrap[k][1] * d->tilt; /* Lees-Edwards: one box up is tilt along x */
  sh[1] = (PetscReal)d->inWrap[k][1] * (d->hi[1] - d->lo[1]);
  return d->inWrap[k][0] || d->inWrap[k][1] ? PETSC_TRUE : PETSC_FALSE;
}

/* Block coordinate along axis a of the rank that owns global tile t. */
PetscMPIInt DomainBlockOfTile(const Domain *d, int a, PetscInt t);
/* Rank that owns a global cell. */
PetscMPIInt DomainOwnerOfCell(const Domain *d, PetscInt cx, PetscInt cy);
/* Local cell index (ring included) of a global cell within one cell of the block.  */
static inline PetscInt DomainLocalCell(const Domain *d, PetscInt cx, PetscInt cy)
{
  return (cy - d->c0[1] + 1) * d->ln[0] + (cx - d->c0[0] + 1);
}
/* Colour of a global tile: tiles of one colour have disjoint sweep footprints. */
static inline int DomainTileColour(PetscInt tx, PetscInt ty) { return (int)(tx & 1) + 2 * (int)(ty & 1); }
/* The first tile index >= t0 of parity `parity`: a rank sweeps the tiles of colour c
   that lie in its block from DomainColourStart(t0[0], c & 1), DomainColourStart(t0[1],
   c >> 1), every second one along each axis (pbd.c; tested in test_units.c).        */
static inline PetscInt DomainColourStart(PetscInt t0, int parity) { return t0 + ((t0 & 1) != parity); }
/* The forward neighbours of a cell, (dx, dy): E, NW, N, NE.  With the cell itself they
   take each pair of neighbouring cells once (a half stencil). */
static const int THRONG_FWD[4][2] = {{1, 0}, {-1, 1}, {0, 1}, {1, 1}};
/* The same as offsets in a local cell array of row length L (written out, so that the
   sweep's compiler sees constants; test_units.c checks them against THRONG_FWD). */
static inline void DomainForwardOffsets(PetscInt L, PetscInt fwd[4])
{
  fwd[0] = 1;
  fwd[1] = L - 1;
  fwd[2] = L;
  fwd[3] = L + 1;
}
#define THRONG_NCOLOURS 4
