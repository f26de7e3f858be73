#!/usr/bin/env bash
# Checks that the node is a guest on its host: make test-node plants, before
# it starts the node, what another kubelet and the host's own work would
# have, and while it runs, what another container runtime of the host makes
# then; and checks after the node's last teardown that all of it is still
# there, untouched, and that teardown did not take it for the node's:
#   - a process in a Pod cgroup of another kubelet (kubepods, outside the
#     node's cgroup root), in each of two hierarchies (pids, memory);
#   - a tmpfs mount, and a network device (a bridge);
#   - while the node runs: a tmpfs mount under /run/netns and a veth pair,
#     as a runtime that starts a container makes them.
# Then it removes what it planted.
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
HIERARCHIES=(pids memory)

# cgroup HIERARCHY prints the planted Pod cgroup in HIERARCHY.
cgroup() { echo "/sys/fs/cgroup/$1/kubepods/${NAME}"; }

plant() {
  remove
  mkdir -p "${STATE}" "${MOUNT}"
  setsid sleep infinity </dev/null >/dev/null 2>&1 &
  local pid=$! hierarchy
  # With its start time: remove kills it only while it runs.
  kep::node::pid_record "${pid}" >"${STATE}/pid"
  for hierarchy in "${HIERARCHIES[@]}"; do
    [[ -d "/sys/fs/cgroup/${hierarchy}/kubepods" ]] || touch "${STATE}/made-kubepods-${hierarchy}"
    mkdir -p "$(cgroup "${hierarchy}")"
    echo "${pid}" >"$(cgroup "${hierarchy}")/cgroup.procs"
  done
  mount -t tmpfs "${NAME}" "${MOUNT}"
  ip link add "${DEVICE}" type bridge
}

running() {
  [[ -d /run/netns ]] || touch "${STATE}/made-netns"
  mkdir -p "${NETNS_MOUNT}"
  mountpoint -q "${NETNS_MOUNT}" || mount -t tmpfs "${NAME}" "${NETNS_MOUNT}"
  ip link show "${VETH}" >/dev/null 2>&1 || ip link add "${VETH}" type veth peer name "${VETH%?}0"
}

check() {
  local failed=0 pid hierarchy
  read -r pid _ <"${STATE}/pid"
  kep::node::pid_of "${STATE}/pid" >/dev/null || {
    echo "the process ${pid} planted in another kubelet's Pod cgroups was killed"
    failed=1
  }
  for hierarchy in "${HIERARCHIES[@]}"; do
    grep -qx "${pid}" "$(cgroup "${hierarchy}")/cgroup.procs" 2>/dev/null || {
      echo "the planted process is no longer in $(cgroup "${hierarchy}")"
      failed=1
    }
  done
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
  kep::log::status "the node left another kubelet's Pods, a mount and a network device of the host alone"
}

# remove removes whatever was planted.
remove() {
  local hierarchy pid
  if pid=$(kep::node::pid_of "${STATE}/pid"); then
    kill -KILL "${pid}" 2>/dev/null || true
  fi
  for hierarchy in "${HIERARCHIES[@]}"; do
    kep::util::poll 10 rmdir_gone "$(cgroup "${hierarchy}")" || true
    if [[ -f "${STATE}/made-kubepods-${hierarchy}" ]]; then
      rmdir "/sys/fs/cgroup/${hierarchy}/kubepods" 2>/dev/null || true
    fi
  done
  ! mountpoint -q "${MOUNT}" 2>/dev/null || umount "${MOUNT}"
  ip link del "${DEVICE}" 2>/dev/null || true
  ! mountpoint -q "${NETNS_MOUNT}" 2>/dev/null || umount "${NETNS_MOUNT}"
  rmdir "${NETNS_MOUNT}" 2>/dev/null || true
  [[ ! -f "${STATE}/made-netns" ]] || rmdir /run/netns 2>/dev/null || true
  ip link del "${VETH}" 2>/dev/null || true
  rm -rf "${STATE}"
}

# rmdir_gone DIR removes the empty cgroup DIR, and succeeds once it is gone: a
# killed process leaves its cgroup a moment later.
rmdir_gone() {
  [[ ! -d "$1" ]] || rmdir "$1" 2>/dev/null
}

case "${1:-}" in
  plant) plant ;;
  running) running && touch "${STATE}/running" ;;
  check) check ;;
  remove) remove ;;
  *) kep::log::error_exit "usage: hack/internal/node-guest.sh plant|check|remove" ;;
esac
