#!/usr/bin/env bash
# Runs upstream-style integration tests (a real kube-apiserver and etcd, from
# upstream's test/integration framework) of every integration package the
# series touches, or of WHAT.
#
#   WHAT=./test/integration/pods KUBE_TEST_ARGS="-run TestPodProbeUpdates" hack/test-integration.sh
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib/init.sh"
kep::golang::test_flags 60m

kep::tree::ensure_checkout
kep::golang::build_etcd

if [[ -n "${WHAT:-}" ]]; then
  read -ra pkgs <<<"${WHAT}"
else
  mapfile -t pkgs < <(kep::tree::touched_packages | grep -E "${INTEGRATION_PACKAGES}" || true)
fi
if ((${#pkgs[@]} == 0)); then
  kep::log::status "the series touches no integration package"
  exit 0
fi
kep::log::status "integration tests: ${pkgs[*]}"
cd "${KUBE_ROOT}"
kep::golang::test_integration "${GO_TEST_FLAGS[@]}" "${pkgs[@]}"
