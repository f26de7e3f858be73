#!/usr/bin/env bash
# Removes _output/, unless _output/kubernetes holds work not in patches/.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib/init.sh"

if [[ -d "${KUBE_ROOT}/.git" ]] && base_commit >/dev/null; then
  work=$(unexported_work)
  if [[ -n "${work}" ]]; then
    printf '%s\n' "${work}" >&2
    die "refusing to remove _output/: ${TREE} holds work that is not in ${SERIES}/. Run 'make patches' first."
  fi
fi
# A running node has processes and mounts under _output/node: stop it first.
if [[ -f "${OUTPUT}/node/init.pid" || -f "${OUTPUT}/node/host.before" ]]; then
  "${ROOT}/hack/node-down.sh"
fi
rm -rf "${OUTPUT}"
log "removed _output/"
