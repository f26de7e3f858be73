# Shared helpers for the hack/ scripts. Source it; do not run it. It sources
# the other helpers of hack/lib/ too, but for walkthrough.sh (the
# walkthroughs' own).

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# KEP_OUTPUT lets hack/test-checkout-export.sh try make clean on a scratch _output/.
OUTPUT="${KEP_OUTPUT:-${ROOT}/_output}"

# BASE names the upstream release to work on: releases/BASE/upstream.env
# pins it and names its series (PATCHES_DIR: patches/ for 1.37,
# releases/1.38/patches for 1.38). KEP_RELEASES lets hack/test-checkout-export.sh
# work on a copy of releases/ (with the copy of patches/ beside it).
BASE="${BASE:-1.37}"
RELEASES="${KEP_RELEASES:-${ROOT}/releases}"
RELEASE="${RELEASES}/${BASE}"
if [[ ! -f "${RELEASE}/upstream.env" ]]; then
  printf '!!! BASE=%s: there is no releases/%s/upstream.env; the bases are: %s\n' \
    "${BASE}" "${BASE}" "$(cd "${RELEASES}" && echo *)" >&2
  exit 1
fi
# shellcheck source=releases/1.37/upstream.env
source "${RELEASE}/upstream.env"

# KEP_KUBE_ROOT lets hack/verify.sh and hack/test-checkout-export.sh use a scratch tree.
KUBE_ROOT="${KEP_KUBE_ROOT:-${OUTPUT}/${KUBE_TREE}}"
# KEP_PATCHES lets hack/test-checkout-export.sh work on a copy of the series.
PATCHES="${KEP_PATCHES:-$(realpath -m "${RELEASE}/${PATCHES_DIR}")}"
# The tree and the series as messages name them.
TREE=${KUBE_ROOT#"${ROOT}/"}
SERIES=${PATCHES#"${ROOT}/"}
BIN="${OUTPUT}/bin"
# The ref that records the last commit of _output/kubernetes that patches/ was
# applied from or exported to. HEAD beyond it is work that is not exported.
SYNCED_REF=refs/kep/synced

# Fixed identity and dates make the base commit, and every commit that git am
# creates, the same on every machine.
export GIT_AUTHOR_NAME="${GIT_AUTHOR_NAME:-Kubernetes Upstream}"
export GIT_AUTHOR_EMAIL="${GIT_AUTHOR_EMAIL:-upstream@kubernetes.invalid}"
export GIT_COMMITTER_NAME="${GIT_COMMITTER_NAME:-KEP-6318 harness}"
export GIT_COMMITTER_EMAIL="${GIT_COMMITTER_EMAIL:-harness@kubernetes.invalid}"

log() { printf '+++ %s\n' "$*" >&2; }

# go_test_flags sets GO_TEST_FLAGS from upstream's settings for go test,
# which every target that runs go test honours: KUBE_TIMEOUT (default
# -timeout=$1) and KUBE_TEST_ARGS (more arguments, such as -run or -v).
# GOFLAGS reaches go test through the environment.
go_test_flags() { read -ra GO_TEST_FLAGS <<<"${KUBE_TIMEOUT:--timeout=$1} ${KUBE_TEST_ARGS:-}"; }
# Tests and test binaries are built with -trimpath, which keeps a tree's path
# out of Go's build and test cache keys: make test-series, in its own
# worktree, and the base tree reuse what make test built and ran, and a fresh
# clone what an earlier clone did.
TRIMPATH=-trimpath
die() {
  printf '!!! %s\n' "$*" >&2
  exit 1
}

kgit() { git -C "${KUBE_ROOT}" "$@"; }

# poll SECONDS [--while CHECK] CMD... runs CMD every half second, its output
# discarded, until it succeeds. It returns 1 once SECONDS have passed, and 2
# as soon as the command CHECK fails: what CMD waits for has died.
poll() {
  local seconds=$1 check=(true)
  shift
  if [[ "$1" == --while ]]; then
    check=("$2")
    shift 2
  fi
  local deadline=$((SECONDS + seconds))
  until "$@" >/dev/null 2>&1; do
    "${check[@]}" || return 2
    ((SECONDS < deadline)) || return 1
    sleep 0.5
  done
}

# new_worktree DIR COMMIT makes DIR a new worktree of _output/kubernetes,
# detached at COMMIT, replacing whatever DIR held.
new_worktree() {
  remove_worktree "$1"
  kgit worktree add -q --detach "$1" "$2"
}

# remove_worktree DIR removes the worktree DIR, or the directory if git does
# not know it.
remove_worktree() {
  kgit worktree remove --force "$1" >/dev/null 2>&1 || rm -rf "$1"
  kgit worktree prune
}

# base_commit prints the base commit of _output/kubernetes.
base_commit() { kgit rev-parse --verify -q "refs/tags/${BASE_TAG}^{commit}"; }

patch_files() {
  find "${PATCHES}" -maxdepth 1 -name '[0-9][0-9][0-9][0-9]-*.patch' | LC_ALL=C sort
}

# export_series writes base..HEAD of _output/kubernetes as patch files into
# DIR. Every setting that changes format-patch output is pinned, so that a
# developer's git config cannot, and an unchanged commit always gives a
# byte-identical file.
export_series() {
  kgit -c core.abbrev=12 -c diff.noprefix=false -c diff.mnemonicPrefix=false \
    -c diff.algorithm=myers -c diff.renames=false -c format.signature= \
    -c format.numbered=false -c format.coverLetter=false \
    format-patch -q --zero-commit --no-signature --no-stat --no-renames \
    --no-numbered --no-attach --no-thread --subject-prefix=PATCH \
    -o "$1" "$(base_commit)..HEAD"
}

# is_exported succeeds when patches/ is exactly what 'make patches' would
# write for HEAD of _output/kubernetes.
is_exported() {
  local tmp rc=0
  tmp=$(mktemp -d)
  export_series "${tmp}"
  diff -r -q "${tmp}" "${PATCHES}" --exclude='.*' >/dev/null 2>&1 || rc=1
  rm -rf "${tmp}"
  return "${rc}"
}

# unexported_work prints what in _output/kubernetes is not in patches/:
# uncommitted edits, and commits that 'make patches' has not written. HEAD at
# the last apply or export (SYNCED_REF) holds nothing new even when patches/
# has changed since, for example after a 'git pull'.
unexported_work() {
  local dirty synced
  dirty=$(kgit status --porcelain --untracked-files=normal)
  if [[ -n "${dirty}" ]]; then
    echo "uncommitted changes:"
    echo "${dirty}" | head -n 20
  fi
  synced=$(kgit rev-parse --verify -q "${SYNCED_REF}" || true)
  if [[ "$(kgit rev-parse HEAD)" != "${synced}" ]] && ! is_exported; then
    echo "commits that 'make patches' has not exported:"
    kgit log --oneline "${synced:-$(base_commit)}..HEAD" | head -n 20
  fi
}

# am_dir prints the directory of a git am session of _output/kubernetes.
am_dir() { echo "$(kgit rev-parse --absolute-git-dir)/rebase-apply"; }

# am_in_progress succeeds while a git am session of _output/kubernetes waits
# for a patch that did not apply.
am_in_progress() { [[ -d "$(am_dir)" ]]; }

# die_am_in_progress stops, naming the patch that did not apply and saying
# how to finish the session.
die_am_in_progress() {
  local n file
  n=$(cat "$(am_dir)/next" 2>/dev/null || echo 0)
  file=$(patch_files | sed -n "${n}p")
  die "${TREE} is applying ${SERIES}/ and stopped at ${file:+${file#"${ROOT}/"}, }\"$(head -n 1 "$(am_dir)/final-commit" 2>/dev/null)\", which did not apply. Either resolve it there, 'git -C ${TREE} am --continue' and 'make patches'; or 'git -C ${TREE} am --abort', fix ${SERIES}/ and 'make checkout'."
}

# ensure_checkout makes sure _output/kubernetes exists, creating it from
# patches/ when it is missing, and otherwise leaves it as it is: the targets
# test and build the tree you are working on. It says so in one line when the
# tree and patches/ differ. Only 'make checkout' rebuilds an existing tree.
#
# A base whose upstream.env says KUBE_TESTED=unit runs only the targets that
# pass "unit" here (make test's unit tests, make verify): the others die.
ensure_checkout() {
  if [[ "${KUBE_TESTED:-all}" != all && "${1:-}" != unit ]]; then
    die "BASE=${BASE} runs only make checkout, patches, port, verify and test's unit tests (releases/${BASE}/upstream.env says why); this target runs on BASE=1.37."
  fi
  if [[ ! -d "${KUBE_ROOT}/.git" ]]; then
    "${ROOT}/hack/checkout.sh"
    return
  fi
  base_commit >/dev/null || die "${KUBE_ROOT} has no ${BASE_TAG} tag. Move it away and run 'make checkout'."
  ! am_in_progress || die_am_in_progress
  local dirty="" synced unexported
  [[ -z "$(kgit status --porcelain --untracked-files=normal)" ]] || dirty=" and uncommitted changes"
  synced=$(kgit rev-parse --verify -q "${SYNCED_REF}" || true)
  if [[ "$(kgit rev-parse HEAD)" == "${synced}" ]]; then
    if ! is_exported; then
      log "using ${TREE} as it is${dirty}; ${SERIES}/ has changed since it was applied ('make checkout' applies it)"
    elif [[ -n "${dirty}" ]]; then
      log "using ${TREE} as it is, with uncommitted changes"
    fi
  elif ! is_exported; then
    unexported=$(kgit rev-list --count "${synced:-$(base_commit)}..HEAD" 2>/dev/null || echo "some")
    log "using ${TREE} as it is: ${unexported} commits not yet exported${dirty} ('make patches' exports them)"
  elif [[ -n "${dirty}" ]]; then
    log "using ${TREE} as it is, with uncommitted changes"
  fi
}

# release_patches RELEASE prints the directory of the series of RELEASE.
release_patches() { realpath -m "${RELEASES}/$1/$(release_var "$1" PATCHES_DIR)"; }

# release_var RELEASE NAME prints the setting NAME of releases/RELEASE.
release_var() (
  # shellcheck source=/dev/null
  source "${RELEASES}/$1/upstream.env"
  echo "${!2:-}"
)

# series_tree DIR prints the git tree of the files in DIR, committed or not,
# and stores it in the project's repository.
series_tree() {
  local index
  index=$(mktemp)
  rm -f "${index}"
  GIT_INDEX_FILE="${index}" git -C "${ROOT}" --work-tree="$1" add -f -A .
  GIT_INDEX_FILE="${index}" git -C "${ROOT}" write-tree
  rm -f "${index}"
}

# origin_commits SCRATCH DIR REF applies the patch files of DIR, a series of
# the release PORT_FROM, to that release's base, as git am would, and stores
# the result as REF in the tree of BASE. It works in the object store of
# PORT_FROM's tree, which is created if it does not exist and whose files,
# index and branches are left as they are.
origin_commits() {
  local scratch=$1 dir=$2 ref=$3 origin tag parent f
  origin="${OUTPUT}/$(release_var "${PORT_FROM}" KUBE_TREE)"
  tag=$(release_var "${PORT_FROM}" BASE_TAG)
  [[ -d "${origin}/.git" ]] || BASE="${PORT_FROM}" KEP_KUBE_ROOT= KEP_PATCHES= "${ROOT}/hack/checkout.sh"
  parent=$(git -C "${origin}" rev-parse "${tag}^{commit}")
  GIT_INDEX_FILE="${scratch}/origin-index" git -C "${origin}" read-tree "${parent}"
  for f in "${dir}"/[0-9][0-9][0-9][0-9]-*.patch; do
    git mailinfo "${scratch}/msg" "${scratch}/patch" <"${f}" >"${scratch}/info"
    GIT_INDEX_FILE="${scratch}/origin-index" git -C "${origin}" apply --cached "${scratch}/patch" ||
      die "${f#"${ROOT}/"} does not apply to ${tag}"
    local subject name email date
    subject=$(sed -n 's/^Subject: //p' "${scratch}/info")
    name=$(sed -n 's/^Author: //p' "${scratch}/info")
    email=$(sed -n 's/^Email: //p' "${scratch}/info")
    date=$(sed -n 's/^Date: //p' "${scratch}/info")
    parent=$(printf '%s\n\n%s\n' "${subject}" "$(cat "${scratch}/msg")" | git stripspace |
      GIT_AUTHOR_NAME="${name}" GIT_AUTHOR_EMAIL="${email}" GIT_AUTHOR_DATE="${date}" GIT_COMMITTER_DATE="${date}" \
        git -C "${origin}" commit-tree "$(GIT_INDEX_FILE="${scratch}/origin-index" git -C "${origin}" write-tree)" -p "${parent}")
  done
  git -C "${origin}" update-ref "${ref}" "${parent}"
  kgit fetch -q "${origin}" "+${ref}:${ref}" "+refs/tags/${tag}:refs/tags/${tag}"
  git -C "${origin}" update-ref -d "${ref}"
}

# range_diff ORIGIN_BASE ORIGIN_HEAD prints how the commits of the tree of
# BASE differ from those of the origin series (ORIGIN_BASE..ORIGIN_HEAD in
# the same repository), without commit ids: what releases/BASE/range-diff
# records.
range_diff() {
  kgit -c core.abbrev=12 range-diff --no-color --no-dual-color "$1..$2" "$(base_commit)..HEAD" |
    sed -E '/^ *[-0-9]+:/s/[0-9a-f]{12}|-{12}/-/g'
}

# touched_files prints the files that the patches given (default: all of
# patches/) change, relative to the upstream tree.
touched_files() {
  local -a files=("$@")
  ((${#files[@]})) || mapfile -t files < <(patch_files)
  ((${#files[@]})) || return 0
  (cd "${ROOT}" && go run ./cmd/series files "${files[@]}")
}

# touched_packages prints the Go packages (./dir) that the patches given
# (default: all of patches/) change and that exist in _output/kubernetes.
touched_packages() {
  local -a files=("$@")
  ((${#files[@]})) || mapfile -t files < <(patch_files)
  ((${#files[@]})) || return 0
  (cd "${ROOT}" && go run ./cmd/series packages "${KUBE_ROOT}" "${files[@]}")
}

# Integration test packages need etcd and run behind their own target.
INTEGRATION_PACKAGES='^\./test/integration(/|$)'

# go_test_integration ARGS... runs go test ARGS in the current directory, a
# tree of this base, with the etcd of _output/bin. Upstream's test API server
# finds its fixtures from its source path, which -trimpath makes relative to
# the module; it then looks under TEST_SRCDIR/TEST_WORKSPACE, as under Bazel,
# where a link names this base's tree. The path is the same for every
# worktree, so it does not split Go's test cache.
go_test_integration() {
  local srcdir="${OUTPUT}/srcdir/${BASE}"
  mkdir -p "${srcdir}/k8s.io"
  ln -sfn "${KUBE_ROOT}" "${srcdir}/k8s.io/kubernetes"
  PATH="${BIN}:${PATH}" TEST_SRCDIR="${srcdir}" TEST_WORKSPACE=. go test ${TRIMPATH} "$@"
}
# The node e2e suite's go test runs its specs against a node: make test and
# make test-series vet it, and make test-node runs the specs.
NODE_E2E_PACKAGES='^\./test/e2e_node(/|$)'

# build_etcd builds the etcd that upstream's integration framework and
# make run use, into _output/bin. go install refuses etcd's replace
# directives; building it inside the Kubernetes workspace gives exactly the
# version upstream pins.
build_etcd() {
  [[ -x "${BIN}/etcd" ]] && return
  log "building etcd"
  mkdir -p "${BIN}"
  (cd "${KUBE_ROOT}" && go build -o "${BIN}/etcd" go.etcd.io/etcd/server/v3)
}

# Upstream's hack/ scripts would otherwise use a private GOPATH and caches
# under _output/kubernetes/_output and fetch the Go release named in
# .go-version. Share the machine's caches, and use the base's Go: the
# machine's, or the release the go command fetches through the module proxy.
export GOTOOLCHAIN="${KUBE_GOTOOLCHAIN}" FORCE_HOST_GO=1
GOCACHE=$(go env GOCACHE)
GOMODCACHE=$(go env GOMODCACHE)
export GOCACHE GOMODCACHE

# The helpers of the control plane, the node, its e2e runs, the side-by-side
# runs and upstream's generators.
for lib in control-plane node e2e sidebyside generated; do
  # shellcheck source=/dev/null
  source "${ROOT}/hack/lib/${lib}.sh"
done
unset lib
