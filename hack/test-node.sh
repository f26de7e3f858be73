#!/usr/bin/env bash
# Node end-to-end tests on a real single-node cluster: builds it, then for
# each kubelet setting of MutableContainerProbes starts it
# (hack/node-up.sh), runs the tests that apply, and tears it down with its
# leftover checks (hack/node-down.sh). Needs root on Linux; see kep::node::missing
# in hack/lib/node.sh.
#   - gate on: the feature's node e2e spec, which restarts the kubelet
#     (test/e2e_node, kep::e2e::run_node), and the project's tests that
#     restart it (test/node, TestKubeletRestart*), each alone; then the
#     feature's e2e specs of the series
#     (test/e2e/common/node/container_probe_mutable.go), built and run as
#     make test-upstream-e2e does (hack/lib/e2e.sh), alongside the project's
#     other tests: both spend their time waiting for the node;
#   - gate off on the kubelet, on in the API server: the project's test of
#     the version skew (test/node), which needs a node set up so.
# KUBE_TEST_ARGS go to the go test of test/node (-run TestX, say); with them,
# that go test runs after the specs, on its own.
# Around it all, hack/internal/node-guest.sh checks that the node touches
# nothing of the host that it did not create.
#
#   hack/test-node.sh           make test-node
#   hack/test-node.sh measure   make measure-node: the measurements of
#                               docs/performance.md instead, gate on only
#   NODES=2 hack/test-node.sh   make test-node NODES=2: instead, the tests of
#                               a cluster whose kubelets are half upgraded
#                               (test/node, TestTwoNodes*) on two nodes, the
#                               second with the kubelet that NODE2_GATE
#                               says (hack/lib/node.sh)
#   WHAT=sync hack/test-node.sh measure
#                               the same, with a variant of the kubelet
#                               that applies probe changes when the pod
#                               worker syncs the Pod (SyncPod), not when
#                               the kubelet receives the update: the other
#                               design in KEP.md's amendment. The variant is
#                               test/node/testdata/kubelet-apply-in-sync.patch
#                               on the tree, built aside (hack/build.sh
#                               --patch); the tree is left as it is.
set -euo pipefail
# shellcheck source=hack/lib/init.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/init.sh"
# shellcheck source=hack/lib/e2e.sh
source "${ROOT}/hack/lib/e2e.sh"
# shellcheck source=hack/lib/golang.sh
source "${ROOT}/hack/lib/golang.sh"
# shellcheck source=hack/lib/node.sh
source "${ROOT}/hack/lib/node.sh"
# shellcheck source=hack/lib/tree.sh
source "${ROOT}/hack/lib/tree.sh"

kep::node::require "make test-node"

measure=0
case "${1:-}" in
  "") ;;
  measure) measure=1 ;;
  *) kep::log::error_exit "usage: hack/test-node.sh [measure]" ;;
esac
read -ra test_args <<<"${KUBE_TEST_ARGS:-}"
kubelet=() kubelet_bin="${BIN}/kubelet"
case "${WHAT:-}" in
  "") ;;
  sync)
    ((measure)) || kep::log::error_exit "WHAT=sync is for make measure-node"
    kubelet_bin="${NODE_DIR}/variant-bin/kubelet"
    kubelet=(--kubelet="${kubelet_bin}")
    ;;
  *) kep::log::error_exit "make measure-node: WHAT is sync or nothing, not ${WHAT}" ;;
esac
case "${NODES}" in
  1) ;;
  2)
    ((measure == 0)) || kep::log::error_exit "make measure-node runs on one node, not NODES=2"
    # The rollout order downgrades a kubelet to the base release's.
    [[ "${NODE2_GATE}" == base ]] || kep::log::error_exit "make test-node NODES=2 starts the second node with the base release's kubelet, which its tests turn into the patched one and back: leave NODE2_GATE unset"
    ;;
  *) kep::log::error_exit "NODES=${NODES}: the cluster has one node or two" ;;
