#!/usr/bin/env bash
# Per-contact output and the force chains (issue 29, src/granular/contact_output.c).
#  1. a 400-disk pile, pbd, with -contact_output on 1 and 3 ranks: the state-digest is
#     that of the run without it (keeping the contacts changes no bit); the records
#     sorted by ids are the same bit for bit on 1 and 3 ranks;
#     z_nr and nr (the contact number and count of the non-rattlers) are the brute force's
#     3-core of the final snapshot's contact graph, on 1 and 3 ranks;
#  2. the file's contacts give the summary's stress: sum force (x) branch / area equals
#     the -stress line of the same step to 6 digits (pbd, pbdw; pngs to 1e-4 of the pressure: the line
#     sums each sweep's impulse with that sweep's branch vector); every pair is
#     touching (|branch| = r_a + r_b within 1e-3) and pushes (normal force >= 0), every
#     wall contact's branch is the disk's radius;
#  3. a run to step 1500 (3 ranks), restarted to 3000 on 2 ranks, then restarted again
#     from its step-1500 checkpoint on 1 rank: the frames after 1500 are dropped and
#     written again (1000, 1500, 2000, 3000 remain), and the last equals the straight run's;
#     the snapshot file's stress time series (6 samples) ends with the summary's, and is
#     the same after the
#     two restarts;
#  4. a run without any contact writes empty frames (no XDMF grid), without error;
#  5. ParaView reads the XDMF: postproc/forcechains.py finds the file's contact count and
#     renders a PNG, and fails on a wrong count.
#   test_contact_output.sh path/to/throng path/to/mpiexec path/to/source
set -u
THRONG=$(readlink -f "$1"); MPIEXEC=${2:-mpiexec}; SRC=$(readlink -f "$3")
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT
cd "$dir" || exit 1
digest() { sed -n 's/^state-digest: //p' "$1"; }
run() { # ranks, log, options...
  local np=$1 log=$2; shift 2
  logged "$log" timeout 600 "$MPIEXEC" -n "$np" --oversubscribe "$THRONG" -quiet \
    -options_file_yaml "$SRC/configs/bench-dense.yaml" -n 400 -box 0,0,20.5,25 -steps 3000 -tile 4 "$@"
}
cat > sums.py <<'PY'
# prints, for the last frame of RUN_contacts.h5: the count, the Love-Weber stress
# (sxx syy sxy), the worst touching and wall-branch errors, the smallest normal force,
# and a fingerprint of the records sorted by ids
import hashlib, sys
import h5py, numpy as np
run, area = sys.argv[1], float(sys.argv[2])
with h5py.File(run + "_contacts.h5") as f, h5py.File(run + ".h5") as s:
    g = f["contacts"][sorted(f["contacts"])[-1]]
    ids, F, l, fn = g["ids"][()], g["force"][()], g["branch"][()], g["normal_force"][()]
    rid = s["particles/disks/id/value"][-1]
    rad = dict(zip(rid[rid >= 0], s["particles/disks/radius/value"][-1][rid >= 0]))
S = np.einsum("ka,kb->ab", F, l) / area
pair = ids[:, 0] >= 0
L = np.hypot(l[:, 0], l[:, 1])
rs = np.array([rad[a] + rad[b] if a >= 0 else rad[b] for a, b in ids])
o = np.lexsort((ids[:, 1], ids[:, 0]))
h = hashlib.sha1(ids[o].tobytes() + F[o].tobytes() + l[o].tobytes()).hexdigest()[:16]
print(len(ids), f"{S[0, 0]:.6e} {S[1, 1]:.6e} {0.5 * (S[0, 1] + S[1, 0]):.6e}",
      f"{np.max(np.abs(L[pair] - rs[pair])):.3e} {np.max(np.abs(L[~pair] - rs[~pair])) if (~pair).any() else 0:.3e}",
      f"{fn.min():.3e}", h, int((~pair).sum()))
PY
sums() { /usr/bin/python3 sums.py "$1" 512.5 > "$1.sums" 2> "$1.err" || { cat "$1.err" >&2; return 1; }; }
field() { awk -v k="$2" '{print $k}' "$1.sums"; }

