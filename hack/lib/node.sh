# shellcheck shell=bash
# Shared settings and helpers for the single-node cluster (hack/node-*.sh).
#
# The node runs containerd, runc and the CNI bridge plugin from the Go module
# proxy, and etcd, kube-apiserver, kube-controller-manager, kube-scheduler
# and the kubelet from the patched tree (or, for the skew test, the base's).
# Its files live under _output/node; on the host it makes only its cgroup
# root (NODE_CGROUP_ROOT) and sets the kubelet's sysctls, which teardown
# removes and restores.

# Sourced once, whatever sources it.
[[ " ${HARNESS_SOURCED:-} " != *" node "* ]] || return 0
HARNESS_SOURCED+=" node"
# shellcheck source=hack/lib/golang.sh
source "${ROOT}/hack/lib/golang.sh"
# shellcheck source=hack/lib/sidebyside.sh
source "${ROOT}/hack/lib/sidebyside.sh"

CONTAINERD_VERSION=v2.4.2
RUNC_VERSION=v1.5.3
CNI_PLUGINS_VERSION=v1.10.0

NODE_DIR="${OUTPUT}/node"
# Binaries of the runtime (containerd, runc, CNI plugins) and the images.
NODE_BIN="${NODE_DIR}/bin"
NODE_IMAGES="${NODE_DIR}/images"
# State of one cluster: certificates, configs, logs, and the directories that
# are bind-mounted over /run, /var/lib and /var/log inside its namespaces.
NODE_STATE="${NODE_DIR}/state"
NODE_CERTS="${NODE_STATE}/certs"
NODE_CONF="${NODE_STATE}/conf"
NODE_LOGS="${NODE_STATE}/logs"
NODE_KUBECONFIG="${NODE_STATE}/kubeconfig"
# The kubelet's static Pod manifests.
NODE_STATIC_PODS="${NODE_STATE}/manifests"
# The PID, in the host's PID namespace, of the cluster namespaces' init.
NODE_INIT_PIDFILE="${NODE_DIR}/init.pid"
# The host-wide sysctls that the kubelet sets (setupKernelTunables, without
# protectKernelDefaults), and the values it sets; recorded before it starts
# (kep::node::host_snapshot), and restored on teardown where they have the
# kubelet's value.
declare -gA NODE_SYSCTLS=(
  [vm.overcommit_memory]=1 [vm.panic_on_oom]=0 [kernel.panic]=10 [kernel.panic_on_oops]=1
  [kernel.keys.root_maxkeys]=1000000 [kernel.keys.root_maxbytes]=25000000
)
# The kubelet's cgroupRoot: the node's Pods live under it, in each cgroup
# hierarchy, apart from those of any other kubelet on the host (kubepods),
# and of the node of another clone of the project (a root for each NODE_DIR,
# however its path is spelled).
NODE_CGROUP_ROOT="kep-6318-$(realpath -m "${NODE_DIR}" | sha256sum | cut -c1-8)"

NODE_NAME=kep-node
# The host port on 127.0.0.1 where cmd/node-forward exposes the API server.
NODE_API_PORT="${API_PORT:-6443}"
# The bridge is both the node IP and the Pod gateway, inside the cluster's
# network namespace.
NODE_BRIDGE=kep0
NODE_IP=10.88.0.1
POD_CIDR=10.88.0.0/24

# The images the tests and the walkthrough use; both are built from the
# project (test/images) and imported into containerd, never pulled.
PAUSE_IMAGE=registry.k8s.invalid/kep-6318/pause:1.0
PROBE_IMAGE=registry.k8s.invalid/kep-6318/probe-target:1.0

NODE_KUBE_TARGETS=(cmd/kube-apiserver cmd/kube-controller-manager cmd/kube-scheduler cmd/kubelet cmd/kubectl)
# The options the node was started with (hack/node-up.sh writes them).
NODE_ENV="${NODE_CONF}/node.env"

