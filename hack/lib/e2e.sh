# shellcheck shell=bash
# Helpers for running the tree's own e2e specs on the node (make test-node,
# make test-upstream-e2e).
#
# The e2e binary registers only test/e2e/common/node: test/upstream-e2e/
# testdata/e2e_test.go, added to the tree with go test -overlay, does what
# test/e2e/e2e_test.go does for the whole suite. The images are built here
# and tagged with the names of test/utils/image/manifest.go: busybox from
# Debian's busybox-static (kep::node::busybox_rootfs), agnhost from the tree on top of
# it, pause from the node's own. Nothing is pulled.

# Sourced once, whatever sources it.
[[ " ${HARNESS_SOURCED:-} " != *" e2e "* ]] || return 0
HARNESS_SOURCED+=" e2e"
# shellcheck source=hack/lib/golang.sh
source "${ROOT}/hack/lib/golang.sh"
# shellcheck source=hack/lib/node.sh
source "${ROOT}/hack/lib/node.sh"

E2E_DIR="${OUTPUT}/upstream-e2e"
E2E_TESTDATA="${ROOT}/test/upstream-e2e/testdata"
# The feature's own specs (patch "e2e tests for mutable container probes").
E2E_FEATURE_FOCUS='\[sig-node\] Mutable container probes'
# Upstream's specs that exercise probes, restartable init containers and Pod
# readiness, and the feature's own.
E2E_FOCUS='\[sig-node\] (Probing container|Probing restartable init container|Restartable Init Container Lifecycle Hook|Pods should support pod readiness gates|Mutable container probes)'
# Ginkgo label filters: specs of features that are off by default are
# skipped, except the feature's own where its gate is on.
E2E_LABELS_GATE_ON='!Feature:OffByDefault || FeatureGate:MutableContainerProbes'
E2E_LABELS_GATE_OFF='!Feature:OffByDefault'

# kep::e2e::write_overlay writes the go build -overlay that adds the e2e binary's
# package (test/e2e/kepnode) to the tree.
kep::e2e::write_overlay() {
  mkdir -p "${E2E_DIR}"
  # The suite imports ktesting's Gomega formatting, as upstream's does, from
  # where the base has it: 1.38 moved test/utils/ktesting to k8s.io/ktesting.
  local suite="${E2E_TESTDATA}/e2e_test.go"
  if [[ ! -d "${KUBE_ROOT}/test/utils/ktesting" ]]; then
    sed 's|"k8s.io/kubernetes/test/utils/ktesting/format"|"k8s.io/ktesting/format"|' "${suite}" >"${E2E_DIR}/e2e_test.go"
    suite="${E2E_DIR}/e2e_test.go"
  fi
  kep::golang::write_overlay "${E2E_DIR}/overlay.json" \
    "${KUBE_ROOT}/test/e2e/kepnode/zz_kep_e2e_test.go" "${suite}" \
    "${KUBE_ROOT}/test/e2e/kepnode/images/main.go" "${E2E_TESTDATA}/images.go"
}

# kep::e2e::build builds the e2e binary and Ginkgo's CLI, at the version the tree
# uses, into E2E_DIR. The binary is built with -trimpath, as the tests are,
# so that a fresh clone gets its packages from Go's cache.
kep::e2e::build() {
  kep::e2e::write_overlay
  kep::log::status "building the e2e binary (test/e2e/common/node only)"
  (cd "${KUBE_ROOT}" && go test -c "${TRIMPATH}" -vet=off -overlay "${E2E_DIR}/overlay.json" -o "${E2E_DIR}/e2e.test" ./test/e2e/kepnode)
  local version
  version=$(cd "${KUBE_ROOT}" && go list -m -f '{{.Version}}' github.com/onsi/ginkgo/v2)
  if [[ ! -x "${E2E_DIR}/ginkgo" ]] || ! "${E2E_DIR}/ginkgo" version | grep -qF "${version#v}"; then
    kep::log::status "building ginkgo ${version}"
    GOBIN="${E2E_DIR}" go install "github.com/onsi/ginkgo/v2/ginkgo@${version}"
  fi
}

