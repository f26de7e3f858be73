#!/usr/bin/env bash
# The init process of the single-node cluster. hack/node-up.sh starts it as
# PID 1 of new mount, network and PID namespaces; everything the cluster runs
# (etcd, the control plane, containerd, the kubelet, shims and containers)
# descends from it. Killing it ends them all, and with them the namespaces'
# mounts and network devices: that is how hack/node-down.sh tears down.
#
# With NODES=2, it starts itself again with --second-node, in a mount
# namespace of its own, for the second node: its own /run, /var/lib and
# /var/log, so that neither node's containerd or kubelet sees the other's
# containers, and its containerd and kubelet.
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

# own_dirs DIR: the kubelet and containerd write to fixed paths under /run,
# /var/lib and /var/log (the kubelet hard-codes /var/log/containers). Give
# them DIR's run, lib and log there; the host's stay untouched.
own_dirs() {
  local dir
  for dir in run lib log; do
    mkdir -p "$1/${dir}"
  done
  mount --bind "$1/run" /run
  mount --bind "$1/lib" /var/lib
  mount --bind "$1/log" /var/log
}

# bridge NAME IP: a node's bridge is its IP and its Pods' gateway; the CNI
# bridge plugin attaches each Pod to it.
bridge() {
  ip link add "$1" type bridge
  ip addr add "$2/24" dev "$1"
  ip link set "$1" up
}

# start_node_component NAME CMD... runs a component of the node with its
# output in NODE_LOGS/NAME.log, and records its pid (in the node's PID
# namespace) in COMPONENTS, for hack/node-restart-kubelet.sh.
COMPONENTS="${NODE_STATE}/components"
start_node_component() {
  local name=$1
  shift
  "$@" >"${NODE_LOGS}/${name}.log" 2>&1 &
  echo "${name} $!" >>"${COMPONENTS}"
}

# start_kubelet N CONF starts node N's containerd, with CONF/containerd.toml,
# and its kubelet.
start_kubelet() {
  local suffix="" kubelet=()
  [[ "$1" == 1 ]] || suffix=-$1
  start_node_component "containerd${suffix}" containerd --config "$2/containerd.toml"
  # The kubelet exits when the runtime does not answer at once.
  kep::util::poll 60 test -S /run/containerd/containerd.sock || true
  kep::util::lines kubelet kep::node::kubelet_command "$1"
  start_node_component "kubelet${suffix}" "${kubelet[@]}"
}

# reap: PID 1 (and the second node's init) stays to reap orphans (shims
# re-parent to it) until it is killed.
reap() {
  while true; do
    wait || true
    sleep 1
  done
}

if [[ "${1:-}" == --second-node ]]; then
  COMPONENTS="${NODE2_HOME}/components"
  own_dirs "${NODE2_HOME}"
  start_kubelet 2 "${NODE2_HOME}/conf"
  reap
fi

own_dirs "${NODE_STATE}"
ip link set lo up
bridge "${NODE_BRIDGE}" "${NODE_IP}"
ip route add default dev "${NODE_BRIDGE}"
if ((NODES == 2)); then
  # The second node's Pods reach the first's, and the control plane, through
  # this namespace, which routes between the bridges: forwarding is a
  # setting of the namespace, not of the host.
  bridge "${NODE2_BRIDGE}" "${NODE2_IP}"
  sysctl -qw net.ipv4.ip_forward=1
fi

etcd_flags=()
kep::util::lines etcd_flags kep::control_plane::etcd_flags node "${NODE_STATE}/etcd" 2379 2380
start_node_component etcd "${ETCD}" "${etcd_flags[@]}"

apiserver=()
kep::util::lines apiserver kep::node::apiserver_command 1
start_node_component kube-apiserver "${apiserver[@]}"
# A second API server on the same etcd, as in a cluster that is rolling the
# gate out: one API server has it, the other not yet.
# shellcheck disable=SC2153 # NODE_ENV sets it
if [[ -n "${NODE_APISERVER2_GATE}" ]]; then
  kep::util::lines apiserver kep::node::apiserver_command 2
  start_node_component kube-apiserver-2 "${apiserver[@]}"
fi

# Its flexvolume directory is the node's own, under /var/lib, not the host's
# /usr/libexec/kubernetes, which it would make by default.
start_node_component kube-controller-manager "${NODE_KUBE_BIN}/kube-controller-manager" \
  --kubeconfig "${NODE_CONF}/admin.kubeconfig" --leader-elect=false --bind-address 127.0.0.1 \
  --service-account-private-key-file "${NODE_CERTS}/sa.key" --root-ca-file "${NODE_CERTS}/ca.crt" \
  --use-service-account-credentials=false --flex-volume-plugin-dir /var/lib/kube-controller-manager/volume-plugins

start_node_component kube-scheduler "${NODE_KUBE_BIN}/kube-scheduler" \
  --kubeconfig "${NODE_CONF}/admin.kubeconfig" --leader-elect=false --bind-address 127.0.0.1

start_kubelet 1 "${NODE_CONF}"
((NODES == 1)) ||
  start_node_component node-2 unshare --mount --propagation private -- "${BASH_SOURCE[0]}" --second-node
reap