# kep::node::kubelet_command prints, one a line, the node's kubelet and its
# flags: the kubelet of the options in NODE_ENV, those of the node that
# hack/node-up.sh started (NODE_KUBE_BIN is where its Kubernetes binaries
# are: those of the base it was started with, whatever BASE a later command
# has, or the unpatched base release's, built from _output/base, with
# --base; NODE_KUBELET, another kubelet, with --kubelet).
kep::node::kubelet_command() (
  local kubelet
  # shellcheck source=/dev/null # written by hack/node-up.sh
  source "${NODE_ENV}"
  kubelet=${NODE_KUBE_BIN}/kubelet
  [[ -z "${NODE_KUBELET}" ]] || kubelet=${NODE_KUBELET}
  printf '%s\n' "${kubelet}" --config "${NODE_CONF}/kubelet.yaml" \
    --kubeconfig "${NODE_CONF}/admin.kubeconfig" --hostname-override "${NODE_NAME}" \
    --node-ip "${NODE_IP}" --v 2
)

# kep::node::cgroup_v2_only succeeds on a host whose only cgroup hierarchy is
# v2: cgroup2 is mounted and no v1 controller is. HARNESS_PROC_MOUNTS names
# another mount table (hack/internal/test-harness.sh fakes such a host).
kep::node::cgroup_v2_only() {
  awk '$3 == "cgroup" {v1 = 1} $3 == "cgroup2" {v2 = 1} END {exit !(v2 && !v1)}' \
    "${HARNESS_PROC_MOUNTS:-/proc/self/mounts}"
}

# kep::node::missing prints, one per line, what this machine lacks to run a node.
# Nothing printed means it has everything.
kep::node::missing() {
  [[ "$(uname -s)" == Linux ]] || echo "Linux (this is $(uname -s))"
  [[ "$(id -u)" == 0 ]] || echo "root (the kubelet and containerd manage mounts, cgroups and network namespaces)"
  [[ -d /sys/fs/cgroup ]] || echo "cgroups (/sys/fs/cgroup)"
  # The node runs the kubelet with cgroup v1, and its teardown removes and
  # checks the Pod cgroups of the v1 hierarchies only.
  ! kep::node::cgroup_v2_only ||
    echo "cgroup v1: this host has only cgroup v2, which the node does not support (boot with systemd.unified_cgroup_hierarchy=0 for v1)"
  grep -qw overlay /proc/filesystems 2>/dev/null || echo "the overlay filesystem (modprobe overlay)"
  if [[ "$(id -u)" == 0 ]] && command -v unshare >/dev/null && ! unshare --mount --net --pid --fork true 2>/dev/null; then
    echo "permission to create mount, network and PID namespaces"
  fi
}

# kep::node::require stops, saying what this machine lacks, unless it can run a
# node; $1 names what needs the node. It installs the Debian packages the
# node uses first.
kep::node::require() {
  local missing
  missing=$(kep::node::missing)
  if [[ -z "${missing}" ]]; then
    kep::deps::ensure util-linux iproute2 procps openssl gcc libc6-dev pkg-config libseccomp-dev busybox-static
    # With unshare there, the check of the namespaces runs too.
    missing=$(kep::node::missing)
  fi
  [[ -z "${missing}" ]] || kep::log::error_exit "$1 needs a machine that can run a node; this one lacks:
${missing}"
}

# kep::node::build_runtime builds containerd, runc and the CNI plugins into NODE_BIN.
# runc needs cgo and libseccomp (Debian: gcc, libseccomp-dev, pkg-config;
# kep::node::require installs them).
kep::node::build_runtime() {
  mkdir -p "${NODE_BIN}"
  local stamp="${NODE_BIN}/.versions" want
  want="containerd=${CONTAINERD_VERSION} runc=${RUNC_VERSION} cni=${CNI_PLUGINS_VERSION}"
  if [[ -f "${stamp}" && "$(cat "${stamp}")" == "${want}" ]]; then
    return
  fi
  kep::log::status "building containerd ${CONTAINERD_VERSION}"
  GOBIN="${NODE_BIN}" CGO_ENABLED=0 go install \
    "github.com/containerd/containerd/v2/cmd/containerd@${CONTAINERD_VERSION}" \
    "github.com/containerd/containerd/v2/cmd/containerd-shim-runc-v2@${CONTAINERD_VERSION}" \
    "github.com/containerd/containerd/v2/cmd/ctr@${CONTAINERD_VERSION}"
  kep::log::status "building runc ${RUNC_VERSION}"
  GOBIN="${NODE_BIN}" CGO_ENABLED=1 go install -tags seccomp \
    "github.com/opencontainers/runc@${RUNC_VERSION}"
  kep::log::status "building CNI plugins ${CNI_PLUGINS_VERSION}"
  mkdir -p "${NODE_BIN}/cni"
  GOBIN="${NODE_BIN}/cni" CGO_ENABLED=0 go install \
    "github.com/containernetworking/plugins/plugins/main/bridge@${CNI_PLUGINS_VERSION}" \
    "github.com/containernetworking/plugins/plugins/main/loopback@${CNI_PLUGINS_VERSION}" \
    "github.com/containernetworking/plugins/plugins/ipam/host-local@${CNI_PLUGINS_VERSION}"
  echo "${want}" >"${stamp}"
}

