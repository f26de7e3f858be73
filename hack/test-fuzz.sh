#!/usr/bin/env bash
# make test-fuzz: native Go fuzzing of ValidatePodUpdate with
# AllowMutableContainerProbes on and off, in the patched tree, for 10
# minutes (KUBE_TEST_ARGS=-fuzztime=1m for another time). The target (test/sidebyside/testdata/validation_fuzz_test.go)
# fails on a panic or when validation changes its arguments.
#
# The regression inputs are the project's: test/sidebyside/testdata/fuzz/
# FuzzKEPValidatePodUpdate, read by the target (HARNESS_FUZZ_CORPUS) and run first
# as seeds. go test writes a failing input into the tree's
# pkg/apis/core/validation/testdata/fuzz; this script moves it into the
# project, to be committed, and leaves the tree as it was. The corpus that
# guides fuzzing is go test's, in $(go env GOCACHE)/fuzz.
set -euo pipefail
# shellcheck source=hack/lib/init.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/init.sh"
# shellcheck source=hack/lib/sidebyside.sh
source "${ROOT}/hack/lib/sidebyside.sh"
# shellcheck source=hack/lib/tree.sh
source "${ROOT}/hack/lib/tree.sh"

kep::tree::ensure_checkout

target=FuzzKEPValidatePodUpdate
read -ra test_args <<<"${KUBE_TEST_ARGS:-}"
work="${OUTPUT}/fuzz"
corpus="${SIDEBYSIDE}/fuzz/${target}"
pkgdir="${KUBE_ROOT}/${VALIDATION_PKG}"
mkdir -p "${work}" "${corpus}"

[[ ! -e "${pkgdir}/testdata" ]] ||
  kep::log::error_exit "${pkgdir#"${ROOT}/"}/testdata exists; it is not upstream's. Move any failing input in it to ${corpus#"${ROOT}/"} and remove it."
# keep_crashers moves what go test wrote into the tree to the project.
keep_crashers() {
  local f
  [[ -d "${pkgdir}/testdata" ]] || return 0
  for f in "${pkgdir}/testdata/fuzz/${target}"/*; do
    [[ -e "${f}" ]] || continue
    mv "${f}" "${corpus}/"
    kep::log::status "fuzz: failing input saved as ${corpus#"${ROOT}/"}/$(basename "${f}"); commit it as a regression case"
  done
  rm -rf "${pkgdir}/testdata"
}
trap keep_crashers EXIT

kep::sidebyside::write_overlay "${work}/overlay.json" "${KUBE_ROOT}" \
  "${VALIDATION_PKG}/zz_kep_corpus_test.go=validation_corpus_test.go" \
  "${VALIDATION_PKG}/zz_kep_fuzz_test.go=validation_fuzz_test.go"

cd "${KUBE_ROOT}"
kep::log::status "fuzz: ${target} in ${VALIDATION_PKG} (patched tree) ${test_args[*]:-for 10m}"
start=${SECONDS}
HARNESS_FUZZ_CORPUS="${corpus}" go test -overlay "${work}/overlay.json" -run "^${target}\$" -fuzz "^${target}\$" \
  -fuzztime 10m "${test_args[@]}" "./${VALIDATION_PKG}"
kep::log::status "fuzz: clean after $((SECONDS - start))s"
