/* checkpoint — exact restarts, on any number of ranks.
 *
 * What makes a restart exact.  The state of a run is more than the positions: the sweep
 * order and the rebin decisions depend on the cells the disks were binned into at the
 * last rebinning, i.e. on their binning positions (xb, yb).  A checkpoint therefore stores
 * per disk every field registered FIELD_CHECKPOINT (particles.c: id, x, y, r, xb, yb and
 * any other), one dataset of the field's name each, rows in id order (idorder.c), plus
 * step and time.  On
 * restart each rank reads a block of rows, the disks go to the ranks owning the cells of
 * (xb, yb), are binned there by (xb, yb) — the cells of the original run — and the ghosts
 * are rebuilt.  Every later floating-point operation is the one the uninterrupted run does,
 * on any rank count: the state digest and the snapshots come out identical.
 *
 * Safety.  A checkpoint is written to PATH.tmp and renamed to PATH only once complete
 * (rename is atomic): a crash mid-write leaves the previous checkpoint intact.
 *
 * Integrity.  The HDF5 file has a user block of 512 bytes, which HDF5 skips.  Once the
 * file is closed, throng writes there a text header: the format version, the file's
 * size and a 64-bit checksum of every byte after the block.  A restart checks all three
 * before HDF5 parses anything, so a truncated or corrupted file is refused with one
 * message.  (HDF5 1.10.8 itself reads out of bounds, and crashes, on some corrupted
 * attribute messages: the fuzzer found one, tests/fuzz/README.md.)  The checksum is
 * computed in parallel: the bytes are cut into chunks of 4 MiB independent of the rank
 * count, each rank sums its share of the chunks (FNV-1a over 64-bit words), and rank 0
 * combines the chunk sums in order, so a checkpoint reads the same on any rank count.
 * Reading
 * checks the format name and version, the dataset sizes, and that the options that
 * define the equations are the ones of this run: every option declared PHYS (util/opt.c)
 * (time step, radii, box, walls, cells, drivers, solver, the seed of the drawn free speeds
 * and noise, ...), with its final value, is in the string "physics" that both compare;
 * every failure — also a read failing on some ranks only, as a truncated file does — is
 * first agreed on by all ranks and then reported once.
 *
 * The time series.  A checkpoint also names the files of time series that its run
 * writes (the snapshots PREFIX.h5, PREFIX_contacts.h5, the -trajectory file and its
 * per-floor files): a restart cuts each back to the checkpoint's step and continues it
 * (io_h5md.c, contact_output.c, trajectory.c).  If one of those files is gone, a restart
 * would write a new one holding only the records after the checkpoint, and nothing would
 * say that the rest is missing: the restart is refused instead, naming the file.  A
 * series file that the checkpoint's run did not write (another -trajectory, say) is
 * started anew, from the checkpoint's step, with one line that says so.                */
#include <throng/io/io.h>
#include <throng/core/modules.h>
#include <throng/core/idorder.h>
#include <throng/util/files.h>
#include <string.h>
#include <stdint.h>

#define CHECKPOINT_FORMAT "throng-checkpoint"
#define CHECKPOINT_VERSION \
  3 /* 2: crowd runs carry their records (/checkpoint/crowd);
                                 3: the physics string lists every PHYS option (options.c) */
#define PHYSICS_LEN 16384
#define SERIES_LEN  16384 /* the list of series files (SeriesFiles) */

#define USERBLOCK 512                  /* bytes before the HDF5 data: throng's header */
#define SUM_CHUNK ((long long)1 << 22) /* bytes per chunk of the checksum            */

static uint64_t SumBytes(uint64_t h, const unsigned char *b, size_t n)
{
  size_t k = 0;
  for (; k + 8 <= n; k += 8) { /* FNV-1a over 64-bit words, then the tail bytes */
    uint64_t w;
    memcpy(&w, b + k, 8);
    h = (h ^ w) * 0x100000001b3ULL;
  }
  for (; k < n; k++) h = (h ^ b[k]) * 0x100000001b3ULL;
  return h;
}

/* Size of `path` and the checksum of its bytes after the user block, on every rank
   (*size -1: unreadable).  Collective; the result does not depend on the rank count. */
