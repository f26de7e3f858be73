# shellcheck shell=bash
# How the harness runs go on a tree: go test's flags and -trimpath, the
# integration tests, and the etcd they need.

# Sourced once, whatever sources it.
[[ " ${HARNESS_SOURCED:-} " != *" golang "* ]] || return 0
HARNESS_SOURCED+=" golang"
# shellcheck source=hack/lib/tree.sh
source "${ROOT}/hack/lib/tree.sh"

# kep::golang::test_flags TIMEOUT prints, one a line, go test's flags from
# upstream's settings for it, which make test, test-series, test-integration
# and test-e2e honour: KUBE_TIMEOUT (default -timeout=TIMEOUT) and
# KUBE_TEST_ARGS (more arguments, such as -run or -v). GOFLAGS reaches go
# test through the environment.
#
#   kep::util::lines GO_TEST_FLAGS kep::golang::test_flags 30m
kep::golang::test_flags() {
  local flags
  read -ra flags <<<"${KUBE_TIMEOUT:--timeout=$1} ${KUBE_TEST_ARGS:-}"
  ((${#flags[@]} == 0)) || printf '%s\n' "${flags[@]}"
}
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
# hack/tools/go.mod pins. A run of no test fails, as go test passes a -run
# that matches nothing, unless KUBE_TEST_ARGS chose the tests (-run, -skip):
# make test runs each of its steps, and a -run may match in some only.
kep::golang::gotest() {
  local name=$1 format=standard-quiet gotestsum="${OUTPUT}/tools/${GOTOOLCHAIN}/gotestsum"
  shift
  if [[ "${1:-}" == --verbose ]]; then
    format=standard-verbose
    shift
  fi
  go -C "${ROOT}/hack/tools" build -o "${gotestsum}" gotest.tools/gotestsum
  mkdir -p "${JUNIT_DIR}"
  "${gotestsum}" --format "${format}" --junitfile "${JUNIT_DIR}/${name}.xml" -- "$@" || return
  [[ " ${KUBE_TEST_ARGS:-} " =~ [[:space:]]-(test\.)?(run|skip)[=[:space:]] ]] || grep -q '<testcase ' "${JUNIT_DIR}/${name}.xml" || {
    echo "!!! go test ran no test (${JUNIT_DIR#"${ROOT}/"}/${name}.xml): go test $*" >&2
    return 1
  }
}

# Integration test packages need etcd and run behind their own target.
INTEGRATION_PACKAGES='^\./test/integration(/|$)'

# kep::golang::test_integration REPORT ARGS... runs go test ARGS in the
# current directory, a tree of this base, with the etcd of this base (ETCD),
# and writes the JUnit report JUNIT_DIR/REPORT.xml (none for an empty
# REPORT: make test-series and make pr test one commit after another).
# Upstream's test API server
# finds its fixtures from its source path, which -trimpath makes relative to
# the module; it then looks under TEST_SRCDIR/TEST_WORKSPACE, as under Bazel,
# where a link names this base's tree. The path is the same for every
# worktree, so it does not split Go's test cache. Upstream's framework uses
# the etcd that answers at KUBE_INTEGRATION_ETCD_URL (127.0.0.1:2379 by
# default, where the host may run one of its own), and starts its own on a
# free port when none does: none answers on port 0.
kep::golang::test_integration() {
  local report=$1 srcdir="${OUTPUT}/srcdir/${BASE}" gotest=(go test)
  shift
  [[ -z "${report}" ]] || gotest=(kep::golang::gotest "${report}")
  mkdir -p "${srcdir}/k8s.io"
  ln -sfn "${KUBE_ROOT}" "${srcdir}/k8s.io/kubernetes"
  PATH="$(dirname "${ETCD}"):${PATH}" KUBE_INTEGRATION_ETCD_URL=http://127.0.0.1:0 \
    TEST_SRCDIR="${srcdir}" TEST_WORKSPACE=. "${gotest[@]}" "${TRIMPATH}" "$@"
}

# The node e2e suite's go test runs its specs against a node: make test and
# make test-series vet it, and make test-node runs the specs.
NODE_E2E_PACKAGES='^\./test/e2e_node(/|$)'

# kep::golang::packages KIND PKG... prints the packages among PKG of KIND:
# unit, integration or node-e2e.
kep::golang::packages() {
  local kind=$1 pkg of
  shift
  for pkg in "$@"; do
    of=unit
    if [[ "${pkg}" =~ ${INTEGRATION_PACKAGES} ]]; then
      of=integration
    elif [[ "${pkg}" =~ ${NODE_E2E_PACKAGES} ]]; then
      of=node-e2e
    fi
    [[ "${of}" != "${kind}" ]] || echo "${pkg}"
  done
}

# The packages whose tests kep::golang::test_units runs again with the race
# detector when the tree changes one of them (RACE_CHANGED): the prober's and
# the probes' concurrency, which the series rewrites, all of it, also what
# the series does not touch (upstream's unit job runs every package with
# KUBE_RACE=-race).
RACE_PACKAGES=(./pkg/kubelet/prober/... ./pkg/probe/...)
RACE_CHANGED='^\./pkg/(kubelet/prober|probe)(/|$)'

# kep::golang::test_units FLAG... runs, in the tree, go test FLAG... of every
# unit package that it changes on its base, then again with -race
# RACE_PACKAGES if it changes one of them, and go vet of the node e2e suite
# if it changes that. It fails when the tree changes no Go package
# (kep::tree::touched_packages).
kep::golang::test_units() {
  local touched units=() node_e2e=() pkg
  touched=$(kep::tree::touched_packages) || return
  # shellcheck disable=SC2086 # one package a line, no spaces
  kep::util::lines units kep::golang::packages unit ${touched} || return
  # shellcheck disable=SC2086
  kep::util::lines node_e2e kep::golang::packages node-e2e ${touched} || return
  if ((${#units[@]})); then
    kep::log::status "upstream tests of what ${TREE} changes: ${units[*]}"
    (cd "${KUBE_ROOT}" && kep::golang::gotest "unit-${BASE}" "${TRIMPATH}" "$@" "${units[@]}") || return
    for pkg in "${units[@]}"; do
      [[ "${pkg}" =~ ${RACE_CHANGED} ]] || continue
      # The race detector needs cgo.
      kep::deps::ensure gcc libc6-dev || return
      kep::log::status "the tests of ${RACE_PACKAGES[*]} with the race detector"
      (cd "${KUBE_ROOT}" && kep::golang::gotest "race-${BASE}" "${TRIMPATH}" -race "$@" "${RACE_PACKAGES[@]}") || return
      break
    done
  else
    kep::log::status "${TREE} changes no unit package, only: ${touched//$'\n'/ }"
  fi
  if ((${#node_e2e[@]})); then
    kep::log::status "go vet of the node e2e suite, whose specs make test-node runs: ${node_e2e[*]}"
    (cd "${KUBE_ROOT}" && go vet "${TRIMPATH}" "${node_e2e[@]}") || return
  fi
}

# kep::golang::build_binaries TREE OUT PATCH TARGET... builds the commands
# TARGET (cmd/kubelet, ...) of TREE, the patched tree or the base tree, into
# OUT, stamped with the tree's version and commit; with PATCH, a patch of the
# tree's Go files, not empty, it builds the tree with it applied through go
# build -overlay, leaving the tree as it is.
kep::golang::build_binaries() (
  local tree=$1 out=$2 patch=$3 commit state version suffix=+kep.6318 major minor ldflags=() overlay=() scratch="" replace=() file target pkg
  shift 3
  mkdir -p "${out}"
  cd "${tree}" || return
  trap '[[ -z "${scratch}" ]] || rm -rf "${scratch}"' EXIT

  # Stamp the version as upstream's hack/lib/version.sh does, so that
  # 'kubectl version' and the Node's kubeletVersion say which release and
  # which commit of which tree this is; the base's own commit, unpatched, is
  # stamped as the release alone. Only the link step reads these.
  commit=$(git rev-parse HEAD)
  # Dirty as upstream's says it (any change, untracked files too), or built
  # with a patch.
  state=clean
  [[ -z "${patch}" && -z "$(git status --porcelain)" ]] || state=dirty
  if [[ -z "${patch}" && "${commit}" == "$(git rev-parse "${BASE_TAG}^{commit}")" ]]; then
    suffix=""
  fi
  # A base whose DefaultKubeBinaryVersion is raised (the one for master) is
  # stamped as master's builds are: the next release's alpha.0. Otherwise the
  # API server would emulate the release the base was served as, where the
  # gate does not exist yet.
  version=${KUBE_VERSION}
  if [[ -n "${KUBE_BINARY_VERSION:-}" ]]; then
    version=v${KUBE_BINARY_VERSION}.0-alpha.0
  fi
  major=${version#v}
  minor=${major#*.}
  for pkg in k8s.io/client-go/pkg/version k8s.io/component-base/version; do
    ldflags+=(
      "-X ${pkg}.gitVersion=${version}${suffix}"
      "-X ${pkg}.gitMajor=${major%%.*}"
      "-X ${pkg}.gitMinor=${minor%%.*}"
      "-X ${pkg}.gitCommit=${commit}"
      "-X ${pkg}.gitTreeState=${state}"
    )
  done

  if [[ -n "${patch}" ]]; then
    # The patched copies of the files that the patch changes, in a scratch
    # directory that goes when the build ends.
    scratch=$(mktemp -d)
    while read -r file; do
      mkdir -p "${scratch}/$(dirname "${file}")"
      cp "${file}" "${scratch}/${file}"
      replace+=("${PWD}/${file}" "${scratch}/${file}")
    done < <(sed -n 's|^+++ b/||p' "${patch}")
    patch -s -p1 -d "${scratch}" <"${patch}" || kep::log::error_exit "${patch} does not apply to ${tree#"${ROOT}/"}"
    kep::golang::write_overlay "${scratch}/overlay.json" "${replace[@]}"
    overlay=(-overlay "${scratch}/overlay.json")
    kep::log::status "building with ${patch#"${ROOT}/"}"
  fi

  for target in "$@"; do
    kep::log::status "building ${target}"
    # Otherwise the build settings of the tests (-trimpath, as upstream's
    # release builds), so the binaries reuse the packages that the tests have
    # compiled (and the other way round).
    go build "${TRIMPATH}" "${overlay[@]}" -ldflags "${ldflags[*]}" -o "${out}/$(basename "${target}")" "./${target}"
  done
  kep::log::status "binaries are in ${out#"${ROOT}/"}"
)

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

# kep::golang::test_stack DIR WHAT FIX REF... checks that a stack of commits
# bisects, as make test-series does for the series' commits and make pr for
# its pull requests' branches: it checks out each REF in turn, in a scratch
# worktree DIR made at the base commit and removed when the script exits, and
# runs kep::golang::test_change on what the REF changes since the one before
# it (the base, for the first). WHAT ("series", "pr") starts its messages. At
# the first REF that fails it stops, naming it, and says FIX.
kep::golang::test_stack() {
  local dir=$1 what=$2 fix=$3 parent ref name n=0
  shift 3
  kep::golang::build_etcd
  kep::util::trap_add "kep::tree::remove_worktree '${dir}'" EXIT
  parent=$(kep::tree::base_commit)
  kep::tree::new_worktree "${dir}" "${parent}"
  for ref in "$@"; do
    n=$((n + 1))
    name="$(printf '%02d/%02d' "${n}" "$#") $(kep::tree::git log -1 --format='%h "%s"' "${ref}")"
    [[ "${ref}" =~ ^[0-9a-f]{40}$ ]] || name="${ref}, ${name}"
    kep::log::status "${what}: ${name} ($((SECONDS / 60)) min so far)"
    git -C "${dir}" checkout -q --detach "${ref}"
    kep::golang::test_change "${dir}" "${parent}" "${what}: ${name}" ||
      kep::log::error_exit "${what}: ${name} does not pass on its own, on the ones before it: ${fix}"
    parent=${ref}
  done
}

# kep::golang::test_change ROOT FROM NAME runs go vet and go test, integration
# tests included, on the packages that the checkout ROOT changes since the
# commit FROM, as make test-series does for each commit and make pr for each
# pull request, with the flags of make test's unit (30m) and integration
# (60m) runs, so that a package whose inputs are those of make test's tree
# gets its result from Go's test cache. NAME says what is tested in its
# messages. It fails when a package does not pass. The caller has built
# etcd (kep::golang::test_stack does).
kep::golang::test_change() {
  local root=$1 from=$2 name=$3 files pkgs units=() integration=() unit_flags=() integration_flags=()
  files=$(kep::tree::changed_files "${root}" "${from}") || return
  pkgs=$(kep::tree::packages_of "${root}" <<<"${files}") || return
  if [[ -z "${pkgs}" ]]; then
    kep::log::status "${name} changes no Go package"
    return 0
  fi
  # shellcheck disable=SC2086 # one package a line, no spaces
  kep::util::lines units kep::golang::packages unit ${pkgs} || return
  # shellcheck disable=SC2086
  kep::util::lines integration kep::golang::packages integration ${pkgs} || return
  kep::util::lines unit_flags kep::golang::test_flags 30m || return
  kep::util::lines integration_flags kep::golang::test_flags 60m || return
  # go vet has checked the packages and their tests; go test would run a
  # subset of its checks again. go vet builds the node e2e suite; its specs
  # need a node (make test-node).
  # shellcheck disable=SC2086
  (cd "${root}" && go vet "${TRIMPATH}" ${pkgs} &&
    { ((${#units[@]} == 0)) || go test "${TRIMPATH}" -vet=off "${unit_flags[@]}" "${units[@]}"; } &&
    { ((${#integration[@]} == 0)) || kep::golang::test_integration "" -vet=off "${integration_flags[@]}" "${integration[@]}"; })
}
