#!/usr/bin/env bash
# Builds binaries from the patched tree into _output/bin.
#
#   WHAT="cmd/kubelet" hack/build.sh
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

ensure_checkout

read -ra targets <<<"${WHAT:-cmd/kube-apiserver cmd/kubelet cmd/kubectl}"
mkdir -p "${BIN}"
cd "${KUBE_ROOT}"
for target in "${targets[@]}"; do
  log "building ${target}"
  # Default build settings, the same as go test's, so the binaries reuse the
  # packages that the tests have compiled (and the other way round).
  go build -o "${BIN}/$(basename "${target}")" "./${target}"
done
log "binaries are in ${BIN#"${ROOT}/"}"
