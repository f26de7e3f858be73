#!/usr/bin/env bash
# Node end-to-end tests (test/node) on a real single-node cluster: builds it,
# then for each kubelet setting of MutableContainerProbes starts it
# (hack/node-up.sh), runs the tests that apply, and tears it down with its
# leftover checks (hack/node-down.sh). Needs root on Linux; see node_missing
# in hack/lib-node.sh.
#
#   KEP_NODE_RUN=TestLiveness   run only the matching tests
#   KEP_NODE_MEASURE=1          run the measurements of docs/performance.md
#                               (make measure-node), with the gate on only
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
source "${ROOT}/hack/lib-node.sh"

missing=$(node_missing)
if [[ -n "${missing}" ]]; then
  die "make test-node needs a machine that can run a node; this one lacks:
${missing}"
fi

ensure_checkout
build_node
(cd "${ROOT}" && go test -c -tags node -o "${NODE_BIN}/node.test" ./test/node)

REPORT="${NODE_DIR}/test-node.log"
: >"${REPORT}"

# suite GATE RUN starts the node with the kubelet's gate set to GATE and runs
# the tests that match RUN.
suite() {
  local gate=$1 run=$2 rc=0
  log "node tests with MutableContainerProbes=${gate} on the kubelet"
  KEP_NODE_KUBELET_GATE=${gate} KEP_NODE_SKIP_BUILD=1 "${ROOT}/hack/node-up.sh" || return 1
  (
    cd "${ROOT}/test/node"
    KEP_NODE_KUBECONFIG="${NODE_KUBECONFIG}" KEP_NODE_KUBELET_GATE=${gate} \
      "${NODE_BIN}/node.test" -test.v -test.timeout 20m -test.run "${run}"
  ) 2>&1 | tee -a "${REPORT}" || rc=$?
  "${ROOT}/hack/node-down.sh" || rc=1
  return "${rc}"
}

rc=0
suite true "${KEP_NODE_RUN:-.}" || rc=1
if [[ "${KEP_NODE_MEASURE:-}" != 1 ]]; then
  suite false "${KEP_NODE_RUN:-TestKubeletGateOff}" || rc=1
fi

log "latencies measured by the tests:"
grep -o 'measure: .*' "${REPORT}" | sed 's/^measure: /  /' >&2 || true
((rc == 0)) || die "node tests failed; the output is in ${REPORT#"${ROOT}/"}, the cluster's logs in ${NODE_STATE#"${ROOT}/"}/logs"
log "node tests passed"
