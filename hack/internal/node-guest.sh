#!/usr/bin/env bash
# Checks that the node is a guest on its host: make test-node plants, before
# it starts the node, what another kubelet and the host's own work would
# have, and while it runs, what another container runtime of the host makes
# then; and checks after the node's last teardown that all of it is still
# there, untouched, and that teardown did not take it for the node's:
#   - a process in a Pod cgroup of another kubelet (kubepods, outside the
#     node's cgroup root), in every cgroup v1 hierarchy of the host; where
#     the host has a kubepods already, another kubelet's, nothing is planted
#     in it: its processes are recorded, and those gone at the end are said;
#   - processes named kubelet and containerd, as another node's;
#   - a tmpfs mount, and a network device (a bridge);
#   - while the node runs: a tmpfs mount under /run/netns and a veth pair,
#     as a runtime that starts a container makes them.
# Then it removes what it planted, and only that.
#
#   hack/internal/node-guest.sh plant     before the node starts
#   hack/internal/node-guest.sh running   while it runs
#   hack/internal/node-guest.sh check     after it is torn down
#   hack/internal/node-guest.sh remove    what was planted, if anything
set -euo pipefail
# shellcheck source=hack/lib/init.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/init.sh"
# shellcheck source=hack/lib/node.sh
source "${ROOT}/hack/lib/node.sh"

# Outside NODE_DIR, whose mounts are the node's.
STATE="${OUTPUT}/node-guest"
NAME=kep-6318-guest
MOUNT="${STATE}/mount"
DEVICE=kepguest0
# What a container runtime of the host makes while the node runs.
NETNS_MOUNT=/run/netns/kep-6318-guest
VETH=veth6318beef
# The host's cgroup v1 hierarchies.
mapfile -t HIERARCHIES < <(awk '$3 == "cgroup" {print $2}' /proc/self/mounts)
# The names of the planted processes outside kubepods.
DAEMONS=(kubelet containerd)

# cgroup HIERARCHY prints the planted Pod cgroup in HIERARCHY.
cgroup() { echo "$1/kubepods/${NAME}"; }
# made WHAT records that WHAT was planted; planted WHAT says whether it was.
made() { touch "${STATE}/made-${1//\//_}"; }
planted() { [[ -f "${STATE}/made-${1//\//_}" ]]; }

# start NAME starts sleep as a process named NAME, and records it with its
# start time: remove kills it only while it runs.
start() {
  cp "$(command -v sleep)" "${STATE}/bin/$1"
  setsid "${STATE}/bin/$1" infinity </dev/null >/dev/null 2>&1 &
  kep::node::pid_record "$!" >"${STATE}/pid-$1"
}

plant() {
  remove
  mkdir -p "${STATE}/bin" "${STATE}/foreign" "${MOUNT}"
  local name hierarchy dir pid file
  for name in pod "${DAEMONS[@]}"; do
    start "${name}"
  done
  read -r pid _ <"${STATE}/pid-pod"
  for hierarchy in "${HIERARCHIES[@]}"; do
    if [[ -d "${hierarchy}/kubepods" ]] && ! planted "${hierarchy}/kubepods"; then
      # Another kubelet's: its processes are recorded, and nothing planted.
      while read -r file; do
        while read -r name; do
          kep::node::pid_record "${name}" || true
        done <"${file}"
      done < <(find "${hierarchy}/kubepods" -name cgroup.procs) >>"${STATE}/foreign/pids"
      continue
    fi
    made "${hierarchy}/kubepods"
    for dir in "${hierarchy}/kubepods" "$(cgroup "${hierarchy}")"; do
      mkdir "${dir}"
      # A cpuset cgroup takes no process until it has CPUs and memory nodes.
      if [[ -f "${dir}/cpuset.cpus" ]]; then
        cat "${dir%/*}/cpuset.cpus" >"${dir}/cpuset.cpus"
        cat "${dir%/*}/cpuset.mems" >"${dir}/cpuset.mems"
      fi
    done
    echo "${pid}" >"$(cgroup "${hierarchy}")/cgroup.procs"
  done
  mount -t tmpfs "${NAME}" "${MOUNT}"
  ip link add "${DEVICE}" type bridge
  made device
}

