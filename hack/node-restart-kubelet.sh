#!/usr/bin/env bash
# Restarts the kubelet of the running single-node cluster, as an operator
# restarts a node's kubelet: the containers of its Pods keep running. With
# an argument, true or false, the kubelet comes back with
# MutableContainerProbes set so (the gate flipped across a restart). Returns
# once the new kubelet answers its health check.
#
#   hack/node-restart-kubelet.sh [true|false]
set -euo pipefail
# shellcheck source=hack/lib/init.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/init.sh"
# shellcheck source=hack/lib/node.sh
source "${ROOT}/hack/lib/node.sh"

gate=${1:-}
[[ -z "${gate}" || "${gate}" == true || "${gate}" == false ]] || kep::log::error_exit "usage: hack/node-restart-kubelet.sh [true|false]"
[[ "${HARNESS_NODE_INSIDE:-0}" == 1 ]] || kep::node::init_pid >/dev/null ||
  kep::log::error_exit "the node is not running; start it with 'make node-up'"

# The kubelet's PID in the node's PID namespace, as node-init.sh or an
# earlier restart recorded it.
pid=$(awk '$1 == "kubelet" {pid = $2} END {print pid}' "${NODE_STATE}/components")
[[ -n "${pid}" ]] || kep::log::error_exit "no kubelet in ${NODE_STATE#"${ROOT}/"}/components"
# kubelet_gone succeeds once the old kubelet has exited and its parent, the
# node's init, has reaped it.
kubelet_gone() { ! kep::node::exec kill -0 "${pid}"; }
kep::node::exec kill "${pid}" 2>/dev/null || true
kep::util::poll 30 kubelet_gone || kep::log::error_exit "the kubelet (PID ${pid} in the node) did not stop"

if [[ -n "${gate}" ]]; then
  sed -i "s/^featureGates: {MutableContainerProbes: [a-z]*}$/featureGates: {MutableContainerProbes: ${gate}}/" "${NODE_CONF}/kubelet.yaml"
  grep -q "^featureGates: {MutableContainerProbes: ${gate}}$" "${NODE_CONF}/kubelet.yaml" ||
    kep::log::error_exit "could not set MutableContainerProbes=${gate} in ${NODE_STATE#"${ROOT}/"}/conf/kubelet.yaml"
fi

# The new kubelet's parent exits at once: it becomes a child of the node's
# init, like the first one, and ends with it on teardown.
kubelet=()
kep::util::lines kubelet kep::node::kubelet_command
kep::node::exec setsid bash -c '"$@" >>"'"${NODE_LOGS}/kubelet.log"'" 2>&1 & echo "kubelet $!"' kubelet "${kubelet[@]}" \
  >>"${NODE_STATE}/components"
# kubelet_healthy succeeds once the new kubelet answers on its healthz port.
kubelet_healthy() { kep::node::exec bash -c 'exec 3<>/dev/tcp/127.0.0.1/10248'; }
kep::util::poll 60 kubelet_healthy ||
  kep::log::error_exit "the kubelet did not come back; see ${NODE_STATE#"${ROOT}/"}/logs/kubelet.log"
kep::log::status "kubelet restarted${gate:+ with MutableContainerProbes=${gate}}"
