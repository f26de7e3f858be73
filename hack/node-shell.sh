#!/usr/bin/env bash
# Opens a shell (or runs a command) inside the namespaces of the running
# single-node cluster, where Pod IPs and the node's ports are reachable, with
# KUBECONFIG set and the node's binaries (kubectl, ctr, runc) on PATH.
#
#   hack/node-shell.sh
#   hack/node-shell.sh ctr -n k8s.io containers list
set -euo pipefail
# shellcheck source=hack/lib/init.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/init.sh"
# shellcheck source=hack/lib/node.sh
source "${ROOT}/hack/lib/node.sh"

(($#)) || set -- bash
kep::node::init_pid >/dev/null || kep::log::error_exit "the node is not running (make node-up starts it)"
# The binaries the node runs, whatever BASE this shell has: the options it
# was started with name them.
kube_bin=$(
  # shellcheck source=/dev/null
  source "${NODE_ENV}"
  echo "${NODE_KUBE_BIN}"
)
kep::node::exec env KUBECONFIG="${NODE_CONF}/admin.kubeconfig" \
  CONTAINERD_ADDRESS=/run/containerd/containerd.sock CONTAINERD_NAMESPACE=k8s.io \
  PATH="${kube_bin}:${NODE_BIN}:${PATH}" "$@"
