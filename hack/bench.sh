#!/usr/bin/env bash
# make bench: the same benchmarks (test/sidebyside/testdata/*_bench_test.go),
# compiled into the base tree and the patched tree and run interleaved, so
# that both trees see the same load of a shared machine: 30 rounds of one
# short run (200ms) of the ValidatePodUpdate benchmarks of each tree, 90 of
# the probe loop's hot paths (their budgets are 5%, and a 200ms run of them
# varies by more than that on a shared 2-core machine: the median of 90
# paired ratios resolves it), then 3 rounds of the other prober benchmarks,
# alternating which tree goes first.
# benchstat prints the comparison; cmd/benchbudget checks the budgets of
# internal/benchbudget and exits 1 naming each broken one and by how much.
# Both, with the date, the machine and the series (the marker that
# hack/verify-measured.sh reads), are written to docs/benchmarks.md. Not
# part of make test: benchmarks are not tests.
#
#   hack/bench.sh [--rounds=30] [--loop-rounds=90] [--prober-rounds=3] [--benchtime=200ms]
set -euo pipefail
# shellcheck source=hack/lib/init.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/init.sh"
# shellcheck source=hack/lib/sidebyside.sh
source "${ROOT}/hack/lib/sidebyside.sh"
# shellcheck source=hack/lib/tree.sh
source "${ROOT}/hack/lib/tree.sh"

rounds=30 loop_rounds=90 prober_rounds=3 benchtime=200ms
for arg in "$@"; do
  case "${arg}" in
    --rounds=*) rounds=${arg#*=} ;;
    --loop-rounds=*) loop_rounds=${arg#*=} ;;
    --prober-rounds=*) prober_rounds=${arg#*=} ;;
    --benchtime=*) benchtime=${arg#*=} ;;
    *) kep::log::error_exit "usage: hack/bench.sh [--rounds=N] [--loop-rounds=N] [--prober-rounds=N] [--benchtime=DURATION]" ;;
  esac
done
work="${OUTPUT}/bench"
kep::sidebyside::run "${work}"

# The report names the commit of this repository whose series it measured,
# when the tree built is that series: not when it holds edits or commits
# not exported, or was built from an older series (make checkout rebuilds
# it).
measured=unknown exported=0
kep::tree::is_exported || exported=$?
if ((exported == 0)) && [[ -z "$(kep::tree::git status --porcelain --untracked-files=normal)" ]]; then
  measured=$(kep::tree::series_tree "${PATCHES}")
fi
if [[ "${measured}" == unknown ]]; then
  commit="the tree as it was, not the series: work not exported, or an older series"
elif [[ "${measured}" == "$(git -C "${ROOT}" rev-parse "HEAD:${SERIES}" 2>/dev/null)" ]]; then
  commit="the series of commit $(git -C "${ROOT}" rev-parse --short HEAD)"
else
  commit="a series not committed yet"
fi

PROBER_PKG=pkg/kubelet/prober
for tree in base patched; do
  root=$(kep::sidebyside::tree_root "${tree}")
  kep::sidebyside::write_overlay "${work}/${tree}.overlay.json" "${root}" \
    "${VALIDATION_PKG}/zz_kep_corpus_test.go=validation_corpus_test.go" \
    "${VALIDATION_PKG}/zz_kep_bench_test.go=validation_bench_test.go" \
    "staging/src/k8s.io/pod-security-admission/admission/zz_kep_significant.go=psa_significant.go" \
    "${PROBER_PKG}/zz_kep_bench_test.go=prober_bench_test.go"
  kep::log::status "bench: building the test binaries of the ${tree} tree"
  (cd "${root}" &&
    go test -c "${TRIMPATH}" -o "${work}/${tree}-$(basename "${VALIDATION_PKG}").test" -overlay "${work}/${tree}.overlay.json" "./${VALIDATION_PKG}" &&
    go test -c "${TRIMPATH}" -o "${work}/${tree}-$(basename "${PROBER_PKG}").test" -overlay "${work}/${tree}.overlay.json" "./${PROBER_PKG}")
  : >"${work}/${tree}.txt"
done

# run_tree TREE PKG BENCH [FLAGS] runs the benchmarks BENCH of PKG in TREE once.
run_tree() {
  local tree=$1 pkg=$2 bench=$3 root
  shift 3
  root=$(kep::sidebyside::tree_root "${tree}")
  (cd "${root}/${pkg}" && HARNESS_TREE=${tree} "${work}/${tree}-$(basename "${pkg}").test" -test.run '^$' \
    -test.bench "${bench}" -test.count 1 "$@") >>"${work}/${tree}.txt"
}