# 1. pbd on 1 and 3 ranks, against the run without contact output
check "pbd with -contact_output, 1 rank" run 1 c1.log -solver pbd -stress -contact_output -output c1 -output_every 1000 -progress 500
check "pbd with -contact_output, 3 ranks" run 3 c3.log -solver pbd -stress -contact_output -output c3 -output_every 1000
check "pbd without it" run 2 plain.log -solver pbd -output none
check "-contact_output changed the trajectory" same "$(digest c1.log)" "$(digest plain.log)"
check "3 ranks: another digest" same "$(digest c3.log)" "$(digest plain.log)"
check "sums of c1" sums c1
check "sums of c3" sums c3
echo "pbd contacts: 1 rank $(cat c1.sums); 3 ranks $(cat c3.sums)"
check "the sorted contact records differ between 1 and 3 ranks" same "$(field c1 8)" "$(field c3 8)"
check "three frames in the file" same "$(h5ls c1_contacts.h5/contacts | wc -l)" 3
# the rattlers, by brute force on the final snapshot: the 3-core of the pair contacts
cat > core.py <<'PY'
import sys
import h5py, numpy as np
with h5py.File(sys.argv[1] + ".h5") as f:
    q = f["particles/disks/position/value"][-1]; r = f["particles/disks/radius/value"][-1]
ok = ~np.isnan(r); q, r = q[ok], r[ok]; n = len(r); tol = 1e-6 * 2 * r.max()
d = q[:, None, :] - q[None, :, :]
A = (d[..., 0] ** 2 + d[..., 1] ** 2 <= (r[:, None] + r[None, :] + tol) ** 2) & ~np.eye(n, dtype=bool)
live = np.ones(n, bool)
while True:
    drop = live & ((A & live[None, :]).sum(1) < 3)
    if not drop.any(): break
    live &= ~drop
print(f"z_nr {(A & live[None, :] & live[:, None]).sum() / max(1, live.sum()):.4f}  nr {live.sum()}")
PY
check "core.py" logged c1.core /usr/bin/python3 core.py c1
zn() { sed -n 's/^summary: stress .* \(z_nr [^ ]*  nr [^ ]*\) .*/\1/p' "$1"; }
echo "rattlers: brute force $(cat c1.core); throng 1 rank $(zn c1.log), 3 ranks $(zn c3.log)"
check "z_nr and nr on 1 rank are not the brute force's" same "$(zn c1.log)" "$(cat c1.core)"
check "z_nr and nr on 3 ranks are not the brute force's" same "$(zn c3.log)" "$(cat c1.core)"
check "no disk left after removing the rattlers" holds 'n > 100' n="$(awk '{print $4}' c1.core)"

# 2. the file's stress is the summary's, for each stepper
for sol in pbd pbdw pngs; do
  [ "$sol" = pbd ] && r=c1 || { r=$sol; check "$sol with -contact_output" run 2 "$r.log" -solver "$sol" -stress -contact_output -output "$r" -output_every 1000 -steps 1000; }
  [ "$sol" = pbd ] || check "sums of $sol" sums "$r"
  line=$(grep '^summary: stress' "$r.log")
  want=$(echo "$line" | awk '{print $6, $8, $10}')
  got=$(field "$r" 2; field "$r" 3; field "$r" 4)
  echo "$sol: summary sxx syy sxy $want; from the file $(echo $got)"
  # pngs: the summary sums each sweep's impulse with that sweep's branch vector, the file
  # gives the summed impulse with the last one; they differ by the branch's change
  # (2e-5 of the pressure), against 1e-6 from the printed digits for pbd and pbdw
  [ "$sol" = pngs ] && tol=1e-4 || tol=2e-6
  p=$(echo "$line" | awk '{print $4}')
  for k in 1 2 3; do
    w=$(echo "$want" | awk -v k=$k '{print $k}'); g=$(echo $got | awk -v k=$k '{print $k}')
    check "$sol: component $k of the file's stress $g is not the summary's $w" holds 'p > 0 && g - w <= t * p && w - g <= t * p' g="$g" w="$w" t="$tol" p="$p"
  done
  check "$sol: a pair is not touching ($(field "$r" 5))" holds 'e < 1e-3' e="$(field "$r" 5)"
  check "$sol: a wall branch is not the radius ($(field "$r" 6))" holds 'e < 1e-3' e="$(field "$r" 6)"
  check "$sol: a negative normal force ($(field "$r" 7))" holds 'f >= 0' f="$(field "$r" 7)"
  check "$sol: no wall contact recorded" holds 'n > 0' n="$(field "$r" 9)"
