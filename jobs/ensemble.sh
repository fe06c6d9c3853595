#!/bin/bash
# Ensembles of throng runs (seeds, sweeps), here or on Slurm: jobs/ensemble.py under
# Debian's python3 (numpy, matplotlib, h5py).  bash jobs/ensemble.sh --help
exec /usr/bin/python3 "$(dirname "$0")/ensemble.py" "$@"
