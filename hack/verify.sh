#!/usr/bin/env bash
# Checks the series and the harness. Each failure says what to run to fix it.
#
#   hack/verify.sh                 every check
#   VERIFY_UPSTREAM=0 hack/verify.sh   skip upstream's verify scripts and
#                                      generated-file checks
#   VERIFY_PROTOBUF=0, VERIFY_OPENAPI_SPEC=1   see hack/verify-generated.sh
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# Upstream verify scripts (hack/verify-NAME.sh) that cover what the series
# changes and run offline.
UPSTREAM_VERIFY=(
  featuregates
  test-featuregates
  non-mutating-validation
)

failed=()
fail() {
  printf '!!! %s\n' "$*" >&2
  failed+=("$1")
}

# The series must apply with git am to a base rebuilt from the module proxy
# and give exactly the tree of _output/kubernetes at HEAD.
verify_series_applies() {
  log "verify: patches/ applies to a fresh ${KUBE_VERSION} base and reproduces _output/kubernetes"
  local scratch
  scratch=$(mktemp -d "${OUTPUT}/verify.XXXXXX")
  if ! KEP_KUBE_ROOT="${scratch}/kubernetes" "${ROOT}/hack/checkout.sh" >"${scratch}/log" 2>&1; then
    cat "${scratch}/log" >&2
    rm -rf "${scratch}"
    fail "series: patches/ does not apply to a fresh base. Rebase the series in _output/kubernetes, run 'make patches', and commit."
    return
  fi
  local fresh head fresh_base base
  fresh=$(git -C "${scratch}/kubernetes" rev-parse 'HEAD^{tree}')
  fresh_base=$(git -C "${scratch}/kubernetes" rev-parse "${BASE_TAG}^{tree}")
  head=$(kgit rev-parse 'HEAD^{tree}')
  base=$(kgit rev-parse "${BASE_TAG}^{tree}")
  rm -rf "${scratch}"
  if [[ "${fresh_base}" != "${base}" ]]; then
    fail "base: the ${BASE_TAG} commit of _output/kubernetes is not the pristine base. Run 'make patches', then 'make clean checkout'."
  elif [[ "${fresh}" != "${head}" ]]; then
    fail "series: patches/ does not reproduce _output/kubernetes at HEAD. Run 'make patches' and commit patches/ (or 'make checkout' after a 'git pull')."
  fi
}

# patches/ must be exactly what 'make patches' writes for HEAD, with no
# uncommitted work left in _output/kubernetes.
verify_exported() {
  log "verify: patches/ is the export of _output/kubernetes"
  local dirty
  dirty=$(kgit status --porcelain --untracked-files=normal)
  if [[ -n "${dirty}" ]]; then
    printf '%s\n' "${dirty}" | head -n 20 >&2
    fail "export: _output/kubernetes has uncommitted changes. Commit them there, then run 'make patches'."
  fi
  local tmp
  tmp=$(mktemp -d)
  export_series "${tmp}"
  if ! diff -r "${tmp}" "${PATCHES}" >"${tmp}.diff" 2>&1; then
    head -n 40 "${tmp}.diff" >&2
    fail "export: patches/ differs from 'make patches' output for _output/kubernetes. Run 'make patches' and commit patches/."
  fi
  rm -rf "${tmp}" "${tmp}.diff"
}

verify_gofmt() {
  log "verify: gofmt"
  local -a files=()
  local f
  while IFS= read -r f; do
    [[ "${f}" == *.go && -f "${KUBE_ROOT}/${f}" ]] && files+=("${f}")
  done < <(touched_files)
  local bad=""
  if ((${#files[@]})); then
    bad=$(cd "${KUBE_ROOT}" && gofmt -s -l "${files[@]}")
  fi
  bad+=$(cd "${ROOT}" && gofmt -s -l $(git ls-files --cached --others --exclude-standard '*.go'))
  if [[ -n "${bad}" ]]; then
    printf '%s\n' "${bad}" >&2
    fail "gofmt: the files above are not formatted. Run 'gofmt -s -w' on them (inside _output/kubernetes for the series), commit, and run 'make patches'."
  fi
}

# Upstream's license header check (hack/verify-boilerplate.sh), on the files the
# series touches. The script itself cannot run here: boilerplate.py lost its
# executable bit in the module zip, and verify-boilerplate.sh then passes
# without checking anything.
verify_boilerplate() {
  log "verify: license headers (upstream hack/boilerplate/boilerplate.py)"
  local -a files=()
  local f
  while IFS= read -r f; do
    [[ -f "${KUBE_ROOT}/${f}" ]] && files+=("${f}")
  done < <(touched_files)
  local bad
  bad=$(cd "${KUBE_ROOT}" && python3 hack/boilerplate/boilerplate.py --rootdir . --boilerplate-dir hack/boilerplate "${files[@]}")
  if [[ -n "${bad}" ]]; then
    printf '%s\n' "${bad}" >&2
    fail "boilerplate: the files above lack upstream's license header (new files say 'Copyright The Kubernetes Authors.', without a year). Fix them inside _output/kubernetes and run 'make patches'."
  fi
}

verify_project() {
  log "verify: go vet of the project module"
  if ! (cd "${ROOT}" && go vet -tags e2e,node ./...); then
    fail "vet: fix the go vet findings above in the project module."
  fi
}

verify_upstream() {
  local name
  for name in "${UPSTREAM_VERIFY[@]}"; do
    log "verify: upstream hack/verify-${name}.sh"
    if ! (cd "${KUBE_ROOT}" && bash "hack/verify-${name}.sh"); then
      local update="hack/update-${name}.sh"
      [[ -f "${KUBE_ROOT}/${update}" ]] || update="the change it reports"
      fail "upstream verify-${name}: run '${update}' inside _output/kubernetes, amend the patch it belongs to, and run 'make patches'."
    fi
  done
}

# Upstream's generated files (API docs, OpenAPI, apply configurations,
# generated.proto) match the series; see hack/verify-generated.sh.
verify_generated() {
  log "verify: upstream's generated files (hack/verify-generated.sh)"
  if ! "${ROOT}/hack/verify-generated.sh"; then
    fail "generated: run 'hack/update-generated.sh', amend the patch the files belong to inside _output/kubernetes, and run 'make patches'."
  fi
}

ensure_checkout
verify_exported
verify_series_applies
verify_gofmt
verify_boilerplate
verify_project
if [[ "${VERIFY_UPSTREAM:-1}" != 0 ]]; then
  verify_upstream
  verify_generated
fi

if ((${#failed[@]})); then
  die "verify failed: ${failed[*]}"
fi
log "verify: all checks passed"
