#!/usr/bin/env bash
# Benchmark: the dense scene (configs/bench-dense.yaml) — disks of one diameter starting
# in hexagonal contact, settling under gravity onto the floor of a box — on 1 and 2 ranks,
# and LAMMPS on the same scene in the same run as the yardstick: gran/hooke contacts with
# viscous damping, lattice hex at contact, fix gravity, a granular floor and side walls,
# skin 0.1 d, 2-D.  Two tables:
#   1. equal steps: the same number of steps of h = 1e-3 (throng PBD and pbdw; LAMMPS kn
#      2000, dt 1e-3), whatever the accuracy: particle-steps/s per core, resident bytes
#      per disk, and what a pbdw step costs in PBD steps (issue 30: goal <= 2);
#   2. equal accuracy (issues 18, 30): the same simulated time T = 1, each code with the
#      cheapest parameters of those tried whose largest overlap over the run stays
#      <= 1 % of a diameter: throng -solver pbdw at h = 2.5e-3 (its overlap: the summary's
#      max_overlap, measured every 10 steps; 0.25 % at h = 1e-3, 0.51 % at 2e-3, 0.64 % at
#      2.5e-3, 1.01 % at 4e-3 in a 1000-layer column); LAMMPS kn 12000, gamma_n 122, dt 4e-4 (its
#      overlap measured by LAMMPS itself every 10 steps: 1 - the smallest pair distance
#      (compute pair/local dist), and the floor and side walls' penetration).  Prints the
#      time to solution, particle-steps/s and the overlap reached, on 1 and 2 ranks.
#
#   bash jobs/bench.sh [N_COLUMNS [STEPS]]      (default 1000 columns x 1000 rows = 10^6)
#   EQUAL_ACCURACY=0 bash jobs/bench.sh         (table 1 only)
#   THRONG=path/to/other/throng bash jobs/bench.sh   (another build, e.g. of an older commit)
#
# Needs build/throng (bash .ci/setup) and Debian's lammps (installed here if missing).
set -euo pipefail
cd "$(dirname "$0")/.."
COLS=${1:-1000}
STEPS=${2:-200}
N=$((COLS * COLS))
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
if ! command -v lmp >/dev/null; then
  echo "bench: installing Debian's lammps"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends lammps >/dev/null
fi
THRONG=${THRONG:-build/throng}
[ -x "$THRONG" ] || bash .ci/setup
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT

# LAMMPS: hex lattice of nearest-neighbour distance 1 (density 2/sqrt 3), COLS per row,
# moved by (0.5, 0.5) so that the first row and column touch the floor and the wall as
# throng's lattice does.  Variables: K (kn), G (gamma_n), DT, N (steps), E (thermo every).
HEIGHT=$(awk -v c="$COLS" 'BEGIN { printf "%.4f", (c - 1) * sqrt(3) / 2 + 0.01 }')
cat >"$work/in.bench" <<LMP
units           lj
dimension       2
atom_style      sphere
boundary        f f p
lattice         hex 1.1547005383792515
region          box block 0 $((COLS)).5 0 $((COLS + 1)) -0.5 0.5 units box
create_box      1 box
region          fill block 0 $((COLS - 1)).75 0 $HEIGHT -0.5 0.5 units box
create_atoms    1 region fill
displace_atoms  all move 0.5 0.5 0 units box
set             type 1 diameter 1.0
set             type 1 density 1.0
pair_style      gran/hooke \${K} NULL \${G} NULL 0.0 0
pair_coeff      * *
neighbor        0.1 bin
neigh_modify    delay 0 every 1 check yes
comm_modify     vel yes
fix             integ all nve/sphere
fix             grav all gravity 1.0 vector 0 -1 0
fix             floor all wall/gran hooke \${K} NULL \${G} NULL 0.0 0 yplane 0 NULL
fix             sides all wall/gran hooke \${K} NULL \${G} NULL 0.0 0 xplane 0 $((COLS)).5
fix             flat all enforce2d
compute         pd all pair/local dist
compute         dmin all reduce min c_pd
compute         ymin all reduce min y
compute         xmin all reduce min x
compute         xmax all reduce max x
variable        op equal 1.0-c_dmin
variable        ow equal 0.5-c_ymin
variable        ol equal 0.5-c_xmin
variable        or equal c_xmax-$((COLS))
thermo_style    custom step v_op v_ow v_ol v_or
thermo          \${E}
timestep        \${DT}
run             \${N}
LMP
lammps_rate() { # ranks, K, G, DT, N, E -> "atoms rate seconds largest-overlap"
  local np=$1; shift
  mpirun -n "$np" lmp -in "$work/in.bench" -var K "$1" -var G "$2" -var DT "$3" -var N "$4" -var E "$5" -log none \
    -screen "$work/lmp.$np.out" >"$work/lmp.$np.err" 2>&1 || { echo "bench: LAMMPS on $np ranks failed: $(tail -3 "$work/lmp.$np.err" "$work/lmp.$np.out" 2>/dev/null | tr "\n" " ")" >&2; echo "0 0 0 0"; return; }
  awk '/^ *Step/ { on = 1; next } /^Loop time of/ { on = 0; t=$4; s=$9; n=$12 }
       on && NF == 5 { for (i = 2; i <= 5; i++) if ($i + 0 > m) m = $i + 0 }
       END { if (t > 0) printf "%d %.4e %.2f %.4e\n", n, n * s / t, t, m; else print "0 0 0 0" }' "$work/lmp.$np.out"
}

