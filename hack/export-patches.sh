#!/usr/bin/env bash
# Exports the commits of _output/kubernetes after the base into patches/.
# The output is stable: an unchanged commit gives a byte-identical file, and
# patch files of commits that no longer exist are removed.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

[[ -d "${KUBE_ROOT}/.git" ]] || die "${KUBE_ROOT} does not exist. Run 'make checkout' first."
base_commit >/dev/null || die "${KUBE_ROOT} has no ${BASE_TAG} tag. Run 'make checkout' first."
if [[ -n "$(kgit status --porcelain --untracked-files=no)" ]]; then
  kgit status --short --untracked-files=no >&2
  die "_output/kubernetes has uncommitted changes. Commit them there (one commit per logical patch), then run 'make patches' again."
fi

tmp=$(mktemp -d)
trap 'rm -rf "${tmp}"' EXIT
export_series "${tmp}"

mkdir -p "${PATCHES}"
find "${PATCHES}" -maxdepth 1 -name '*.patch' -delete
if compgen -G "${tmp}/*.patch" >/dev/null; then
  cp "${tmp}"/*.patch "${PATCHES}/"
fi
kgit update-ref "${SYNCED_REF}" HEAD
log "exported $(patch_files | wc -l) patches to patches/"
