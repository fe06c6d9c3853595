#!/usr/bin/env bash
# Static checks of the test and job scripts (ctest: lint; CI runs it in both builds).
#  1. No check is handed a `$?` on a line whose message holds a command substitution
#     `$(...)`: the substitution runs first and resets `$?` to its own status, 0, so
#     the check could never fail (issue 15, and again issue 26).  tests/lib.sh's check
#     runs the command itself and takes no status.
#  2. Every test script (tests/test_*.sh) counts its checks with tests/lib.sh: it sources
#     it and defines no check() of its own.
#  3. shellcheck (Debian's package) finds no error in tests/ and jobs/.
#  4. The architecture of src/ (tests/architecture.py): no include goes up the layers of
#     CMakeLists.txt's THRONG_LAYERS, no circle among the modules, no file over 900 lines.
#   lint.sh [path/to/source]
set -u
cd "${1:-$(dirname "$0")/..}" || exit 1
fail=0
if grep -nE '^\s*check\b.*\$\([^(].*\s"?\$\?"?\s*$' tests/*.sh jobs/*.sh; then
  echo "FAIL: the checks above take \$? after a \$(...) in their message: they cannot fail" >&2
  fail=1
fi
for f in tests/test_*.sh; do
  if ! grep -q '^\. "$(dirname "$0")/lib\.sh"$' "$f" || grep -qE '^\s*check\(\)' "$f"; then
    echo "FAIL: $f does not count its checks with tests/lib.sh (source it; no check() of its own)" >&2
    fail=1
  fi
done
if command -v shellcheck >/dev/null; then
  shellcheck -S error -x tests/*.sh jobs/*.sh || { echo "FAIL: shellcheck found errors" >&2; fail=1; }
else
  echo "FAIL: shellcheck is not installed (apt-get install shellcheck; .ci/run does)" >&2
  fail=1
fi
if ! python3 tests/architecture.py; then
  echo "FAIL: the architecture of src/ is broken (above; docs/contributing.md says where a file goes)" >&2
  fail=1
fi
[ $fail -eq 0 ] && echo "lint: 1 passed, 0 failed" || echo "lint: 0 passed, 1 failed"
exit $fail
