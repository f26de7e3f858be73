#!/usr/bin/env bash
# Builds binaries from the patched tree into _output/bin.
#
#   WHAT="cmd/kubelet" hack/build.sh
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib/init.sh"

ensure_checkout

read -ra targets <<<"${WHAT:-cmd/kube-apiserver cmd/kubelet cmd/kubectl}"
mkdir -p "${BIN}"
cd "${KUBE_ROOT}"

# Stamp the version as upstream's hack/lib/version.sh does, so that
# 'kubectl version' and the Node's kubeletVersion say which release and
# which commit of the patched tree this is. Only the link step reads these.
commit=$(kgit rev-parse HEAD)
state=clean
[[ -z "$(kgit status --porcelain --untracked-files=no)" ]] || state=dirty
major=${KUBE_VERSION#v}
minor=${major#*.}
ldflags=()
for pkg in k8s.io/client-go/pkg/version k8s.io/component-base/version; do
  ldflags+=(
    "-X ${pkg}.gitVersion=${KUBE_VERSION}+kep.6318"
    "-X ${pkg}.gitMajor=${major%%.*}"
    "-X ${pkg}.gitMinor=${minor%%.*}"
    "-X ${pkg}.gitCommit=${commit}"
    "-X ${pkg}.gitTreeState=${state}"
  )
done

for target in "${targets[@]}"; do
  log "building ${target}"
  # Otherwise default build settings, the same as go test's, so the binaries
  # reuse the packages that the tests have compiled (and the other way round).
  go build -ldflags "${ldflags[*]}" -o "${BIN}/$(basename "${target}")" "./${target}"
done
log "binaries are in ${BIN#"${ROOT}/"}"
