#!/usr/bin/env bash
# Upstream's e2e test ownership (hack/verify-e2e-test-ownership.sh): every
# spec of the e2e packages the series touches belongs to a SIG. The script
# runs on the small e2e binary of make test-node (test/e2e/common/node),
# which it finds where it would build upstream's whole e2e.test.
set -euo pipefail
# shellcheck source=hack/lib/init.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/init.sh"
# shellcheck source=hack/lib/tree.sh
source "${ROOT}/hack/lib/tree.sh"
# shellcheck source=hack/lib/e2e.sh
source "${ROOT}/hack/lib/e2e.sh"

kep::deps::ensure jq
kep::tree::ensure_checkout
kep::e2e::build
mkdir -p "${KUBE_ROOT}/_output/bin"
cp "${E2E_DIR}/e2e.test" "${E2E_DIR}/ginkgo" "${KUBE_ROOT}/_output/bin/"
rm -f "${KUBE_ROOT}/_output/specsummaries.json"
(cd "${KUBE_ROOT}" && REUSE_BUILD_OUTPUT=y bash hack/verify-e2e-test-ownership.sh) ||
  kep::log::error_exit "e2e-ownership: a spec above has no [sig-...] owner. Fix it inside ${TREE} and run 'make patches${MAKE_BASE}'."
