# shellcheck shell=bash
# tests/lib.sh — sourced by the test scripts: one way to count a check.
#
#   check DESCRIPTION COMMAND [ARG...]
#       runs COMMAND itself and counts a pass when it exits 0, else prints
#       "FAIL: DESCRIPTION (exit N)".  The helper takes the command, never a status: a
#       status passed as `$?` after a message holding `$(...)` is the status of that
#       substitution, always 0, and such a check could not fail (issue 26).
#   logged LOG COMMAND [ARG...]
#       runs COMMAND with its output in LOG; on failure prints LOG's last lines, so
#       `check "run failed" logged run.log throng ...` shows why.
#   not COMMAND [ARG...]     succeeds when COMMAND fails (`!` is no command)
#   quiet COMMAND [ARG...]   COMMAND with its output discarded (a redirection after
#                            `check ... CMD` would apply to check and hide its FAIL line)
#   same A B                 A and B are equal and not empty (digests)
#   holds EXPR [VAR=VALUE...]  awk's EXPR on the given variables is true, e.g.
#                            `holds 'a <= 0.012' a="$a"` (an empty value is not a number: false)
#   finish                   prints "N passed, M failed" and returns non-zero on a failure
#
# tests/lint.sh (CI) refuses a test script that passes a status to check.
passed=0
failed=0

check() {
  local what=$1 rc
  shift
  if [ $# -eq 0 ]; then
    echo "FAIL: $what (check was given no command)" >&2
    failed=$((failed + 1))
    return 1
  fi
  "$@"
  rc=$?
  if [ $rc -eq 0 ]; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    echo "FAIL: $what (exit $rc)" >&2
  fi
  return 0
}

logged() {
  local log=$1 rc
  shift
  "$@" >"$log" 2>&1
  rc=$?
  if [ $rc -ne 0 ]; then
    echo "---- $log (exit $rc), last lines:" >&2
    tail -5 "$log" >&2
  fi
  return $rc
}

not() { ! "$@"; }

quiet() { "$@" >/dev/null 2>&1; }

same() { [ -n "$1" ] && [ "$1" = "$2" ]; }

holds() {
  local expr=$1 v
  local -a args=()
  shift
  for v in "$@"; do
    case "${v#*=}" in '' | *[!0-9eE.+-]*) return 1 ;; esac # not a number
    args+=(-v "$v")
  done
  awk "${args[@]}" "BEGIN { exit !($expr) }"
}

finish() {
  echo "$passed passed, $failed failed"
  [ "$failed" -eq 0 ]
}
