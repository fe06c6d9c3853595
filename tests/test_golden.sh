#!/usr/bin/env bash
# Golden digests: two short runs must end in the state digests written here, bit for bit,
# in every build (Release, ASan + UBSan) and on any rank count.  This guards the rules
# that make a trajectory reproducible beyond one build (docs/contributing.md):
#   - -ffp-contract=off and ISO C: no fused multiply-adds.  With -march=native
#     -ffp-contract=fast on an FMA machine the first run ends in 166d5dc9... instead;
#   - no -ffast-math, no reordered reductions, the id order within cells.
# The time-gap law's vector kernels (AVX-512, AVX2, SSE2: -csm_vector_width) must give
# the same bits: the crowd run is repeated with the narrower ones.
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
# crowd, time-gap law (issue 31 changed it once: csm.c's own exp and rounded fixed point)
golden 2b389edc91cfb6dc3f800b7f20ae82a7 2 -scenario evacuation -steps 300 -route_choice nearest
golden 2b389edc91cfb6dc3f800b7f20ae82a7 3 -scenario evacuation -steps 300 -route_choice nearest -csm_vector_width 128
golden 2b389edc91cfb6dc3f800b7f20ae82a7 2 -scenario evacuation -steps 300 -route_choice nearest -csm_vector_width 256
golden b744d742b916edd6fbed51afef552903 2 -scenario evacuation -steps 300            # ... choosing exits (issue 19)
finish
