#!/usr/bin/env bash
# Builds the release archives of the kubectl plugin that its krew manifest,
# cmd/kubectl-probe/krew.yaml, names, into _output/release, and writes the
# manifest to publish beside them: RELEASE_URL replaced by the URL given,
# where the archives will be downloaded from, PROJECT_URL by the project's
# page, and each platform's sha256 of its archive. The URL is a GitHub
# release's, https://github.com/OWNER/REPO/releases/download/TAG, whose TAG
# must be the manifest's spec.version, and whose https://github.com/OWNER/REPO
# is the project's page. Each
# archive holds kubectl-probe (kubectl-probe.exe for Windows), LICENSE (the
# Apache License 2.0 of the repository) and, but for Windows,
# kubectl_complete-probe, its completion.
#
#   hack/release-plugin.sh URL
#   hack/release-plugin.sh https://github.com/OWNER/REPO/releases/download/TAG
#
# With --manifest DIR, it builds nothing, and writes the manifest for the
# archives in DIR into DIR (cmd/kubectl-probe's test runs krew's validator
# on it):
#
#   hack/release-plugin.sh --manifest DIR URL
#
# The archives are reproducible: the same sources and Go build the same
# bytes (-trimpath, no VCS stamp, fixed file times and owners).
set -euo pipefail
# shellcheck source=hack/lib/init.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/init.sh"

MANIFEST="${ROOT}/cmd/kubectl-probe/krew.yaml"
USAGE="usage: hack/release-plugin.sh [--manifest DIR] URL, where URL is where the archives will be downloaded from, such as https://github.com/OWNER/REPO/releases/download/TAG"

# build_archive ARCHIVE DIR builds the archive kubectl-probe_OS_ARCH.tar.gz
# into DIR.
build_archive() {
  local archive=$1 dir=$2 platform os arch stage exe
  platform=${archive#kubectl-probe_}
  platform=${platform%.tar.gz}
  os=${platform%_*}
  arch=${platform#*_}
  kep::log::status "building ${archive}"
  stage="${dir}/${platform}"
  mkdir -p "${stage}"
  exe=kubectl-probe
  [[ "${os}" != windows ]] || exe=kubectl-probe.exe
  (cd "${ROOT}" && CGO_ENABLED=0 GOOS=${os} GOARCH=${arch} \
    go build -trimpath -buildvcs=false -ldflags "-s -w" -o "${stage}/${exe}" ./cmd/kubectl-probe)
  install -m 0644 "${ROOT}/LICENSE" "${stage}/"
  local files=("${exe}" LICENSE)
  if [[ "${os}" != windows ]]; then
    install -m 0755 "${ROOT}/cmd/kubectl-probe/kubectl_complete-probe" "${stage}/"
    files+=(kubectl_complete-probe)
  fi
  tar -C "${stage}" --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner -cf - "${files[@]}" |
    gzip -n >"${dir}/${archive}"
  rm -rf "${stage}"
}

# write_manifest URL DIR writes DIR/probe.yaml: the manifest with URL, the
# project's page and the sha256 of each archive in DIR.
write_manifest() {
  local url=${1%/} dir=$2 manifest archive sum homepage version
  version=$(sed -n 's/^  version: *//p' "${MANIFEST}")
  [[ "${url}" =~ ^(https://github\.com/[^/]+/[^/]+)/releases/download/([^/]+)$ ]] ||
    kep::log::error_exit "${url} is not a GitHub release's URL, https://github.com/OWNER/REPO/releases/download/TAG"
  homepage=${BASH_REMATCH[1]}
  [[ "${BASH_REMATCH[2]}" == "${version}" ]] || kep::log::error_exit "the URL's release is ${BASH_REMATCH[2]}, the manifest's spec.version ${version}: they must be the same"
  manifest=$(sed -e "s#RELEASE_URL#${url}#g" -e "s#PROJECT_URL#${homepage}#g" "${MANIFEST}")
  for archive in ${archives}; do
    [[ -f "${dir}/${archive}" ]] || kep::log::error_exit "${dir}/${archive} does not exist: build it first (hack/release-plugin.sh URL)"
    sum=$(sha256sum "${dir}/${archive}" | cut -d' ' -f1)
    # The manifest's sha256 of this archive: the first SHA256 after its uri.
    manifest=$(awk -v uri="${url}/${archive}" -v sum="${sum}" '
      index($0, "uri: " uri) { pending = 1 }
      pending && /sha256: SHA256/ { sub(/SHA256/, sum); pending = 0 }
      { print }' <<<"${manifest}")
  done
  printf '%s\n' "${manifest}" >"${dir}/probe.yaml"
  ! grep -q 'SHA256' "${dir}/probe.yaml" || kep::log::error_exit "a platform of the manifest has no archive"
}

dir="${OUTPUT}/release"
build=1
if [[ "${1:-}" == --manifest ]]; then
  [[ $# -eq 3 ]] || kep::log::error_exit "${USAGE}"
  dir=$2 build=0
  shift 2
fi
url=${1:-}
[[ $# -eq 1 && -n "${url}" ]] || kep::log::error_exit "${USAGE}"
archives=$(sed -n 's#^ *uri: RELEASE_URL/##p' "${MANIFEST}")
[[ -n "${archives}" ]] || kep::log::error_exit "${MANIFEST#"${ROOT}/"} names no archive"

if ((build)); then
  rm -rf "${dir}"
  mkdir -p "${dir}"
  for archive in ${archives}; do
    build_archive "${archive}" "${dir}"
  done
fi
write_manifest "${url}" "${dir}"
if ((build)); then
  kep::log::status "the archives and the manifest to publish, probe.yaml, are in ${dir#"${ROOT}/"}; try it with: kubectl krew install --manifest=${dir#"${ROOT}/"}/probe.yaml --archive=${dir#"${ROOT}/"}/kubectl-probe_linux_amd64.tar.gz"
fi
