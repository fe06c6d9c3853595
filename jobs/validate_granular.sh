#!/usr/bin/env bash
# Granular validation (issue 29): jamming by compression against O'Hern et al. 2003, the
# pressure's divergence near jamming, the viscosity in simple shear against Olsson and
# Teitel, a pile's stress against hydrostatics, jamming at a controlled pressure.  See
# jobs/validate_granular.py for what each experiment does; exits 1 if a criterion is missed.
#   bash jobs/validate_granular.sh [--quick] [--out DIR] [--docs] [--part all|jamming|shear|barostat]
# The full run (N = 10^4, 5 seeds, 3 rates) takes about an hour on 2 cores (the shear
# part alone, N = 4000, 3 seeds, 9 phi, 3 rates, about 20 minutes; the barostat part, jamming
# at a controlled pressure, N = 10^4, about 6 minutes); --quick a minute.
set -euo pipefail
cd "$(dirname "$0")/.."
THRONG=$(readlink -f "${THRONG:-build/throng}")
[ -x "$THRONG" ] || bash .ci/setup
export THRONG
exec /usr/bin/python3 jobs/validate_granular.py "$@"
