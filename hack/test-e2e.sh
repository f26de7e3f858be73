#!/usr/bin/env bash
# Runs the project's black-box suite (test/e2e): it starts the etcd and the
# patched kube-apiserver built here, gate on and then off, and changes probes
# with the patched kubectl, as a user would.
set -euo pipefail
# shellcheck source=hack/lib/init.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/init.sh"
# shellcheck source=hack/lib/golang.sh
source "${ROOT}/hack/lib/golang.sh"
# shellcheck source=hack/lib/tree.sh
source "${ROOT}/hack/lib/tree.sh"
kep::util::lines GO_TEST_FLAGS kep::golang::test_flags 30m

# The suite's control plane makes its certificates with openssl and waits
# for etcd with curl (hack/internal/loopback-control-plane.sh).
kep::deps::ensure openssl curl
kep::tree::ensure_checkout
WHAT="cmd/kube-apiserver cmd/kubectl" "${ROOT}/hack/build.sh"
kep::golang::build_etcd

kep::log::status "black-box tests"
cd "${ROOT}"
HARNESS_BIN="${BIN}" kep::golang::gotest "e2e-${BASE}" -tags e2e -count=1 "${GO_TEST_FLAGS[@]}" ./test/e2e/...
