#!/usr/bin/env bash
# Runs upstream's e2e specs from the patched tree against the real node
# (make test-upstream-e2e): upstream's probe, restartable init container and
# Pod readiness specs of test/e2e/common/node, and the feature's own specs,
# in three configurations:
#   on     patched binaries, MutableContainerProbes on (API server and kubelet)
#   off    patched binaries, the gate off
#   base   the unpatched base release, built from _output/base
# It prints one table of spec -> result per configuration, and fails if the
# patched node fails a spec that the base passes. Needs root on Linux, as
# make test-node does.
#
# The e2e binary registers only test/e2e/common/node (test/upstream-e2e/
# testdata/e2e_test.go, added to the tree with go test -overlay). The images
# are built here and tagged with the names of test/utils/image/manifest.go:
# busybox from Debian's busybox-static (busybox_rootfs in hack/lib-node.sh),
# agnhost from the tree on top of it, pause from the node's own; nothing is
# pulled.
#
#   KEP_E2E_CONFIGS="on off base"  the configurations to run, in order
#   KEP_E2E_FOCUS=regexp           the specs to run (default: see FOCUS below)
#   KEP_E2E_PROCS=6                Ginkgo processes running specs in parallel
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
source "${ROOT}/hack/lib-node.sh"

E2E_DIR="${OUTPUT}/upstream-e2e"
TESTDATA="${ROOT}/test/upstream-e2e/testdata"
# Upstream's specs that exercise probes, restartable init containers and Pod
# readiness, and the feature's own.
FOCUS='\[sig-node\] (Probing container|Probing restartable init container|Restartable Init Container Lifecycle Hook|Pods should support pod readiness gates|Mutable container probes)'

missing=$(node_missing)
if [[ -n "${missing}" ]]; then
  die "make test-upstream-e2e needs a machine that can run a node; this one lacks:
${missing}"
fi

# overlay FILE DEST=SRC... writes a go -overlay file that adds each file SRC
# of TESTDATA to the tree as DEST.
overlay() {
  local file=$1 sep=""
  shift
  {
    printf '{"Replace":{'
    for pair in "$@"; do
      printf '%s\n  "%s/%s": "%s/%s"' "${sep}" "${KUBE_ROOT}" "${pair%%=*}" "${TESTDATA}" "${pair#*=}"
      sep=","
    done
    printf '\n}}\n'
  } >"${file}"
}

build_e2e() {
  mkdir -p "${E2E_DIR}"
  overlay "${E2E_DIR}/overlay.json" \
    test/e2e/kepnode/zz_kep_e2e_test.go=e2e_test.go \
    test/e2e/kepnode/images/main.go=images.go
  log "building the e2e binary (test/e2e/common/node only)"
  (cd "${KUBE_ROOT}" && go test -c -vet=off -overlay "${E2E_DIR}/overlay.json" -o "${E2E_DIR}/e2e.test" ./test/e2e/kepnode)
  local version
  version=$(cd "${KUBE_ROOT}" && go list -m -f '{{.Version}}' github.com/onsi/ginkgo/v2)
  if [[ ! -x "${E2E_DIR}/ginkgo" ]] || ! "${E2E_DIR}/ginkgo" version | grep -q "${version#v}"; then
    log "building ginkgo ${version}"
    GOBIN="${E2E_DIR}" go install "github.com/onsi/ginkgo/v2/ginkgo@${version}"
  fi
}

