#!/usr/bin/env bash
# Runs upstream-style integration tests (a real kube-apiserver and etcd, from
# upstream's test/integration framework) of every integration package that
# _output/kubernetes changes on its base, or of WHAT.
#
#   WHAT=./test/integration/pods KUBE_TEST_ARGS="-run TestPodProbeUpdates" hack/test-integration.sh
set -euo pipefail
# shellcheck source=hack/lib/init.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/init.sh"
# shellcheck source=hack/lib/golang.sh
source "${ROOT}/hack/lib/golang.sh"
# shellcheck source=hack/lib/tree.sh
source "${ROOT}/hack/lib/tree.sh"
kep::util::lines GO_TEST_FLAGS kep::golang::test_flags 60m

kep::tree::ensure_checkout

if [[ -n "${WHAT:-}" ]]; then
  read -ra INTEGRATION <<<"${WHAT}"
else
  touched=$(kep::tree::touched_packages)
  # shellcheck disable=SC2086 # one package a line, no spaces
  kep::util::lines INTEGRATION kep::golang::packages integration ${touched}
  ((${#INTEGRATION[@]})) ||
    kep::log::error_exit "${TREE} changes no integration package (test/integration/...) on ${BASE_TAG}, and the series has integration tests: has ${SERIES}/ been applied? ('make checkout${MAKE_BASE}'). WHAT=./test/integration/... runs others."
fi
kep::golang::build_etcd
kep::log::status "integration tests: ${INTEGRATION[*]}"
cd "${KUBE_ROOT}"
kep::golang::test_integration "integration-${BASE}" "${GO_TEST_FLAGS[@]}" "${INTEGRATION[@]}"