# kep::node::build builds everything the node runs: the runtime, the
# Kubernetes components from the patched tree, the project's tools and both
# images. kep::node::build_base_binaries builds the base's components too.
kep::node::build() {
  kep::node::build_runtime
  kep::golang::build_binaries "${KUBE_ROOT}" "${BIN}" "" "${NODE_KUBE_TARGETS[@]}"
  kep::golang::build_etcd
  kep::log::status "building the node tools and images"
  mkdir -p "${NODE_IMAGES}"
  (
    cd "${ROOT}" || exit
    go build -o "${NODE_BIN}/node-forward" ./cmd/node-forward
    go build -o "${NODE_BIN}/node-image" ./cmd/node-image
    CGO_ENABLED=0 go build -o "${NODE_IMAGES}/pause" ./test/images/pause
    CGO_ENABLED=0 go build -o "${NODE_IMAGES}/probe-target" ./test/images/probe-target
  )
  "${NODE_BIN}/node-image" -binary "${NODE_IMAGES}/pause" -tag "${PAUSE_IMAGE}" -o "${NODE_IMAGES}/pause.tar"
  # The test image has a shell and the usual commands, for kubectl exec.
  local rootfs="${NODE_DIR}/rootfs/probe-target"
  kep::node::busybox_rootfs "${rootfs}"
  cp "${NODE_IMAGES}/probe-target" "${rootfs}/probe-target"
  "${NODE_BIN}/node-image" -rootfs "${rootfs}" -entrypoint /probe-target -tag "${PROBE_IMAGE}" -o "${NODE_IMAGES}/probe-target.tar"
}

# kep::node::busybox_rootfs DIR makes DIR a root filesystem of Debian's static busybox
# (package busybox-static, which kep::node::require installs), with one
# symlink per applet: sh, wget, httpd, ps and the other usual commands.
kep::node::busybox_rootfs() {
  local dir=$1 busybox
  busybox=$(dpkg-query -L busybox-static 2>/dev/null | grep '/bin/busybox$') ||
    kep::log::error_exit "the node's images need Debian's busybox-static; hack/install-deps.sh busybox-static installs it"
  busybox=${busybox%%$'\n'*}
  rm -rf "${dir}"
  mkdir -p "${dir}"/{bin,sbin,usr/bin,usr/sbin,etc,root,proc,sys,dev,tmp}
  chmod 1777 "${dir}/tmp"
  cp "${busybox}" "${dir}/bin/busybox"
  local applet
  while read -r applet; do
    [[ -e "${dir}/${applet}" || -L "${dir}/${applet}" ]] || ln -s /bin/busybox "${dir}/${applet}"
  done < <("${dir}/bin/busybox" --list-full)
  printf 'root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/bin/false\n' >"${dir}/etc/passwd"
  printf 'root:x:0:\nnobody:x:65534:\n' >"${dir}/etc/group"
}

# kep::node::build_base_binaries builds the node's Kubernetes components from the
# unpatched base tree into NODE_DIR/base-bin.
kep::node::build_base_binaries() {
  kep::sidebyside::ensure_base_tree
  kep::log::status "building the node's components of ${BASE_TAG}"
  kep::golang::build_binaries "${BASE_ROOT}" "${NODE_DIR}/base-bin" "" "${NODE_KUBE_TARGETS[@]}"
}

