#!/usr/bin/env bash
# Restarts the running cluster's API server with MutableContainerProbes set
# to true or false, as an operator turns the gate on or off (the rollout
# order, docs/changing-probes.md). Returns once it is ready.
#
#   hack/node-restart-apiserver.sh true|false
set -euo pipefail
# shellcheck source=hack/lib/init.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/init.sh"
# shellcheck source=hack/lib/node.sh
source "${ROOT}/hack/lib/node.sh"

gate=${1:-}
[[ "${gate}" == true || "${gate}" == false ]] || kep::log::error_exit "usage: hack/node-restart-apiserver.sh true|false"
kep::node::init_pid >/dev/null || kep::log::error_exit "the node is not running; start it with 'make node-up'"
kep::node::set_option NODE_APISERVER_GATE "${gate}"
command=()
kep::util::lines command kep::node::apiserver_command 1
kep::node::restart 1 kube-apiserver "${command[@]}"
kep::util::poll 120 "${BIN}/kubectl" --kubeconfig "${NODE_KUBECONFIG}" get --raw /readyz ||
  kep::log::error_exit "the API server did not come back; see ${NODE_LOGS#"${ROOT}/"}/kube-apiserver.log"
kep::log::status "kube-apiserver restarted with MutableContainerProbes=${gate}"
