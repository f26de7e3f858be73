#!/usr/bin/env bash
# make verify: runs the checks, each a script hack/verify-NAME.sh, found by
# their names as upstream's hack/make-rules/verify.sh finds its own, and names
# the ones that fail; each failure says what to run to fix it. The quick
# checks (seconds), named below, run first, and a failure among them stops the
# run before the others (minutes: they rebuild a base or run upstream's
# tools), which are every other hack/verify-*.sh: a new check runs without
# being listed anywhere.
#
#   hack/verify.sh                        every check, on every series
#   WHAT="gofmt hygiene" hack/verify.sh   these checks only (any BASE)
#   hack/verify.sh --list                 the checks, in the order they run
set -euo pipefail
# shellcheck source=hack/lib/init.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/init.sh"
# shellcheck source=hack/lib/tree.sh
source "${ROOT}/hack/lib/tree.sh"

QUICK_CHECKS=(gofmt vet shellcheck hygiene docs boilerplate spelling mocks exported)
# The other checks: every hack/verify-NAME.sh that is not a quick one, and
# not this script.
CHECKS=()
for script in "${ROOT}"/hack/verify-*.sh; do
  name=$(basename "${script}" .sh)
  name=${name#verify-}
  [[ " ${QUICK_CHECKS[*]} " == *" ${name} "* ]] || CHECKS+=("${name}")
done
for name in "${QUICK_CHECKS[@]}"; do
  [[ -x "${ROOT}/hack/verify-${name}.sh" ]] || kep::log::error_exit "the quick check ${name} has no hack/verify-${name}.sh"
done
if [[ "${1:-}" == --list ]]; then
  printf '%s\n' "${QUICK_CHECKS[@]}" "${CHECKS[@]}"
  exit 0
fi

# The run's scratch directory, where the checks share the trees they make
# (kep::tree::fresh_tree); it goes when the run ends.
kep::tree::verify_run

failed=()
# run_checks NAME... runs each check and logs the time it took, so that a
# slow one shows in the CI log.
run_checks() {
  local name start
  for name in "$@"; do
    start=${SECONDS}
    kep::log::status "verify: ${name} (hack/verify-${name}.sh)"
    "${ROOT}/hack/verify-${name}.sh" || failed+=("${name}")
    kep::log::status "verify: ${name} took $((SECONDS - start))s"
  done
}

if [[ -n "${WHAT:-}" ]]; then
  read -ra checks <<<"${WHAT}"
  for name in "${checks[@]}"; do
    [[ -x "${ROOT}/hack/verify-${name}.sh" ]] ||
      kep::log::error_exit "WHAT=${name}: no check hack/verify-${name}.sh; the checks are: ${QUICK_CHECKS[*]} ${CHECKS[*]}"
  done
  run_checks "${checks[@]}"
  ((${#failed[@]} == 0)) || kep::log::error_exit "verify failed: ${failed[*]}"
  kep::log::status "verify: ${checks[*]} passed"
  exit 0
fi

# The checks of every series run from the default base, the origin of the ports.
[[ "${BASE}" == "${DEFAULT_BASE}" ]] ||
  kep::log::error_exit "make verify checks the series of every base from BASE=${DEFAULT_BASE}; run it without BASE (or WHAT=<check> BASE=${BASE} for one check of this base)."
# A tree that does not exist yet (a fresh clone's) is made from the series
# once, for the checks to share.
if [[ -d "${KUBE_ROOT}/.git" ]]; then
  kep::tree::ensure_checkout
else
  kep::tree::fresh_tree "${BASE}" >/dev/null
fi
run_checks "${QUICK_CHECKS[@]}"
((${#failed[@]} == 0)) ||
  kep::log::error_exit "verify failed: ${failed[*]} (the quick checks; the others did not run)"
run_checks "${CHECKS[@]}"
((${#failed[@]} == 0)) || kep::log::error_exit "verify failed: ${failed[*]}"
kep::log::status "verify: all checks passed"
