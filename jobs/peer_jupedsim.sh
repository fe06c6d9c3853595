#!/usr/bin/env bash
# Peer comparison: JuPedSim's collision-free speed model against throng's time-gap law,
# one core each, on one scene, in one run (a benchmark: it prints figures and exits 0).
#
# The scene (jobs/peer/jupedsim_hall.cpp, configs/peer-hall.yaml): a 100 m x 100 m hall,
# 20 000 agents of radius 0.2 m, time gap 1 s, free speed 1.34 m/s, at 2.5 per m^2 over
# x <= 79.7 m, walking east to a door that nobody reaches in 500 steps of 0.01 s.
# JuPedSim is v1.4.2, its C library built from its public repository (the tag) with its
# Python bindings switched off; the build is kept in a cache and reused.  If it cannot be
# fetched or built here, the script says so and exits 0.
#
#   bash jobs/peer_jupedsim.sh [RUNS]        (default 3 runs of each code, interleaved)
# Environment: JUPEDSIM_REPO (a git URL or a local clone holding the tag v1.4.2; default
# the GitHub repository), JUPEDSIM_CACHE (default ~/.cache/throng/jupedsim-1.4.2),
# N, STEPS (default 20000, 500), THRONG (the program, default build/throng).
set -uo pipefail
cd "$(dirname "$0")/.."
RUNS=${1:-3}; N=${N:-20000}; STEPS=${STEPS:-500}; THRONG=${THRONG:-build/throng}
REPO=${JUPEDSIM_REPO:-https://github.com/PedestrianDynamics/jupedsim}
CACHE=${JUPEDSIM_CACHE:-$HOME/.cache/throng/jupedsim-1.4.2}
skip() { echo "peer_jupedsim: JuPedSim not compared: $*"; exit 0; }
[ -x "$THRONG" ] || bash .ci/setup || { echo "peer_jupedsim: throng could not be built"; exit 1; }

lib=$CACHE/build/lib/libjupedsim.so
if [ ! -f "$lib" ]; then
  need=()
  for p in cmake ninja-build g++ git libcgal-dev libfmt-dev libglm-dev libboost-dev; do
    dpkg -s "$p" >/dev/null 2>&1 || need+=("$p")
  done
  if [ ${#need[@]} -gt 0 ]; then
    [ "$(id -u)" = 0 ] || skip "missing Debian packages ${need[*]} (not root)"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${need[@]}" >/dev/null 2>&1 ||
      skip "apt-get could not install ${need[*]}"
  fi
  rm -rf "$CACHE"; mkdir -p "$CACHE"
  git clone -q --depth 1 --branch v1.4.2 "$REPO" "$CACHE/src" 2>/dev/null || skip "cannot fetch v1.4.2 from $REPO"
  # the C library only: no Python interpreter, pybind11 or bindings
  sed -i '/^add_subdirectory(python_bindings_jupedsim)/d' "$CACHE/src/CMakeLists.txt"
  sed -i '/^# Python Interpreter/,/^set(Python_EXECUTABLE/d' "$CACHE/src/third-party/CMakeLists.txt"
  echo "peer_jupedsim: building JuPedSim v1.4.2 in $CACHE (several minutes, once)"
  { cmake -S "$CACHE/src" -B "$CACHE/build" -G Ninja -DCMAKE_BUILD_TYPE=Release >"$CACHE/build.log" 2>&1 &&
    cmake --build "$CACHE/build" --target jupedsim >>"$CACHE/build.log" 2>&1; } ||
    skip "its build failed (log: $CACHE/build.log)"
fi
drv=$CACHE/jupedsim_hall
if [ ! -x "$drv" ] || [ jobs/peer/jupedsim_hall.cpp -nt "$drv" ]; then
  g++ -O2 -std=c++20 -I"$CACHE/src/libjupedsim/include" -I"$CACHE/build/libjupedsim/include" \
    jobs/peer/jupedsim_hall.cpp -o "$drv" -L"$(dirname "$lib")" -ljupedsim -Wl,-rpath,"$(dirname "$lib")" ||
    skip "the driver did not compile"
fi

rate() { awk '{ for (i = 1; i <= NF; i++) if ($i ~ /agent-steps\/s|particle-steps\/s/) print $(i - 1) }'; }
echo "peer_jupedsim: $N agents, $STEPS steps of 0.01 s, one core each, $RUNS runs each, interleaved"
J=(); T=()
for k in $(seq "$RUNS"); do
  j=$("$drv" "$N" "$STEPS" 0.01 | tee /dev/stderr | rate) || skip "the JuPedSim run failed"
  t=$("$THRONG" -options_file_yaml configs/peer-hall.yaml -n "$N" -steps "$STEPS" -quiet 2>&1 |
      grep '^summary: steps' | tee /dev/stderr | rate)
  [ -n "$t" ] || { echo "peer_jupedsim: the throng run failed"; exit 1; }
  J+=("$j"); T+=("$t")
done 2>&1
median() { printf '%s\n' "$@" | sort -g | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
mj=$(median "${J[@]}"); mt=$(median "${T[@]}")
printf 'peer_jupedsim: JuPedSim 1.4.2  %s agent-steps/s (runs: %s)\n' "$mj" "${J[*]}"
printf 'peer_jupedsim: throng         %s agent-steps/s (runs: %s)\n' "$mt" "${T[*]}"
awk -v t="$mt" -v j="$mj" 'BEGIN { printf "peer_jupedsim: throng / JuPedSim = %.1f per core (goal: >= 30)\n", t / j }'
