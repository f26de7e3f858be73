#!/usr/bin/env bash
# Runs shellcheck on every shell script of hack/ and on .ci/run, following what
# they source, so that the libraries of hack/lib/ are checked with each
# script that uses them.
set -euo pipefail
# shellcheck source=hack/lib/init.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/init.sh"

kep::deps::ensure shellcheck
# scripts prints the project's shell scripts: those whose first line runs a
# shell.
scripts() {
  local f
  git -C "${ROOT}" ls-files --cached --others --exclude-standard hack .ci | while IFS= read -r f; do
    if head -n 1 "${ROOT}/${f}" | grep -qE '^#!.*\b(ba)?sh\b'; then
      echo "${f}"
    fi
  done
}
files=()
kep::util::lines files scripts
# Findings left out, as upstream's hack/verify-shellcheck.sh leaves some out:
#   SC2031  a variable assigned in a subshell: the scripts source
#           hack/lib/init.sh in subshells on purpose, to work on another base
#   SC2317  unreachable command: shellcheck 0.9 says so of every function
#           that only a trap or another script calls
# and, in the libraries of hack/lib/, which are checked on their own too
# (shellcheck reports only on the files it is given), what the scripts
# that source them provide or use:
#   SC2034  a variable assigned and not used: the scripts use it
#   SC2153, SC2154  a variable used and not assigned: hack/lib/init.sh or
#           releases/BASE/upstream.env assigns it
#
# Each run of shellcheck reads the libraries again for every script that sources them,
# which makes it slow: the scripts are checked in two halves at once, and the
# libraries alongside, each run's findings printed when all have ended.
cd "${ROOT}"
out=$(mktemp -d)
trap 'rm -rf "${out}"' EXIT
half=$(((${#files[@]} + 1) / 2))
pids=()
shellcheck --external-sources --exclude=SC2031,SC2317 "${files[@]:0:half}" >"${out}/1" 2>&1 &
pids+=($!)
shellcheck --external-sources --exclude=SC2031,SC2317 "${files[@]:half}" >"${out}/2" 2>&1 &
pids+=($!)
shellcheck --external-sources --exclude=SC2031,SC2317,SC2034,SC2153,SC2154 hack/lib/*.sh >"${out}/3" 2>&1 &
pids+=($!)
failed=0
for pid in "${pids[@]}"; do
  wait "${pid}" || failed=1
done
cat "${out}/1" "${out}/2" "${out}/3"
((failed == 0)) ||
  kep::log::error_exit "shellcheck: fix the findings above in hack/ (or, where one is wrong, '# shellcheck disable=SCnnnn # why' on the line before)."
