#!/usr/bin/env bash
# Starts a real single-node cluster from the patched tree with
# MutableContainerProbes on (hack/node-up.sh), walks through changing the
# probes of a running container with kubectl (hack/internal/walkthrough-node.sh), then
# stays up until Ctrl-C. With NODES=2, a second node whose kubelet does not
# have the feature joins (hack/lib/node.sh), and the walkthrough is that of
# a cluster whose kubelets are half upgraded
# (hack/internal/walkthrough-two-nodes.sh).
#
# On a machine that cannot run a node, it says what is missing and offers
# the control-plane-only mode: etcd and kube-apiserver on loopback, and a
# walkthrough of what the API server accepts and rejects (Pods stay Pending).
#
#   KEP_RUN_MODE=control-plane   the control-plane-only mode
#   API_PORT=6443                the API server's port on 127.0.0.1
#   KEP_RUN_EXIT=1               stop after the walkthrough instead of waiting
#   NODES=2                      two nodes, the second's kubelet without the
#                                feature (NODE2_GATE=on or off: the patched
#                                kubelet, with the gate so)
set -euo pipefail
# shellcheck source=hack/lib/init.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/init.sh"
# shellcheck source=hack/lib/node.sh
source "${ROOT}/hack/lib/node.sh"
# shellcheck source=hack/lib/golang.sh
source "${ROOT}/hack/lib/golang.sh"
# shellcheck source=hack/lib/tree.sh
source "${ROOT}/hack/lib/tree.sh"

RUN_DIR="${OUTPUT}/run"
PORT="${API_PORT:-6443}"
ETCD_PORT=23790
PIDFILE="${OUTPUT}/run.pid"

# PIDFILE holds the PID and start time (kep::node::pid_record).
already_running() { kep::node::pid_of "${PIDFILE}" >/dev/null; }

# The PID of hack/internal/loopback-control-plane.sh, in the control-plane mode.
control_plane=""
control_plane_running() { kill -0 "${control_plane}" 2>/dev/null; }

run_control_plane() {
  if already_running; then
    kep::log::error_exit "make run is already running (pid $(kep::node::pid_of "${PIDFILE}")). Use it with 'export KUBECONFIG=${RUN_DIR}/kubeconfig', or stop it with Ctrl-C in its terminal."
  fi
  kep::deps::ensure openssl curl
  kep::tree::ensure_checkout
  WHAT="cmd/kube-apiserver cmd/kubectl" "${ROOT}/hack/build.sh"
  kep::golang::build_etcd

  kep::log::status "starting etcd on 127.0.0.1:${ETCD_PORT} and kube-apiserver on https://127.0.0.1:${PORT} with --feature-gates=MutableContainerProbes=true"
  local ready="${OUTPUT}/run.ready"
  rm -f "${ready}"
  "${ROOT}/hack/internal/loopback-control-plane.sh" "${RUN_DIR}" "${PORT}" "${ETCD_PORT}" true >"${ready}" &
  control_plane=$!
  kep::node::pid_record "${control_plane}" >"${PIDFILE}"
  trap 'kill "${control_plane}" 2>/dev/null || true; wait "${control_plane}" 2>/dev/null || true; rm -f "${PIDFILE}" "${OUTPUT}/run.ready"' EXIT
  trap 'echo; kep::log::status "stopping"; exit 0' INT TERM
  kep::util::poll 300 --while control_plane_running grep -qx ready "${ready}" ||
    kep::log::error_exit "the control plane did not start; the logs are in ${RUN_DIR#"${ROOT}/"}/"

  local kubeconfig="${RUN_DIR}/kubeconfig"
  "${BIN}/kubectl" --kubeconfig "${kubeconfig}" config set-context --current --namespace demo >/dev/null
  KUBECONFIG="${kubeconfig}" KUBECTL="${BIN}/kubectl" "${ROOT}/hack/internal/walkthrough-control-plane.sh"

  cat <<EOM

The API server is up, with MutableContainerProbes on. To use it:

  export KUBECONFIG=${kubeconfig}
  ${BIN#"${ROOT}/"}/kubectl get pods

Logs are in ${RUN_DIR#"${ROOT}/"}/. Press Ctrl-C to stop everything.
EOM
  if [[ "${KEP_RUN_EXIT:-0}" == 1 ]]; then
    return
  fi
  wait "${control_plane}" || true
  kep::log::error_exit "a component exited; see the logs in ${RUN_DIR}"
}

run_node() {
  local pid
  if pid=$(kep::node::init_pid); then
    kep::log::error_exit "a node is already running (init pid ${pid}). Use it with 'export KUBECONFIG=${NODE_KUBECONFIG}', or stop it with Ctrl-C in its terminal or hack/node-down.sh."
  fi
  "${ROOT}/hack/node-up.sh"
  trap '"${ROOT}/hack/node-down.sh"' EXIT
  trap 'echo; kep::log::status "stopping"; exit 0' INT TERM
  local cluster="The single-node cluster is up, with MutableContainerProbes on in
kube-apiserver and the kubelet."
  if ((NODES == 2)); then
    WHAT=cmd/kubectl-probe "${ROOT}/hack/build.sh"
    PATH="${BIN}:${PATH}" KUBECONFIG="${NODE_KUBECONFIG}" KUBECTL="${BIN}/kubectl" PROBE_IMAGE="${PROBE_IMAGE}" \
      "${ROOT}/hack/internal/walkthrough-two-nodes.sh"
    cluster="The two-node cluster is up, with MutableContainerProbes on in
kube-apiserver and ${NODE_NAME}'s kubelet; ${NODE2_NAME} runs
$(kep::node::second_kubelet)."
  else
    KUBECONFIG="${NODE_KUBECONFIG}" KUBECTL="${BIN}/kubectl" PROBE_IMAGE="${PROBE_IMAGE}" "${ROOT}/hack/internal/walkthrough-node.sh"
  fi

  cat <<EOM

${cluster} To use it:

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
  while kep::node::init_pid >/dev/null; do
    sleep 2
  done
  kep::log::error_exit "the node stopped; see the logs in ${NODE_LOGS}"
}

main() {
  local mode="${KEP_RUN_MODE:-node}" missing answer
  if [[ "${mode}" == node ]]; then
    missing=$(kep::node::missing)
    if [[ -n "${missing}" ]]; then
      printf '!!! make run starts a real node, and this machine lacks:\n%s\n' "${missing}" >&2
      echo "The control-plane-only mode needs none of it: etcd and kube-apiserver on loopback, and a walkthrough of what the API server accepts and rejects (Pods stay Pending)." >&2
      if [[ -t 0 ]]; then
        read -r -p "Start it instead? [y/N] " answer
        [[ "${answer}" == [yY]* ]] || exit 1
        mode=control-plane
      else
        kep::log::error_exit "run 'KEP_RUN_MODE=control-plane make run' for it"
      fi
    fi
  fi
  case "${mode}" in
    node) run_node ;;
    control-plane) run_control_plane ;;
    *) kep::log::error_exit "KEP_RUN_MODE=${mode}: want node or control-plane" ;;
  esac
}

main "$@"