throng_run() { # ranks, steps, options... -> "rate bytes/disk bytes/disk-above-start-up seconds largest-overlap"
  local np=$1 st=$2; shift 2
  mpirun -n "$np" "$THRONG" -options_file_yaml configs/bench-dense.yaml -n "$N" \
    -box "0,0,$COLS.5,$((COLS + 1))" -steps "$st" -quiet "$@" >"$work/thr.$np.out" 2>&1 || { echo "bench: throng on $np ranks failed: $(tail -3 "$work/thr.$np.out" | tr "\n" " ")" >&2; echo "0 0 0 0 0"; return; }
  awk '/particle-steps\/s/ && /^summary: steps/ { for (i = 1; i <= NF; i++) { if ($i == "particle-steps/s") r = $(i-1); if ($i == "wall") w = $(i+1) } }
       /^summary: memory/ { k = 0; for (i = 1; i <= NF; i++) if ($i == "bytes") { k++; if (k == 1) b = $(i-1); else { a = $(i-1); sub(/^\(/, "", a) } } }
       /^summary: max_overlap/ { o = $3 }
       END { printf "%s %s %s %s %s\n", r, b, a, w, o }' "$work/thr.$np.out"
}

echo "bench: dense scene, $N disks ($COLS per row), $STEPS steps; machine: $(nproc) cores"
read -r T1 B1 A1 _ _ < <(throng_run 1 "$STEPS")
read -r T2 B2 A2 _ _ < <(throng_run 2 "$STEPS")
read -r W1 _ _ _ _ < <(throng_run 1 "$STEPS" -solver pbdw)
read -r W2 _ _ _ _ < <(throng_run 2 "$STEPS" -solver pbdw)
read -r LN L1 _ _ < <(lammps_rate 1 2000.0 50.0 0.001 "$STEPS" "$STEPS")
read -r _ L2 _ _ < <(lammps_rate 2 2000.0 50.0 0.001 "$STEPS" "$STEPS")
echo "1. equal steps (h = 1e-3, accuracy not matched)"
awk -v w1="$W1" -v w2="$W2" -v t1="$T1" -v t2="$T2" -v l1="$L1" -v l2="$L2" -v b1="$B1" -v b2="$B2" -v a1="$A1" -v a2="$A2" -v ln="$LN" -v n="$N" 'BEGIN {
  printf "%-28s %16s %20s %9s\n", "code (disks)", "1 rank [ps/s]", "2 ranks [ps/s/core]", "2r / 1r"
  printf "%-28s %16.4e %20.4e %9.3f\n", "throng PBD (" n ")", t1, t2 / 2, t2 / t1
  printf "%-28s %16.4e %20.4e %9.3f\n", "throng pbdw (" n ")", w1, w2 / 2, (w1 > 0 ? w2 / w1 : 0)
  printf "%-28s %16.4e %20.4e %9.3f\n", "LAMMPS gran/hooke (" ln ")", l1, l2 / 2, (l1 > 0 ? l2 / l1 : 0)
  printf "throng resident bytes per disk: 1 rank %.0f (%.0f above the start-up footprint), 2 ranks %.0f (%.0f)\n", b1, a1, b2, a2
  if (l1 > 0) printf "throng / LAMMPS per core: %.2f on 1 rank, %.2f on 2 ranks\n", t1 / l1, (l2 > 0 ? t2 / l2 : 0)
  if (w1 > 0 && w2 > 0) printf "a pbdw step costs %.2f PBD steps on 1 rank, %.2f on 2 ranks\n", t1 / w1, t2 / w2
}'
[ "${EQUAL_ACCURACY:-1}" = 1 ] || exit 0
# 2. equal accuracy: T = 1; throng pbdw h = 2.5e-3 (400 steps), LAMMPS kn 12000, dt 4e-4 (2500 steps)
read -r E1 _ _ S1 O1 < <(throng_run 1 400 -dt 2.5e-3 -solver pbdw -overlap_every 10)
read -r E2 _ _ S2 O2 < <(throng_run 2 400 -dt 2.5e-3 -solver pbdw -overlap_every 10)
read -r _ M1 Q1 P1 < <(lammps_rate 1 12000.0 122.0 0.0004 2500 10)
read -r _ M2 Q2 P2 < <(lammps_rate 2 12000.0 122.0 0.0004 2500 10)
echo "2. equal accuracy: simulated time T = 1, largest overlap over the run <= 1 % of a diameter"
awk -v e1="$E1" -v e2="$E2" -v s1="$S1" -v s2="$S2" -v o1="$O1" -v o2="$O2" -v m1="$M1" -v m2="$M2" -v q1="$Q1" -v q2="$Q2" -v p1="$P1" -v p2="$P2" 'BEGIN {
  printf "%-40s %10s %10s %14s %14s %12s %12s\n", "code", "1r [s]", "2r [s]", "1r [ps/s]", "2r [ps/s/core]", "overlap 1r", "overlap 2r"
  printf "%-40s %10.1f %10.1f %14.4e %14.4e %12.3e %12.3e\n", "throng pbdw, h 2.5e-3, 400 steps", s1, s2, e1, e2 / 2, o1, o2
  printf "%-40s %10.1f %10.1f %14.4e %14.4e %12.3e %12.3e\n", "LAMMPS kn 12000, dt 4e-4, 2500 steps", q1, q2, m1, m2 / 2, p1, p2
  if (s1 > 0 && q1 > 0) printf "time to solution, LAMMPS / throng: %.2f on 1 rank, %.2f on 2 ranks\n", q1 / s1, (s2 > 0 ? q2 / s2 : 0)
  if (o1 > 0.01 || o2 > 0.01 || p1 > 0.01 || p2 > 0.01) print "NOTE: an overlap above 1 % of a diameter: that row is not at the target accuracy"
}'
