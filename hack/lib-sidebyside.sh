# Helpers for running project code in the patched tree and in the base tree
# side by side (make test-differential, make test-fuzz, make bench). Source it
# after hack/lib.sh.
#
# The project's programs are compiled into each tree's packages with
# go test -overlay, which adds files to a package without touching the tree.
# They live in test/sidebyside/testdata, which the project's own go commands
# ignore.

BASE_ROOT="${OUTPUT}/base"
SIDEBYSIDE="${ROOT}/test/sidebyside/testdata"

# ensure_base_tree makes BASE_ROOT a clean worktree of _output/kubernetes,
# detached at the base commit, unless it already is one.
ensure_base_tree() {
  local base
  base=$(base_commit) || die "${TREE} has no ${BASE_TAG} tag. Run 'make checkout'."
  if [[ -e "${BASE_ROOT}/.git" ]] &&
    [[ "$(git -C "${BASE_ROOT}" rev-parse -q --verify HEAD 2>/dev/null)" == "${base}" ]] &&
    [[ -z "$(git -C "${BASE_ROOT}" status --porcelain --untracked-files=normal 2>/dev/null)" ]]; then
    return
  fi
  log "creating the base tree ${BASE_ROOT#"${ROOT}/"} at ${BASE_TAG}"
  new_worktree "${BASE_ROOT}" "${base}"
}

# write_overlay FILE TREE DEST=SRC... writes a go -overlay file that adds each
# project file SRC (relative to SIDEBYSIDE) to TREE as DEST (relative to TREE).
write_overlay() {
  local file=$1 tree=$2 sep=""
  shift 2
  {
    printf '{"Replace":{'
    for pair in "$@"; do
      printf '%s\n  "%s/%s": "%s/%s"' "${sep}" "${tree}" "${pair%%=*}" "${SIDEBYSIDE}" "${pair#*=}"
      sep=","
    done
    printf '\n}}\n'
  } >"${file}"
}

# The files that the differential test, the fuzz target and the benchmarks
# add to pkg/apis/core/validation, and the bridge to Pod Security's
# unexported isSignificantPodUpdate.
VALIDATION_PKG=pkg/apis/core/validation
VALIDATION_OVERLAY=(
  "${VALIDATION_PKG}/zz_kep_corpus_test.go=validation_corpus_test.go"
  "${VALIDATION_PKG}/zz_kep_differential_test.go=validation_differential_test.go"
  "staging/src/k8s.io/pod-security-admission/admission/zz_kep_significant.go=psa_significant.go"
)
