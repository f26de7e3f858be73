#!/usr/bin/env bash
# Builds and starts a real single-node cluster from the patched tree: etcd,
# kube-apiserver, kube-controller-manager, kube-scheduler, containerd, runc,
# the CNI bridge and the kubelet, with MutableContainerProbes on. It runs in
# mount, network and PID namespaces of its own; the API server is forwarded
# to https://127.0.0.1:${API_PORT:-6443} and _output/node/state/kubeconfig
# points at it. hack/node-down.sh stops it.
#
# The options, which the targets that start a node use:
#   --no-build                use what _output/ already has
#   --kubelet-gate=false      MutableContainerProbes off on the kubelet
#   --apiserver-gate=false    and on kube-apiserver
#   --apiserver2-gate=BOOL    a second kube-apiserver, on port 6444, with the
#                             gate so (make test-docs: a rollout half done)
#   --apiserver-args=FLAGS    more kube-apiserver flags, split at spaces
#   --base                    the unpatched base release (built from
#                             _output/base), which has no such gate
#   --kubelet=PATH            run the kubelet binary PATH instead of the
#                             tree's (make measure-node WHAT=sync: a variant)
# and the settings NODES=2, a second node, and NODE2_GATE, its kubelet
# (hack/lib/node.sh).
set -euo pipefail
# shellcheck source=hack/lib/init.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/init.sh"
# shellcheck source=hack/lib/control-plane.sh
source "${ROOT}/hack/lib/control-plane.sh"
# shellcheck source=hack/lib/node.sh
source "${ROOT}/hack/lib/node.sh"
# shellcheck source=hack/lib/tree.sh
source "${ROOT}/hack/lib/tree.sh"


build=1 NODE_BASE=0 NODE_KUBELET="" NODE_KUBELET_GATE=true NODE_APISERVER_GATE=true NODE_APISERVER2_GATE="" NODE_APISERVER_ARGS=()
for arg in "$@"; do
  case "${arg}" in
    --no-build) build=0 ;;
    --base) NODE_BASE=1 ;;
    --kubelet=*) NODE_KUBELET=$(realpath "${arg#*=}") ;;
    --kubelet-gate=true | --kubelet-gate=false) NODE_KUBELET_GATE=${arg#*=} ;;
    --apiserver-gate=true | --apiserver-gate=false) NODE_APISERVER_GATE=${arg#*=} ;;
    --apiserver2-gate=true | --apiserver2-gate=false) NODE_APISERVER2_GATE=${arg#*=} ;;
    --apiserver-args=*) read -ra NODE_APISERVER_ARGS <<<"${arg#*=}" ;;
    *) kep::log::error_exit "hack/node-up.sh: unknown option ${arg} (see the script's header)" ;;
  esac
done

case "${NODES}" in
  1 | 2) ;;
  *) kep::log::error_exit "NODES=${NODES}: the cluster has one node or two" ;;
esac
# The second node's kubelet, and its gate (none for the base release's).
NODE2_KUBELET="${NODE_DIR}/base-bin/kubelet" NODE2_KUBELET_GATE=""
case "${NODE2_GATE}" in
  base) ;;
  on | off) NODE2_KUBELET="${BIN}/kubelet" NODE2_KUBELET_GATE=$([[ "${NODE2_GATE}" == on ]] && echo true || echo false) ;;
  *) kep::log::error_exit "NODE2_GATE=${NODE2_GATE}: want base (the unpatched base release's kubelet), on or off" ;;
esac

kep::node::require "starting the node"
if pid=$(kep::node::init_pid); then
  kep::log::error_exit "a node is already running (init pid ${pid}); stop it with hack/node-down.sh"
fi
# A node that was not torn down (a killed test run) is cleaned up first.
if [[ -f "${NODE_DIR}/host.before" ]]; then
  "${ROOT}/hack/node-down.sh"
fi
# Another API server on the port would answer in the node's place.
if [[ -n "$(ss -Hltn "sport = :${NODE_API_PORT}")" ]]; then
  kep::log::error_exit "port ${NODE_API_PORT}, where the node's API server is to be forwarded, is in use on this host: set API_PORT to a free port"
