#!/usr/bin/env bash
# Upstream's generated files (API docs, OpenAPI, apply configurations,
# generated.proto, the OpenAPI spec) match the tree, on this base and at the
# end of each port chain (1.37), each with its own generators
# (hack/internal/check-generated.sh). A series in the middle of a chain
# (1.38) is not generated again: the ports check proves that its patches are
# those of the series it is ported from (master) but for the differences its
# range-diff records, and these touch no generated file (the gate's version),
# on the same upstream release. A ported base's tree is checked out if it is not yet
# (make test BASE=<base> then finds it).
set -euo pipefail
# shellcheck source=hack/lib/init.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/init.sh"
# shellcheck source=hack/lib/tree.sh
source "${ROOT}/hack/lib/tree.sh"

kep::tree::ensure_checkout
failed=()
kep::log::status "generated: upstream's generated files of ${TREE}"
"${ROOT}/hack/internal/check-generated.sh" || failed+=("${BASE}")
for release in $(kep::tree::port_leaves); do
  tree="_output/$(kep::tree::release_var "${release}" KUBE_TREE)"
  kep::log::status "generated: upstream's generated files of the ${release} series, in ${tree}"
  if ! BASE="${release}" HARNESS_KUBE_ROOT='' "${ROOT}/hack/checkout.sh" ||
    ! BASE="${release}" HARNESS_KUBE_ROOT='' "${ROOT}/hack/internal/check-generated.sh"; then
    failed+=("${release}")
  fi
done
((${#failed[@]} == 0)) ||
  kep::log::error_exit "generated: the generated files of the ${failed[*]} trees (above). Run 'make update-generated BASE=<base>' and amend the patch the files belong to inside that tree; then 'make patches BASE=<base>' (and, for a ported base, 'BASE=<base> hack/port.sh record')."
