#!/usr/bin/env bash
# Runs upstream-style integration tests (a real kube-apiserver and etcd, from
# upstream's test/integration framework) of every integration package the
# series touches, or of WHAT.
#
#   WHAT=./test/integration/pods KUBE_TEST_ARGS="-run TestPodProbeUpdates" hack/test-integration.sh
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib/init.sh"
go_test_flags 60m

ensure_checkout
build_etcd

if [[ -n "${WHAT:-}" ]]; then
  read -ra pkgs <<<"${WHAT}"
else
  mapfile -t pkgs < <(touched_packages | grep -E "${INTEGRATION_PACKAGES}" || true)
fi
if ((${#pkgs[@]} == 0)); then
  log "the series touches no integration package"
  exit 0
fi
log "integration tests: ${pkgs[*]}"
cd "${KUBE_ROOT}"
go_test_integration "${GO_TEST_FLAGS[@]}" "${pkgs[@]}"
