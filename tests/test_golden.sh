#!/usr/bin/env bash
# Golden digests: two short runs must end in the state digests written here, bit for bit,
# in every build (Release, ASan + UBSan) and on any rank count.  This guards the rules
# that make a trajectory reproducible beyond one build (docs/contributing.md):
#   - -ffp-contract=off and ISO C: no fused multiply-adds.  With -march=native
#     -ffp-contract=fast on an FMA machine the first run ends in 166d5dc9... instead;
#   - no -ffast-math, no reordered reductions, the id order within cells.
# A change of the physics changes the digests on purpose: then update them here, and say
# why in the commit.
#   test_golden.sh path/to/throng path/to/mpiexec
set -u
THRONG=$1; MPIEXEC=${2:-mpiexec}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
ends_in() { # expected digest, ranks, options...: the run exits 0 with that digest
  local want=$1 np=$2 got log rc
  shift 2
  log=$(timeout 300 "$MPIEXEC" -n "$np" --oversubscribe "$THRONG" -quiet -output none "$@" 2>&1)
  rc=$? # the run's own status, not a pipe's last command's
  got=$(printf '%s\n' "$log" | sed -n 's/^state-digest: //p')
  echo "$np ranks $*: exit $rc, digest ${got:-none}"
  [ "$rc" -eq 0 ] && [ "$got" = "$want" ]
}
golden() { check "$2 ranks ${*:3}: not the golden digest $1" ends_in "$@"; }
golden 29cca3c51f8b5965db996bef000b9a12 2 -n 3000 -steps 200                        # granular, pbd
golden 29cca3c51f8b5965db996bef000b9a12 3 -n 3000 -steps 200
golden 7b8b33cc88fcf4b6547563274d4d490b 2 -scenario evacuation -steps 300 -route_choice nearest # crowd, time-gap law
golden e56d90cab926d141d7430fdf513cca28 2 -scenario evacuation -steps 300            # ... choosing exits (issue 19)
finish
