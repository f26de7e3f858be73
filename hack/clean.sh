#!/usr/bin/env bash
# Removes _output/, unless the tree of a base holds work not in its series,
# or a git am session.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib/init.sh"

# Every base's tree: _output/ holds them all.
for env in "${RELEASES}"/*/upstream.env; do
  base=$(basename "$(dirname "${env}")")
  (
    BASE=${base}
    source "${ROOT}/hack/lib/init.sh"
    [[ -d "${KUBE_ROOT}/.git" ]] && kep::tree::base_commit >/dev/null || exit 0
    if kep::tree::am_in_progress; then
      kep::log::error_exit "refusing to remove _output/: ${TREE} is in a git am session. Finish it ('git -C ${TREE} am --continue' and 'make patches BASE=${BASE}') or abort it ('git -C ${TREE} am --abort') first."
    fi
    work=$(kep::tree::unexported_work)
    if [[ -n "${work}" ]]; then
      printf '%s\n' "${work}" >&2
      kep::log::error_exit "refusing to remove _output/: ${TREE} holds work that is not in ${SERIES}/. Run 'make patches BASE=${BASE}' first."
    fi
  ) || exit 1
done
# A running node has processes and mounts under _output/node: stop it first.
if [[ -f "${OUTPUT}/node/init.pid" || -f "${OUTPUT}/node/host.before" ]]; then
  "${ROOT}/hack/node-down.sh"
fi
rm -rf "${OUTPUT}"
kep::log::status "removed _output/"
