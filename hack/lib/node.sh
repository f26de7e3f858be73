# shellcheck shell=bash
# Shared settings and helpers for the single-node cluster (hack/node-*.sh),
# and its second node with NODES=2.
#
# The node runs containerd, runc and the CNI bridge plugin from the Go module
# proxy, and etcd, kube-apiserver, kube-controller-manager, kube-scheduler
# and the kubelet from the patched tree (or, for the skew test, the base's).
# Its files live under _output/node, and the paths its daemons would make on
# the host by default under its own /var/lib; on the host it makes only its
# cgroup root (NODE_CGROUP_ROOT) and sets the kubelet's sysctls, which
# teardown removes and restores.

# Sourced once, whatever sources it.
[[ " ${HARNESS_SOURCED:-} " != *" node "* ]] || return 0
HARNESS_SOURCED+=" node"
# shellcheck source=hack/lib/golang.sh
source "${ROOT}/hack/lib/golang.sh"
# shellcheck source=hack/lib/sidebyside.sh
source "${ROOT}/hack/lib/sidebyside.sh"
# shellcheck source=hack/lib/control-plane.sh
source "${ROOT}/hack/lib/control-plane.sh"

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

# NODES=2 (make run, make node-up) adds a second node, kep-node-2, in the
# same namespaces: its own containerd (its own /run, /var/lib and /var/log,
# in a mount namespace of its own), kubelet, bridge and Pod CIDR, and a
# cgroup root below the first node's. NODE2_GATE says which kubelet it runs:
# base (the default), the unpatched base release's, which has no such gate;
# on or off, the patched kubelet with MutableContainerProbes so.
NODES="${NODES:-1}"
NODE2_GATE="${NODE2_GATE:-base}"
NODE2_NAME=kep-node-2
NODE2_BRIDGE=kep1
NODE2_IP=10.88.1.1
POD2_CIDR=10.88.1.0/24
# The second node's runtime and kubelet: run, lib and log are bind-mounted
# over /run, /var/lib and /var/log in its mount namespace; conf and logs as
# the first node's.
NODE2_HOME="${NODE_STATE}/node-2"
NODE2_CGROUP_ROOT="${NODE_CGROUP_ROOT}/node-2"
# The PID, in the host's PID namespace, of the second node's init, whose
# mount namespace is the second node's.
NODE2_INIT_PIDFILE="${NODE_DIR}/init-2.pid"

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
# With 2, the second node's kubelet (NODE2_KUBELET), which takes the first
# node's admin kubeconfig.
kep::node::kubelet_command() (
  local kubelet
  # shellcheck source=/dev/null # written by hack/node-up.sh
  source "${NODE_ENV}"
  if [[ "${1:-1}" == 2 ]]; then
    printf '%s\n' "${NODE2_KUBELET}" --config "${NODE2_HOME}/conf/kubelet.yaml" \
      --kubeconfig "${NODE_CONF}/admin.kubeconfig" --hostname-override "${NODE2_NAME}" \
      --node-ip "${NODE2_IP}" --v 2
    return
  fi
  kubelet=${NODE_KUBE_BIN}/kubelet
  [[ -z "${NODE_KUBELET}" ]] || kubelet=${NODE_KUBELET}
  printf '%s\n' "${kubelet}" --config "${NODE_CONF}/kubelet.yaml" \
    --kubeconfig "${NODE_CONF}/admin.kubeconfig" --hostname-override "${NODE_NAME}" \
    --node-ip "${NODE_IP}" --v 2
)

# kep::node::apiserver_command N prints, one a line, the node's API server N
# and its flags, from the options in NODE_ENV: the first, on port 6443, with
# NODE_APISERVER_GATE and NODE_APISERVER_ARGS; the second (make test-docs's),
# on 6444, with NODE_APISERVER2_GATE. The base release does not know the
# gate.
kep::node::apiserver_command() (
  # shellcheck source=/dev/null # written by hack/node-up.sh
  source "${NODE_ENV}"
  local port=6443 gate=${NODE_APISERVER_GATE} more=("${NODE_APISERVER_ARGS[@]}")
  [[ "$1" == 1 ]] || port=6444 gate=${NODE_APISERVER2_GATE} more=()
  ((NODE_BASE == 0)) || gate=""
  echo "${NODE_KUBE_BIN}/kube-apiserver"
  kep::control_plane::apiserver_flags "${NODE_CERTS}" 2379 "${port}" "${gate}"
  printf '%s\n' --advertise-address "${NODE_IP}" --kubelet-preferred-address-types InternalIP "${more[@]}"
)

# kep::node::components N prints the file where node N's init records the
# PIDs, in the node's PID namespace, of the components it starts, and
# kep::node::restart those it restarts: NAME PID, a line each.
kep::node::components() {
  if [[ "$1" == 1 ]]; then echo "${NODE_STATE}/components"; else echo "${NODE2_HOME}/components"; fi
}

# kep::node::gone N PID succeeds once the process PID of node N's PID
# namespace has exited and its parent, the node's init, has reaped it.
kep::node::gone() { ! kep::node::exec --node "$1" kill -0 "$2" 2>/dev/null; }

