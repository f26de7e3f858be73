#!/usr/bin/env bash
# Starts a real single-node cluster from the patched tree with
# MutableContainerProbes on (hack/node-up.sh), walks through changing the
# probes of a running container with kubectl (hack/walkthrough-node.sh), then
# stays up until Ctrl-C.
#
# On a machine that cannot run a node, it says what is missing and offers
# the control-plane-only mode: etcd and kube-apiserver on loopback, and a
# walkthrough of what the API server accepts and rejects (Pods stay Pending).
#
#   KEP_RUN_MODE=control-plane   the control-plane-only mode
#   KEP_API_PORT=6443            the API server's port on 127.0.0.1
#   KEP_RUN_EXIT=1               stop after the walkthrough instead of waiting
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
source "${ROOT}/hack/lib-node.sh"

RUN_DIR="${OUTPUT}/run"
PORT="${KEP_API_PORT:-6443}"
ETCD_PORT="${KEP_RUN_ETCD_PORT:-23790}"
KUBECONFIG_FILE="${RUN_DIR}/kubeconfig"
PIDFILE="${RUN_DIR}/pids"

already_running() {
  [[ -f "${PIDFILE}" ]] || return 1
  local pid
  while read -r pid; do
    kill -0 "${pid}" 2>/dev/null && return 0
  done <"${PIDFILE}"
  return 1
}

require() {
  command -v "$1" >/dev/null || die "'$1' is needed by make run. Install it (on Debian: apt-get install -y $2) and run 'make run' again."
}

build() {
  WHAT="cmd/kube-apiserver cmd/kubectl" "${ROOT}/hack/build.sh"
  build_etcd
}

