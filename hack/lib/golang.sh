# shellcheck shell=bash
# How the harness runs go on a tree: go test's flags and -trimpath, the
# integration tests, and the etcd they need. hack/lib/init.sh sources it.

# kep::golang::test_flags sets GO_TEST_FLAGS from upstream's settings for go test,
# which make test, test-series, test-integration and test-e2e honour: KUBE_TIMEOUT (default
# -timeout=$1) and KUBE_TEST_ARGS (more arguments, such as -run or -v).
# GOFLAGS reaches go test through the environment.
kep::golang::test_flags() { read -ra GO_TEST_FLAGS <<<"${KUBE_TIMEOUT:--timeout=$1} ${KUBE_TEST_ARGS:-}"; }
# Whatever is built from a tree (tests, test and e2e binaries, binaries,
# upstream's generators, golangci-lint's package loading) is built with
# -trimpath, which keeps the tree's path out of Go's build and test cache
# keys: make test-series, in its own worktree, and the base tree reuse what
# make test built and ran, and a fresh clone what an earlier clone did.
TRIMPATH=-trimpath

# kep::golang::write_overlay FILE DEST SRC [DEST SRC]... writes FILE, a go -overlay file
# that replaces, or adds, each file DEST with the file SRC (absolute paths both).
kep::golang::write_overlay() {
  local file=$1
  shift
  (($# % 2 == 0)) || kep::log::error_exit "kep::golang::write_overlay ${file}: a DEST without its SRC"
  kep::deps::ensure jq
  jq -n '$ARGS.positional as $a | {Replace: [range(0; $a | length; 2) | {key: $a[.], value: $a[. + 1]}] | from_entries}' \
    --args "$@" >"${file}"
}

# JUNIT_DIR holds a JUnit report of each go test that make test and make
# test-node run, for a CI system to read; .ci/run keeps the directory.
JUNIT_DIR="${OUTPUT}/junit"

# kep::golang::gotest NAME [--verbose] ARGS... runs go test ARGS in the current
# directory, printing what go test prints (go test -v's output with
# --verbose), and writes JUNIT_DIR/NAME.xml, through gotestsum at the version
# hack/tools/go.mod pins.
kep::golang::gotest() {
  local name=$1 format=standard-quiet gotestsum="${OUTPUT}/tools/gotestsum"
  shift
  if [[ "${1:-}" == --verbose ]]; then
    format=standard-verbose
    shift
  fi
  go -C "${ROOT}/hack/tools" build -o "${gotestsum}" gotest.tools/gotestsum
  mkdir -p "${JUNIT_DIR}"
  "${gotestsum}" --format "${format}" --junitfile "${JUNIT_DIR}/${name}.xml" -- "$@"
}

# Integration test packages need etcd and run behind their own target.
INTEGRATION_PACKAGES='^\./test/integration(/|$)'

# kep::golang::test_integration ARGS... runs go test ARGS in the current directory, a
# tree of this base, with the etcd of this base (ETCD). Upstream's test API server
# finds its fixtures from its source path, which -trimpath makes relative to
# the module; it then looks under TEST_SRCDIR/TEST_WORKSPACE, as under Bazel,
# where a link names this base's tree. The path is the same for every
# worktree, so it does not split Go's test cache.
kep::golang::test_integration() {
  local srcdir="${OUTPUT}/srcdir/${BASE}"
  mkdir -p "${srcdir}/k8s.io"
  ln -sfn "${KUBE_ROOT}" "${srcdir}/k8s.io/kubernetes"
  PATH="$(dirname "${ETCD}"):${PATH}" TEST_SRCDIR="${srcdir}" TEST_WORKSPACE=. kep::golang::gotest "integration-${BASE}" "${TRIMPATH}" "$@"
}

# The node e2e suite's go test runs its specs against a node: make test and
# make test-series vet it, and make test-node runs the specs.
NODE_E2E_PACKAGES='^\./test/e2e_node(/|$)'

# kep::golang::split_packages PKG... sets UNIT_PACKAGES, INTEGRATION and NODE_E2E to
# the unit, integration and node e2e packages among PKG.
kep::golang::split_packages() {
  UNIT_PACKAGES=() INTEGRATION=() NODE_E2E=()
  local pkg
  for pkg in "$@"; do
    if [[ "${pkg}" =~ ${INTEGRATION_PACKAGES} ]]; then
      INTEGRATION+=("${pkg}")
    elif [[ "${pkg}" =~ ${NODE_E2E_PACKAGES} ]]; then
      NODE_E2E+=("${pkg}")
    else
      UNIT_PACKAGES+=("${pkg}")
    fi
  done
}

# The packages that the tests of kep::golang::test_units run again with the
# race detector when the tree changes them: the prober's and the probes'
# concurrency, which the series rewrites (upstream's unit job runs every
# package with KUBE_RACE=-race).
RACE_PACKAGES='^\./pkg/(kubelet/prober|probe)(/|$)'

# kep::golang::test_units runs, in the tree, go test of every unit package that it
# changes on its base, then again with -race those of them that RACE_PACKAGES
# matches, and go vet of the node e2e suite if it changes that.
# It fails when the tree changes no Go package (kep::tree::touched_packages).
kep::golang::test_units() {
  local touched
  touched=$(kep::tree::touched_packages) || return
  # shellcheck disable=SC2086 # one package a line, no spaces
  kep::golang::split_packages ${touched}
  if ((${#UNIT_PACKAGES[@]})); then
    kep::log::status "upstream tests of what ${TREE} changes: ${UNIT_PACKAGES[*]}"
    (cd "${KUBE_ROOT}" && kep::golang::gotest "unit-${BASE}" "${TRIMPATH}" "${GO_TEST_FLAGS[@]}" "${UNIT_PACKAGES[@]}") || return
    local pkg race=()
    for pkg in "${UNIT_PACKAGES[@]}"; do
      [[ ! "${pkg}" =~ ${RACE_PACKAGES} ]] || race+=("${pkg}")
    done
    if ((${#race[@]})); then
      kep::log::status "the same tests with the race detector: ${race[*]}"
      (cd "${KUBE_ROOT}" && kep::golang::gotest "race-${BASE}" "${TRIMPATH}" -race "${GO_TEST_FLAGS[@]}" "${race[@]}") || return
    fi
  else
    kep::log::status "${TREE} changes no unit package, only: ${touched//$'\n'/ }"
  fi
  if ((${#NODE_E2E[@]})); then
    kep::log::status "go vet of the node e2e suite, whose specs make test-node runs: ${NODE_E2E[*]}"
    (cd "${KUBE_ROOT}" && go vet "${TRIMPATH}" "${NODE_E2E[@]}") || return
  fi
}

# kep::golang::build_etcd builds the etcd that upstream's integration framework and
# make run use, into ETCD. go install refuses etcd's replace directives;
# building it inside the Kubernetes workspace gives exactly the version
# upstream pins.
kep::golang::build_etcd() {
  local version
  version=$(cd "${KUBE_ROOT}" && go list -m -f '{{.Version}}' go.etcd.io/etcd/server/v3)
  if [[ -x "${ETCD}" ]] && [[ "$("${ETCD}" --version 2>/dev/null)" == *"etcd Version: ${version#v}"* ]]; then
    return
  fi
  kep::log::status "building etcd ${version}"
  mkdir -p "$(dirname "${ETCD}")"
  (cd "${KUBE_ROOT}" && go build -o "${ETCD}" go.etcd.io/etcd/server/v3)
}

# kep::golang::test_change ROOT FROM NAME runs go vet and go test, integration
# tests included, on the packages that the checkout ROOT changes since the
# commit FROM, as make test-series does for each commit and make pr for each
# pull request. NAME says what is tested in its messages. It fails when a
# package does not pass. The caller has set GO_TEST_FLAGS (test_flags 30m) and
# INTEGRATION_FLAGS (test_flags 60m), and built etcd.
kep::golang::test_change() {
  local root=$1 from=$2 name=$3 files pkgs
  files=$(kep::tree::changed_files "${root}" "${from}") || return
  pkgs=$(kep::tree::packages_of "${root}" <<<"${files}") || return
  if [[ -z "${pkgs}" ]]; then
    kep::log::status "${name} changes no Go package"
    return 0
  fi
  # shellcheck disable=SC2086 # one package a line, no spaces
  kep::golang::split_packages ${pkgs}
  # go vet has checked the packages and their tests; go test would run a
  # subset of its checks again. go vet builds the node e2e suite; its specs
  # need a node (make test-node).
  # shellcheck disable=SC2086
  (cd "${root}" && go vet "${TRIMPATH}" ${pkgs} &&
    { ((${#UNIT_PACKAGES[@]} == 0)) || go test "${TRIMPATH}" -vet=off "${GO_TEST_FLAGS[@]}" "${UNIT_PACKAGES[@]}"; } &&
    { ((${#INTEGRATION[@]} == 0)) || kep::golang::test_integration -vet=off "${INTEGRATION_FLAGS[@]}" "${INTEGRATION[@]}"; })
}
