#!/usr/bin/env bash
# valgrind memcheck on a small 2-rank run (migrations, halo, snapshots, checkpoint): no
# invalid access, no use of uninitialised values, no definite leak, apart from Open MPI's
# own noise (Debian's openmpi-valgrind.supp and tests/valgrind.supp, which name it).
#   test_valgrind.sh path/to/throng path/to/mpiexec
set -u
THRONG=$(readlink -f "$1"); MPIEXEC=${2:-mpiexec}; here=$(cd "$(dirname "$0")" && pwd)
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export OMPI_MCA_mca_base_component_disable_dlclose=1 # keeps MPI's plugins' symbols for the reports
command -v valgrind >/dev/null || { echo "valgrind missing (apt-get install valgrind)" >&2; exit 1; }
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT
supp=(--suppressions="$here/valgrind.supp")
[ -f /usr/share/openmpi/openmpi-valgrind.supp ] && supp+=(--suppressions=/usr/share/openmpi/openmpi-valgrind.supp)
timeout 600 "$MPIEXEC" -n 2 --oversubscribe valgrind -q --error-exitcode=9 --leak-check=full --show-leak-kinds=definite \
  --errors-for-leak-kinds=definite --num-callers=40 "${supp[@]}" --log-file="$dir/vg.%p.log" \
  "$THRONG" -n 300 -init uniform -attract_gamma 0.5 -gravity 1,0 -dt 0.02 -steps 40 -tile 2 -output_every 20 -output "$dir/run" -quiet > "$dir/out.log" 2>&1
rc=$?
grep '^state-digest' "$dir/out.log"
errs=$(cat "$dir"/vg.*.log | grep -cE 'definitely lost|Invalid|uninitialised|Conditional jump|Mismatched|Syscall param|Source and destination')
[ "$errs" -eq 0 ] || head -60 "$dir"/vg.*.log >&2
check "valgrind: the run exited $rc" holds 'rc == 0' rc="$rc"
check "valgrind: $errs report lines (above)" same "$errs" 0
check "valgrind: the run printed no digest" grep -q '^state-digest' "$dir/out.log"
finish
