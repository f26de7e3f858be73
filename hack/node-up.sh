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
set -euo pipefail
# shellcheck source=hack/lib/init.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/init.sh"
# shellcheck source=hack/lib/control-plane.sh
source "${ROOT}/hack/lib/control-plane.sh"
# shellcheck source=hack/lib/node.sh
source "${ROOT}/hack/lib/node.sh"


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
  ((NODE_BASE == 0)) || kep::node::build_base_binaries
fi

NODE_KUBE_BIN="${BIN}"
((NODE_BASE == 0)) || NODE_KUBE_BIN="${NODE_DIR}/base-bin"

write_configs() {
  mkdir -p "${NODE_CONF}/cni" "${NODE_LOGS}" "${NODE_STATIC_PODS}"
  # The node's options, for its init and hack/node-restart-kubelet.sh, as
  # shell assignments that they source.
  {
    printf 'NODE_BASE=%q\nNODE_KUBELET=%q\nNODE_KUBELET_GATE=%q\nNODE_APISERVER_GATE=%q\nNODE_APISERVER2_GATE=%q\nNODE_KUBE_BIN=%q\n' \
      "${NODE_BASE}" "${NODE_KUBELET}" "${NODE_KUBELET_GATE}" "${NODE_APISERVER_GATE}" "${NODE_APISERVER2_GATE}" "${NODE_KUBE_BIN}"
    printf 'NODE_APISERVER_ARGS=('
    ((${#NODE_APISERVER_ARGS[@]} == 0)) || printf ' %q' "${NODE_APISERVER_ARGS[@]}"
    printf ' )\n'
  } >"${NODE_ENV}"
  kep::control_plane::write_kubeconfig "${NODE_CONF}/admin.kubeconfig" "https://${NODE_IP}:6443" "${NODE_CERTS}"
  kep::control_plane::write_kubeconfig "${NODE_KUBECONFIG}" "https://127.0.0.1:${NODE_API_PORT}" "${NODE_CERTS}"

  cat >"${NODE_CONF}/containerd.toml" <<EOF
version = 3
root = "/var/lib/containerd"
state = "/run/containerd"

[grpc]
  address = "/run/containerd/containerd.sock"

[plugins.'io.containerd.cri.v1.images']
  snapshotter = "overlayfs"
  [plugins.'io.containerd.cri.v1.images'.pinned_images]
    sandbox = "${PAUSE_IMAGE}"

[plugins.'io.containerd.cri.v1.runtime']
  # Processes here may not lower their OOM score adjustment.
  restrict_oom_score_adj = true
  [plugins.'io.containerd.cri.v1.runtime'.cni]
    bin_dirs = ["${NODE_BIN}/cni"]
    conf_dir = "${NODE_CONF}/cni"
  [plugins.'io.containerd.cri.v1.runtime'.containerd.runtimes.runc]
    runtime_type = "io.containerd.runc.v2"
    [plugins.'io.containerd.cri.v1.runtime'.containerd.runtimes.runc.options]
      BinaryName = "${NODE_BIN}/runc"
      SystemdCgroup = false
EOF

  cat >"${NODE_CONF}/cni/10-kep.conflist" <<EOF
{
  "cniVersion": "1.0.0",
  "name": "kep",
  "plugins": [
    {
      "type": "bridge",
      "bridge": "${NODE_BRIDGE}",
      "isGateway": true,
      "ipMasq": false,
      "ipam": {
        "type": "host-local",
        "ranges": [[{"subnet": "${POD_CIDR}", "gateway": "${NODE_IP}", "rangeStart": "${NODE_IP%.*}.10"}]],
        "dataDir": "/var/lib/cni/networks"
      }
    },
    {"type": "loopback"}
  ]
}
EOF

  local gates="featureGates: {MutableContainerProbes: ${NODE_KUBELET_GATE}}"
  # The base release does not know the feature gate.
  ((NODE_BASE == 0)) || gates="# the base release: no feature gates"
  cat >"${NODE_CONF}/kubelet.yaml" <<EOF
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
${gates}
containerRuntimeEndpoint: unix:///run/containerd/containerd.sock
# This machine has cgroup v1. The node's Pods live under a cgroup root of
# their own, apart from any other kubelet's on the host.
failCgroupV1: false
cgroupDriver: cgroupfs
cgroupRoot: /${NODE_CGROUP_ROOT}
failSwapOn: false
address: ${NODE_IP}
readOnlyPort: 0
# The API server reaches the kubelet (logs, exec) without client
# certificates; nothing outside the cluster's namespace can reach it.
authentication:
  anonymous: {enabled: true}
  webhook: {enabled: false}
authorization:
  mode: AlwaysAllow
resolvConf: /etc/resolv.conf
# Static Pods: the kubelet creates a mirror Pod for each in the API.
staticPodPath: ${NODE_STATIC_PODS}
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

teardown_on_failure() {
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
  trap teardown_on_failure EXIT
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
  wait_until "containerd" 60 kep::node::exec test -S /run/containerd/containerd.sock
  # Every image built for the node: the project's, and upstream's e2e images
  # once make test-upstream-e2e has built them.
  local image
  for image in "${NODE_IMAGES}"/*.tar; do
    kep::node::exec "${NODE_BIN}/ctr" --address /run/containerd/containerd.sock -n k8s.io \
      images import --platform "linux/$(go env GOARCH)" "${image}" >/dev/null 2>&1 ||
      kep::log::error_exit "importing ${image##*/} into containerd failed"
  done
  wait_until "node ${NODE_NAME} Ready" 120 "${kc[@]}" wait --for=condition=Ready "node/${NODE_NAME}" --timeout=1s
  wait_until "the default service account" 60 "${kc[@]}" -n default get serviceaccount default
  trap - EXIT
  kep::log::status "node ${NODE_NAME} is Ready; KUBECONFIG=${NODE_KUBECONFIG}"
}

main "$@"
