#!/usr/bin/env bash
# make verify: runs the checks, each a script hack/verify-NAME.sh, found by
# their names as upstream's hack/make-rules/verify.sh finds its own, and names
# the ones that fail; each failure says what to run to fix it. The quick
# checks (seconds), named below, run first, and a failure among them stops the
# run before the others (minutes: they rebuild a base or run upstream's
# tools), which are every other hack/verify-*.sh: a new check runs without
# being listed anywhere. The checks of a tree, named below too, run last: on
# this base's tree, then on the tree at the end of each port chain (1.37).
#
#   hack/verify.sh                        every check, on every series
#   WHAT="gofmt hygiene" hack/verify.sh   these checks only (any BASE)
#   hack/verify.sh --skip-leaves          every check, but not on the tree at
#                                         the end of a port chain: CI checks
#                                         it beside the node (.ci/run)
#   hack/verify.sh --tree                 the checks of a tree, on BASE's only,
#                                         as it is: the generated files of
#                                         its HEAD, upstream's scripts on its
#                                         files (make verify-tree)
#   hack/verify.sh --list                 the checks, in the order they run
set -euo pipefail
# shellcheck source=hack/lib/init.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/init.sh"
# shellcheck source=hack/lib/tree.sh
source "${ROOT}/hack/lib/tree.sh"

case "${1:-}" in
  "" | --skip-leaves | --tree | --list) ;;
  *) kep::log::error_exit "usage: hack/verify.sh [--skip-leaves | --tree | --list]" ;;
esac

QUICK_CHECKS=(gofmt vet shellcheck hygiene docs boilerplate spelling mocks exported)
# The checks of a tree: upstream's generated files and verify scripts, with
# the base's own generators and Go. They run on the tree of each series that
# is not ported (master) or that none is ported from (1.37): a series in the
# middle of a chain (1.38) is not checked again, since the ports check proves
# that its patches are those of the series it is ported from but for the
# differences its range-diff records, which touch no generated file (the
# gate's version), on the same upstream release.
TREE_CHECKS=(generated upstream)
# The other checks: every hack/verify-NAME.sh that is not one of those, and
# not this script.
CHECKS=()
for script in "${ROOT}"/hack/verify-*.sh; do
  name=$(basename "${script}" .sh)
  name=${name#verify-}
  [[ " ${QUICK_CHECKS[*]} ${TREE_CHECKS[*]} " == *" ${name} "* ]] || CHECKS+=("${name}")
done
for name in "${QUICK_CHECKS[@]}" "${TREE_CHECKS[@]}"; do
  [[ -x "${ROOT}/hack/verify-${name}.sh" ]] || kep::log::error_exit "the check ${name} has no hack/verify-${name}.sh"
done
if [[ "${1:-}" == --list ]]; then
  printf '%s\n' "${QUICK_CHECKS[@]}" "${CHECKS[@]}" "${TREE_CHECKS[@]}"
  exit 0
fi

# The run's scratch directory, where the checks share the trees they make
# (kep::tree::fresh_tree); it goes when the run ends.
kep::tree::verify_run

failed=()
# run_checks NAME... runs each check, on BASE (named when it is not the
# default), and logs the time it took, so that a slow one shows in the CI log.
run_checks() {
  local name label start
  for name in "$@"; do
    start=${SECONDS}
    label=${name}
    [[ "${BASE}" == "${DEFAULT_BASE}" ]] || label="${name} of ${BASE}"
    kep::log::status "verify: ${label} (hack/verify-${name}.sh)"
    "${ROOT}/hack/verify-${name}.sh" || failed+=("${label}")
    kep::log::status "verify: ${label} took $((SECONDS - start))s"
  done
}

if [[ "${1:-}" == --tree ]]; then
  kep::tree::ensure_checkout
  run_checks "${TREE_CHECKS[@]}"
  ((${#failed[@]} == 0)) || kep::log::error_exit "verify failed on ${TREE}: ${failed[*]}"
  kep::log::status "verify: ${TREE_CHECKS[*]} passed on ${TREE}"
  exit 0
fi
if [[ -n "${WHAT:-}" ]]; then
  read -ra checks <<<"${WHAT}"
  for name in "${checks[@]}"; do
    [[ -x "${ROOT}/hack/verify-${name}.sh" ]] ||
      kep::log::error_exit "WHAT=${name}: no check hack/verify-${name}.sh; the checks are: ${QUICK_CHECKS[*]} ${CHECKS[*]} ${TREE_CHECKS[*]}"
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
run_checks "${CHECKS[@]}" "${TREE_CHECKS[@]}"
# The tree at the end of each port chain, as exported, in a fresh tree
# (kep::tree::fresh_tree: its own when there is none yet, and make test
# BASE=<base> then finds it).
if [[ "${1:-}" == --skip-leaves ]]; then
  kep::log::status "verify: --skip-leaves: the checks of the tree of $(kep::tree::port_leaves | xargs) did not run ('make verify-tree BASE=<base>' runs them)"
else
  for release in $(kep::tree::port_leaves); do
    if ! tree=$(kep::tree::fresh_tree "${release}"); then
      failed+=("${release}: checkout")
      continue
    fi
    BASE="${release}" HARNESS_KUBE_ROOT="${tree}" run_checks "${TREE_CHECKS[@]}"
  done
fi
((${#failed[@]} == 0)) || kep::log::error_exit "verify failed: ${failed[*]}"
kep::log::status "verify: all checks passed"
