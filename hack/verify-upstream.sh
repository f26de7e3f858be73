#!/usr/bin/env bash
# Upstream's verify scripts (hack/verify-NAME.sh) that cover what the series
# changes and run offline, inside the tree of BASE, with its own Go. make
# verify runs it on each tree it checks (hack/verify.sh's TREE_CHECKS).
set -euo pipefail
# shellcheck source=hack/lib/init.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/init.sh"
# shellcheck source=hack/lib/tree.sh
source "${ROOT}/hack/lib/tree.sh"

UPSTREAM_VERIFY=(featuregates test-featuregates non-mutating-validation)

kep::tree::ensure_checkout
failed=()
for name in "${UPSTREAM_VERIFY[@]}"; do
  kep::log::status "upstream: hack/verify-${name}.sh in ${TREE}"
  if ! (cd "${KUBE_ROOT}" && bash "hack/verify-${name}.sh"); then
    update="hack/update-${name}.sh"
    [[ -f "${KUBE_ROOT}/${update}" ]] || update="the change it reports"
    printf "!!! upstream verify-%s: run '%s' inside %s, amend the patch it belongs to, and run 'make patches%s'.\n" "${name}" "${update}" "${TREE}" "${MAKE_BASE}" >&2
    failed+=("${name}")
  fi
done
((${#failed[@]} == 0)) || kep::log::error_exit "upstream: upstream's verify scripts failed in ${TREE}: ${failed[*]} (above)."