done

# 3. a restart continues the contact file, and a restart from further back drops the
#    frames after its step and writes them again
check "run to 1500" run 3 h1.log -solver pbd -stress -progress 500 -contact_output -output h -output_every 1000 -checkpoint h.chk -steps 1500
cp h.chk h1500.chk
check "restart from 1500 on 2 ranks" run 2 h2.log -solver pbd -stress -progress 500 -contact_output -output h -output_every 1000 -restart h.chk
check "restart from 1500 again, on 1 rank" run 1 h3.log -solver pbd -stress -progress 500 -contact_output -output h -output_every 1000 -restart h1500.chk
frames=$(h5ls h_contacts.h5/contacts | awk '{printf "%s ", $1}')
echo "restarted contact file: $frames"
check "restarted file: frames $frames" same "$frames" "step_0000001000 step_0000001500 step_0000002000 step_0000003000 "
check "sums of the restarted run" sums h
check "the restarted run's last contacts differ from the straight run's" same "$(field h 8)" "$(field c1 8)"
check "the restarted XDMF lists 4 grids" same "$(grep -c '<Grid Name="step' h_contacts.xdmf)" 4
# the stress time series of the snapshot file: the -stress lines, and continued by restarts
cat > series.py <<'PY'
import sys
import h5py
with h5py.File(sys.argv[1] + ".h5") as f:
    o = f["observables"]
    st, v, p, phi, z = (o[k][()] for k in ("stress/step", "stress/value", "pressure/value",
                                           "packing_fraction/value", "contact_number/value"))
for k in range(len(st)):
    print(f"stress: step {st[k]}  p {p[k]:.6e}  sxx {v[k, 0, 0]:.6e}  syy {v[k, 1, 1]:.6e}  "
          f"sxy {0.5 * (v[k, 0, 1] + v[k, 1, 0]):.6e}  phi {phi[k]:.6f}  z {z[k]:.4f}")
PY
check "series of c1" logged c1.series /usr/bin/python3 series.py c1
check "series of h" logged h.series /usr/bin/python3 series.py h
# (a -quiet run prints no stress line: its summary is the last sample)
check "the stress series ends elsewhere than the summary" same "$(tail -1 c1.series | awk '{print $3, $5, $7, $9, $11, $13, $15}')" \
  "$(grep '^summary: stress' c1.log | sed 's/(step //; s/,//' | awk '{print $19, $4, $6, $8, $10, $12, $14}')"
check "six samples" same "$(wc -l < c1.series)" 6
echo "stress series after two restarts: $(awk '{printf "%s ", $3}' h.series)"
check "the restarted stress series is not the straight run's" same "$(cat h.series)" "$(cat c1.series)"

# 4. no contact at all: a dilute gas
check "dilute run" logged gas.log timeout 300 "$MPIEXEC" -n 2 --oversubscribe "$THRONG" -quiet -n 20 -box 0,0,200,200 \
  -init uniform -attract_gamma 0 -steps 20 -contact_output -output gas -output_every 10
check "gas: frames missing" same "$(h5ls gas_contacts.h5/contacts | wc -l)" 2
check "gas: an empty frame has an XDMF grid" same "$(grep -c '<Grid Name="step' gas_contacts.xdmf)" 0

# 5. ParaView draws them
XNUM=$((100 + $$ % 800))
n=$(field c1 1)
check "forcechains.py failed" logged pv.log timeout 300 xvfb-run -a -n "$XNUM" pvbatch "$SRC/postproc/forcechains.py" c1 \
  --png chains.png --expect-contacts "$n"
check "no PNG" test -s chains.png
check "forcechains.py accepted a wrong count" not quiet timeout 300 xvfb-run -a -n "$XNUM" pvbatch "$SRC/postproc/forcechains.py" c1 \
  --expect-contacts $((n + 1))
finish
