#!/usr/bin/env bash
# Upstream's verify scripts (hack/verify-NAME.sh) that cover what the series
# changes and run offline, inside the tree, and inside the tree at the end of
# each port chain (1.37), whose gate is registered at another release
# (hack/verify-generated.sh says why the series in between is not checked
# again).
set -euo pipefail
# shellcheck source=hack/lib/init.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/init.sh"
# shellcheck source=hack/lib/tree.sh
source "${ROOT}/hack/lib/tree.sh"

UPSTREAM_VERIFY=(featuregates test-featuregates non-mutating-validation)

kep::tree::ensure_checkout
kep::tree::verify_run
failed=()
# verify_tree BASE ROOT runs upstream's scripts inside the tree ROOT of BASE.
verify_tree() {
  local base=$1 root=$2 name update
  for name in "${UPSTREAM_VERIFY[@]}"; do
    kep::log::status "upstream: hack/verify-${name}.sh in ${root#"${ROOT}/"}"
    if ! (cd "${root}" && bash "hack/verify-${name}.sh"); then
      update="hack/update-${name}.sh"
      [[ -f "${root}/${update}" ]] || update="the change it reports"
      printf "!!! upstream verify-%s: run '%s' inside %s, amend the patch it belongs to, and run 'make patches BASE=%s'.\n" "${name}" "${update}" "${root#"${ROOT}/"}" "${base}" >&2
      failed+=("${base}: ${name}")
    fi
  done
}
verify_tree "${BASE}" "${KUBE_ROOT}"
for release in $(kep::tree::port_leaves); do
  # The series as exported, in a fresh tree (kep::tree::fresh_tree).
  if ! tree=$(kep::tree::fresh_tree "${release}"); then
    failed+=("${release}: checkout")
    continue
  fi
  # The tree's own Go: upstream's scripts build with it.
  (
    # shellcheck disable=SC2030 # the release's own failures, which the subshell's status reports
    failed=()
    # shellcheck disable=SC1090,SC1091 # the release's pin, named at run time
    source "${RELEASES}/${release}/upstream.env"
    export GOTOOLCHAIN="${KUBE_GOTOOLCHAIN}"
    verify_tree "${release}" "${tree}"
    ((${#failed[@]} == 0))
  ) || failed+=("${release}")
done
((${#failed[@]} == 0)) || kep::log::error_exit "upstream: upstream's verify scripts failed: ${failed[*]} (above)."