build_images() {
  local -A names
  local key name
  while read -r key name; do
    names[${key}]=${name}
  done < <(cd "${KUBE_ROOT}" && go run -overlay "${E2E_DIR}/overlay.json" ./test/e2e/kepnode/images)
  local rootfs="${E2E_DIR}/rootfs"

  busybox_rootfs "${rootfs}/busybox"
  "${NODE_BIN}/node-image" -rootfs "${rootfs}/busybox" -cmd sh -tag "${names[busybox]}" -o "${NODE_IMAGES}/e2e-busybox.tar"

  # agnhost's image as upstream's Dockerfile makes it: the binary, a shell
  # and the applets, the test certificate, /uploads and the image's user.
  log "building agnhost"
  (cd "${KUBE_ROOT}" && CGO_ENABLED=0 go build -o "${E2E_DIR}/agnhost" ./test/images/agnhost)
  busybox_rootfs "${rootfs}/agnhost"
  cp "${E2E_DIR}/agnhost" "${rootfs}/agnhost/agnhost"
  ln -s agnhost "${rootfs}/agnhost/agnhost-2"
  cp "${KUBE_ROOT}"/test/images/agnhost/porter/localhost.{crt,key} "${rootfs}/agnhost/"
  mkdir -p "${rootfs}/agnhost/uploads"
  echo 'user-defined-in-image:x:1000:1000::/home/user-defined-in-image:/bin/sh' >>"${rootfs}/agnhost/etc/passwd"
  printf 'user-defined-in-image:x:1000:user-defined-in-image\ngroup-defined-in-image:x:50000:user-defined-in-image\n' >>"${rootfs}/agnhost/etc/group"
  "${NODE_BIN}/node-image" -rootfs "${rootfs}/agnhost" -entrypoint /agnhost -cmd pause -tag "${names[agnhost]}" -o "${NODE_IMAGES}/e2e-agnhost.tar"

  "${NODE_BIN}/node-image" -binary "${NODE_IMAGES}/pause" -tag "${names[pause]}" -o "${NODE_IMAGES}/e2e-pause.tar"
}

# run_config NAME runs the specs on a node in configuration NAME and writes
# Ginkgo's JSON report to E2E_DIR/NAME.json.
run_config() {
  local config=$1 rc=0
  local env=(KEP_NODE_SKIP_BUILD=1) labels=""
  case "${config}" in
    on) ;;
    off) env+=(KEP_NODE_APISERVER_GATE=false KEP_NODE_KUBELET_GATE=false) labels='!FeatureGate:MutableContainerProbes' ;;
    base) env+=(KEP_NODE_BASE=1) labels='!FeatureGate:MutableContainerProbes' ;;
    *) die "unknown configuration ${config}; use on, off or base" ;;
  esac
  log "upstream e2e: configuration ${config}"
  env "${env[@]}" "${ROOT}/hack/node-up.sh" || return 1
  local start=${SECONDS}
  (
    cd "${E2E_DIR}"
    "${E2E_DIR}/ginkgo" --procs "${KEP_E2E_PROCS:-6}" --timeout 2h \
      --focus "${KEP_E2E_FOCUS:-${FOCUS}}" --label-filter "${labels}" \
      --json-report "${config}.json" --output-dir "${E2E_DIR}" \
      "${E2E_DIR}/e2e.test" -- --kubeconfig "${NODE_KUBECONFIG}" --repo-root "${KUBE_ROOT}"
  ) >"${E2E_DIR}/${config}.log" 2>&1 || rc=$?
  echo $((SECONDS - start)) >"${E2E_DIR}/${config}.seconds"
  log "upstream e2e: configuration ${config} took $((SECONDS - start))s (exit ${rc}); its output is in ${E2E_DIR#"${ROOT}/"}/${config}.log"
  "${ROOT}/hack/node-down.sh" || rc=1
  return 0
}

read -ra configs <<<"${KEP_E2E_CONFIGS:-on off base}"
ensure_checkout
if [[ " ${configs[*]} " == *" base "* ]]; then
  KEP_NODE_BASE=1 build_node
else
  build_node
fi
build_e2e
build_images

for config in "${configs[@]}"; do
  rm -f "${E2E_DIR}/${config}.json"
  run_config "${config}"
done
(cd "${ROOT}" && go run ./cmd/e2e-table -dir "${E2E_DIR}" "${configs[@]}") | tee "${E2E_DIR}/table.md"