# kep::e2e::build_images IMAGE... builds the e2e images named (busybox, agnhost,
# pause) into NODE_IMAGES, where hack/node-up.sh imports every image from.
# The feature's specs need only busybox.
kep::e2e::build_images() {
  local -A names
  local key name list
  kep::e2e::write_overlay
  list=$(cd "${KUBE_ROOT}" && go run "${TRIMPATH}" -overlay "${E2E_DIR}/overlay.json" ./test/e2e/kepnode/images) || return
  while read -r key name; do
    names[${key}]=${name}
  done <<<"${list}"
  local image
  for image in "$@"; do
    "kep::e2e::build_image_${image}" "${names[${image}]}" "${E2E_DIR}/rootfs/${image}"
  done
}

# kep::e2e::build_image_NAME TAG ROOTFS builds the image NAME, tagged TAG,
# from a root filesystem it makes in ROOTFS.
kep::e2e::build_image_busybox() {
  kep::node::busybox_rootfs "$2"
  "${NODE_BIN}/node-image" -rootfs "$2" -cmd sh -tag "$1" -o "${NODE_IMAGES}/e2e-busybox.tar"
}

kep::e2e::build_image_agnhost() {
  local rootfs=$2
  # agnhost's image as upstream's Dockerfile makes it: the binary, a shell
  # and the applets, the test certificate, /uploads and the image's user.
  kep::log::status "building agnhost"
  (cd "${KUBE_ROOT}" && CGO_ENABLED=0 go build "${TRIMPATH}" -o "${E2E_DIR}/agnhost" ./test/images/agnhost)
  kep::node::busybox_rootfs "${rootfs}"
  cp "${E2E_DIR}/agnhost" "${rootfs}/agnhost"
  ln -s agnhost "${rootfs}/agnhost-2"
  cp "${KUBE_ROOT}"/test/images/agnhost/porter/localhost.{crt,key} "${rootfs}/"
  mkdir -p "${rootfs}/uploads"
  # Upstream's image is Alpine with bash and curl, which specs run as
  # 'bash -c' and 'curl URL'. busybox's ash stands in for bash, and its wget
  # for a plain curl GET; any other curl option fails loudly.
  printf '#!/bin/sh\nexec /bin/busybox ash "$@"\n' >"${rootfs}/bin/bash"
  cp "${E2E_TESTDATA}/curl.sh" "${rootfs}/usr/bin/curl"
  chmod 0755 "${rootfs}/bin/bash" "${rootfs}/usr/bin/curl"
  echo 'user-defined-in-image:x:1000:1000::/home/user-defined-in-image:/bin/sh' >>"${rootfs}/etc/passwd"
  printf 'user-defined-in-image:x:1000:user-defined-in-image\ngroup-defined-in-image:x:50000:user-defined-in-image\n' >>"${rootfs}/etc/group"
  "${NODE_BIN}/node-image" -rootfs "${rootfs}" -entrypoint /agnhost -cmd pause -tag "$1" -o "${NODE_IMAGES}/e2e-agnhost.tar"
}

kep::e2e::build_image_pause() {
  "${NODE_BIN}/node-image" -binary "${NODE_IMAGES}/pause" -tag "$1" -o "${NODE_IMAGES}/e2e-pause.tar"
}

# kep::e2e::run NAME FOCUS LABELS [GINKGO_FLAG...] runs the specs that match
# FOCUS and the Ginkgo label filter LABELS on the running node, with
# PARALLELISM (default 6) processes, and Ginkgo's flags GINKGO_FLAG (as
# --fail-on-empty). It writes Ginkgo's JSON report to E2E_DIR/NAME.json, its
# JUnit report to JUNIT_DIR (kep::e2e::junit), the output to
# E2E_DIR/NAME.log and the run time in seconds to E2E_DIR/NAME.seconds, and
# fails if a spec fails.
kep::e2e::run() {
  local name=$1 focus=$2 labels=$3 rc=0 start=${SECONDS}
  shift 3
  rm -f "${E2E_DIR}/${name}.json" "${E2E_DIR}/${name}.xml"
  kep::log::status "e2e specs (${name}); the output goes to ${E2E_DIR#"${ROOT}/"}/${name}.log"
  (
    cd "${E2E_DIR}"
    "${E2E_DIR}/ginkgo" --procs "${PARALLELISM:-6}" --timeout 2h --no-color "$@" \
      --focus "${focus}" --label-filter "${labels}" \
      --json-report "${name}.json" --junit-report "${name}.xml" --output-dir "${E2E_DIR}" \
      "${E2E_DIR}/e2e.test" -- --kubeconfig "${NODE_KUBECONFIG}" --repo-root "${KUBE_ROOT}"
  ) >"${E2E_DIR}/${name}.log" 2>&1 || rc=$?
  kep::e2e::junit "${name}" "${E2E_DIR}/${name}.xml"
  echo $((SECONDS - start)) >"${E2E_DIR}/${name}.seconds"
  kep::log::status "e2e specs (${name}) took $((SECONDS - start))s"
  return "${rc}"
}

