#!/usr/bin/env bash
# Exits 0 when this machine can run the single-node cluster, and otherwise
# prints what it lacks and exits 1.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
source "${ROOT}/hack/lib-node.sh"

missing=$(node_missing)
if [[ -n "${missing}" ]]; then
  echo "this machine cannot run the node; it lacks:"
  echo "${missing}"
  exit 1
fi
