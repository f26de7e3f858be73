#!/usr/bin/env bash
# Checks that every series ported from another (PORT_FROM: 1.38 from master,
# 1.37 from 1.38) applies with git am to its own freshly downloaded base, is
# ported from its origin series as it is, and differs from it only as its
# range-diff records (hack/port.sh check).
set -euo pipefail
# shellcheck source=hack/lib/init.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/init.sh"
# shellcheck source=hack/lib/tree.sh
source "${ROOT}/hack/lib/tree.sh"

# The fresh trees are those the run's other checks use (kep::tree::fresh_tree):
# each series is applied once in a make verify run.
kep::tree::verify_run
failed=()
for release in $(kep::tree::ported_from_any); do
  kep::log::status "ports: the ${release} series applies to a fresh $(kep::tree::release_var "${release}" KUBE_VERSION) base and is ported from releases/$(kep::tree::release_var "${release}" PORT_FROM)/patches"
  tree=$(kep::tree::fresh_tree "${release}") &&
    BASE="${release}" HARNESS_KUBE_ROOT="${tree}" "${ROOT}/hack/port.sh" check || failed+=("${release}")
done
((${#failed[@]} == 0)) || kep::log::error_exit "ports: the ${failed[*]} series (above)."