running() {
  [[ -d /run/netns ]] || made netns
  if ! mountpoint -q "${NETNS_MOUNT}" 2>/dev/null; then
    [[ -d "${NETNS_MOUNT}" ]] || made netns-dir
    mkdir -p "${NETNS_MOUNT}"
    mount -t tmpfs "${NAME}" "${NETNS_MOUNT}"
    made netns-mount
  fi
  if ! ip link show "${VETH}" >/dev/null 2>&1; then
    ip link add "${VETH}" type veth peer name "${VETH%?}0"
    made veth
  fi
}

check() {
  local failed=0 pid name hierarchy gone=() record
  for name in pod "${DAEMONS[@]}"; do
    read -r pid _ <"${STATE}/pid-${name}"
    kep::node::pid_of "${STATE}/pid-${name}" >/dev/null || {
      echo "the planted process ${pid} (${name}) was killed"
      failed=1
    }
  done
  read -r pid _ <"${STATE}/pid-pod"
  for hierarchy in "${HIERARCHIES[@]}"; do
    planted "${hierarchy}/kubepods" || continue
    grep -qx "${pid}" "$(cgroup "${hierarchy}")/cgroup.procs" 2>/dev/null || {
      echo "the planted process is no longer in $(cgroup "${hierarchy}")"
      failed=1
    }
  done
  if [[ -s "${STATE}/foreign/pids" ]]; then
    while read -r record; do
      echo "${record}" >"${STATE}/foreign/one"
      kep::node::pid_of "${STATE}/foreign/one" >/dev/null || gone+=("${record%% *}")
    done <"${STATE}/foreign/pids"
    ((${#gone[@]} == 0)) ||
      kep::log::status "of the processes of another kubelet's Pods, ${#gone[@]} ended while the node ran (${gone[*]}): they may have ended on their own"
  fi
  mountpoint -q "${MOUNT}" || {
    echo "the planted mount ${MOUNT} is gone"
    failed=1
  }
  ip link show "${DEVICE}" >/dev/null 2>&1 || {
    echo "the planted network device ${DEVICE} is gone"
    failed=1
  }
  if [[ -f "${STATE}/running" ]]; then
    mountpoint -q "${NETNS_MOUNT}" || {
      echo "the mount ${NETNS_MOUNT}, planted while the node ran, is gone"
      failed=1
    }
    ip link show "${VETH}" >/dev/null 2>&1 || {
      echo "the network device ${VETH}, planted while the node ran, is gone"
      failed=1
    }
  fi
  remove
  ((failed == 0)) || kep::log::error_exit "the node touched what it did not create (above)"
  kep::log::status "the node left another kubelet's Pods, processes named as its daemons, a mount and a network device of the host alone"
}

# remove removes whatever was planted, and only that.
remove() {
  [[ -d "${STATE}" ]] || return 0
  local name pid hierarchy
  for name in pod "${DAEMONS[@]}"; do
    if pid=$(kep::node::pid_of "${STATE}/pid-${name}"); then
      kill -KILL "${pid}" 2>/dev/null || true
    fi
  done
  for hierarchy in "${HIERARCHIES[@]}"; do
    planted "${hierarchy}/kubepods" || continue
    kep::util::poll 10 rmdir_gone "$(cgroup "${hierarchy}")" || true
    rmdir "${hierarchy}/kubepods" 2>/dev/null || true
  done
  ! mountpoint -q "${MOUNT}" 2>/dev/null || umount "${MOUNT}"
  ! planted device || ip link del "${DEVICE}" 2>/dev/null || true
  if planted netns-mount; then
    ! mountpoint -q "${NETNS_MOUNT}" 2>/dev/null || umount "${NETNS_MOUNT}"
  fi
  ! planted netns-dir || rmdir "${NETNS_MOUNT}" 2>/dev/null || true
  ! planted netns || rmdir /run/netns 2>/dev/null || true
  ! planted veth || ip link del "${VETH}" 2>/dev/null || true
  rm -rf "${STATE}"
}

# rmdir_gone DIR removes the empty cgroup DIR, and succeeds once it is gone: a
# killed process leaves its cgroup a moment later.
rmdir_gone() {
  [[ ! -d "$1" ]] || rmdir "$1" 2>/dev/null
}

case "${1:-}" in
  plant) plant ;;
  running)
    running
    touch "${STATE}/running"
    ;;
  check) check ;;
  remove) remove ;;
  *) kep::log::error_exit "usage: hack/internal/node-guest.sh plant|running|check|remove" ;;
esac
