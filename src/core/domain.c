/* domain — cells, tiles, their colours, and the block decomposition over ranks.
 *
 * Cells.  The box [x0,x1]x[y0,y1] is cut into nc[0] x nc[1] cells whose edges are at
 * least 2 r_max + skin.  Two disks that can touch before either has moved skin/2 are then
 * in the same or in neighbouring cells, so a disk need only be checked against the 3x3
 * block of cells around it — and, taking each pair once, against its own cell and the
 * four "forward" cells E, NW, N, NE (a half stencil).
 *
 * Tiles and colours: the sweep order.  PBD sweeps the constraints in one fixed order.
 * We make that order global — independent of how many ranks there are — as follows.
 * Cells are grouped into square tiles of T x T cells (T >= 2; the last tile of a row or
 * column may be narrower).  Processing a tile means projecting, cell by cell in
 * row-major order and disk by disk in id order, the walls of each disk and its pairs
 * with later disks of the same cell and with all disks of the four forward cells.  The
 * disks a tile touches (its footprint) are its own cells plus one cell to the W, E and
 * N.  Tile (tx, ty) has colour (tx mod 2) + 2 (ty mod 2).  Two tiles of one colour are
 * at least one full tile apart in x (>= 2 cells, which the footprint's one-cell border
 * cannot bridge) or in y, so their footprints are disjoint: tiles of one colour commute,
 * and "colour 0, then 1, 2, 3, each colour's tiles in any order" is ONE sequential
 * order of all constraints.  Each rank processes the tiles it owns; between colours the
 * halo carries the moved ghosts back to their owners and fresh copies out again.
 * Because every tile lies inside one rank's block, the result does not depend on the
 * number of ranks — bit for bit.  The tile is also the unit of memory locality: disks
 * are stored tile by tile, the tiles of colour 0 first, then those of colour 1, ..., so
 * that each colour of the sweep streams through one contiguous quarter of the arrays
 * (slot[] gives each owned cell's place in that order; the sweep order itself does not
 * depend on it).
 *
 * Decomposition.  The tile grid is split into p[0] x p[1] rectangular blocks, one per
 * rank, by p[0] + 1 cuts along x and p[1] + 1 along y (tile indices; a rectilinear
 * partition), at first as evenly as whole tiles allow; the factorisation p[0] p[1] =
 * size is chosen to minimise the halo perimeter.  balance.c may move the cuts during a
 * run, and change the rank grid with them (DomainSetGrid): the blocks stay rectangles
 * of whole tiles, so the sweep does not change.  Each rank holds its block plus a ring of one ghost
 * cell, whose disks belong to (at most) its 8 neighbours; all neighbour communication
 * goes through an MPI distributed-graph communicator over those neighbours.           */
#include <throng/core/domain.h>
#include <throng/core/periodic.h>

static PetscInt BlockStart(PetscInt nt, PetscMPIInt p, PetscMPIInt i)
{
  const PetscInt q = nt / p, rem = nt % p;
  return i * q + PetscMin((PetscInt)i, rem);
}

