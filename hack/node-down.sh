#!/usr/bin/env bash
# Stops the single-node cluster that hack/node-up.sh started, and checks that
# it left nothing behind: no process of its namespaces, nothing under its
# cgroup root (NODE_CGROUP_ROOT), no mount or network device of its own on
# the host, none of the host's paths that its daemons make by default
# (NODE_HOST_DEFAULT_PATHS) that was not there, and the host's sysctls as
# they were before it started; a host path that appeared fails one teardown,
# which then takes it as the host's. It touches
# only what the node created: another kubelet's Pods (kubepods), mounts and
# devices are left alone. Safe to run when nothing is running, and after a
# failed start. Exits non-zero if anything is left.
set -euo pipefail
# shellcheck source=hack/lib/init.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/init.sh"
# shellcheck source=hack/lib/node.sh
source "${ROOT}/hack/lib/node.sh"

# pids_in_namespace prints the processes of the cluster's PID namespace.
# Containers run in PID namespaces nested in it, and are found through their
# cgroups instead.
pids_in_namespace() {
  local ns=$1 link
  for link in /proc/[0-9]*/ns/pid; do
    [[ "$(readlink "${link}" 2>/dev/null)" == "${ns}" ]] && basename "$(dirname "$(dirname "${link}")")"
  done
  return 0
}

# pids_in_cgroups prints the processes under the node's cgroup root.
pids_in_cgroups() {
  local dir
  for dir in $(kep::node::cgroups); do
    find "${dir}" -name cgroup.procs -exec cat {} + 2>/dev/null
  done
}

# kill_file FILE kills the process whose PID FILE holds (kep::node::pid_record),
# if it is still that process: one that reused the PID since is left alone.
kill_file() {
  local pid
  if pid=$(kep::node::pid_of "$1"); then
    kill -KILL "${pid}" 2>/dev/null || true
  fi
  rm -f "$1"
}

wait_gone() {
  local what=$1 deadline=$((SECONDS + 30))
  shift
  while [[ -n "$("$@")" ]]; do
    if ((SECONDS >= deadline)); then
      echo "left behind: ${what}: $("$@" | tr '\n' ' ')"
      return 1
    fi
    sleep 0.2
  done
}

main() {
  local failed=0 ns=""
  [[ -f "${NODE_DIR}/pidns" ]] && ns=$(cat "${NODE_DIR}/pidns")

  kill_file "${NODE_DIR}/forward.pid"
  # Killing the namespace's init kills every process in the namespace,
  # including containerd's shims and, nested below, the containers.
  kill_file "${NODE_INIT_PIDFILE}"
  kill_file "${NODE2_INIT_PIDFILE}"
  kill_file "${NODE_DIR}/unshare.pid"
  if [[ -n "${ns}" ]]; then
    wait_gone "processes in ${ns}" pids_in_namespace "${ns}" || failed=1
    rm -f "${NODE_DIR}/pidns"
  fi
  # A container that escaped the namespace would still be in a Pod cgroup,
  # under the node's cgroup root.
  local pid
  for pid in $(pids_in_cgroups); do
    kill -KILL "${pid}" 2>/dev/null || true
  done
  wait_gone "processes under the cgroup root ${NODE_CGROUP_ROOT}" pids_in_cgroups || failed=1
  local dir
  for dir in $(kep::node::cgroups); do
    find "${dir}" -depth -type d -exec rmdir {} + 2>/dev/null || true
  done
  [[ -z "$(kep::node::cgroups)" ]] || {
    echo "left behind: cgroups $(kep::node::cgroups | tr '\n' ' ')"
    failed=1
  }

  if [[ -f "${NODE_DIR}/host.before" ]]; then
    # The kubelet sets these host-wide; put back what they were, where they
    # have its value. One that another process changed meanwhile is left as
    # it is, and said. A sysctl that cannot be restored is reported, and the
    # check still runs.
    local name before now
    while IFS='=' read -r name before; do
      now=$(sysctl -n "${name}")
      if [[ "${now}" == "${before}" ]]; then
        continue
      elif [[ "${now}" == "${NODE_SYSCTLS[${name}]}" ]]; then
        sysctl -q -w "${name}=${before}" >/dev/null || {
          echo "could not restore ${name}=${before}"
          failed=1
        }
      else
        kep::log::status "${name} is ${now}, neither what it was before the node (${before}) nor what its kubelet sets: another process changed it; left as it is"
      fi
    done < <(sed -n '/^# sysctls$/,$p' "${NODE_DIR}/host.before" | sed 1d)
    # The sysctls are checked above. A snapshot that an older harness took,
    # without the host's paths, is compared without them.
    local now paths
    now=$(kep::node::host_snapshot | sed '/^# sysctls$/,$d')
    grep -qx '# host paths' "${NODE_DIR}/host.before" || now=$(sed '/^# host paths$/,/^# mounts$/{/^# mounts$/!d;}' <<<"${now}")
    if ! diff -u <(sed '/^# sysctls$/,$d' "${NODE_DIR}/host.before") - <<<"${now}" >"${NODE_DIR}/host.diff"; then
      echo "the host differs from before the node started:"
      cat "${NODE_DIR}/host.diff"
      failed=1
      # A host path that appeared is not teardown's to remove, nor to fail
      # on again: the next teardown compares with it as it is now, so that
      # it does not hold every node target back.
      paths=$(sed -n '/^# host paths$/,/^# mounts$/{/^#/!p;}' <<<"${now}")
      awk -v paths="${paths}" '/^# host paths$/ { print; if (paths != "") print paths; skip = 1; next } /^# mounts$/ { skip = 0 } !skip' \
        "${NODE_DIR}/host.before" >"${NODE_DIR}/host.before.new"
      mv "${NODE_DIR}/host.before.new" "${NODE_DIR}/host.before"
    else
      rm -f "${NODE_DIR}/host.before" "${NODE_DIR}/host.diff"
    fi
  fi
  if ((failed)); then
    kep::log::error_exit "teardown left something behind (above)"
  fi
  kep::log::status "node stopped; no process, mount, cgroup, network device, host path or sysctl change left"
}

main "$@"
