#!/usr/bin/env bash
# Removes _output/, unless the tree of a base holds work that is in no
# series: uncommitted changes, commits that 'make patches' has not exported,
# stashes, branches other than the one the series is exported from, or a git
# am session. It names what it found and how to keep it. KEP_FORCE=1 removes
# _output/ all the same.
set -euo pipefail
# shellcheck source=hack/lib/init.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/init.sh"
# shellcheck source=hack/lib/tree.sh
source "${ROOT}/hack/lib/tree.sh"

indent() { sed 's/^/    /'; }

# side_branches prints the branches of the tree with commits that neither
# HEAD nor the last apply or export (SYNCED_REF) has.
side_branches() {
  local branch synced
  synced=$(kep::tree::git rev-parse --verify -q "${SYNCED_REF}" || kep::tree::base_commit)
  kep::tree::git for-each-ref --format='%(refname:short)' refs/heads/ | while IFS= read -r branch; do
    if [[ -n "$(kep::tree::git rev-list -n 1 "refs/heads/${branch}" ^HEAD "^${synced}")" ]]; then
      echo "${branch}"
    fi
  done
}

# lost_work prints what removing the tree of BASE would lose, and how to keep
# it; nothing when it would lose nothing.
lost_work() {
  [[ -d "${KUBE_ROOT}/.git" ]] && kep::tree::base_commit >/dev/null || return 0
  if kep::tree::am_in_progress; then
    echo "- a git am session: finish it ('git -C ${TREE} am --continue', then 'make patches BASE=${BASE}') or abort it ('git -C ${TREE} am --abort')."
  fi
  local work stashes branches branch
  work=$(kep::tree::unexported_work)
  if [[ -n "${work}" ]]; then
    echo "- work that is not in ${SERIES}/; keep it with 'make patches BASE=${BASE}' (commit uncommitted changes first):"
    indent <<<"${work}"
  fi
  stashes=$(kep::tree::git stash list)
  if [[ -n "${stashes}" ]]; then
    echo "- $(wc -l <<<"${stashes}") stashes; keep them with 'git -C ${TREE} stash pop', a commit and 'make patches BASE=${BASE}', or drop them with 'git -C ${TREE} stash clear':"
    indent <<<"${stashes}"
  fi
  branches=$(side_branches)
  for branch in ${branches}; do
    echo "- the branch ${branch}, with commits in no series; keep them by rebasing them onto HEAD ('git -C ${TREE} rebase HEAD ${branch}') and 'make patches BASE=${BASE}', or delete it ('git -C ${TREE} branch -D ${branch}'):"
    kep::tree::git log --oneline -n 5 "refs/heads/${branch}" ^HEAD | indent
  done
}

found=0
for env in "${RELEASES}"/*/upstream.env; do
  base=$(basename "$(dirname "${env}")")
  lost=$(
    BASE=${base}
    # shellcheck source=hack/lib/init.sh
    source "${ROOT}/hack/lib/init.sh"
    work=$(lost_work)
    [[ -z "${work}" ]] || printf '%s holds work that removing _output/ would lose:\n%s\n' "${TREE}" "${work}"
  ) || kep::log::error_exit "could not tell whether the ${base} tree holds work (above): refusing to remove _output/."
  if [[ -n "${lost}" ]]; then
    found=1
    printf '%s\n' "${lost}" >&2
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
rm -rf "${OUTPUT}"
kep::log::status "removed _output/"
