#!/usr/bin/env bash
# Runs the project's own Go tests, then upstream's go test on every package
# that the series touches (or on WHAT), inside _output/kubernetes.
# Integration packages run with 'make test-integration'.
#
#   WHAT="./pkg/apis/core/validation ./pkg/features" hack/test.sh
#   GOFLAGS=-race hack/test.sh
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

ensure_checkout

log "project tests"
(cd "${ROOT}" && go test ./...)
"${ROOT}/hack/test-harness.sh"

if [[ -n "${WHAT:-}" ]]; then
  read -ra pkgs <<<"${WHAT}"
else
  mapfile -t pkgs < <(touched_packages | grep -Ev "${INTEGRATION_PACKAGES}" || true)
fi
if ((${#pkgs[@]} == 0)); then
  log "the series touches no Go package"
  exit 0
fi
log "upstream tests: ${pkgs[*]}"
cd "${KUBE_ROOT}"
go test -timeout "${KUBE_TEST_TIMEOUT:-30m}" "${pkgs[@]}"
