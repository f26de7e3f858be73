#!/usr/bin/env bash
# make test-differential: runs ValidatePodUpdate and Pod Security's
# isSignificantPodUpdate on the same generated (old Pod, new Pod) pairs in the
# patched tree and in the base tree, and compares them with cmd/differential:
# with the gate off the errors must be identical, with it on the metamorphic
# property must hold (see internal/differential).
#
#   KEP_DIFF_SEED=7 KEP_DIFF_PAIRS=50000 hack/test-differential.sh
#
# Arguments "<file in the tree>=<absolute path>" replace files of the patched
# tree for the run (go -overlay), to check that the comparison catches a
# broken change:
#
#   hack/test-differential.sh pkg/apis/core/validation/validation.go=/tmp/broken.go
set -euo pipefail
# shellcheck source=hack/lib/init.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/init.sh"
# shellcheck source=hack/lib/sidebyside.sh
source "${ROOT}/hack/lib/sidebyside.sh"

work="${OUTPUT}/differential/${BASE}"
kep::sidebyside::run "${work}"

seed=${KEP_DIFF_SEED:-1}
pairs=${KEP_DIFF_PAIRS:-30000}
rm -f "${work}"/*.jsonl "${work}/repro.txt" "${work}/repro-pairs"

for tree in patched base; do
  root=$(kep::sidebyside::tree_root "${tree}")
  # The fuzz target and the benchmarks are compiled in too, so that they
  # cannot rot between runs of make test-fuzz and make bench.
  overlay=("${VALIDATION_OVERLAY[@]}"
    "${VALIDATION_PKG}/zz_kep_fuzz_test.go=validation_fuzz_test.go"
    "${VALIDATION_PKG}/zz_kep_bench_test.go=validation_bench_test.go")
  if [[ ${tree} == patched ]]; then
    for mutant in "$@"; do
      [[ "${mutant}" == ?*=/?* ]] || kep::log::error_exit "hack/test-differential.sh: '${mutant}' is not <file in the tree>=<absolute path>"
      kep::log::status "differential: patched tree with ${mutant%%=*} replaced by ${mutant#*=}"
      overlay+=("${mutant}")
    done
  fi
  kep::sidebyside::write_overlay "${work}/${tree}.overlay.json" "${root}" "${overlay[@]}"
  kep::log::status "differential: building the ${VALIDATION_PKG} tests in the ${tree} tree"
  (cd "${root}" && go test -c "${TRIMPATH}" -o "${work}/${tree}.test" -overlay "${work}/${tree}.overlay.json" "./${VALIDATION_PKG}")
  kep::log::status "differential: ${pairs} pairs (KEP_DIFF_SEED=${seed}) in the ${tree} tree"
  start=${SECONDS}
  (cd "${root}/${VALIDATION_PKG}" &&
    HARNESS_DIFF_TREE=${tree} KEP_DIFF_SEED=${seed} KEP_DIFF_PAIRS=${pairs} HARNESS_DIFF_OUT="${work}/${tree}.jsonl" \
      "${work}/${tree}.test" -test.run '^TestKEPDifferential$' -test.count=1 -test.timeout=60m -test.v) | grep -v '^=== RUN'
  kep::log::status "differential: ${tree} tree took $((SECONDS - start))s"
done

# make bench's prober benchmarks compile in the patched tree, too.
kep::sidebyside::write_overlay "${work}/prober.overlay.json" "${KUBE_ROOT}" "pkg/kubelet/prober/zz_kep_bench_test.go=prober_bench_test.go"
(cd "${KUBE_ROOT}" && go test -c "${TRIMPATH}" -o /dev/null -overlay "${work}/prober.overlay.json" ./pkg/kubelet/prober)

# Built, not go run: go run turns every failing exit status into 1, and 1
# means "differences" while 2 means "cannot compare".
(cd "${ROOT}" && go build -o "${work}/differential" ./cmd/differential)
rc=0
"${work}/differential" -repro "${work}/repro-pairs" "${work}/patched.jsonl" "${work}/base.jsonl" || rc=$?
if ((rc == 1)); then
  (cd "${KUBE_ROOT}/${VALIDATION_PKG}" &&
    HARNESS_DIFF_TREE=patched KEP_DIFF_SEED=${seed} HARNESS_DIFF_DUMP="$(cat "${work}/repro-pairs")" HARNESS_DIFF_OUT="${work}/repro.txt" \
      "${work}/patched.test" -test.run '^TestKEPDifferential$' -test.count=1 >/dev/null)
  echo
  echo "Reproducers (KEP_DIFF_SEED=${seed}), the pairs above:"
  cat "${work}/repro.txt"
  kep::log::error_exit "the patched tree differs from the base (KEP_DIFF_SEED=${seed}); reproducers above and in ${work#"${ROOT}/"}/repro.txt"
fi
((rc == 0)) || kep::log::error_exit "differential: the records cannot be compared, or the corpus does not cover what the checks need (see above)"
kep::log::status "differential: no differences in ${pairs} pairs (KEP_DIFF_SEED=${seed})"
