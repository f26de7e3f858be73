#!/usr/bin/env bash
# Upstream's generated files (API docs, OpenAPI, apply configurations,
# generated.proto, the OpenAPI spec) match the tree, on this base and at the
# end of each port chain (1.37), each with its own generators
# (hack/internal/check-generated.sh). A series in the middle of a chain
# (1.38) is not generated again: the ports check proves that its patches are
# those of the series it is ported from (master) but for the differences its
# range-diff records, and these touch no generated file (the gate's version),
# on the same upstream release. A ported base's series is checked as
# exported, in a fresh tree (kep::tree::fresh_tree: its own tree when there
# is none yet, and make test BASE=<base> then finds it).
set -euo pipefail
# shellcheck source=hack/lib/init.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/init.sh"
# shellcheck source=hack/lib/tree.sh
source "${ROOT}/hack/lib/tree.sh"

kep::tree::ensure_checkout
kep::tree::verify_run
failed=()
kep::log::status "generated: upstream's generated files of ${TREE}"
"${ROOT}/hack/internal/check-generated.sh" || failed+=("${BASE}")
for release in $(kep::tree::port_leaves); do
  if ! tree=$(kep::tree::fresh_tree "${release}"); then
    failed+=("${release}")
    continue
  fi
  kep::log::status "generated: upstream's generated files of the ${release} series, in ${tree#"${ROOT}/"}"
  BASE="${release}" HARNESS_KUBE_ROOT="${tree}" "${ROOT}/hack/internal/check-generated.sh" || failed+=("${release}")
done
((${#failed[@]} == 0)) ||
  kep::log::error_exit "generated: the generated files of the ${failed[*]} trees (above). Run 'make update-generated BASE=<base>' and amend the patch the files belong to inside that tree; then 'make patches BASE=<base>' (and, for a ported base, 'BASE=<base> hack/port.sh record')."
