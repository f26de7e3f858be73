#!/usr/bin/env bash
# Runs the user guide, docs/changing-probes.md, on the real single-node
# cluster, top to bottom, with cmd/doc-test: its commands run in a shell on
# the node (hack/node-shell.sh), as on a control-plane host, and the output
# the guide shows is compared with what they print. Needs root on Linux;
# see kep::node::missing in hack/lib/node.sh.
#
# The cluster is started for the guide:
#   - kube-apiserver records probe changes with the guide's own audit policy
#     to /var/log/kubernetes/audit.log;
#   - a second kube-apiserver, on port 6444, has the gate off, as one that a
#     rollout has not reached yet;
#   - the images are agnhost and busybox as make test-upstream-e2e builds
#     them, and a stand-in for postgres:17 (test/images/postgres-stand-in).
# The guide's setup scripts (HTML comments) run there too, with
# NODE_STATIC_PODS set to the kubelet's static Pod directory.
set -euo pipefail
# shellcheck source=hack/lib/init.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/init.sh"
# shellcheck source=hack/lib/e2e.sh
source "${ROOT}/hack/lib/e2e.sh"
# shellcheck source=hack/lib/node.sh
source "${ROOT}/hack/lib/node.sh"
# shellcheck source=hack/lib/tree.sh
source "${ROOT}/hack/lib/tree.sh"

kep::node::require "make test-docs"
# The guide reads the audit log with jq, and calls the API with curl.
kep::deps::ensure jq curl

# WHAT runs another copy of the guide, for example one with a command or an
# output changed, to see the test fail.
GUIDE=$(realpath "${WHAT:-${ROOT}/docs/changing-probes.md}")
DOCS_DIR="${OUTPUT}/docs"
POSTGRES_IMAGE=docker.io/library/postgres:17

kep::tree::ensure_checkout
kep::node::build
# The guide's kubectl probe commands run the plugin from the base's binaries
# (BIN), which are on the node shell's PATH.
WHAT=cmd/kubectl-probe "${ROOT}/hack/build.sh"
kep::e2e::build_images busybox agnhost
kep::log::status "building the postgres stand-in"
rootfs="${NODE_DIR}/rootfs/postgres"
kep::node::busybox_rootfs "${rootfs}"
mkdir -p "${rootfs}/usr/local/bin"
cp "${ROOT}"/test/images/postgres-stand-in/{docker-entrypoint.sh,pg_isready} "${rootfs}/usr/local/bin/"
"${NODE_BIN}/node-image" -rootfs "${rootfs}" -entrypoint /usr/local/bin/docker-entrypoint.sh \
  -tag "${POSTGRES_IMAGE}" -o "${NODE_IMAGES}/postgres-stand-in.tar"
(cd "${ROOT}" && go build -o "${NODE_BIN}/doc-test" ./cmd/doc-test)

rm -rf "${DOCS_DIR}"
mkdir -p "${DOCS_DIR}"
"${NODE_BIN}/doc-test" -extract audit-policy.yaml "${GUIDE}" >"${DOCS_DIR}/audit-policy.yaml"

# The guide runs on one node, whatever NODES says.
NODES=1 "${ROOT}/hack/node-up.sh" --no-build --apiserver2-gate=false \
  --apiserver-args="--audit-policy-file ${DOCS_DIR}/audit-policy.yaml --audit-log-path /var/log/kubernetes/audit.log"
trap '"${ROOT}/hack/node-down.sh"' EXIT

# The guide's commands get a kubeconfig of their own: the guide sets its
# namespace.
cp "${NODE_CONF}/admin.kubeconfig" "${DOCS_DIR}/kubeconfig"
kep::log::status "running ${GUIDE#"${ROOT}/"}"
NODE_STATIC_PODS="${NODE_STATIC_PODS}" "${NODE_BIN}/doc-test" -dir "${DOCS_DIR}" \
  -shell "${ROOT}/hack/node-shell.sh env KUBECONFIG=${DOCS_DIR}/kubeconfig" "${GUIDE}" |
  tee "${DOCS_DIR}/doc-test.log"