fi

if ((build)); then
  kep::tree::ensure_checkout
  kep::node::build
  if ((NODE_BASE)); then
    kep::node::build_base_binaries "${NODE_KUBE_TARGETS[@]}"
  elif [[ "${NODES}" == 2 && "${NODE2_GATE}" == base ]]; then
    kep::node::build_base_binaries cmd/kubelet
  fi
fi

[[ "${NODES}" == 1 || -x "${NODE2_KUBELET}" ]] ||
  kep::log::error_exit "no kubelet for the second node at ${NODE2_KUBELET#"${ROOT}/"}: make node-up NODES=2 builds it (not with --no-build)"

NODE_KUBE_BIN="${BIN}"
((NODE_BASE == 0)) || NODE_KUBE_BIN="${NODE_DIR}/base-bin"

write_configs() {
  mkdir -p "${NODE_CONF}" "${NODE_LOGS}" "${NODE_STATIC_PODS}"
  # The node's options, for its init and hack/node-restart-kubelet.sh, as
  # shell assignments that they source.
  {
    printf 'NODE_BASE=%q\nNODE_KUBELET=%q\nNODE_KUBELET_GATE=%q\nNODE_APISERVER_GATE=%q\nNODE_APISERVER2_GATE=%q\nNODE_KUBE_BIN=%q\n' \
      "${NODE_BASE}" "${NODE_KUBELET}" "${NODE_KUBELET_GATE}" "${NODE_APISERVER_GATE}" "${NODE_APISERVER2_GATE}" "${NODE_KUBE_BIN}"
    printf 'NODES=%q\nNODE2_KUBELET=%q\nNODE2_KUBELET_GATE=%q\n' "${NODES}" "${NODE2_KUBELET}" "${NODE2_KUBELET_GATE}"
    printf 'NODE_APISERVER_ARGS=('
    ((${#NODE_APISERVER_ARGS[@]} == 0)) || printf ' %q' "${NODE_APISERVER_ARGS[@]}"
    printf ' )\n'
  } >"${NODE_ENV}"
  kep::control_plane::write_kubeconfig "${NODE_CONF}/admin.kubeconfig" "https://${NODE_IP}:6443" "${NODE_CERTS}"
  kep::control_plane::write_kubeconfig "${NODE_KUBECONFIG}" "https://127.0.0.1:${NODE_API_PORT}" "${NODE_CERTS}"

  local gate=${NODE_KUBELET_GATE}
  # The base release does not know the feature gate.
  ((NODE_BASE == 0)) || gate=""
  write_node 1 "${NODE_CONF}" "${NODE_BRIDGE}" "${NODE_IP}" "${POD_CIDR}" "${NODE_CGROUP_ROOT}" "${gate}"
  ((NODES == 1)) ||
    write_node 2 "${NODE2_HOME}/conf" "${NODE2_BRIDGE}" "${NODE2_IP}" "${POD2_CIDR}" "${NODE2_CGROUP_ROOT}" "${NODE2_KUBELET_GATE}"
}

# write_node N CONF BRIDGE IP CIDR CGROUP_ROOT GATE writes the configurations
# of node N's containerd, CNI network and kubelet into CONF: its Pods get
# addresses of CIDR on BRIDGE, whose address IP is the node's; its kubelet
# has MutableContainerProbes set to GATE, or no feature gates with GATE
# empty (the base release). The first node has the static Pods and the
# kubelet's health check on 127.0.0.1, where the node e2e suite asks; the
# second, which shares its network namespace, has it on its own address.
write_node() {
  local n=$1 conf=$2 bridge=$3 ip=$4 cidr=$5 cgroup_root=$6 gate=$7
  mkdir -p "${conf}/cni"
  cat >"${conf}/containerd.toml" <<EOF
version = 3
root = "/var/lib/containerd"
state = "/run/containerd"

[grpc]
  address = "/run/containerd/containerd.sock"

# Under /var/lib, which is the node's own, not the host's /opt/containerd,
# which these plugins would make, or read, by default.
[plugins.'io.containerd.internal.v1.opt']
  path = "/var/lib/containerd/opt"
[plugins.'io.containerd.image-verifier.v1.bindir']
  bin_dir = "/var/lib/containerd/image-verifier"

[plugins.'io.containerd.cri.v1.images']
  snapshotter = "overlayfs"
  [plugins.'io.containerd.cri.v1.images'.pinned_images]
    sandbox = "${PAUSE_IMAGE}"

[plugins.'io.containerd.cri.v1.runtime']
  # Processes here may not lower their OOM score adjustment.
  restrict_oom_score_adj = true
  [plugins.'io.containerd.cri.v1.runtime'.cni]
    bin_dirs = ["${NODE_BIN}/cni"]
    conf_dir = "${conf}/cni"
  [plugins.'io.containerd.cri.v1.runtime'.containerd.runtimes.runc]
    runtime_type = "io.containerd.runc.v2"
    [plugins.'io.containerd.cri.v1.runtime'.containerd.runtimes.runc.options]
      BinaryName = "${NODE_BIN}/runc"
      SystemdCgroup = false
EOF

  cat >"${conf}/cni/10-kep.conflist" <<EOF
{
  "cniVersion": "1.0.0",
  "name": "kep",
  "plugins": [
    {
      "type": "bridge",
      "bridge": "${bridge}",
      "isGateway": true,
      "ipMasq": false,
      "ipam": {
        "type": "host-local",
        "ranges": [[{"subnet": "${cidr}", "gateway": "${ip}", "rangeStart": "${ip%.*}.10"}]],
        "routes": [{"dst": "0.0.0.0/0"}],
        "dataDir": "/var/lib/cni/networks"
      }
    },
    {"type": "loopback"}
  ]
}
EOF

  local gates="featureGates: {MutableContainerProbes: ${gate}}" own="healthzBindAddress: ${ip}"
  [[ -n "${gate}" ]] || gates="# the base release: no feature gates"
  # Static Pods: the kubelet creates a mirror Pod for each in the API.
  ((n == 2)) || own="staticPodPath: ${NODE_STATIC_PODS}"
  cat >"${conf}/kubelet.yaml" <<EOF
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
${gates}
containerRuntimeEndpoint: unix:///run/containerd/containerd.sock
# This machine has cgroup v1. The node's Pods live under a cgroup root of
# their own, apart from any other kubelet's on the host.
failCgroupV1: false
cgroupDriver: cgroupfs
cgroupRoot: /${cgroup_root}
failSwapOn: false
address: ${ip}
readOnlyPort: 0
# The API server reaches the kubelet (logs, exec) without client
# certificates; nothing outside the cluster's namespace can reach it.
authentication:
  anonymous: {enabled: true}
  webhook: {enabled: false}
authorization:
  mode: AlwaysAllow
resolvConf: /etc/resolv.conf
# The node's own, not the host's /usr/libexec/kubernetes, which the kubelet
# would make, and whose flexvolume drivers it would load, by default (the
# controller manager's: hack/internal/node-init.sh).
volumePluginDir: /var/lib/kubelet/volume-plugins
${own}
# The images are imported, never pulled: keep them whatever the disk usage,
# and do not evict Pods for a host disk that is merely full-ish.
imageGCHighThresholdPercent: 100
imageGCLowThresholdPercent: 99
evictionHard:
  memory.available: 100Mi
  nodefs.available: "1%"
  nodefs.inodesFree: "1%"
  imagefs.available: "1%"
# Tests drive restart loops; restart after at most a second, not five minutes.
crashLoopBackOff:
  maxContainerRestartPeriod: 1s
EOF
}

# started: the node came up, and stays up when this script exits.
started=0
teardown_on_failure() {
  ((started == 0)) || return 0
  kep::log::status "the node failed to start; logs are in ${NODE_STATE#"${ROOT}/"}/logs; tearing down"
  "${ROOT}/hack/node-down.sh" || true
}

# unshare runs as long as the node's init does.
unshare_pid=""
init_alive() { kill -0 "${unshare_pid}" 2>/dev/null; }

# wait_until WHAT SECONDS CMD... waits for CMD while the node's init runs.
wait_until() {
  local what=$1 seconds=$2 rc=0
  shift 2
  kep::util::poll "${seconds}" --while init_alive "$@" || rc=$?
  case ${rc} in
    0) ;;
    2) kep::log::error_exit "the node's init exited while waiting for ${what}" ;;
    *) kep::log::error_exit "${what} did not happen within ${seconds}s" ;;
  esac
}

