#!/usr/bin/env bash
# The README's test command. Runs, in order:
#   1. the project's own Go tests and the harness checks;
#   2. upstream's go test on every package that _output/kubernetes changes on
#      its base, committed or not (unit packages only; the node e2e suite is
#      vetted, make test-node runs its specs), and again with -race on those
#      under pkg/kubelet/prober and pkg/probe;
#   3. the differential test of ValidatePodUpdate and Pod Security against
#      the base tree (hack/test-differential.sh);
#   4. the integration tests of the integration packages the tree changes
#      (hack/test-integration.sh: a real kube-apiserver and etcd);
#   5. the project's black-box suite against the built binaries
#      (hack/test-e2e.sh).
# The project's tests and the harness checks do not depend on the base, so
# they run with the default base only (make test, not make test BASE=1.37).
# With WHAT, only the project's Go tests and go test of WHAT run, on this
# base only: the quick loop while working on a patch.
#
#   WHAT="./pkg/apis/core/validation ./pkg/features" hack/test.sh
#   GOFLAGS=-race WHAT=./pkg/registry/core/pod hack/test.sh
set -euo pipefail
# shellcheck source=hack/lib/init.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/init.sh"
# shellcheck source=hack/lib/golang.sh
source "${ROOT}/hack/lib/golang.sh"
# shellcheck source=hack/lib/tree.sh
source "${ROOT}/hack/lib/tree.sh"
kep::util::lines GO_TEST_FLAGS kep::golang::test_flags 30m

kep::tree::ensure_checkout

if [[ "${BASE}" == "${DEFAULT_BASE}" || -n "${WHAT:-}" ]]; then
  kep::log::status "project tests"
  (cd "${ROOT}" && kep::util::timed "project tests" kep::golang::gotest project ./...)
else
  kep::log::status "project tests: run by make test (BASE=${DEFAULT_BASE}); they do not depend on the base"
fi

if [[ -n "${WHAT:-}" ]]; then
  read -ra pkgs <<<"${WHAT}"
  kep::log::status "upstream tests: ${pkgs[*]}"
  cd "${KUBE_ROOT}"
  go test "${TRIMPATH}" "${GO_TEST_FLAGS[@]}" "${pkgs[@]}"
  exit 0
fi

# The harness checks build a scratch tree of their own, and the 1.38 base
# for the port.
if [[ "${BASE}" == "${DEFAULT_BASE}" ]]; then
  kep::util::timed "the harness's self-test" "${ROOT}/hack/internal/test-harness.sh"
fi
kep::util::timed "upstream's unit tests" kep::golang::test_units "${GO_TEST_FLAGS[@]}"
kep::util::timed "the differential test" "${ROOT}/hack/test-differential.sh"
kep::util::timed "the integration tests" "${ROOT}/hack/test-integration.sh"
kep::util::timed "the black-box tests" "${ROOT}/hack/test-e2e.sh"
