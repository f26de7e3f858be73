#!/usr/bin/env bash
# A control plane on loopback: the base's etcd (ETCD) and kube-apiserver (from
# BIN), with MutableContainerProbes set to GATE. The control-plane mode of
# make run and make test-e2e (test/e2e) start it; it builds nothing.
#
#   hack/internal/loopback-control-plane.sh DIR API_PORT ETCD_PORT GATE
#
# It keeps its certificates, data and logs in DIR, writes DIR/kubeconfig,
# prints "ready" on standard output once the API server serves /readyz, and
# runs until SIGTERM or SIGINT, when it stops the API server and then etcd.
# It exits 1 when either exits on its own.
set -euo pipefail
# shellcheck source=hack/lib/init.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/init.sh"
# shellcheck source=hack/lib/control-plane.sh
source "${ROOT}/hack/lib/control-plane.sh"

(($# == 4)) || kep::log::error_exit "usage: $0 DIR API_PORT ETCD_PORT GATE"
dir=$1 port=$2 etcd_port=$3 gate=$4
[[ -x "${ETCD}" ]] || kep::log::error_exit "${ETCD} is missing: make test-e2e and make run build it."

pids=()
# stop terminates the components in the reverse order of their start, so the
# API server shuts down while etcd is still there, and kills what has not
# exited after 15 seconds.
stop() {
  local i pid
  for ((i = ${#pids[@]} - 1; i >= 0; i--)); do
    pid=${pids[i]}
    kill "${pid}" 2>/dev/null || continue
    kep::util::poll 15 exited "${pid}" || kill -9 "${pid}" 2>/dev/null || true
    wait "${pid}" 2>/dev/null || true
  done
  pids=()
}
exited() { ! kill -0 "$1" 2>/dev/null; }
all_running() {
  local pid
  for pid in "${pids[@]}"; do
    kill -0 "${pid}" 2>/dev/null || return 1
  done
}

# start_component NAME CMD... runs a component with its output in DIR/NAME.log.
start_component() {
  local name=$1
  shift
  "$@" >"${dir}/${name}.log" 2>&1 &
  pids+=($!)
}

# wait_for NAME CMD... waits two minutes for CMD while every component runs.
wait_for() {
  local name=$1 rc=0
  shift
  kep::util::poll 120 --while all_running "$@" || rc=$?
  ((rc == 0)) && return 0
  tail -n 20 "${dir}/${name}.log" >&2
  ((rc == 2)) && kep::log::error_exit "a component exited before ${name} was ready; the logs are in ${dir}"
  kep::log::error_exit "${name} did not become ready within 120s; its log is ${dir}/${name}.log"
}

trap stop EXIT
trap 'exit 0' INT TERM

rm -rf "${dir}"
mkdir -p "${dir}"
kep::control_plane::write_pki "${dir}/certs"
kep::control_plane::write_kubeconfig "${dir}/kubeconfig" "https://127.0.0.1:${port}" "${dir}/certs"

etcd_flags=() apiserver_flags=()
kep::util::lines etcd_flags kep::control_plane::etcd_flags local "${dir}/etcd" "${etcd_port}" "$((etcd_port + 1))"
start_component etcd "${ETCD}" "${etcd_flags[@]}"
wait_for etcd curl -fsS "http://127.0.0.1:${etcd_port}/health"

# No node runs here: the API server advertises loopback, and does not write
# that address into the kubernetes Service's endpoints.
kep::util::lines apiserver_flags kep::control_plane::apiserver_flags "${dir}/certs" "${etcd_port}" "${port}" "${gate}"
start_component kube-apiserver "${BIN}/kube-apiserver" "${apiserver_flags[@]}" \
  --bind-address 127.0.0.1 --advertise-address 127.0.0.1 --endpoint-reconciler-type none
wait_for kube-apiserver "${BIN}/kubectl" --kubeconfig "${dir}/kubeconfig" get --raw /readyz
echo ready

wait -n "${pids[@]}" || true
kep::log::error_exit "a component exited; the logs are in ${dir}"