main() {
  rm -rf "${NODE_STATE}"
  mkdir -p "${NODE_STATE}"
  kep::control_plane::write_pki "${NODE_CERTS}" "${NODE_IP}"
  write_configs
  kep::node::host_snapshot >"${NODE_DIR}/host.before"
  kep::util::trap_add teardown_on_failure EXIT
  kep::node::make_cgroups

  kep::log::status "starting the node in its own namespaces"
  setsid unshare --mount --net --pid --fork --mount-proc --propagation private --kill-child=SIGKILL \
    -- "${ROOT}/hack/internal/node-init.sh" >"${NODE_LOGS}/init.log" 2>&1 </dev/null &
  unshare_pid=$!
  local init
  kep::node::pid_record "${unshare_pid}" >"${NODE_DIR}/unshare.pid"
  wait_until "the node's init" 10 pgrep -P "${unshare_pid}"
  init=$(pgrep -P "${unshare_pid}")
  kep::node::pid_record "${init}" >"${NODE_INIT_PIDFILE}"
  readlink "/proc/${init}/ns/pid" >"${NODE_DIR}/pidns"

  setsid "${NODE_BIN}/node-forward" -netns "/proc/${init}/ns/net" \
    -listen "127.0.0.1:${NODE_API_PORT}" -target "${NODE_IP}:6443" \
    >"${NODE_LOGS}/node-forward.log" 2>&1 </dev/null &
  kep::node::pid_record "$!" >"${NODE_DIR}/forward.pid"

  local kc=("${BIN}/kubectl" --kubeconfig "${NODE_KUBECONFIG}")
  wait_until "kube-apiserver /readyz" 120 "${kc[@]}" get --raw /readyz
  # Each node's containerd socket, as the host sees it: the second node's
  # is there only once its init has mounted its own /run.
  local sockets=("${NODE_STATE}/run/containerd/containerd.sock" "${NODE2_HOME}/run/containerd/containerd.sock")
  if ((NODES == 2)); then
    # The second node's init, which node-init.sh starts in a mount
    # namespace of its own.
    local second=(pgrep -P "${init}" -f 'node-init[.]sh --second-node')
    wait_until "the second node's init" 10 "${second[@]}"
    kep::node::pid_record "$("${second[@]}")" >"${NODE2_INIT_PIDFILE}"
  fi
  # Every image built for the node: the project's, and upstream's e2e images
  # once make test-upstream-e2e has built them.
  local n image name
  for n in $(seq "${NODES}"); do
    wait_until "containerd of node ${n}" 60 test -S "${sockets[n - 1]}"
    for image in "${NODE_IMAGES}"/*.tar; do
      kep::node::exec --node "${n}" "${NODE_BIN}/ctr" --address /run/containerd/containerd.sock -n k8s.io \
        images import --platform "linux/$(go env GOARCH)" "${image}" >/dev/null 2>&1 ||
        kep::log::error_exit "importing ${image##*/} into the containerd of node ${n} failed"
    done
  done
  for name in "${NODE_NAME}" $( ((NODES == 1)) || echo "${NODE2_NAME}"); do
    wait_until "node ${name} Ready" 120 "${kc[@]}" wait --for=condition=Ready "node/${name}" --timeout=1s
  done
  wait_until "the default service account" 60 "${kc[@]}" -n default get serviceaccount default
  started=1
  if ((NODES == 2)); then
    kep::log::status "nodes ${NODE_NAME} and ${NODE2_NAME} ($(kep::node::second_kubelet)) are Ready; KUBECONFIG=${NODE_KUBECONFIG}"
  else
    kep::log::status "node ${NODE_NAME} is Ready; KUBECONFIG=${NODE_KUBECONFIG}"
  fi
}

main "$@"