# kep::e2e::junit NAME REPORT copies the JUnit report REPORT of the specs
# NAME, if the run wrote one, into JUNIT_DIR, beside those of the go tests,
# for CI to read.
kep::e2e::junit() {
  [[ -f "$2" ]] || return 0
  mkdir -p "${JUNIT_DIR}"
  cp "$2" "${JUNIT_DIR}/specs-${BASE}-$1.xml"
}

# The feature's node e2e specs (test/e2e_node), which restart the kubelet. The
# node e2e binary also has the specs of test/e2e/common/node, which
# make test-node runs with the e2e binary: the focus picks the Serial ones.
E2E_NODE_FOCUS='\[sig-node\] Mutable container probes .*\[Serial\]'

# kep::e2e::build_node builds upstream's node e2e binary (test/e2e_node) into
# E2E_DIR.
kep::e2e::build_node() {
  kep::log::status "building the node e2e binary (test/e2e_node)"
  (cd "${KUBE_ROOT}" && go test -c "${TRIMPATH}" -vet=off -o "${E2E_DIR}/e2e_node.test" ./test/e2e_node)
}

# kep::e2e::run_node NAME FOCUS runs the node e2e specs that match FOCUS, one after
# another, on the running node, as upstream's node e2e jobs run them against
# a node they did not start (--start-services=false). They run inside the
# node's namespaces, where the kubelet's health port is, with the stand-ins
# of hack/internal/e2e-node-shims for the systemctl and sudo that the specs
# use to restart the kubelet. The node's own checks of the host (kernel,
# cgroups, runtime) are upstream's system validation, which a system spec
# with no requirements turns off: the node is the project's, not a CI image.
# Node e2e specs reach the API server with a bearer token, as upstream's
# node e2e jobs do; here the administrator's.
# It writes the output to E2E_DIR/NAME.log, its JUnit report to JUNIT_DIR
# (kep::e2e::junit), the run time to E2E_DIR/NAME.seconds, and fails if a
# spec fails.
kep::e2e::run_node() {
  local name=$1 focus=$2 rc=0 start=${SECONDS}
  local work="${E2E_DIR}/${name}"
  rm -rf "${work}"
  mkdir -p "${work}"
  printf 'os: Linux\n' >"${work}/system-spec.yaml"
  kep::log::status "node e2e specs (${name}); the output goes to ${E2E_DIR#"${ROOT}/"}/${name}.log"
  kep::node::exec env -C "${work}" HARNESS_NODE_INSIDE=1 PATH="${ROOT}/hack/internal/e2e-node-shims:${NODE_BIN}:${PATH}" \
    "${E2E_DIR}/e2e_node.test" --ginkgo.focus "${focus}" --ginkgo.no-color --ginkgo.v --ginkgo.fail-on-empty \
    --host "https://${NODE_IP}:6443" --bearer-token "$(cut -d, -f1 "${NODE_CERTS}/tokens.csv")" \
    --start-services=false --prepull-images=false \
    --system-spec-file "${work}/system-spec.yaml" --container-runtime-endpoint unix:///run/containerd/containerd.sock \
    --report-dir "${work}" >"${E2E_DIR}/${name}.log" 2>&1 || rc=$?
  local report
  for report in "${work}"/junit*.xml; do
    [[ ! -f "${report}" ]] || kep::e2e::junit "${name}" "${report}"
  done
  echo $((SECONDS - start)) >"${E2E_DIR}/${name}.seconds"
  kep::log::status "node e2e specs (${name}) took $((SECONDS - start))s"
  return "${rc}"
}