pids=()
# stop terminates the components in the reverse order of their start, so the
# API server shuts down while etcd is still there, and kills what has not
# exited after 15 seconds.
stop() {
  local i pid
  for ((i = ${#pids[@]} - 1; i >= 0; i--)); do
    pid=${pids[i]}
    kill "${pid}" 2>/dev/null || continue
    poll 15 exited "${pid}" || kill -9 "${pid}" 2>/dev/null || true
    wait "${pid}" 2>/dev/null || true
  done
  rm -f "${PIDFILE}"
  pids=()
}

exited() { ! kill -0 "$1" 2>/dev/null; }
all_running() {
  local pid
  for pid in "${pids[@]}"; do
    kill -0 "${pid}" 2>/dev/null || return 1
  done
}

# wait_for WHAT LOG CMD... waits a minute for CMD while every component runs.
wait_for() {
  local what=$1 log=$2 rc=0
  shift 2
  poll 60 --while all_running "$@" || rc=$?
  ((rc == 0)) && return 0
  tail -n 20 "${log}" >&2
  ((rc == 2)) && die "${what} exited; its log is ${log}"
  die "${what} did not become ready within 60s; its log is ${log}"
}

start() {
  rm -rf "${RUN_DIR}"
  mkdir -p "${RUN_DIR}/certs"
  openssl genrsa -out "${RUN_DIR}/certs/sa.key" 2048 2>/dev/null
  openssl rsa -in "${RUN_DIR}/certs/sa.key" -pubout -out "${RUN_DIR}/certs/sa.pub" 2>/dev/null
  local token
  token=$(openssl rand -hex 16)
  echo "${token},admin,admin,system:masters" >"${RUN_DIR}/tokens.csv"

  log "starting etcd on 127.0.0.1:${ETCD_PORT}"
  "${BIN}/etcd" --name local --data-dir "${RUN_DIR}/etcd" \
    --listen-client-urls "http://127.0.0.1:${ETCD_PORT}" --advertise-client-urls "http://127.0.0.1:${ETCD_PORT}" \
    --listen-peer-urls "http://127.0.0.1:$((ETCD_PORT + 1))" --initial-advertise-peer-urls "http://127.0.0.1:$((ETCD_PORT + 1))" \
    --initial-cluster "local=http://127.0.0.1:$((ETCD_PORT + 1))" >"${RUN_DIR}/etcd.log" 2>&1 &
  pids+=($!)
  echo "$!" >>"${PIDFILE}"
  wait_for etcd "${RUN_DIR}/etcd.log" curl -fsS "http://127.0.0.1:${ETCD_PORT}/health"

  log "starting kube-apiserver on https://127.0.0.1:${PORT} with --feature-gates=MutableContainerProbes=true"
  "${BIN}/kube-apiserver" --etcd-servers "http://127.0.0.1:${ETCD_PORT}" \
    --bind-address 127.0.0.1 --advertise-address 127.0.0.1 --secure-port "${PORT}" \
    --cert-dir "${RUN_DIR}/certs" --token-auth-file "${RUN_DIR}/tokens.csv" \
    --authorization-mode RBAC --service-cluster-ip-range 10.0.0.0/24 --endpoint-reconciler-type none \
    --service-account-issuer https://kubernetes.default.svc.cluster.local \
    --service-account-key-file "${RUN_DIR}/certs/sa.pub" \
    --service-account-signing-key-file "${RUN_DIR}/certs/sa.key" \
    --feature-gates MutableContainerProbes=true >"${RUN_DIR}/kube-apiserver.log" 2>&1 &
  pids+=($!)
  echo "$!" >>"${PIDFILE}"

  local kc=("${BIN}/kubectl" --kubeconfig "${KUBECONFIG_FILE}")
  "${kc[@]}" config set-cluster local --server "https://127.0.0.1:${PORT}" --insecure-skip-tls-verify=true >/dev/null
  "${kc[@]}" config set-credentials admin --token "${token}" >/dev/null
  "${kc[@]}" config set-context local --cluster local --user admin --namespace demo >/dev/null
  "${kc[@]}" config use-context local >/dev/null
  wait_for kube-apiserver "${RUN_DIR}/kube-apiserver.log" "${kc[@]}" get --raw /readyz
}

run_control_plane() {
  if already_running; then
    die "make run is already running (pids $(tr '\n' ' ' <"${PIDFILE}")). Use it with 'export KUBECONFIG=${KUBECONFIG_FILE}', or stop it with Ctrl-C in its terminal."
  fi
  require openssl openssl
  require curl curl
  ensure_checkout
  build
  trap stop EXIT
  trap 'echo; log "stopping"; exit 0' INT TERM
  start
  KUBECONFIG="${KUBECONFIG_FILE}" KUBECTL="${BIN}/kubectl" "${ROOT}/hack/walkthrough-control-plane.sh"

  cat <<EOM

The API server is up, with MutableContainerProbes on. To use it:

  export KUBECONFIG=${KUBECONFIG_FILE}
  ${BIN#"${ROOT}/"}/kubectl get pods

Logs are in ${RUN_DIR#"${ROOT}/"}/. Press Ctrl-C to stop everything.
EOM
  if [[ "${KEP_RUN_EXIT:-0}" == 1 ]]; then
    return
  fi
  wait -n "${pids[@]}" || true
  die "a component exited; see the logs in ${RUN_DIR}"
}

run_node() {
  local pid
  if pid=$(node_init_pid); then
    die "a node is already running (init pid ${pid}). Use it with 'export KUBECONFIG=${NODE_KUBECONFIG}', or stop it with Ctrl-C in its terminal or hack/node-down.sh."
  fi
  require openssl openssl
  "${ROOT}/hack/node-up.sh"
  trap '"${ROOT}/hack/node-down.sh"' EXIT
  trap 'echo; log "stopping"; exit 0' INT TERM
  KUBECONFIG="${NODE_KUBECONFIG}" KUBECTL="${BIN}/kubectl" PROBE_IMAGE="${PROBE_IMAGE}" "${ROOT}/hack/walkthrough-node.sh"

  cat <<EOM

The single-node cluster is up, with MutableContainerProbes on in
kube-apiserver and the kubelet. To use it:

  export KUBECONFIG=${NODE_KUBECONFIG}
  ${BIN#"${ROOT}/"}/kubectl -n demo get pods

Pods run the images ${PROBE_IMAGE}
(test/images/probe-target, with imagePullPolicy: Never) and ${PAUSE_IMAGE};
nothing is pulled. A shell inside the node's namespaces, where Pod IPs are
reachable: hack/node-shell.sh. Logs are in ${NODE_STATE#"${ROOT}/"}/logs/.
Press Ctrl-C to stop everything.
EOM
  if [[ "${KEP_RUN_EXIT:-0}" == 1 ]]; then
    return
  fi
  while node_init_pid >/dev/null; do
    sleep 2
  done
  die "the node stopped; see the logs in ${NODE_STATE}/logs"
}

main() {
  local mode="${KEP_RUN_MODE:-node}" missing answer
  if [[ "${mode}" == node ]]; then
    missing=$(node_missing)
    if [[ -n "${missing}" ]]; then
      printf '!!! make run starts a real node, and this machine lacks:\n%s\n' "${missing}" >&2
      echo "The control-plane-only mode needs none of it: etcd and kube-apiserver on loopback, and a walkthrough of what the API server accepts and rejects (Pods stay Pending)." >&2
      if [[ -t 0 ]]; then
        read -r -p "Start it instead? [y/N] " answer
        [[ "${answer}" == [yY]* ]] || exit 1
        mode=control-plane
      else
        die "run 'KEP_RUN_MODE=control-plane make run' for it"
      fi
    fi
  fi
  case "${mode}" in
    node) run_node ;;
    control-plane) run_control_plane ;;
    *) die "KEP_RUN_MODE=${mode}: want node or control-plane" ;;
  esac
}

main "$@"