esac
kep::tree::ensure_checkout
kep::node::build
((NODES == 1)) || kep::node::build_base_binaries cmd/kubelet
if ((${#kubelet[@]})); then
  WHAT=cmd/kubelet "${ROOT}/hack/build.sh" --patch="${ROOT}/test/node/testdata/kubelet-apply-in-sync.patch" \
    --out="${NODE_DIR}/variant-bin"
fi
(cd "${ROOT}" && go test -c -tags node -o /dev/null ./test/node)
if ((measure == 0 && NODES == 1)); then
  kep::e2e::build
  kep::e2e::build_node
  kep::e2e::build_images busybox
fi

REPORT="${NODE_DIR}/test-node.log"
: >"${REPORT}"

# The project's tests that restart the kubelet, which run alone.
RESTART_TESTS='^TestKubeletRestart'
# The runs of project_tests so far, which number their JUnit reports.
runs=0

# project_tests GATE [ARG...] runs the test/node tests on the running node,
# whose kubelet has the gate set to GATE: the measurements, or all the
# others, or those that ARG (go test's -run or -skip) selects.
project_tests() {
  local gate=$1 run=. timeout=20m
  shift
  ((measure == 0)) || run='^TestMeasure' timeout=60m
  runs=$((runs + 1))
  (
    cd "${ROOT}"
    HARNESS_BIN="${BIN}" HARNESS_NODE_KUBECONFIG="${NODE_KUBECONFIG}" HARNESS_NODE_KUBELET_GATE=${gate} \
      HARNESS_NODE_MEASURE=${measure} HARNESS_NODE_KUBELET="${kubelet_bin}" \
      kep::golang::gotest "node-${BASE}-gate-${gate}-${runs}" --verbose -tags node -count=1 -v -timeout "${timeout}" \
        -run "${run}" "$@" "${test_args[@]}" ./test/node
  ) 2>&1 | tee -a "${REPORT}"
}

# feature_specs runs the feature's e2e specs, and says which failed.
feature_specs() {
  kep::e2e::run feature "${E2E_FEATURE_FOCUS}" "${E2E_LABELS_GATE_ON}" --fail-on-empty || {
    local rc=$?
    grep -E '^\s*\[FAIL\]|^Ran [0-9]+ of' "${E2E_DIR}/feature.log" >&2 || true
    return "${rc}"
  }
}

# The specs running in the background, stopped with their processes if the
# run ends first.
specs=""
stop_tree() {
  local child
  for child in $(pgrep -P "$1"); do stop_tree "${child}"; done
  kill "$1" 2>/dev/null || true
}
# The node that is up (node_up), and what hack/internal/node-guest.sh
# planted, go too, on every path: an interrupt (Ctrl-C) does not reach the
# node's processes, which run in a session of their own.
node_up=0
cleanup() {
  [[ -z "${specs}" ]] || stop_tree "${specs}"
  # First what was planted, which takes a moment, in case teardown is
  # killed on its way.
  "${ROOT}/hack/internal/node-guest.sh" remove || true
  ((node_up == 0)) || "${ROOT}/hack/node-down.sh" || true
}
trap cleanup EXIT

# suite GATE starts the node with the kubelet's gate set to GATE, runs what
# applies, and stops it.
suite() {
  local gate=$1 rc=0
  kep::log::status "node tests with MutableContainerProbes=${gate} on the kubelet"
  "${ROOT}/hack/node-up.sh" --no-build --kubelet-gate="${gate}" "${kubelet[@]}" || return 1
  node_up=1
  # What another runtime of the host makes while the node runs.
  "${ROOT}/hack/internal/node-guest.sh" running || rc=1
  if ((measure)); then
    project_tests "${gate}" || rc=$?
  elif ((NODES == 2)); then
    project_tests "${gate}" -run '^TestTwoNodes' || rc=$?
  elif [[ "${gate}" == true ]]; then
    kep::e2e::run_node feature-node "${E2E_NODE_FOCUS}" || {
      rc=$?
      grep -E '^\s*\[FAIL\]|^Ran [0-9]+ of' "${E2E_DIR}/feature-node.log" >&2 || true
    }
    if ((${#test_args[@]})); then
      feature_specs || rc=$?
      project_tests "${gate}" || rc=$?
    else
      project_tests "${gate}" -run "${RESTART_TESTS}" || rc=$?
      # The specs' output goes to their log; the tests' to this one.
      feature_specs &
      specs=$!
      project_tests "${gate}" -skip "${RESTART_TESTS}" || rc=$?
      wait "${specs}" || rc=$?
      specs=""
    fi
  else
    project_tests "${gate}" || rc=$?
  fi
  # Cleared once it is down: an interrupt during teardown leaves it to
  # cleanup, which takes the node down again (node-down is idempotent).
  "${ROOT}/hack/node-down.sh" || rc=1
  node_up=0
  return "${rc}"
}

rc=0
# The feature's report and log are this run's or none, for the table below.
rm -f "${E2E_DIR}/feature.json" "${E2E_DIR}/feature.log"
"${ROOT}/hack/internal/node-guest.sh" plant
suite true || rc=1
if ((measure == 0 && NODES == 1)); then
  suite false || rc=1
  (cd "${ROOT}" && go run ./cmd/e2e-table -dir "${E2E_DIR}" feature) >>"${REPORT}" || true
  grep -E '^Ran [0-9]+ of' "${E2E_DIR}/feature.log" >&2 || true
fi

"${ROOT}/hack/internal/node-guest.sh" check || rc=1

if ((measure)); then
  kep::log::status "latencies measured by the tests${kubelet:+ (the kubelet applies probe changes in SyncPod: WHAT=sync)}:"
  grep -o 'measure: .*' "${REPORT}" | sed 's/^measure: /  /' >&2 || true
fi
((rc == 0)) || kep::log::error_exit "node tests failed; the output is in ${REPORT#"${ROOT}/"} and ${E2E_DIR#"${ROOT}/"}/feature.log, the cluster's logs in ${NODE_STATE#"${ROOT}/"}/logs"
kep::log::status "node tests passed"
