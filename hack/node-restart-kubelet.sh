#!/usr/bin/env bash
# Restarts a kubelet of the running cluster, as an operator restarts a
# node's kubelet: the containers of its Pods keep running. With true or
# false, the kubelet comes back with MutableContainerProbes set so (the gate
# flipped across a restart). Returns once the new kubelet answers its health
# check.
#
#   hack/node-restart-kubelet.sh [--node=2] [--kubelet=base|patched] [true|false]
#
#   --node=2            the second node's kubelet (NODES=2), not the first's
#   --kubelet=base      the unpatched base release's kubelet from now on,
#                       which has no such gate (a downgrade); built by
#                       make node-up NODES=2 or BASE's --base
#   --kubelet=patched   the patched kubelet from now on, with the gate as
#                       given (an upgrade)
set -euo pipefail
# shellcheck source=hack/lib/init.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/init.sh"
# shellcheck source=hack/lib/node.sh
source "${ROOT}/hack/lib/node.sh"

usage="usage: hack/node-restart-kubelet.sh [--node=2] [--kubelet=base|patched] [true|false]"
n=1 kubelet="" gate=""
for arg in "$@"; do
  case "${arg}" in
    --node=1 | --node=2) n=${arg#*=} ;;
    --kubelet=base | --kubelet=patched) kubelet=${arg#*=} ;;
    true | false) gate=${arg} ;;
    *) kep::log::error_exit "${usage}" ;;
  esac
done
[[ "${kubelet}" != patched || -n "${gate}" ]] || kep::log::error_exit "--kubelet=patched needs the gate, true or false: ${usage}"
[[ "${kubelet}" != base || -z "${gate}" ]] || kep::log::error_exit "the base release's kubelet has no MutableContainerProbes gate: ${usage}"
[[ "${HARNESS_NODE_INSIDE:-0}" == 1 ]] || kep::node::init_pid >/dev/null ||
  kep::log::error_exit "the node is not running; start it with 'make node-up'"

conf="${NODE_CONF}/kubelet.yaml" var=NODE_KUBELET name=kubelet health=127.0.0.1 node=${NODE_NAME}
if ((n == 2)); then
  conf="${NODE2_HOME}/conf/kubelet.yaml" var=NODE2_KUBELET name=kubelet-2 health=${NODE2_IP} node=${NODE2_NAME}
  [[ -f "${conf}" ]] || kep::log::error_exit "the cluster has one node; make node-up NODES=2 starts two"
fi

# The kubelet from now on, for this restart and the ones after it.
case "${kubelet}" in
  base)
    [[ -x "${NODE_DIR}/base-bin/kubelet" ]] || kep::log::error_exit "no kubelet of ${BASE_TAG} in ${NODE_DIR#"${ROOT}/"}/base-bin: make node-up NODES=2 builds it"
    kep::node::set_option "${var}" "${NODE_DIR}/base-bin/kubelet"
    sed -i 's/^featureGates: .*$/# the base release: no feature gates/' "${conf}"
    ;;
  patched)
    kep::node::set_option "${var}" "${BIN}/kubelet"
    ;;
esac
if [[ -n "${gate}" ]]; then
  sed -i "s/^featureGates: {MutableContainerProbes: [a-z]*}$\|^# the base release: no feature gates$/featureGates: {MutableContainerProbes: ${gate}}/" "${conf}"
  grep -q "^featureGates: {MutableContainerProbes: ${gate}}$" "${conf}" ||
    kep::log::error_exit "could not set MutableContainerProbes=${gate} in ${conf#"${ROOT}/"}"
fi

command=()
kep::util::lines command kep::node::kubelet_command "${n}"
kep::node::restart "${n}" "${name}" "${command[@]}"
# healthy succeeds once the new kubelet answers on its health port.
healthy() { kep::node::exec --node "${n}" bash -c "exec 3<>/dev/tcp/${health}/10248"; }
kep::util::poll 60 healthy ||
  kep::log::error_exit "the kubelet did not come back; see ${NODE_LOGS#"${ROOT}/"}/${name}.log"
kep::log::status "the kubelet of ${node} restarted${kubelet:+ as the ${kubelet} kubelet}${gate:+ with MutableContainerProbes=${gate}}"
