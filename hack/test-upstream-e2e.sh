#!/usr/bin/env bash
# Runs upstream's e2e specs from the patched tree against the real node
# (make test-upstream-e2e): upstream's probe, restartable init container and
# Pod readiness specs of test/e2e/common/node, and the feature's own specs,
# in three configurations:
#   on     patched binaries, MutableContainerProbes on (API server and kubelet)
#   off    patched binaries, the gate off; the feature's specs are skipped
# Specs of other features that are off by default are skipped everywhere.
#   base   the unpatched base release, built from _output/base
# It prints one table of spec -> result per configuration (cmd/e2e-table),
# and fails if the patched node fails a spec that the base passes, or a
# configuration did not complete its suite (cmd/e2e-table says which). Needs root
# on Linux, as make test-node does. See hack/lib/e2e.sh for how the e2e
# binary and the images are built.
#
#   WHAT="on off base"   the configurations to run, in order
#   FOCUS=regexp         the specs to run (default: E2E_FOCUS)
#   PARALLELISM=6        Ginkgo processes running specs in parallel
set -euo pipefail
# shellcheck source=hack/lib/init.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/init.sh"
# shellcheck source=hack/lib/e2e.sh
source "${ROOT}/hack/lib/e2e.sh"
# shellcheck source=hack/lib/node.sh
source "${ROOT}/hack/lib/node.sh"
# shellcheck source=hack/lib/tree.sh
source "${ROOT}/hack/lib/tree.sh"

kep::node::require "make test-upstream-e2e"

read -ra configs <<<"${WHAT:-on off base}"
for config in "${configs[@]}"; do
  [[ "${config}" =~ ^(on|off|base)$ ]] || kep::log::error_exit "unknown configuration ${config}; use on, off or base"
done

kep::tree::ensure_checkout
kep::node::build
if [[ " ${configs[*]} " == *" base "* ]]; then
  kep::node::build_base_binaries "${NODE_KUBE_TARGETS[@]}"
fi
kep::e2e::build
kep::e2e::build_images busybox agnhost pause

# The node that is up goes on every path: an interrupt (Ctrl-C) does not
# reach its processes, which run in a session of their own. It reaches
# Ginkgo, which reports the specs it ran and exits; the run then takes the
# node down, runs no other configuration, prints the table and fails.
node_up=0 interrupted=0
cleanup() { ((node_up == 0)) || "${ROOT}/hack/node-down.sh"; }
trap cleanup EXIT
trap 'interrupted=1' INT
for config in "${configs[@]}"; do
  options=(--no-build)
  labels=${E2E_LABELS_GATE_OFF}
  case "${config}" in
    on) labels=${E2E_LABELS_GATE_ON} ;;
    off) options+=(--apiserver-gate=false --kubelet-gate=false) ;;
    base) options+=(--base) ;;
  esac
  kep::log::status "upstream e2e: configuration ${config}"
  rm -f "${E2E_DIR}/${config}.json"
  # Upstream's specs run on one node, whatever NODES says.
  if NODES=1 "${ROOT}/hack/node-up.sh" "${options[@]}"; then
    node_up=1
    # A failed spec shows in the table, and so does a configuration that
    # runs none (the feature's specs with the gate off): the table decides.
    kep::e2e::run "${config}" "${FOCUS:-${E2E_FOCUS}}" "${labels}" || true
    "${ROOT}/hack/node-down.sh"
    node_up=0
  fi
  ((interrupted == 0)) || break
done
rc=0
(cd "${ROOT}" && go run ./cmd/e2e-table -dir "${E2E_DIR}" "${configs[@]}") | tee "${E2E_DIR}/table.md" || rc=$?
((interrupted == 0)) || kep::log::error_exit "interrupted; the table above is of what ran"
exit "${rc}"