static PetscErrorCode FileSum(MPI_Comm comm, const char *path, long long *size, uint64_t *sum)
{
  PetscMPIInt    rank, nr;
  long long      n = -1, nchunk;
  uint64_t      *part;
  unsigned char *buf;
  int            bad = 0;
  FILE          *f;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCallMPI(MPI_Comm_size(comm, &nr));
  if (!rank && (f = fopen(path, "rb"))) {
    if (!fseek(f, 0, SEEK_END)) n = (long long)ftell(f);
    fclose(f);
  }
  PetscCallMPI(MPI_Bcast(&n, 1, MPI_LONG_LONG, 0, comm));
  *size = n;
  *sum  = 0;
  if (n < USERBLOCK) PetscFunctionReturn(PETSC_SUCCESS);
  nchunk = (n - USERBLOCK + SUM_CHUNK - 1) / SUM_CHUNK;
  PetscCall(PetscCalloc1(nchunk + 1, &part));
  PetscCall(PetscMalloc1(SUM_CHUNK, &buf));
  if ((f = fopen(path, "rb"))) {
    for (long long c = rank; c < nchunk && !bad; c += nr) {
      const long long at = USERBLOCK + c * SUM_CHUNK, len = PetscMin(SUM_CHUNK, n - at);
      bad     = fseek(f, (long)at, SEEK_SET) || fread(buf, 1, (size_t)len, f) != (size_t)len;
      part[c] = SumBytes(0xcbf29ce484222325ULL, buf, (size_t)len);
    }
    fclose(f);
  } else bad = 1;
  PetscCall(PetscFree(buf));
  PetscCall(IoAgree(comm, &bad));
  if (!bad) { /* every chunk's sum is nonzero on its rank and zero elsewhere */
    PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, part, (PetscMPIInt)nchunk, MPI_UINT64_T, MPI_BXOR, comm));
    *sum = SumBytes(0xcbf29ce484222325ULL, (const unsigned char *)part, (size_t)nchunk * sizeof(uint64_t));
  } else *size = -1;
  PetscCall(PetscFree(part));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Rank 0 writes the header into the user block of the closed file. Collective. */
