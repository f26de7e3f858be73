#!/usr/bin/env bash
# Builds the release archives of the kubectl plugin that its krew manifest,
# cmd/kubectl-probe/krew.yaml, names, into _output/release, and writes the
# manifest to publish beside them: RELEASE_URL replaced by the URL given,
# where the archives will be downloaded from, and each platform's sha256 of
# its archive. Each archive holds kubectl-probe (kubectl-probe.exe for
# Windows) and, but for Windows, kubectl_complete-probe, its completion.
#
#   hack/release-plugin.sh https://github.com/OWNER/REPO/releases/download/v0.3.0
#
# The archives are reproducible: the same sources and Go build the same
# bytes (-trimpath, no VCS stamp, fixed file times and owners).
set -euo pipefail
# shellcheck source=hack/lib/init.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/init.sh"

MANIFEST="${ROOT}/cmd/kubectl-probe/krew.yaml"
RELEASE_DIR="${OUTPUT}/release"
url=${1:-}
[[ -n "${url}" ]] || kep::log::error_exit "usage: hack/release-plugin.sh URL, where URL is where the archives will be downloaded from, such as https://github.com/OWNER/REPO/releases/download/v0.3.0"

rm -rf "${RELEASE_DIR}"
mkdir -p "${RELEASE_DIR}"
manifest=$(sed "s#RELEASE_URL#${url%/}#g" "${MANIFEST}")
archives=$(sed -n 's#^ *uri: RELEASE_URL/##p' "${MANIFEST}")
[[ -n "${archives}" ]] || kep::log::error_exit "${MANIFEST#"${ROOT}/"} names no archive"
for archive in ${archives}; do
  platform=${archive#kubectl-probe_}
  platform=${platform%.tar.gz}
  os=${platform%_*}
  arch=${platform#*_}
  kep::log::status "building ${archive}"
  stage="${RELEASE_DIR}/${platform}"
  mkdir -p "${stage}"
  exe=kubectl-probe
  [[ "${os}" != windows ]] || exe=kubectl-probe.exe
  (cd "${ROOT}" && CGO_ENABLED=0 GOOS=${os} GOARCH=${arch} \
    go build -trimpath -buildvcs=false -ldflags "-s -w" -o "${stage}/${exe}" ./cmd/kubectl-probe)
  files=("${exe}")
  if [[ "${os}" != windows ]]; then
    install -m 0755 "${ROOT}/cmd/kubectl-probe/kubectl_complete-probe" "${stage}/"
    files+=(kubectl_complete-probe)
  fi
  tar -C "${stage}" --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner -cf - "${files[@]}" |
    gzip -n >"${RELEASE_DIR}/${archive}"
  rm -rf "${stage}"
  sum=$(sha256sum "${RELEASE_DIR}/${archive}" | cut -d' ' -f1)
  # The manifest's sha256 of this archive: the first SHA256 after its uri.
  manifest=$(awk -v uri="${url%/}/${archive}" -v sum="${sum}" '
    index($0, "uri: " uri) { pending = 1 }
    pending && /sha256: SHA256/ { sub(/SHA256/, sum); pending = 0 }
    { print }' <<<"${manifest}")
done
printf '%s\n' "${manifest}" >"${RELEASE_DIR}/probe.yaml"
! grep -q 'SHA256' "${RELEASE_DIR}/probe.yaml" || kep::log::error_exit "a platform of the manifest has no archive"
kep::log::status "the archives and the manifest to publish, probe.yaml, are in ${RELEASE_DIR#"${ROOT}/"}; try it with: kubectl krew install --manifest=${RELEASE_DIR#"${ROOT}/"}/probe.yaml --archive=${RELEASE_DIR#"${ROOT}/"}/kubectl-probe_linux_amd64.tar.gz"