# kep::node::restart N NAME CMD... stops node N's component NAME, as its
# components file last recorded it (SIGTERM, then SIGKILL), and starts CMD in its place, in node N's
# namespaces, its output added to NODE_LOGS/NAME.log. The new process's
# parent exits at once: it becomes a child of the node's init, like the
# first, and ends with it on teardown.
kep::node::restart() {
  local n=$1 name=$2 components pid
  shift 2
  components=$(kep::node::components "${n}")
  pid=$(awk -v name="${name}" '$1 == name {pid = $2} END {print pid}' "${components}")
  [[ -n "${pid}" ]] || kep::log::error_exit "no ${name} in ${components#"${ROOT}/"}"
  # An API server drains its requests for a while: killed after 10 seconds.
  kep::node::exec --node "${n}" kill "${pid}" 2>/dev/null || true
  kep::util::poll 10 kep::node::gone "${n}" "${pid}" || {
    kep::node::exec --node "${n}" kill -KILL "${pid}" 2>/dev/null || true
    kep::util::poll 20 kep::node::gone "${n}" "${pid}" ||
      kep::log::error_exit "${name} (PID ${pid} in the node) did not stop"
  }
  kep::node::exec --node "${n}" setsid bash -c '"$@" >>"'"${NODE_LOGS}/${name}.log"'" 2>&1 & echo "'"${name}"' $!"' \
    "${name}" "$@" >>"${components}"
}

# kep::node::set_option NAME VALUE sets the node's option NAME to VALUE in
# NODE_ENV, for the node's later restarts.
kep::node::set_option() {
  local others
  others=$(grep -v "^$1=" "${NODE_ENV}")
  printf '%s\n%s=%q\n' "${others}" "$1" "$2" >"${NODE_ENV}"
}

# kep::node::second_kubelet says which kubelet the second node runs.
kep::node::second_kubelet() {
  case "${NODE2_GATE}" in
    base) echo "the kubelet of ${BASE_TAG}, without the feature" ;;
    *) echo "the patched kubelet, MutableContainerProbes ${NODE2_GATE}" ;;
  esac
}

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

# kep::node::build_base_binaries TARGET... builds the node's Kubernetes
# components TARGET (NODE_KUBE_TARGETS, or cmd/kubelet) from the unpatched
# base tree into NODE_DIR/base-bin.
kep::node::build_base_binaries() {
  kep::sidebyside::ensure_base_tree
  kep::log::status "building ${*} of ${BASE_TAG}"
  kep::golang::build_binaries "${BASE_ROOT}" "${NODE_DIR}/base-bin" "" "$@"
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
# With --node 2 first, it runs the command in the second node's mount
# namespace, where /run, /var/lib and /var/log are that node's.
kep::node::exec() {
  local pid pidfile="${NODE_INIT_PIDFILE}" name=""
  if [[ "${1:-}" == --node ]]; then
    [[ "$2" == 1 ]] || pidfile=${NODE2_INIT_PIDFILE} name=" ${NODE2_NAME}"
    shift 2
  fi
  if [[ "${HARNESS_NODE_INSIDE:-0}" == 1 && "${pidfile}" == "${NODE_INIT_PIDFILE}" ]]; then
    "$@"
    return
  fi
  pid=$(kep::node::pid_of "${pidfile}") || kep::log::error_exit "the node${name} is not running"
  nsenter --target "${pid}" --mount --net --pid -- "$@"
}

# kep::node::cgroups prints the node's cgroup root in each hierarchy where it exists.
kep::node::cgroups() {
  find /sys/fs/cgroup -mindepth 2 -maxdepth 2 -type d -name "${NODE_CGROUP_ROOT}" 2>/dev/null
}

# kep::node::make_cgroups creates the node's cgroup root in each cgroup v1
# hierarchy, and the second node's below it with NODES=2, as the kubelet's
# cgroupRoot must exist; a cpuset cgroup gets its
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
    ((NODES == 1)) || {
      mkdir -p "${hierarchy}${NODE2_CGROUP_ROOT}"
      for file in cpuset.cpus cpuset.mems; do
        [[ ! -f "${dir}/${file}" ]] || cat "${dir}/${file}" >"${hierarchy}${NODE2_CGROUP_ROOT}/${file}"
      done
    }
  done
}

# kep::node::mine filters the lines of a host snapshot section down to what
# the node makes on the host: mounts under its directory, and its bridges. It
# runs in mount and network namespaces of its own, so the host's other mounts
# and devices (another runtime's /run/containerd or veth devices) are never
# its own, and may change while it runs.
kep::node::mine() {
  awk -v dir="${NODE_DIR}" -v bridges="${NODE_BRIDGE} ${NODE2_BRIDGE}" '
    BEGIN { split(bridges, b, " ") }
    index($0, dir) == 1 && (length($0) == length(dir) || substr($0, length(dir) + 1, 1) == "/") { print; next }
    { for (i in b) if ($0 == b[i] || index($0, b[i] "@") == 1) { print; next } }
  '
}

# NODE_HOST_DEFAULT_PATHS are the host's paths that containerd, the kubelet and
# the controller manager make by default, and that the node's configurations
# move under its own /var/lib (hack/node-up.sh, hack/internal/node-init.sh).
NODE_HOST_DEFAULT_PATHS=(/opt/containerd /usr/libexec/kubernetes)

# kep::node::host_snapshot prints what the node must leave as it found it: the
# host's mount points and network devices that could be the node's
# (kep::node::mine), whether the host's NODE_HOST_DEFAULT_PATHS are there,
# its cgroup root, and the kubelet's sysctls.
kep::node::host_snapshot() {
  local p
  echo "# host paths"
  for p in "${NODE_HOST_DEFAULT_PATHS[@]}"; do
    if [[ -e "${p}" ]]; then echo "${p} is there"; else echo "${p} is not there"; fi
  done
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
