#!/usr/bin/env bash
# Upstream's generated mocks (hack/verify-mocks.sh): mockery's configurations
# (.mockery.yaml) name the packages whose interfaces have mocks. None may be
# one that the tree changes on its base, or its mocks need a look.
set -euo pipefail
# shellcheck source=hack/lib/init.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/init.sh"
# shellcheck source=hack/lib/tree.sh
source "${ROOT}/hack/lib/tree.sh"

kep::tree::ensure_checkout
mocked=$(cd "${KUBE_ROOT}" && find . -name .mockery.yaml -not -path './vendor/*' -not -path './_output/*' \
  -exec sed -n 's/^  \([a-z0-9.-]*\.[a-z]*\/[^:]*\):[[:space:]]*$/\1/p' {} + | LC_ALL=C sort -u)
[[ -n "${mocked}" ]] ||
  kep::log::error_exit "mocks: found no package in the .mockery.yaml files of ${TREE}; the check reads them wrong."
touched=$(kep::tree::touched_packages)
touched=$(sed 's|^\./staging/src/||; s|^\./|k8s.io/kubernetes/|' <<<"${touched}" | LC_ALL=C sort -u)
both=$(LC_ALL=C comm -12 <(echo "${mocked}") <(echo "${touched}"))
[[ -z "${both}" ]] ||
  kep::log::error_exit "mocks: the tree changes packages with generated mocks: ${both//$'\n'/ }. If it changes their interfaces, regenerate the mocks with upstream's hack/update-mocks.sh inside ${TREE} and amend the patch."
