#!/usr/bin/env bash
# Node end-to-end tests on a real single-node cluster: builds it, then for
# each kubelet setting of MutableContainerProbes starts it
# (hack/node-up.sh), runs the tests that apply, and tears it down with its
# leftover checks (hack/node-down.sh). Needs root on Linux; see kep::node::missing
# in hack/lib/node.sh.
#   - gate on: the feature's e2e specs of the series
#     (test/e2e/common/node/container_probe_mutable.go), built and run as
#     make test-upstream-e2e does (hack/lib/e2e.sh), the feature's node e2e
#     spec, which restarts the kubelet (test/e2e_node, kep::e2e::run_node), then
#     the project's tests that restart the kubelet (test/node), one after
#     another;
#   - gate off on the kubelet, on in the API server: the project's test of
#     the version skew (test/node), which needs a node set up so.
#
#   KEP_NODE_MEASURE=1          run the measurements of docs/performance.md
#                               (make measure-node) instead, gate on only
#   KEP_NODE_RUN=TestMeasure    the test/node tests to run
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib/init.sh"

kep::node::require "make test-node"

measure=${KEP_NODE_MEASURE:-0}
kep::tree::ensure_checkout
kep::node::build
(cd "${ROOT}" && go test -c -tags node -o "${NODE_BIN}/node.test" ./test/node)
if [[ "${measure}" != 1 ]]; then
  kep::e2e::build
  kep::e2e::build_node
  kep::e2e::build_images busybox
fi

REPORT="${NODE_DIR}/test-node.log"
: >"${REPORT}"

# project_tests GATE RUN runs the test/node tests that match RUN on the
# running node, whose kubelet has the gate set to GATE.
project_tests() {
  (
    cd "${ROOT}/test/node"
    KEP_NODE_KUBECONFIG="${NODE_KUBECONFIG}" KEP_NODE_KUBELET_GATE=$1 \
      "${NODE_BIN}/node.test" -test.v -test.timeout 20m -test.run "$2"
  ) 2>&1 | tee -a "${REPORT}"
}

# suite GATE starts the node with the kubelet's gate set to GATE, runs what
# applies, and stops it.
suite() {
  local gate=$1 rc=0
  kep::log::status "node tests with MutableContainerProbes=${gate} on the kubelet"
  KEP_NODE_KUBELET_GATE=${gate} KEP_NODE_SKIP_BUILD=1 "${ROOT}/hack/node-up.sh" || return 1
  if [[ "${measure}" == 1 ]]; then
    project_tests "${gate}" "${KEP_NODE_RUN:-^TestMeasure}" || rc=$?
  elif [[ "${gate}" == true ]]; then
    kep::e2e::run feature "${E2E_FEATURE_FOCUS}" "${E2E_LABELS_GATE_ON}" || {
      rc=$?
      grep -E '^\s*\[FAIL\]|^Ran [0-9]+ of' "${E2E_DIR}/feature.log" >&2 || true
    }
    kep::e2e::run_node feature-node "${E2E_NODE_FOCUS}" || {
      rc=$?
      grep -E '^\s*\[FAIL\]|^Ran [0-9]+ of' "${E2E_DIR}/feature-node.log" >&2 || true
    }
    project_tests "${gate}" "${KEP_NODE_RUN:-.}" || rc=$?
  else
    project_tests "${gate}" "${KEP_NODE_RUN:-.}" || rc=$?
  fi
  "${ROOT}/hack/node-down.sh" || rc=1
  return "${rc}"
}

rc=0
suite true || rc=1
if [[ "${measure}" != 1 ]]; then
  suite false || rc=1
  (cd "${ROOT}" && go run ./cmd/e2e-table -dir "${E2E_DIR}" feature) >>"${REPORT}" || true
  grep -E '^Ran [0-9]+ of' "${E2E_DIR}/feature.log" >&2 || true
fi

if [[ "${measure}" == 1 ]]; then
  kep::log::status "latencies measured by the tests:"
  grep -o 'measure: .*' "${REPORT}" | sed 's/^measure: /  /' >&2 || true
fi
((rc == 0)) || kep::log::error_exit "node tests failed; the output is in ${REPORT#"${ROOT}/"} and ${E2E_DIR#"${ROOT}/"}/feature.log, the cluster's logs in ${NODE_STATE#"${ROOT}/"}/logs"
kep::log::status "node tests passed"