static PetscErrorCode WriteHeader(MPI_Comm comm, const char *path)
{
  PetscMPIInt rank;
  long long   size;
  uint64_t    sum;
  int         bad = 0;
  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCall(FileSum(comm, path, &size, &sum));
  PetscCheck(size >= USERBLOCK, comm, PETSC_ERR_FILE_WRITE, "cannot read back the checkpoint '%s' to sum it", path);
  if (!rank) {
    char  head[USERBLOCK];
    FILE *f = fopen(path, "r+b");
    memset(head, 0, sizeof(head));
    snprintf(head, sizeof(head), "%s %d size %lld sum %016llx\n", CHECKPOINT_FORMAT, CHECKPOINT_VERSION, size,
             (unsigned long long)sum);
    bad = !f || fwrite(head, 1, sizeof(head), f) != sizeof(head);
    if (f) bad = fclose(f) != 0 || bad;
  }
  PetscCall(IoAgree(comm, &bad));
  PetscCheck(!bad, comm, PETSC_ERR_FILE_WRITE, "cannot write the header of the checkpoint '%s'", path);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The options of two physics strings ("name=value name=value ...", ParamsPhysics) that
   differ, as "\n  -name: file A, now B" lines (an option missing on one side: "unset"). */
static void PhysicsDiff(const char *file, const char *now, char *out, size_t len)
{
  const char *sides[2] = {file, now};
  out[0]               = 0;
  for (int side = 0; side < 2; side++)
    for (const char *a = sides[side]; *a;) {
      const char *e = strchr(a, ' '), *eq = strchr(a, '=');
      size_t      n = e ? (size_t)(e - a) : strlen(a), k = eq && eq < a + n ? (size_t)(eq - a) : n;
      const char *o = sides[!side], *b = NULL, *v = "unset";
      size_t      vn = 5;
      for (const char *c = o; *c;) { /* the same name on the other side */
        const char *ce = strchr(c, ' ');
        size_t      cn = ce ? (size_t)(ce - c) : strlen(c);
        if (cn > k && c[k] == '=' && !strncmp(c, a, k)) {
          b = c;
          v = c + k + 1, vn = cn - k - 1;
          break;
        }
        c += cn + (ce ? 1 : 0);
      }
      const int differ = !b || vn != n - k - 1 || strncmp(v, a + k + 1, vn);
      if (differ && (side == 0 || !b)) { /* a pair that differs is listed once, from the file's side */
        const char *fv = side ? v : a + k + 1, *nv = side ? a + k + 1 : v;
        size_t      fn = side ? vn : n - k - 1, nn = side ? n - k - 1 : vn;
        size_t      at = strlen(out);
        if (at + 64 < len)
          snprintf(out + at, len - at, "\n  -%.*s: file %.*s, now %.*s", (int)k, a, (int)PetscMin(fn, 200), fv,
                   (int)PetscMin(nn, 200), nv);
      }
      a += n + (e ? 1 : 0);
    }
}

/* Before HDF5 sees the file: throng's header, the format version, the size and the
   checksum. Collective; one error on every rank otherwise. */
static PetscErrorCode CheckHeader(MPI_Comm comm, const char *path)
{
  PetscMPIInt        rank;
  long long          head[3] = {0, -1, -1}, size; /* found, version, size */
  unsigned long long want    = 0;
  uint64_t           sum;
  PetscFunctionBeginUser;
  PetscCall(FilesCheckReadable(comm, "restart file (-restart)", path));
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  if (!rank) {
    char  buf[USERBLOCK + 1] = "", fmt[32] = "";
    int   v = -1;
    FILE *f = fopen(path, "rb");
    if (f) {
      buf[fread(buf, 1, USERBLOCK, f)] = 0;
      fclose(f);
    }
    if (sscanf(buf, "%31s %d size %lld sum %llx", fmt, &v, &head[2], &want) == 4 && !strcmp(fmt, CHECKPOINT_FORMAT))
      head[0] = 1, head[1] = v;
  }
  PetscCallMPI(MPI_Bcast(head, 3, MPI_LONG_LONG, 0, comm));
  PetscCheck(head[0], comm, PETSC_ERR_FILE_UNEXPECTED,
             "restart file '%s' is not a throng checkpoint: not a readable HDF5 file with throng's header (truncated "
             "or corrupted?)",
             path);
  PetscCheck(head[1] == CHECKPOINT_VERSION, comm, PETSC_ERR_FILE_UNEXPECTED,
             "restart file '%s' has checkpoint format version %lld; this throng reads version %d", path, head[1],
             CHECKPOINT_VERSION);
  PetscCall(FileSum(comm, path, &size, &sum));
  PetscCallMPI(MPI_Bcast(&want, 1, MPI_UNSIGNED_LONG_LONG, 0, comm));
  PetscCheck(size == head[2], comm, PETSC_ERR_FILE_UNEXPECTED,
             "restart file '%s' is damaged: %lld bytes, but it was written with %lld (truncated or corrupted?)", path,
             size, head[2]);
  PetscCheck(
    sum == (uint64_t)want, comm, PETSC_ERR_FILE_UNEXPECTED,
    "restart file '%s' is damaged: its checksum differs from the one written with it (truncated or corrupted?)", path);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* All ranks agree on a local failure before anyone raises it. */
static PetscErrorCode Agree(MPI_Comm comm, PetscBool localFail, PetscBool *anyFail)
{
  int bad = localFail ? 1 : 0;
  PetscFunctionBeginUser;
  PetscCall(IoAgree(comm, &bad));
  *anyFail = bad ? PETSC_TRUE : PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The files of time series this run writes, one per line ("role path"): the option
   that names it, then its path.  Rank-independent (options and geometry only). */
static PetscErrorCode SeriesFiles(const Sim *s, char *buf, size_t len)
{
  const Params *p = &s->prm;
  char          line[PETSC_MAX_PATH_LEN + GEOM_NAME_LEN + 64];
  PetscFunctionBeginUser;
  buf[0] = 0;
  if (strcmp(p->output, "none")) {
    PetscCall(PetscSNPrintf(line, sizeof(line), "-output %s.h5\n", p->output));
    PetscCall(PetscStrlcat(buf, line, len));
    if (p->contactOutput) {
      PetscCall(PetscSNPrintf(line, sizeof(line), "-contact_output %s_contacts.h5\n", p->output));
      PetscCall(PetscStrlcat(buf, line, len));
    }
  }
  if (p->traj[0]) {
    PetscCall(PetscSNPrintf(line, sizeof(line), "-trajectory %s\n", p->traj));
    PetscCall(PetscStrlcat(buf, line, len));
    for (PetscInt f = 0; f < s->geom.nfloors; f++) {
      char path[PETSC_MAX_PATH_LEN + GEOM_NAME_LEN + 8];
      TrajectoryFloorPath(p->traj, s->geom.floor[f].name, path, sizeof(path));
      PetscCall(PetscSNPrintf(line, sizeof(line), "-trajectory %s\n", path));
      PetscCall(PetscStrlcat(buf, line, len));
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A restart from step `step`: each series file this run writes must still be there if
   the checkpoint's run wrote it (listed in `old`); one that is new is said to start
   here.  Collective (rank 0 looks at the files). */
static PetscErrorCode SeriesCheck(const Sim *s, const char *path, const char *old, int step)
{
  MPI_Comm    comm = s->dom.comm;
  char        mine[SERIES_LEN], msg[2 * PETSC_MAX_PATH_LEN + 512] = "", note[SERIES_LEN] = "";
  PetscMPIInt rank;
  PetscFunctionBeginUser;
  PetscCall(SeriesFiles(s, mine, sizeof(mine)));
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  if (!rank)
    for (char *a = mine, *b; *a && !msg[0]; a = b + 1) {
      const char *file;
      char        key[SERIES_LEN + 2];
      FILE       *f;
      b    = strchr(a, '\n');
      *b   = 0;
      file = strchr(a, ' ') + 1;
      snprintf(key, sizeof(key), "%s\n", a);
      const PetscBool had = strstr(old, key) && (strstr(old, key) == old || strstr(old, key)[-1] == '\n');
      if ((f = fopen(file, "rb"))) {
        fclose(f);
        continue;
      }
      if (had)
        snprintf(msg, sizeof(msg),
                 "%.*s '%s', written by the run of restart file '%s', is missing: a restart would write it anew with "
                 "only the records after step %d. Put the file back, or give %.*s another name to start a new file "
                 "from step %d",
                 (int)(file - a - 1), a, file, path, step, (int)(file - a - 1), a, step);
      else {
        char l[PETSC_MAX_PATH_LEN + 128];
        snprintf(l, sizeof(l), "throng: %.*s '%s' is a new file: it holds the records from step %d on\n",
                 (int)(file - a - 1), a, file, step);
        PetscCall(PetscStrlcat(note, l, sizeof(note)));
      }
    }
  PetscCallMPI(MPI_Bcast(msg, (PetscMPIInt)sizeof(msg), MPI_CHAR, 0, comm));
  PetscCheck(!msg[0], comm, PETSC_ERR_USER_INPUT, "%s", msg);
  if (!s->prm.quiet) PetscCall(PetscPrintf(comm, "%s", note));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode CheckpointWrite(const Sim *s, const char *path)
{
  MPI_Comm    comm = s->dom.comm;
  char        tmp[PETSC_MAX_PATH_LEN + 8], phys[PHYSICS_LEN];
  IoRecs      recs;
  PetscInt64  offset, total;
  hid_t       fapl, file, grp, dxpl;
  PetscMPIInt rank;
  uint64_t   *col;
  int         ok = 1;

  PetscFunctionBeginUser;
  PetscCall(PetscLogEventBegin(THRONG_EV.io, 0, 0, 0, 0));
  PetscCall(SimModulesSync(s)); /* the fields hold the whole state */
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCall(PetscSNPrintf(tmp, sizeof(tmp), "%s.tmp", path));
  total = s->P.n;
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &total, 1, MPIU_INT64, MPI_SUM, comm));
  PetscCallHDF5(comm, fapl = H5Pcreate(H5P_FILE_ACCESS));
  PetscCallHDF5(comm, H5Pset_fapl_mpio(fapl, comm, MPI_INFO_NULL));
  {
    hid_t fcpl;
    PetscCallHDF5(comm, fcpl = H5Pcreate(H5P_FILE_CREATE));
    PetscCallHDF5(comm, H5Pset_userblock(fcpl, USERBLOCK)); /* room for throng's header */
    file = H5Fcreate(tmp, H5F_ACC_TRUNC, fcpl, fapl);
    PetscCallHDF5(comm, H5Pclose(fcpl));
  }
  PetscCallHDF5(comm, H5Pclose(fapl));
  PetscCheck(file >= 0, comm, PETSC_ERR_FILE_OPEN, "cannot create checkpoint '%s' (directory missing or not writable?)",
             tmp);
  PetscCall(IoTransferProperties(comm, s->prm.ioTwoPhase, &dxpl));
  PetscCallHDF5(comm, grp = H5Gcreate2(file, "checkpoint", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
  {
    const int       version = CHECKPOINT_VERSION, step = (int)s->step;
    const long long n    = (long long)total;
    const double    time = (double)s->time;
    PetscCall(IoWriteStringAttr(comm, grp, "format", CHECKPOINT_FORMAT));
    PetscCall(IoWriteAttr(comm, grp, "version", H5T_NATIVE_INT, 0, &version));
    PetscCall(IoWriteAttr(comm, grp, "step", H5T_NATIVE_INT, 0, &step));
    PetscCall(IoWriteAttr(comm, grp, "time", H5T_NATIVE_DOUBLE, 0, &time));
    PetscCall(IoWriteAttr(comm, grp, "n", H5T_NATIVE_LLONG, 0, &n));
    PetscCall(ParamsPhysics(&s->prm, phys, sizeof(phys)));
    PetscCall(IoWriteStringAttr(comm, grp, "physics", phys));
    { /* the series files this run has written so far (rank 0 looks; a unit test's Sim
         may have none) */
      char series[SERIES_LEN], kept[SERIES_LEN] = "";
      PetscCall(SeriesFiles(s, series, sizeof(series)));
      if (!rank)
        for (char *a = series, *b; *a; a = b + 1) {
          FILE *f;
          b  = strchr(a, '\n');
          *b = 0;
          if ((f = fopen(strchr(a, ' ') + 1, "rb"))) {
            fclose(f);
            PetscCall(PetscStrlcat(kept, a, sizeof(kept)));
            PetscCall(PetscStrlcat(kept, "\n", sizeof(kept)));
          }
        }
      PetscCallMPI(MPI_Bcast(kept, (PetscMPIInt)sizeof(kept), MPI_CHAR, 0, comm));
      PetscCall(IoWriteStringAttr(comm, grp, "series_files", kept));
    }
    PetscCall(IoWriteMetadata(comm, grp));
  }
  { /* one dataset per field; the rows in rounds of ids (-output_round disks per rank),
       so that the records in flight stay bounded (as the snapshots: io_h5md.c)      */
    hid_t       ds[PARTICLES_MAX_FIELDS];
    PetscInt64  M, rowBase = 0;
    PetscMPIInt size;
    PetscCallMPI(MPI_Comm_size(comm, &size));
    const PetscInt64 round = (PetscInt64)s->prm.outputRound * size;
    for (PetscInt k = 0; k < s->P.nfield; k++) {
      const Field *f = &s->P.field[k];
      hsize_t      n = (hsize_t)total;
      hid_t        fs;
      ds[k] = -1;
      if (!(f->flags & FIELD_CHECKPOINT)) continue;
      PetscCallHDF5(comm, fs = H5Screate_simple(1, &n, NULL));
      PetscCallHDF5(comm,
                    ds[k] = H5Dcreate2(grp, f->name, f->type == FIELD_INT64 ? H5T_NATIVE_LLONG : H5T_NATIVE_DOUBLE, fs,
                                       H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
      PetscCallHDF5(comm, H5Sclose(fs));
    }
    PetscCall(IdOrderEnd(comm, &s->P, &M));
    for (PetscInt64 ida = 0; ida < M; ida += round) {
      PetscInt64 tot;
      PetscCall(IdOrderGatherRange(comm, &s->P, FIELD_CHECKPOINT, ida, PetscMin(M, ida + round), &recs, &offset, &tot));
      if (tot > 0) { /* HDF5 1.10: no collective write of an empty selection */
        const hsize_t st = (hsize_t)(rowBase + offset), c = (hsize_t)recs.n;
        PetscCall(PetscMalloc1(recs.n + 1, &col)); /* one column buffer, reused */
        for (PetscInt k = 0; k < s->P.nfield; k++) {
          const Field *f = &s->P.field[k];
          if (recs.word[k] < 0) continue;
          for (PetscInt i = 0; i < recs.n; i++) col[i] = recs.rec[(size_t)recs.words * i + recs.word[k]];
          PetscCall(IoWriteHyperslab(comm, ds[k], dxpl, f->type == FIELD_INT64 ? H5T_NATIVE_LLONG : H5T_NATIVE_DOUBLE,
                                     1, &st, &c, col));
        }
        PetscCall(PetscFree(col));
      }
      rowBase += tot;
      PetscCall(IoRecsDestroy(&recs));
    }
    for (PetscInt k = 0; k < s->P.nfield; k++)
      if (ds[k] >= 0) PetscCallHDF5(comm, H5Dclose(ds[k]));
  }
  PetscCall(SimModulesCheckpointWrite(s, grp, dxpl));
  PetscCallHDF5(comm, H5Gclose(grp));
  PetscCallHDF5(comm, H5Pclose(dxpl));
  PetscCallHDF5Agree(comm, H5Fclose(file), "closing the checkpoint");
  PetscCall(WriteHeader(comm, tmp));
  PetscCallMPI(MPI_Barrier(comm));
  if (!rank) ok = rename(tmp, path) == 0;
  PetscCallMPI(MPI_Bcast(&ok, 1, MPI_INT, 0, comm));
  PetscCheck(ok, comm, PETSC_ERR_FILE_WRITE, "cannot rename checkpoint '%s' to '%s'", tmp, path);
  PetscCall(PetscLogEventEnd(THRONG_EV.io, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Read attribute `name` (scalar) into v; returns < 0 on failure. */
static herr_t ReadAttr(hid_t obj, const char *name, hid_t type, void *v)
{
  hid_t  a;
  herr_t e;
  if (H5Aexists(obj, name) <= 0) return -1;
  if ((a = H5Aopen(obj, name, H5P_DEFAULT)) < 0) return -1;
  e = H5Aread(a, type, v);
  H5Aclose(a);
  return e;
}

static herr_t ReadStringAttr(hid_t obj, const char *name, char *buf, size_t len)
{
  hid_t  a, t, ft;
  herr_t e;
  size_t sz;
  if (H5Aexists(obj, name) <= 0) return -1;
  if ((a = H5Aopen(obj, name, H5P_DEFAULT)) < 0) return -1;
  ft = H5Aget_type(a);
  sz = H5Tget_size(ft);
  e  = H5Tis_variable_str(ft);
  H5Tclose(ft);
  if (sz + 1 > len || e != 0) {
    H5Aclose(a);
    return -1;
  }
  t = H5Tcopy(H5T_C_S1);
  H5Tset_size(t, sz);
  memset(buf, 0, len);
  e = H5Aread(a, t, buf);
  H5Tclose(t);
  H5Aclose(a);
  return e;
}

PetscErrorCode CheckpointRead(Sim *s, const char *path)
{
  MPI_Comm    comm = s->dom.comm;
  PetscMPIInt rank, size;
  int         exists = 0, version = -1, step = 0;
  long long   n          = -1;
  double      time       = 0;
  char        format[64] = "", phys[PHYSICS_LEN] = "", mine[PHYSICS_LEN];
  hid_t       fapl, file, grp = -1, dxpl;
  PetscBool   fail;
  IoRecs      recs;

  PetscFunctionBeginUser;
  PetscCall(PetscLogEventBegin(THRONG_EV.io, 0, 0, 0, 0));
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCallMPI(MPI_Comm_size(comm, &size));
  if (!rank) {
    FILE *f = fopen(path, "rb");
    exists  = f != NULL;
    if (f) fclose(f);
  }
  PetscCallMPI(MPI_Bcast(&exists, 1, MPI_INT, 0, comm));
  PetscCheck(exists, comm, PETSC_ERR_FILE_OPEN, "cannot open restart file '%s'", path);
  PetscCall(CheckHeader(comm, path));
  PetscCallHDF5(comm, fapl = H5Pcreate(H5P_FILE_ACCESS));
  PetscCallHDF5(comm, H5Pset_fapl_mpio(fapl, comm, MPI_INFO_NULL));
  file = H5Fopen(path, H5F_ACC_RDONLY, fapl);
  PetscCallHDF5(comm, H5Pclose(fapl));
  PetscCall(Agree(comm, file < 0 ? PETSC_TRUE : PETSC_FALSE, &fail));
  PetscCheck(!fail, comm, PETSC_ERR_FILE_UNEXPECTED,
             "restart file '%s' is not a readable HDF5 file (truncated or corrupted?)", path);
  if (H5Lexists(file, "checkpoint", H5P_DEFAULT) > 0) grp = H5Gopen2(file, "checkpoint", H5P_DEFAULT);
  fail = grp < 0 || ReadStringAttr(grp, "format", format, sizeof(format)) < 0 || strcmp(format, CHECKPOINT_FORMAT)
           ? PETSC_TRUE
           : PETSC_FALSE;
  PetscCall(Agree(comm, fail, &fail));
  PetscCheck(!fail, comm, PETSC_ERR_FILE_UNEXPECTED, "'%s' is an HDF5 file but not a throng checkpoint", path);
  fail = ReadAttr(grp, "version", H5T_NATIVE_INT, &version) < 0 ? PETSC_TRUE : PETSC_FALSE;
  PetscCall(Agree(comm, fail, &fail));
  PetscCheck(!fail && version == CHECKPOINT_VERSION, comm, PETSC_ERR_FILE_UNEXPECTED,
             "restart file '%s' has checkpoint format version %d; this throng reads version %d", path, version,
             CHECKPOINT_VERSION);
  fail = ReadAttr(grp, "step", H5T_NATIVE_INT, &step) < 0 || ReadAttr(grp, "time", H5T_NATIVE_DOUBLE, &time) < 0 ||
             ReadAttr(grp, "n", H5T_NATIVE_LLONG, &n) < 0 || n < 0 ||
             ReadStringAttr(grp, "physics", phys, sizeof(phys)) < 0
           ? PETSC_TRUE
           : PETSC_FALSE;
  PetscCall(Agree(comm, fail, &fail));
  PetscCheck(!fail, comm, PETSC_ERR_FILE_UNEXPECTED,
             "restart file '%s' lacks step, time, n or physics attributes (damaged?)", path);
  PetscCall(ParamsPhysics(&s->prm, mine, sizeof(mine)));
  if (strcmp(mine, phys)) {
    char diff[2048];
    PhysicsDiff(phys, mine, diff, sizeof(diff));
    SETERRQ(comm, PETSC_ERR_USER_INPUT,
            "restart file '%s' was written for other equations; give the options of the original run. They differ "
            "in:%s",
            path, diff);
  }
  PetscCheck(step <= s->prm.steps, comm, PETSC_ERR_USER_INPUT,
             "restart file '%s' is at step %d, beyond -steps %" PetscInt_FMT, path, step, s->prm.steps);
  {
    char series[SERIES_LEN] = "";
    if (!rank && ReadStringAttr(grp, "series_files", series, sizeof(series)) < 0) series[0] = 0;
    PetscCallMPI(MPI_Bcast(series, (PetscMPIInt)sizeof(series), MPI_CHAR, 0, comm));
    PetscCall(SeriesCheck(s, path, series, step));
  }

  { /* n must be the length of the datasets before it sizes any allocation */
    hid_t ds     = H5Lexists(grp, "id", H5P_DEFAULT) > 0 ? H5Dopen2(grp, "id", H5P_DEFAULT) : -1,
          fs     = ds >= 0 ? H5Dget_space(ds) : -1;
    hsize_t dims = 0;
    fail = !(fs >= 0 && H5Sget_simple_extent_ndims(fs) == 1 && H5Sget_simple_extent_dims(fs, &dims, NULL) == 1 &&
             dims == (hsize_t)n)
             ? PETSC_TRUE
             : PETSC_FALSE;
    if (fs >= 0) H5Sclose(fs);
    if (ds >= 0) H5Dclose(ds);
    PetscCall(Agree(comm, fail && n > 0 ? PETSC_TRUE : PETSC_FALSE, &fail));
    PetscCheck(
      !fail, comm, PETSC_ERR_FILE_READ,
      "restart file '%s': dataset 'id' is missing or does not hold the n = %lld disks of its attribute (damaged?)",
      path, n);
  }

  /* this rank's block of rows */
  const PetscInt64 lo = (PetscInt64)n * rank / size, hi = (PetscInt64)n * (rank + 1) / size;
  const PetscInt   m = (PetscInt)(hi - lo);
  uint64_t        *col;
  const char      *bad = NULL;
  PetscErrorCode   ierr;
  PetscCall(IoRecsCreate(&s->P, FIELD_CHECKPOINT, m, &recs));
  PetscCall(PetscMalloc1(m + 1, &col));
  PetscCall(IoTransferProperties(comm, s->prm.ioTwoPhase, &dxpl));
  for (PetscInt k = 0; k < s->P.nfield && n > 0; k++) {
    const char *nm = s->P.field[k].name;
    if (recs.word[k] < 0) continue;
    hid_t   ds = H5Lexists(grp, nm, H5P_DEFAULT) > 0 ? H5Dopen2(grp, nm, H5P_DEFAULT) : -1, fs = -1, ms = -1;
    hsize_t dims = 0, st = (hsize_t)lo, c = (hsize_t)m;
    herr_t  e = -1;
    if (ds >= 0 && (fs = H5Dget_space(ds)) >= 0 && H5Sget_simple_extent_ndims(fs) == 1 &&
        H5Sget_simple_extent_dims(fs, &dims, NULL) == 1 && dims == (hsize_t)n) {
      ms = H5Screate_simple(1, &c, NULL);
      if (m) e = H5Sselect_hyperslab(fs, H5S_SELECT_SET, &st, NULL, &c, NULL);
      else e = H5Sselect_none(fs) < 0 || H5Sselect_none(ms) < 0 ? -1 : 0;
      if (e >= 0)
        e = H5Dread(ds, s->P.field[k].type == FIELD_INT64 ? H5T_NATIVE_LLONG : H5T_NATIVE_DOUBLE, ms, fs, dxpl, col);
    }
    if (ms >= 0) H5Sclose(ms);
    if (fs >= 0) H5Sclose(fs);
    if (ds >= 0) H5Dclose(ds);
    PetscCall(Agree(comm, e < 0 ? PETSC_TRUE : PETSC_FALSE, &fail));
    if (fail) {
      bad = nm;
      break;
    }
    for (PetscInt i = 0; i < m; i++) recs.rec[(size_t)recs.words * i + recs.word[k]] = col[i];
  }
  H5Pclose(dxpl);
  ierr = bad ? PETSC_SUCCESS : SimModulesCheckpointRead(s, grp, path);
  H5Gclose(grp);
  H5Fclose(file);
  PetscCall(PetscFree(col));
  if (bad || ierr) PetscCall(IoRecsDestroy(&recs)); /* nothing kept from a bad file */
  PetscCheck(!bad, comm, PETSC_ERR_FILE_READ,
             "restart file '%s': dataset '%s' is missing, of the wrong size or unreadable (truncated file?)", path,
             bad);
  PetscCall(ierr);
  { /* sanity of the values: finite, inside the box, positive radii */
    PetscBool invalid = PETSC_FALSE;
    for (PetscInt i = 0; i < m; i++) {
      const PetscReal r = IoRecsReal(&recs, i, PF_R);
      if (!(r > 0) || r > s->rmax * (1 + 1e-12) || IoRecsId(&recs, i) < 0) invalid = PETSC_TRUE;
      for (PetscInt k = 0; k < s->P.nfield; k++)
        if (recs.word[k] >= 0 && s->P.field[k].type == FIELD_REAL && IoRecsReal(&recs, i, k) != IoRecsReal(&recs, i, k))
          invalid = PETSC_TRUE;
    }
    PetscCall(Agree(comm, invalid, &fail));
    if (fail) PetscCall(IoRecsDestroy(&recs));
    PetscCheck(!fail, comm, PETSC_ERR_FILE_UNEXPECTED,
               "restart file '%s' holds invalid values (NaN positions, negative ids, or radii <= 0 or larger than this "
               "run's -radius and -polydispersity allow)",
               path);
  }
  PetscCall(SimRestore(s, &recs, step, time));
  PetscCall(IoRecsDestroy(&recs));
  PetscCall(PetscLogEventEnd(THRONG_EV.io, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}
