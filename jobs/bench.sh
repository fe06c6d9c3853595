#!/usr/bin/env bash
# Benchmark: the dense scene (configs/bench-dense.yaml) — disks of one diameter starting
# in hexagonal contact, settling under gravity onto the floor of a box — on 1 and 2 ranks,
# and LAMMPS on the same scene in the same run as the yardstick: gran/hooke contacts with
# strong viscous damping, lattice hex at contact, fix gravity, a granular floor and side
# walls, skin 0.1 d, 2-D.  Prints particle-steps/s per core and resident bytes per disk.
#
#   bash jobs/bench.sh [N_COLUMNS [STEPS]]      (default 1000 columns x 1000 rows = 10^6)
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

# LAMMPS: hex lattice of nearest-neighbour distance 1 (density 2/sqrt 3), COLS per row.
HEIGHT=$(awk -v c="$COLS" 'BEGIN { printf "%.4f", (c - 0.5) * sqrt(3) / 2 + 0.01 }')
cat >"$work/in.bench" <<LMP
units           lj
dimension       2
atom_style      sphere
boundary        f f p
lattice         hex 1.1547005383792515
region          box block 0 $((COLS)).5 0 $((COLS + 1)) -0.5 0.5 units box
create_box      1 box
region          fill block 0 $COLS 0 $HEIGHT -0.5 0.5 units box
create_atoms    1 region fill
set             type 1 diameter 1.0
set             type 1 density 1.0
pair_style      gran/hooke 2000.0 NULL 50.0 NULL 0.0 0
pair_coeff      * *
neighbor        0.1 bin
neigh_modify    delay 0 every 1 check yes
comm_modify     vel yes
fix             integ all nve/sphere
fix             grav all gravity 1.0 vector 0 -1 0
fix             floor all wall/gran hooke 2000.0 NULL 50.0 NULL 0.0 0 yplane 0 NULL
fix             sides all wall/gran hooke 2000.0 NULL 50.0 NULL 0.0 0 xplane 0 $((COLS)).5
fix             flat all enforce2d
timestep        0.001
thermo          100
run             $STEPS
LMP

lammps_rate() { # ranks -> "atoms rate"
  mpirun -n "$1" lmp -in "$work/in.bench" -log none -screen "$work/lmp.$1.out" >"$work/lmp.$1.err" 2>&1 || { echo "bench: LAMMPS on $1 ranks failed: $(tail -3 "$work/lmp.$1.err" "$work/lmp.$1.out" 2>/dev/null | tr "\n" " ")" >&2; echo "0 0"; return; }
  awk '/^Loop time of/ { t=$4; p=$6; s=$9; n=$12 } END { if (t > 0) printf "%d %.4e\n", n, n * s / t; else print "0 0" }' "$work/lmp.$1.out"
}

throng_run() { # ranks -> "rate bytes/disk bytes/disk-above-start-up"
  mpirun -n "$1" "$THRONG" -options_file_yaml configs/bench-dense.yaml -n "$N" \
    -box "0,0,$COLS.5,$((COLS + 1))" -steps "$STEPS" -quiet >"$work/thr.$1.out" 2>&1
  awk '/particle-steps\/s/ && /^summary: steps/ { for (i = 1; i <= NF; i++) if ($i == "particle-steps/s") r = $(i-1) }
       /^summary: memory/ { k = 0; for (i = 1; i <= NF; i++) if ($i == "bytes") { k++; if (k == 1) b = $(i-1); else { a = $(i-1); sub(/^\(/, "", a) } } }
       END { printf "%s %s %s\n", r, b, a }' "$work/thr.$1.out"
}

echo "bench: dense scene, $N disks ($COLS per row), $STEPS steps; machine: $(nproc) cores"
read -r T1 B1 A1 < <(throng_run 1)
read -r T2 B2 A2 < <(throng_run 2)
read -r LN L1 < <(lammps_rate 1)
read -r _ L2 < <(lammps_rate 2)
awk -v t1="$T1" -v t2="$T2" -v l1="$L1" -v l2="$L2" -v b1="$B1" -v b2="$B2" -v a1="$A1" -v a2="$A2" -v ln="$LN" -v n="$N" 'BEGIN {
  printf "%-28s %16s %20s %9s\n", "code (disks)", "1 rank [ps/s]", "2 ranks [ps/s/core]", "2r / 1r"
  printf "%-28s %16.4e %20.4e %9.3f\n", "throng PBD (" n ")", t1, t2 / 2, t2 / t1
  printf "%-28s %16.4e %20.4e %9.3f\n", "LAMMPS gran/hooke (" ln ")", l1, l2 / 2, (l1 > 0 ? l2 / l1 : 0)
  printf "throng resident bytes per disk: 1 rank %.0f (%.0f above the start-up footprint), 2 ranks %.0f (%.0f)\n", b1, a1, b2, a2
  if (l1 > 0) printf "throng / LAMMPS per core: %.2f on 1 rank, %.2f on 2 ranks\n", t1 / l1, (l2 > 0 ? t2 / l2 : 0)
}'
