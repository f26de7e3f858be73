#!/usr/bin/env bash
# Checks that the series is exactly what 'make patches' writes for HEAD of
# the tree, with no uncommitted work left there.
set -euo pipefail
# shellcheck source=hack/lib/init.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/init.sh"
# shellcheck source=hack/lib/tree.sh
source "${ROOT}/hack/lib/tree.sh"

kep::tree::ensure_checkout
dirty=$(kep::tree::git status --porcelain --untracked-files=normal)
if [[ -n "${dirty}" ]]; then
  sed -n 1,20p <<<"${dirty}" >&2
  kep::log::error_exit "exported: ${TREE} has uncommitted changes. Commit them there, then run 'make patches${MAKE_BASE}'."
fi
tmp=$(mktemp -d)
trap 'rm -rf "${tmp}"' EXIT
kep::tree::export_series "${tmp}/series"
if ! diff -r "${tmp}/series" "${PATCHES}" >"${tmp}/diff" 2>&1; then
  sed -n 1,40p "${tmp}/diff" >&2
  # A series that changed since the tree's last sync (a git pull).
  if kep::tree::series_changed; then
    kep::log::error_exit "exported: ${SERIES}/ changed since ${TREE} was applied (a git pull, say): 'make checkout${MAKE_BASE}' applies it; 'make patches${MAKE_BASE}' would write the tree's series over it."
  fi
  kep::log::error_exit "exported: ${SERIES}/ differs from what 'make patches${MAKE_BASE}' writes for ${TREE}. Run 'make patches${MAKE_BASE}' and commit ${SERIES}/ (or 'make checkout${MAKE_BASE}' first, after a git pull)."
fi
