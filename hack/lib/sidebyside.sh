# shellcheck shell=bash
# Helpers for running project code in the patched tree and in the base tree
# side by side (make test-differential, make test-fuzz, make bench).
#
# The project's programs are compiled into each tree's packages with
# go test -overlay, which adds files to a package without touching the tree.
# They live in test/sidebyside/testdata, which the project's own go commands
# ignore.

# Sourced once, whatever sources it.
[[ " ${HARNESS_SOURCED:-} " != *" sidebyside "* ]] || return 0
HARNESS_SOURCED+=" sidebyside"
# shellcheck source=hack/lib/golang.sh
source "${ROOT}/hack/lib/golang.sh"
# shellcheck source=hack/lib/tree.sh
source "${ROOT}/hack/lib/tree.sh"

# The base tree of each base: _output/base for master, _output/base-1.37 for
# 1.37, so that both last through a run that tests both.
BASE_ROOT="${OUTPUT}/${KUBE_TREE/kubernetes/base}"
SIDEBYSIDE="${ROOT}/test/sidebyside/testdata"

# kep::sidebyside::ensure_base_tree makes BASE_ROOT a clean worktree of _output/kubernetes,
# detached at the base commit, unless it already is one.
kep::sidebyside::ensure_base_tree() {
  local base
  base=$(kep::tree::base_commit) || kep::log::error_exit "${TREE} has no ${BASE_TAG} tag. Run 'make checkout${MAKE_BASE}'."
  if [[ -e "${BASE_ROOT}/.git" ]] &&
    [[ "$(git -C "${BASE_ROOT}" rev-parse -q --verify HEAD 2>/dev/null)" == "${base}" ]] &&
    [[ -z "$(git -C "${BASE_ROOT}" status --porcelain --untracked-files=normal 2>/dev/null)" ]]; then
    return
  fi
  kep::log::status "creating the base tree ${BASE_ROOT#"${ROOT}/"} at ${BASE_TAG}"
  kep::tree::new_worktree "${BASE_ROOT}" "${base}"
}

# kep::sidebyside::run DIR prepares a run in both trees: it makes sure the
# patched tree (as it is) and the base tree exist, and DIR, the run's
# directory.
kep::sidebyside::run() {
  kep::tree::ensure_checkout
  kep::sidebyside::ensure_base_tree
  mkdir -p "$1"
}

# kep::sidebyside::tree_root TREE prints the root of the patched or the base tree.
kep::sidebyside::tree_root() {
  if [[ "$1" == base ]]; then echo "${BASE_ROOT}"; else echo "${KUBE_ROOT}"; fi
}

# kep::sidebyside::write_overlay FILE TREE DEST=SRC... writes a go -overlay file
# (kep::golang::write_overlay) that adds each project file SRC (relative to
# SIDEBYSIDE, or absolute) to TREE as DEST (relative to TREE). It creates the
# directory of a DEST in a new package: go vet runs in it. git does not see
# an empty directory.
kep::sidebyside::write_overlay() {
  local file=$1 tree=$2 pair src replace=()
  shift 2
  for pair in "$@"; do
    src=${pair#*=}
    [[ "${src}" == /* ]] || src="${SIDEBYSIDE}/${src}"
    mkdir -p "$(dirname "${tree}/${pair%%=*}")"
    replace+=("${tree}/${pair%%=*}" "${src}")
  done
  kep::golang::write_overlay "${file}" "${replace[@]}"
}

# The files that the differential test adds to pkg/apis/core/validation:
# the corpus, the test, the records it writes (the project's own
# definition, which cmd/differential reads), and the bridge to Pod
# Security's unexported isSignificantPodUpdate.
VALIDATION_PKG=pkg/apis/core/validation
VALIDATION_OVERLAY=(
  "${VALIDATION_PKG}/zz_kep_corpus_test.go=validation_corpus_test.go"
  "${VALIDATION_PKG}/zz_kep_differential_test.go=validation_differential_test.go"
  "${VALIDATION_PKG}/internal/kepdiff/record.go=${ROOT}/internal/differential/record/record.go"
  "staging/src/k8s.io/pod-security-admission/admission/zz_kep_significant.go=psa_significant.go"
)
