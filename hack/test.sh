#!/usr/bin/env bash
# The README's test command. Runs, in order:
#   1. the project's own Go tests and the harness checks;
#   2. upstream's go test on every package that the series touches, inside
#      _output/kubernetes (unit packages only);
#   3. the differential test of ValidatePodUpdate and Pod Security against
#      the base tree (hack/test-differential.sh);
#   4. the integration tests of the integration packages the series touches
#      (hack/test-integration.sh: a real kube-apiserver and etcd);
#   5. the project's black-box suite against the built binaries
#      (hack/test-e2e.sh).
# They all fit CI's budget. With WHAT, only 1 and go test of WHAT run: the
# quick loop while working on a patch.
#
#   WHAT="./pkg/apis/core/validation ./pkg/features" hack/test.sh
#   GOFLAGS=-race WHAT=./pkg/registry/core/pod hack/test.sh
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
go_test_flags 30m

ensure_checkout

log "project tests"
(cd "${ROOT}" && go test ./...)
"${ROOT}/hack/test-harness.sh"

if [[ -n "${WHAT:-}" ]]; then
  read -ra pkgs <<<"${WHAT}"
  log "upstream tests: ${pkgs[*]}"
  cd "${KUBE_ROOT}"
  go test "${GO_TEST_FLAGS[@]}" "${pkgs[@]}"
  exit 0
fi

mapfile -t pkgs < <(touched_packages | grep -Ev "${INTEGRATION_PACKAGES}" || true)
if ((${#pkgs[@]})); then
  log "upstream tests: ${pkgs[*]}"
  (cd "${KUBE_ROOT}" && go test "${GO_TEST_FLAGS[@]}" "${pkgs[@]}")
fi
"${ROOT}/hack/test-differential.sh"
"${ROOT}/hack/test-integration.sh"
"${ROOT}/hack/test-e2e.sh"