# interleaved N PKG BENCH [FLAGS] runs N rounds of both trees.
interleaved() {
  local n=$1 r
  shift
  for ((r = 1; r <= n; r++)); do
    if ((r % 2)); then
      run_tree base "$@"
      run_tree patched "$@"
    else
      run_tree patched "$@"
      run_tree base "$@"
    fi
  done
}

start=${SECONDS}
kep::log::status "bench: ValidatePodUpdate and Pod Security, ${rounds} rounds of ${benchtime}"
interleaved "${rounds}" "${VALIDATION_PKG}" '^BenchmarkKEP(ValidatePodUpdate|IsSignificantPodUpdate)$' -test.benchtime "${benchtime}"
kep::log::status "bench: the probe loop, ${loop_rounds} rounds of ${benchtime}"
interleaved "${loop_rounds}" "${PROBER_PKG}" '^BenchmarkKEP(DoProbe|PodUpdateLabelOnly)$' -test.benchtime "${benchtime}"
kep::log::status "bench: prober, ${prober_rounds} rounds"
interleaved "${prober_rounds}" "${PROBER_PKG}" '^BenchmarkKEP(AddPodNoChange|RapidUpdates)$'
kep::log::status "bench: done in $((SECONDS - start))s"

# benchstat at the version hack/tools/go.mod pins.
go -C "${ROOT}/hack/tools" tool benchstat base="${work}/base.txt" patched="${work}/patched.txt" >"${work}/benchstat.txt"
budget=0
(cd "${ROOT}" && go run ./cmd/benchbudget "${work}/base.txt" "${work}/patched.txt") >"${work}/budget.txt" 2>&1 || budget=$?

# The report: what ran, where, and what it gave, as the run printed it.
report="${ROOT}/docs/benchmarks.md"
# The marker that make verify's measured check compares with the series.
refresh="make bench"
[[ "${BASE}" == "${DEFAULT_BASE}" ]] || refresh+=" BASE=${BASE}"
{
  echo "# Benchmarks: the patched tree against the base"
  echo
  echo "<!-- measured: release=${BASE} series-tree=${measured} command=\"${refresh}\" -->"
  echo
  echo "Written by \`make bench\` (\`hack/bench.sh\`) from its last run; not edited by hand."
  echo "The benchmarks are in \`test/sidebyside/testdata\`; the budgets in \`internal/benchbudget\`."
  echo
  echo "- run: $(date -u +%Y-%m-%dT%H:%MZ), $((SECONDS - start)) s"
  echo "- machine: $(nproc) cores, $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1), $(free -g | awk '/^Mem:/ {print $2}') GiB, $(go version | cut -d' ' -f3-)"
  if [[ "${measured}" == unknown ]]; then
    echo "- trees: ${KUBE_VERSION} and ${TREE} as it was (${commit})"
  else
    echo "- trees: ${KUBE_VERSION} and ${KUBE_VERSION} plus the $(kep::tree::patch_files | wc -l) patches of ${SERIES}/ (git tree ${measured:0:12}, ${commit})"
  fi
  echo "- rounds: ${rounds} of ${benchtime} (ValidatePodUpdate), ${loop_rounds} of ${benchtime} (the probe loop), ${prober_rounds} (prober), interleaved"
  echo
  echo "How to read it: the budgets below are what \`make bench\` checks. The gate-on"
  echo "benchmarks run only in the patched tree, which alone has the option. The"
  echo "base tree ignores a probe change of a running Pod, so \`KEPRapidUpdates\`'"
  echo "time compares applying 1,000 changes with doing nothing; only its"
  echo "goroutines and workers, which must not grow, compare like with like."
  echo
  echo "## benchstat"
  echo
  echo '```'
  cat "${work}/benchstat.txt"
  echo '```'
  echo
  echo "## Budgets"
  echo
  echo '```'
  cat "${work}/budget.txt"
  echo '```'
} >"${report}"
cat "${work}/benchstat.txt" "${work}/budget.txt"
kep::log::status "bench: wrote ${report#"${ROOT}/"}"
((budget == 0)) || kep::log::error_exit "bench: a performance budget is broken (see above); raw results in ${work#"${ROOT}/"}"
kep::log::status "bench: every budget holds"
