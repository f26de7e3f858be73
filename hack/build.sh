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
  # Like upstream's hack/make-rules/build.sh: static, no debug paths.
  CGO_ENABLED=0 go build -trimpath -o "${BIN}/$(basename "${target}")" "./${target}"
done
log "binaries are in ${BIN#"${ROOT}/"}"
