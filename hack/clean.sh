#!/usr/bin/env bash
# Removes _output/, unless the tree of a base holds work that is in no
# series: uncommitted changes, commits that 'make patches' has not exported,
# stashes, branches other than the one the series is exported from, or a git
# am session; or unless _output/ holds a git repository that is no base's
# tree. It names what it found and how to keep it. KEP_FORCE=1 removes
# _output/ all the same. What you wrote for make pr stays.
set -euo pipefail
# shellcheck source=hack/lib/init.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/init.sh"
# shellcheck source=hack/lib/tree.sh
source "${ROOT}/hack/lib/tree.sh"

found=0 trees=() tree=""
for env in "${RELEASES}"/*/upstream.env; do
  base=$(basename "$(dirname "${env}")")
  # The base's tree, and the scratch tree that make checkout makes it in.
  # shellcheck disable=SC2016 # KUBE_ROOT is the base's, in its own shell
  tree=$(kep::tree::in_base "${base}" "" eval 'echo "${KUBE_ROOT}"')
  trees+=("${tree}" "${tree}.tmp")
  lost=$(kep::tree::in_base "${base}" "" kep::tree::lost_work) || kep::log::error_exit "could not tell whether the ${base} tree holds work (above): refusing to remove _output/."
  if [[ -n "${lost}" ]]; then
    found=1
    printf '%s\n' "${lost}" >&2
  fi
done
# A repository in _output/ that is no base's tree (the tree of a base that a
# git pull removed, or a tree moved aside there) may hold work that the
# checks above do not see.
for git_dir in "${OUTPUT}"/*/.git; do
  [[ -d "${git_dir}" ]] || continue
  dir=$(dirname "${git_dir}")
  if ! printf '%s\n' "${trees[@]}" | grep -qxF -- "${dir}"; then
    found=1
    echo "${dir#"${ROOT}/"} is a git repository that is no base's tree, and may hold work: move it out of _output/ to keep it." >&2
  fi
done
if ((found)); then
  [[ "${KEP_FORCE:-0}" == 1 ]] ||
    kep::log::error_exit "refusing to remove _output/ (above). Keep that work as said, or move the tree away; KEP_FORCE=1 make clean removes it all the same."
  kep::log::status "KEP_FORCE=1: removing _output/ all the same"
fi
# A running node has processes and mounts under _output/node: stop it first.
if [[ -f "${OUTPUT}/node/init.pid" || -f "${OUTPUT}/node/host.before" ]]; then
  "${ROOT}/hack/node-down.sh"
fi
# What make test-node planted on the host, if a killed run left it.
if [[ -d "${OUTPUT}/node-guest" ]]; then
  "${ROOT}/hack/internal/node-guest.sh" remove
fi
# What you wrote for make pr stays: your identity, your AI usage disclosure
# and whose the feature gate's owner line is.
[[ -d "${OUTPUT}" ]] || exit 0
find "${OUTPUT}" -mindepth 1 -maxdepth 1 ! -name pr-identity ! -name pr-ai-disclosure ! -name pr-owner -exec rm -rf {} +
if rmdir "${OUTPUT}" 2>/dev/null; then
  kep::log::status "removed _output/"
else
  kep::log::status "removed _output/ but for what you wrote for make pr: $(cd "${OUTPUT}" && echo *)"
fi
