#!/usr/bin/env bash
# The README's test command. Runs, in order:
#   1. the project's own Go tests and the harness checks;
#   2. upstream's go test on every package that the series touches, inside
#      _output/kubernetes (unit packages only; the node e2e suite is vetted,
#      make test-node runs its specs);
#   3. the differential test of ValidatePodUpdate and Pod Security against
#      the base tree (hack/test-differential.sh);
#   4. the integration tests of the integration packages the series touches
#      (hack/test-integration.sh: a real kube-apiserver and etcd);
#   5. the project's black-box suite against the built binaries
#      (hack/test-e2e.sh).
# They all fit CI's budget. The harness checks work on both bases, so they
# run with the default base only (make test, not make test BASE=1.38). With
# WHAT, only the project's Go tests and go test of WHAT run, on this base
# only: the quick loop while working on a patch.
#
#   WHAT="./pkg/apis/core/validation ./pkg/features" hack/test.sh
#   GOFLAGS=-race WHAT=./pkg/registry/core/pod hack/test.sh
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib/init.sh"
kep::golang::test_flags 30m

kep::tree::ensure_checkout

kep::log::status "project tests"
(cd "${ROOT}" && go test ./...)
# The harness checks build a scratch tree of their own, and the 1.38 base
# for the port: the full run has them, the quick loop (WHAT) does not.
if [[ -z "${WHAT:-}" && "${BASE}" == "${DEFAULT_BASE}" ]]; then
  "${ROOT}/hack/internal/test-checkout-export.sh"
fi

if [[ -n "${WHAT:-}" ]]; then
  read -ra pkgs <<<"${WHAT}"
  kep::log::status "upstream tests: ${pkgs[*]}"
  cd "${KUBE_ROOT}"
  go test ${TRIMPATH} "${GO_TEST_FLAGS[@]}" "${pkgs[@]}"
  exit 0
fi

mapfile -t touched < <(kep::tree::touched_packages | grep -Ev "${INTEGRATION_PACKAGES}" || true)
mapfile -t pkgs < <(printf '%s\n' "${touched[@]}" | grep -Ev "^$|${NODE_E2E_PACKAGES}" || true)
mapfile -t node_e2e < <(printf '%s\n' "${touched[@]}" | grep -E "${NODE_E2E_PACKAGES}" || true)
if ((${#pkgs[@]})); then
  kep::log::status "upstream tests: ${pkgs[*]}"
  (cd "${KUBE_ROOT}" && go test ${TRIMPATH} "${GO_TEST_FLAGS[@]}" "${pkgs[@]}")
fi
if ((${#node_e2e[@]})); then
  kep::log::status "go vet of the node e2e suite, whose specs make test-node runs: ${node_e2e[*]}"
  (cd "${KUBE_ROOT}" && go vet ${TRIMPATH} "${node_e2e[@]}")
fi
"${ROOT}/hack/test-differential.sh"
"${ROOT}/hack/test-integration.sh"
"${ROOT}/hack/test-e2e.sh"