PetscMPIInt DomainBlockOfTile(const Domain *d, int a, PetscInt t)
{
  const PetscInt *c  = d->cut[a];
  PetscMPIInt     lo = 0, hi = d->p[a] - 1; /* the block b with c[b] <= t < c[b + 1] */
  while (lo < hi) {
    const PetscMPIInt mid = (lo + hi + 1) / 2;
    if (c[mid] <= t) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

PetscMPIInt DomainOwnerOfCell(const Domain *d, PetscInt cx, PetscInt cy)
{
  const PetscMPIInt bx = DomainBlockOfTile(d, 0, cx / d->tile), by = DomainBlockOfTile(d, 1, cy / d->tile);
  return by * d->p[0] + bx;
}

/* This rank's block, local grid and storage order, from the cuts. */
static PetscErrorCode DomainLayout(Domain *d)
{
  const PetscInt tile = d->tile;
  PetscFunctionBeginUser;
  for (int a = 0; a < 2; a++) {
    d->t0[a] = d->cut[a][d->q[a]];
    d->t1[a] = d->cut[a][d->q[a] + 1];
    d->c0[a] = d->t0[a] * tile;
    d->c1[a] = PetscMin(d->t1[a] * tile, d->nc[a]);
    d->ln[a] = d->c1[a] - d->c0[a] + 2;
  }
  d->ncell = d->ln[0] * d->ln[1];
  PetscCall(PetscFree(d->slot));
  PetscCall(PetscMalloc1(d->ncell, &d->slot));
  for (PetscInt k = 0; k < d->ncell; k++) d->slot[k] = -1;
  {
    PetscInt next = 0;
    for (int colour = 0; colour < THRONG_NCOLOURS; colour++)
      for (PetscInt ty = d->t0[1]; ty < d->t1[1]; ty++)
        for (PetscInt tx = d->t0[0]; tx < d->t1[0]; tx++) {
          if (DomainTileColour(tx, ty) != colour) continue;
          for (PetscInt cy = ty * tile; cy < PetscMin((ty + 1) * tile, d->nc[1]); cy++)
            for (PetscInt cx = tx * tile; cx < PetscMin((tx + 1) * tile, d->nc[0]); cx++)
              d->slot[DomainLocalCell(d, cx, cy)] = next++;
        }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode DomainCreate(MPI_Comm comm, const PetscReal box[4], const PetscBool per[2], const PetscReal cellMinAx[2],
                            PetscInt tile, const PetscInt grid[2], Domain *d)
{
  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(d, sizeof(*d)));
  d->comm = comm;
  PetscCallMPI(MPI_Comm_rank(comm, &d->rank));
  PetscCallMPI(MPI_Comm_size(comm, &d->size));
  d->lo[0] = box[0];
  d->lo[1] = box[1];
  d->hi[0] = box[2];
  d->hi[1] = box[3];
  d->tile  = tile;
  for (int a = 0; a < 2; a++) {
    const PetscReal cellMin = cellMinAx[a], L = d->hi[a] - d->lo[a], ncr = PetscFloorReal(L / cellMin);
    PetscCheck(ncr < 1e9, comm, PETSC_ERR_USER_INPUT,
               "box edge %g holds more than 1e9 cells of %g: enlarge the disks or shrink the box", (double)L,
               (double)cellMin);
    d->per[a] = per[a];
    d->nc[a]  = PetscMax((PetscInt)ncr, 1);
    if (per[a]) { /* an even number of tiles, the last >= 2 cells wide (periodic.c) */
      d->nc[a] = PeriodicCellCount(L, cellMin, tile);
      PetscCheck(d->nc[a] > 0, comm, PETSC_ERR_USER_INPUT,
                 "the box is too short along its periodic axis %c for cells of %g and tiles of %" PetscInt_FMT
                 " cells (periodic.c)",
                 "xy"[a], (double)cellMin, tile);
    }
    d->w[a]    = L / (PetscReal)d->nc[a];
    d->winv[a] = (PetscReal)d->nc[a] / L;
    d->nt[a]   = (d->nc[a] + tile - 1) / tile;
  }
  /* Rank grid: as asked, or the factorisation that fits the tile grid with the shortest
     halo (ties go to more ranks along x: columns suit scenes under gravity). */
  PetscReal best = PETSC_MAX_REAL;
  if (grid[0] || grid[1])
    PetscCheck(grid[0] > 0 && grid[1] > 0 && grid[0] * grid[1] == d->size, comm, PETSC_ERR_USER_INPUT,
               "-rank_grid %" PetscInt_FMT ",%" PetscInt_FMT " does not multiply to the %d ranks of the run", grid[0],
               grid[1], d->size);
  for (PetscMPIInt px = d->size; px >= 1; px--) {
    if (d->size % px) continue;
    PetscMPIInt py = d->size / px;
    if (px > d->nt[0] || py > d->nt[1]) continue;
    if ((grid[0] || grid[1]) && (px != grid[0] || py != grid[1])) continue;
    const PetscReal cost = (PetscReal)d->nc[0] / px + (PetscReal)d->nc[1] / py; /* per-rank perimeter */
    if (cost < best) {
      best    = cost;
      d->p[0] = px;
      d->p[1] = py;
    }
  }
  PetscCheck(best < PETSC_MAX_REAL, comm, PETSC_ERR_USER_INPUT,
             "the domain is too small for %d ranks: its %" PetscInt_FMT " x %" PetscInt_FMT " cells make %" PetscInt_FMT
             " x %" PetscInt_FMT " tiles of %" PetscInt_FMT
             " cells, and every rank needs at least one whole tile. Use a larger -box, a smaller -tile, or fewer ranks",
             d->size, d->nc[0], d->nc[1], d->nt[0], d->nt[1], tile);
  d->gridFixed = grid[0] || grid[1] ? PETSC_TRUE : PETSC_FALSE;
  {
    PetscInt   *cut[2];
    PetscMPIInt p[2] = {d->p[0], d->p[1]};
    d->p[0] = d->p[1] = 0; /* no grid yet */
    PetscCall(PetscMalloc2(p[0] + 1, &cut[0], p[1] + 1, &cut[1]));
    for (int a = 0; a < 2; a++) /* even cuts to start with; balance.c may move them */
      for (PetscMPIInt b = 0; b <= p[a]; b++) cut[a][b] = BlockStart(d->nt[a], p[a], b);
    PetscCall(DomainSetGrid(d, p, cut[0], cut[1]));
    PetscCall(PetscFree2(cut[0], cut[1]));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode DomainSetGrid(Domain *d, const PetscMPIInt p[2], const PetscInt *cx, const PetscInt *cy)
{
  const PetscInt *c[2] = {cx, cy};
  PetscFunctionBeginUser;
  PetscCheck(p[0] * p[1] == d->size, PETSC_COMM_SELF, PETSC_ERR_PLIB, "a %d x %d grid for %d ranks", p[0], p[1],
             d->size);
  for (int a = 0; a < 2; a++) {
    PetscCheck(c[a][0] == 0 && c[a][p[a]] == d->nt[a], PETSC_COMM_SELF, PETSC_ERR_PLIB,
               "cuts must span the %" PetscInt_FMT " tiles", d->nt[a]);
    for (PetscMPIInt b = 0; b < p[a]; b++)
      PetscCheck(c[a][b + 1] > c[a][b], PETSC_COMM_SELF, PETSC_ERR_PLIB,
                 "cuts must give every block at least one tile");
  }
  if (p[0] == d->p[0] && p[1] == d->p[1]) { /* the same neighbours: only the borders move */
    for (int a = 0; a < 2; a++) PetscCall(PetscArraycpy(d->cut[a], c[a], p[a] + 1));
    PetscCall(DomainLayout(d));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  for (int a = 0; a < 2; a++) {
    d->p[a] = p[a];
    PetscCall(PetscFree(d->cut[a]));
    PetscCall(PetscMalloc1(p[a] + 1, &d->cut[a]));
    PetscCall(PetscArraycpy(d->cut[a], c[a], p[a] + 1));
  }
  d->q[0] = d->rank % d->p[0];
  d->q[1] = d->rank / d->p[0];
  PetscCall(DomainLayout(d));

  /* The 8-neighbourhood, in a fixed direction order: out-edge k goes to the rank in
     direction d_k; in-edge k comes from the rank in direction -d_k, which sends it in its
     out-edge of direction d_k.  Across a periodic side the neighbour is the rank at the
     other end of the grid — or this rank, or with two ranks along an axis the same rank
     both ways.  Messages between one pair of ranks are matched in the order of the edges
     (MPI's non-overtaking rule on the graph communicator); with the in-edges ordered
     this way a pair's k-th message from A to B is the k-th one B expects from A, and a
     rank that is its own neighbour receives each message in the slot it was meant for. */
  d->nnbr = 0;
  for (int in = 0; in < 2; in++) {
    PetscMPIInt m = 0;
    for (PetscInt dy = -1; dy <= 1; dy++)
      for (PetscInt dx = -1; dx <= 1; dx++) {
        const PetscInt dir[2] = {in ? -dx : dx, in ? -dy : dy};
        PetscInt       u[2], wrap[2] = {0, 0};
        PetscBool      ok = (dx || dy) ? PETSC_TRUE : PETSC_FALSE;
        for (int a = 0; a < 2 && ok; a++) {
          u[a] = d->q[a] + dir[a];
          if (u[a] < 0 || u[a] >= d->p[a]) {
            if (!d->per[a]) ok = PETSC_FALSE;
            wrap[a] = u[a] < 0 ? -1 : 1;
            u[a] -= wrap[a] * d->p[a];
          }
        }
        if (!ok) continue;
        if (in) {
          d->inRank[m]    = (PetscMPIInt)(u[1] * d->p[0] + u[0]);
          d->inDir[m][0]  = dir[0];
          d->inDir[m][1]  = dir[1];
          d->inWrap[m][0] = wrap[0];
          d->inWrap[m][1] = wrap[1];
        } else {
          d->nbrRank[m]   = (PetscMPIInt)(u[1] * d->p[0] + u[0]);
          d->nbrDir[m][0] = dir[0];
          d->nbrDir[m][1] = dir[1];
        }
        m++;
      }
    if (!in) d->nnbr = m;
    else PetscCheck(m == d->nnbr, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%d in-edges, %d out-edges", m, d->nnbr);
  }
  if (d->nbr != MPI_COMM_NULL && d->nbr) PetscCallMPI(MPI_Comm_free(&d->nbr));
  if (d->rev != MPI_COMM_NULL && d->rev) PetscCallMPI(MPI_Comm_free(&d->rev));
    /* MPI_UNWEIGHTED is a sentinel address that GCC mistakes for a zero-length array. */
#if defined(__GNUC__) && !defined(__clang__)
#  pragma GCC diagnostic push
#  pragma GCC diagnostic ignored "-Wstringop-overread"
#endif
  PetscCallMPI(MPI_Dist_graph_create_adjacent(d->comm, d->nnbr, d->inRank, MPI_UNWEIGHTED, d->nnbr, d->nbrRank,
                                              MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &d->nbr));
  PetscCallMPI(MPI_Dist_graph_create_adjacent(d->comm, d->nnbr, d->nbrRank, MPI_UNWEIGHTED, d->nnbr, d->inRank,
                                              MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &d->rev));
#if defined(__GNUC__) && !defined(__clang__)
#  pragma GCC diagnostic pop
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode DomainDestroy(Domain *d)
{
  PetscFunctionBeginUser;
  if (d->nbr != MPI_COMM_NULL && d->nbr) PetscCallMPI(MPI_Comm_free(&d->nbr));
  if (d->rev != MPI_COMM_NULL && d->rev) PetscCallMPI(MPI_Comm_free(&d->rev));
  PetscCall(PetscFree(d->slot));
  PetscCall(PetscFree(d->cut[0]));
  PetscCall(PetscFree(d->cut[1]));
  PetscFunctionReturn(PETSC_SUCCESS);
}