# kep::node::pid_record PID prints what the node's PID files hold: the PID
# and the process's start time (clock ticks after boot, the 22nd field of
# /proc/PID/stat), which tells it from a later process that reuses the PID.
# It fails when the process is gone, or has ended and waits to be reaped (a
# zombie: its parent may be an init that does not reap).
kep::node::pid_record() {
  local stat fields=()
  stat=$(cat "/proc/$1/stat" 2>/dev/null) || return
  # The fields after the command name, which may hold spaces: the 3rd on.
  read -ra fields <<<"${stat##*) }"
  [[ "${fields[0]}" != [ZX] ]] || return 1
  echo "$1 ${fields[19]}"
}

# kep::node::pid_of FILE prints the PID that FILE, written with
# kep::node::pid_record, holds, if that process still runs; it fails
# otherwise.
kep::node::pid_of() {
  local pid="" start=""
  [[ -f "$1" ]] || return 1
  read -r pid start <"$1" || [[ -n "${pid}" ]] || return 1
  [[ "${pid}" =~ ^[0-9]+$ && "$(kep::node::pid_record "${pid}")" == "${pid} ${start}" ]] || return 1
  echo "${pid}"
}

# kep::node::init_pid prints the host PID of the running cluster's init, or fails.
kep::node::init_pid() { kep::node::pid_of "${NODE_INIT_PIDFILE}"; }

# kep::node::exec runs a command inside the cluster's namespaces. A script that
# runs there already (HARNESS_NODE_INSIDE=1, as the node e2e binary's stand-ins
# for systemctl do) runs it directly.
kep::node::exec() {
  if [[ "${HARNESS_NODE_INSIDE:-0}" == 1 ]]; then
    "$@"
    return
  fi
  local pid
  pid=$(kep::node::init_pid) || kep::log::error_exit "the node is not running"
  nsenter --target "${pid}" --mount --net --pid -- "$@"
}

# kep::node::cgroups prints the node's cgroup root in each hierarchy where it exists.
kep::node::cgroups() {
  find /sys/fs/cgroup -mindepth 2 -maxdepth 2 -type d -name "${NODE_CGROUP_ROOT}" 2>/dev/null
}

# kep::node::make_cgroups creates the node's cgroup root in each cgroup v1
# hierarchy, as the kubelet's cgroupRoot must exist; a cpuset cgroup gets its
# parent's CPUs and memory nodes, without which no process can join it.
kep::node::make_cgroups() {
  local hierarchy dir file
  for hierarchy in /sys/fs/cgroup/*/; do
    [[ ! -L "${hierarchy%/}" ]] || continue
    dir="${hierarchy}${NODE_CGROUP_ROOT}"
    mkdir -p "${dir}"
    for file in cpuset.cpus cpuset.mems; do
      [[ ! -f "${dir}/${file}" ]] || cat "${hierarchy}${file}" >"${dir}/${file}"
    done
  done
}

# kep::node::mine filters the lines of a host snapshot section down to what
# the node makes on the host: mounts under its directory, and its bridge. It
# runs in mount and network namespaces of its own, so the host's other mounts
# and devices (another runtime's /run/containerd or veth devices) are never
# its own, and may change while it runs.
kep::node::mine() {
  awk -v dir="${NODE_DIR}" -v bridge="${NODE_BRIDGE}" '
    index($0, dir) == 1 && (length($0) == length(dir) || substr($0, length(dir) + 1, 1) == "/") { print; next }
    $0 == bridge || index($0, bridge "@") == 1 { print }
  '
}

# kep::node::host_snapshot prints what the node must leave as it found it: the
# host's mount points and network devices that could be the node's
# (kep::node::mine), its cgroup root, and the kubelet's sysctls.
kep::node::host_snapshot() {
  echo "# mounts"
  awk '{print $5}' /proc/self/mountinfo | kep::node::mine | LC_ALL=C sort
  echo "# network devices"
  ip -o link show | awk -F': ' '{print $2}' | kep::node::mine | LC_ALL=C sort
  echo "# cgroups"
  kep::node::cgroups | LC_ALL=C sort
  echo "# sysctls"
  local s
  for s in $(printf '%s\n' "${!NODE_SYSCTLS[@]}" | LC_ALL=C sort); do
    echo "${s}=$(sysctl -n "${s}")"
  done
}
