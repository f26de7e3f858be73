#!/usr/bin/env bash
# The init process of the single-node cluster. hack/node-up.sh starts it as
# PID 1 of new mount, network and PID namespaces; everything the cluster runs
# (etcd, the control plane, containerd, the kubelet, shims and containers)
# descends from it. Killing it ends them all, and with them the namespaces'
# mounts and network devices: that is how hack/node-down.sh tears down.
set -euo pipefail
# shellcheck source=hack/lib/init.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/init.sh"
# shellcheck source=hack/lib/control-plane.sh
source "${ROOT}/hack/lib/control-plane.sh"
# shellcheck source=hack/lib/node.sh
source "${ROOT}/hack/lib/node.sh"

export PATH="${NODE_BIN}:${PATH}"
# The options the node was started with (NODE_BASE, NODE_KUBELET,
# NODE_*_GATE, NODE_APISERVER_ARGS, NODE_KUBE_BIN).
# shellcheck source=/dev/null # written by hack/node-up.sh
source "${NODE_ENV}"

# The kubelet and containerd write to fixed paths under /run, /var/lib and
# /var/log (the kubelet hard-codes /var/log/containers). Give them the
# cluster's own directories there; the host's stay untouched.
for dir in run lib log; do
  mkdir -p "${NODE_STATE}/${dir}"
done
mount --bind "${NODE_STATE}/run" /run
mount --bind "${NODE_STATE}/lib" /var/lib
mount --bind "${NODE_STATE}/log" /var/log

# The bridge is the node's IP and the Pods' gateway; the CNI bridge plugin
# attaches each Pod to it.
ip link set lo up
ip link add "${NODE_BRIDGE}" type bridge
ip addr add "${NODE_IP}/24" dev "${NODE_BRIDGE}"
ip link set "${NODE_BRIDGE}" up
ip route add default dev "${NODE_BRIDGE}"

# start_node_component NAME CMD... runs a component of the node with its output
# in NODE_LOGS/NAME.log, and records its pid for node-down.
start_node_component() {
  local name=$1
  shift
  "$@" >"${NODE_LOGS}/${name}.log" 2>&1 &
  echo "${name} $!" >>"${NODE_STATE}/components"
}

# kube_apiserver NAME PORT GATE [FLAG...] starts a kube-apiserver on PORT
# with MutableContainerProbes set to GATE; the base release does not know
# the gate.
kube_apiserver() {
  local name=$1 port=$2 gate=$3
  shift 3
  # shellcheck disable=SC2153 # NODE_ENV sets it
  ((NODE_BASE == 0)) || gate=""
  local flags=()
  kep::util::lines flags kep::control_plane::apiserver_flags "${NODE_CERTS}" 2379 "${port}" "${gate}"
  start_node_component "${name}" "${NODE_KUBE_BIN}/kube-apiserver" "${flags[@]}" \
    --advertise-address "${NODE_IP}" --kubelet-preferred-address-types InternalIP "$@"
}

etcd_flags=()
kep::util::lines etcd_flags kep::control_plane::etcd_flags node "${NODE_STATE}/etcd" 2379 2380
start_node_component etcd "${ETCD}" "${etcd_flags[@]}"

# More flags for the API server, for example an audit policy (make test-docs).
# shellcheck disable=SC2153 # NODE_ENV sets it
kube_apiserver kube-apiserver 6443 "${NODE_APISERVER_GATE}" "${NODE_APISERVER_ARGS[@]}"
# A second API server on the same etcd, as in a cluster that is rolling the
# gate out: one API server has it, the other not yet.
if [[ -n "${NODE_APISERVER2_GATE}" ]]; then
  kube_apiserver kube-apiserver-2 6444 "${NODE_APISERVER2_GATE}"
fi

start_node_component kube-controller-manager "${NODE_KUBE_BIN}/kube-controller-manager" \
  --kubeconfig "${NODE_CONF}/admin.kubeconfig" --leader-elect=false --bind-address 127.0.0.1 \
  --service-account-private-key-file "${NODE_CERTS}/sa.key" --root-ca-file "${NODE_CERTS}/ca.crt" \
  --use-service-account-credentials=false

start_node_component kube-scheduler "${NODE_KUBE_BIN}/kube-scheduler" \
  --kubeconfig "${NODE_CONF}/admin.kubeconfig" --leader-elect=false --bind-address 127.0.0.1

start_node_component containerd containerd --config "${NODE_CONF}/containerd.toml"
# The kubelet exits when the runtime does not answer at once.
kep::util::poll 60 test -S /run/containerd/containerd.sock || true

kubelet=()
kep::util::lines kubelet kep::node::kubelet_command
start_node_component kubelet "${kubelet[@]}"

# PID 1 stays to reap orphans (shims re-parent to it) until it is killed.
while true; do
  wait || true
  sleep 1
done
