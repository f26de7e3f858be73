#!/usr/bin/env bash
# Checks the series and the harness. Each failure says what to run to fix it.
#
#   hack/verify.sh                 every check
#   KEP_VERIFY_UPSTREAM=0 hack/verify.sh   skip upstream's verify scripts and
#                                      generated-file checks
#   KEP_VERIFY_PROTOBUF=0, KEP_VERIFY_OPENAPI_SPEC=0   see hack/internal/verify-generated.sh
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib/init.sh"

# make verify checks every series from the default base: the ported series
# apply to their bases, differ only as recorded, and match what their own
# generators make.
[[ "${BASE}" == "${DEFAULT_BASE}" ]] ||
  kep::log::error_exit "make verify checks the series of every base from BASE=${DEFAULT_BASE}; run it without BASE."

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
  kep::log::status "verify: ${SERIES}/ applies to a fresh ${KUBE_VERSION} base and reproduces ${TREE}"
  local scratch
  scratch=$(mktemp -d "${OUTPUT}/verify.XXXXXX")
  if ! KEP_KUBE_ROOT="${scratch}/kubernetes" "${ROOT}/hack/checkout.sh" >"${scratch}/log" 2>&1; then
    cat "${scratch}/log" >&2
    rm -rf "${scratch}"
    fail "series: ${SERIES}/ does not apply to a fresh base. Rebase the series in ${TREE}, run 'make patches', and commit."
    return
  fi
  local fresh head fresh_base base
  fresh=$(git -C "${scratch}/kubernetes" rev-parse 'HEAD^{tree}')
  fresh_base=$(git -C "${scratch}/kubernetes" rev-parse "${BASE_TAG}^{tree}")
  head=$(kep::tree::git rev-parse 'HEAD^{tree}')
  base=$(kep::tree::git rev-parse "${BASE_TAG}^{tree}")
  rm -rf "${scratch}"
  if [[ "${fresh_base}" != "${base}" ]]; then
    fail "base: the ${BASE_TAG} commit of ${TREE} is not the pristine base. Run 'make patches', then 'make clean checkout'."
  elif [[ "${fresh}" != "${head}" ]]; then
    fail "series: ${SERIES}/ does not reproduce ${TREE} at HEAD. Run 'make patches' and commit ${SERIES}/ (or 'make checkout' after a 'git pull')."
  fi
}

# patches/ must be exactly what 'make patches' writes for HEAD, with no
# uncommitted work left in _output/kubernetes.
verify_exported() {
  kep::log::status "verify: ${SERIES}/ is the export of ${TREE}"
  local dirty
  dirty=$(kep::tree::git status --porcelain --untracked-files=normal)
  if [[ -n "${dirty}" ]]; then
    printf '%s\n' "${dirty}" | head -n 20 >&2
    fail "export: ${TREE} has uncommitted changes. Commit them there, then run 'make patches'."
  fi
  local tmp
  tmp=$(mktemp -d)
  kep::tree::export_series "${tmp}"
  if ! diff -r "${tmp}" "${PATCHES}" >"${tmp}.diff" 2>&1; then
    head -n 40 "${tmp}.diff" >&2
    fail "export: ${SERIES}/ differs from 'make patches' output for ${TREE}. Run 'make patches' and commit ${SERIES}/."
  fi
  rm -rf "${tmp}" "${tmp}.diff"
}

# Every series ported from this one (PORT_FROM) applies with git am to its
# own freshly downloaded base, is ported from this series as it is, and
# differs from it only as its range-diff records (hack/port.sh check).
verify_ports() {
  local release scratch
  for release in $(kep::tree::ported_releases); do
    kep::log::status "verify: the ${release} series applies to a fresh $(kep::tree::release_var "${release}" KUBE_VERSION) base and is ported from ${SERIES}/"
    scratch=$(mktemp -d "${OUTPUT}/verify.XXXXXX")
    if ! BASE="${release}" KEP_KUBE_ROOT="${scratch}/kubernetes" KEP_PATCHES= "${ROOT}/hack/port.sh" check; then
      fail "port: the ${release} series (above)"
    fi
    rm -rf "${scratch}"
  done
}

verify_gofmt() {
  kep::log::status "verify: gofmt"
  local -a files
  mapfile -t files < <(kep::tree::touched_files | grep '\.go$')
  local bad=""
  if ((${#files[@]})); then
    bad=$(cd "${KUBE_ROOT}" && gofmt -s -l "${files[@]}")
  fi
  bad+=$(cd "${ROOT}" && gofmt -s -l $(git ls-files --cached --others --exclude-standard '*.go'))
  if [[ -n "${bad}" ]]; then
    printf '%s\n' "${bad}" >&2
    fail "gofmt: the files above are not formatted. Run 'gofmt -s -w' on them (inside ${TREE} for the series), commit, and run 'make patches'."
  fi
}

# Upstream's license header check (hack/verify-boilerplate.sh), on the files the
# series touches. The script itself cannot run here: boilerplate.py lost its
# executable bit in the module zip, and verify-boilerplate.sh then passes
# without checking anything.
verify_boilerplate() {
  kep::log::status "verify: license headers (upstream hack/boilerplate/boilerplate.py)"
  local -a files
  mapfile -t files < <(kep::tree::touched_files)
  local bad
  bad=$(cd "${KUBE_ROOT}" && python3 hack/boilerplate/boilerplate.py --rootdir . --boilerplate-dir hack/boilerplate "${files[@]}")
  if [[ -n "${bad}" ]]; then
    printf '%s\n' "${bad}" >&2
    fail "boilerplate: the files above lack upstream's license header (new files say 'Copyright The Kubernetes Authors.', without a year). Fix them inside ${TREE} and run 'make patches'."
  fi
}

verify_project() {
  kep::log::status "verify: go vet of the project module"
  if ! (cd "${ROOT}" && go vet -tags e2e,node ./...); then
    fail "vet: fix the go vet findings above in the project module."
  fi
}

verify_upstream() {
  local name
  for name in "${UPSTREAM_VERIFY[@]}"; do
    kep::log::status "verify: upstream hack/verify-${name}.sh"
    if ! (cd "${KUBE_ROOT}" && bash "hack/verify-${name}.sh"); then
      local update="hack/update-${name}.sh"
      [[ -f "${KUBE_ROOT}/${update}" ]] || update="the change it reports"
      fail "upstream verify-${name}: run '${update}' inside ${TREE}, amend the patch it belongs to, and run 'make patches'."
    fi
  done
}

# Upstream's spelling check (hack/verify-spelling.sh, misspell as
# hack/tools pins it), on the files the series touches and the project's own.
verify_spelling() {
  kep::log::status "verify: spelling (misspell, as upstream hack/verify-spelling.sh)"
  local -a files
  mapfile -t files < <(kep::tree::touched_files | sed "s|^|${KUBE_ROOT}/|")
  local f
  while IFS= read -r f; do
    files+=("${ROOT}/${f}")
  done < <(cd "${ROOT}" && git ls-files --cached --others --exclude-standard | grep -v -e '\.patch$' -e '/testdata/' -e '/range-diff$' -e '^hack/tools/go\.\(mod\|sum\)$')
  if ! go -C "${ROOT}/hack/tools" tool misspell -i "Creater,creater,ect" -error -o stderr "${files[@]}"; then
    fail "spelling: fix the words above (inside ${TREE} for the series; then 'make patches')."
  fi
}

# Upstream's import restrictions (hack/verify-import-boss.sh), on the
# packages the series touches.
verify_import_boss() {
  kep::log::status "verify: import restrictions (upstream cmd/import-boss)"
  local -a pkgs
  mapfile -t pkgs < <(kep::tree::touched_packages)
  if ! (cd "${KUBE_ROOT}" && go run ./cmd/import-boss "${pkgs[@]}"); then
    fail "import-boss: a package the series touches imports what its .import-restrictions forbid (above). Fix it inside ${TREE} and run 'make patches'."
  fi
}

# Upstream's generated mocks (hack/verify-mocks.sh): mockery's
# configurations (.mockery.yaml) name the packages whose interfaces have
# mocks. None may be one that the series touches, or its mocks need a look.
verify_mocks() {
  kep::log::status "verify: no generated mock of a package the series touches (upstream .mockery.yaml)"
  local mocked touched both
  mocked=$(cd "${KUBE_ROOT}" && find . -name .mockery.yaml -not -path './vendor/*' -not -path './_output/*' \
    -exec sed -n 's/^  \([a-z0-9.-]*\.[a-z]*\/[^:]*\):[[:space:]]*$/\1/p' {} + | LC_ALL=C sort -u)
  touched=$(kep::tree::touched_packages | sed 's|^\./staging/src/||; s|^\./|k8s.io/kubernetes/|' | LC_ALL=C sort -u)
  both=$(LC_ALL=C comm -12 <(echo "${mocked}") <(echo "${touched}"))
  if [[ -z "${mocked}" ]]; then
    fail "mocks: found no package in the .mockery.yaml files of ${TREE}; the check reads them wrong"
  elif [[ -n "${both}" ]]; then
    fail "mocks: the series touches packages with generated mocks: ${both//$'\n'/ }. If it changes their interfaces, regenerate the mocks with upstream's hack/update-mocks.sh inside ${TREE} and amend the patch."
  fi
}

# Upstream's e2e test ownership (hack/verify-e2e-test-ownership.sh): every
# spec of the e2e packages the series touches belongs to a SIG. The script
# runs on the small e2e binary of make test-node (test/e2e/common/node),
# which it finds where it would build upstream's whole e2e.test.
verify_e2e_ownership() {
  kep::log::status "verify: e2e test ownership (upstream hack/verify-e2e-test-ownership.sh)"
  source "${ROOT}/hack/lib/e2e.sh"
  kep::e2e::build
  mkdir -p "${KUBE_ROOT}/_output/bin"
  cp "${E2E_DIR}/e2e.test" "${E2E_DIR}/ginkgo" "${KUBE_ROOT}/_output/bin/"
  rm -f "${KUBE_ROOT}/_output/specsummaries.json"
  if ! (cd "${KUBE_ROOT}" && REUSE_BUILD_OUTPUT=y bash hack/verify-e2e-test-ownership.sh); then
    fail "e2e ownership: a spec above has no [sig-...] owner. Fix it inside ${TREE} and run 'make patches'."
  fi
}

# Upstream's golangci-lint (hack/verify-golangci-lint.sh) with upstream's
# configuration (hack/golangci.yaml), on the packages the series touches,
# reporting only what the series adds (--new-from-rev, as the script's -r).
# golangci-lint and its logcheck and kube-api-linter plugins are built from
# hack/tools. The configuration's "sorted" linter (feature gates in order) is
# left out: its source is in upstream's hack/tools, which the module zip of
# k8s.io/kubernetes lacks.
verify_golangci_lint() {
  kep::log::status "verify: golangci-lint with upstream's hack/golangci.yaml, what the series adds"
  local bin="${OUTPUT}/tools"
  mkdir -p "${bin}"
  go -C "${ROOT}/hack/tools" build -o "${bin}/golangci-lint" github.com/golangci/golangci-lint/v2/cmd/golangci-lint &&
    go -C "${ROOT}/hack/tools" build -buildmode=plugin -o "${bin}/logcheck.so" sigs.k8s.io/logtools/logcheck/plugin &&
    go -C "${ROOT}/hack/tools" build -buildmode=plugin -o "${bin}/kube-api-linter.so" sigs.k8s.io/kube-api-linter/pkg/plugin ||
    { fail "golangci-lint: building it from hack/tools failed (above)"; return; }
  sed -e "s;path: _output/local/bin/;path: ${bin}/;" -e '/^    - sorted$/d' \
    -e '/^      sorted:$/,/^      kubeapilinter:$/{/^      kubeapilinter:$/!d}' \
    "${KUBE_ROOT}/hack/golangci.yaml" >"${bin}/golangci.yaml"
  local -a targets
  mapfile -t targets < <(kep::tree::touched_packages)
  # With -trimpath the packages that golangci-lint has go list compile for
  # their types do not depend on the tree's path, so a fresh clone gets them
  # from Go's cache (without it, 5 min here).
  if ! (cd "${KUBE_ROOT}" && GOFLAGS="${GOFLAGS:+${GOFLAGS} }${TRIMPATH}" "${bin}/golangci-lint" run --config="${bin}/golangci.yaml" \
    --new --new-from-rev="$(kep::tree::base_commit)" "${targets[@]}"); then
    fail "golangci-lint: fix what the series adds above inside ${TREE} (upstream's hack/verify-golangci-lint.sh runs the same), and run 'make patches'."
  fi
}

# Upstream's generated files (API docs, OpenAPI, apply configurations,
# generated.proto, the OpenAPI spec) match the series, on this base and on
# every base ported from it, each with its own generators; see
# hack/internal/verify-generated.sh. A ported base's tree is checked out if
# it is not yet (make test BASE=<minor> then finds it).
verify_generated() {
  kep::log::status "verify: upstream's generated files (hack/internal/verify-generated.sh)"
  if ! "${ROOT}/hack/internal/verify-generated.sh"; then
    fail "generated: run 'hack/update-generated.sh', amend the patch the files belong to inside ${TREE}, and run 'make patches'."
  fi
  local release tree
  for release in $(kep::tree::ported_releases); do
    tree="_output/$(kep::tree::release_var "${release}" KUBE_TREE)"
    kep::log::status "verify: upstream's generated files of the ${release} series, in ${tree}"
    if ! BASE="${release}" KEP_KUBE_ROOT= KEP_PATCHES= "${ROOT}/hack/checkout.sh" ||
      ! BASE="${release}" KEP_KUBE_ROOT= KEP_PATCHES= "${ROOT}/hack/internal/verify-generated.sh"; then
      fail "generated (${release}): run 'make update-generated BASE=${release}', amend the patch the files belong to inside ${tree}, and run 'make patches BASE=${release}' and 'BASE=${release} hack/port.sh record'."
    fi
  done
}

# Each patch reads like an upstream commit: its subject starts with
# "KEP-6318: ", it has a body, and it carries no Change-Id and no path of a
# local machine. The gate's owner is a GitHub handle or marked as a
# placeholder to fill in for the PR.
verify_hygiene() {
  kep::log::status "verify: series hygiene (subjects, bodies, no local paths)"
  local f subject body
  local release
  for f in $(for release in "${RELEASES}"/*/; do kep::tree::release_patches "$(basename "${release}")"; done | sed 's|$|/[0-9][0-9][0-9][0-9]-*.patch|'); do
    subject=$(git mailinfo /dev/null /dev/null <"${f}" | sed -n 's/^Subject: //p')
    body=$(sed -n '/^$/,/^---$/p' "${f}" | sed '1d;$d' | grep -c '[^[:space:]]' || true)
    if [[ "${subject}" != "KEP-6318: "* ]]; then
      fail "hygiene: ${f#"${ROOT}/"}: the subject must start with 'KEP-6318: ' (got '${subject}'). Reword the commit in ${TREE} and run 'make patches'."
    fi
    if ((body == 0)); then
      fail "hygiene: ${f#"${ROOT}/"}: the commit message has no body; say why the change is made. Reword it in ${TREE} and run 'make patches'."
    fi
    if grep -nE '^Change-Id:|/(work|home|root|tmp|Users)/' "${f}" | grep -v '^[0-9]*:[-+ ]' >&2; then
      fail "hygiene: ${f#"${ROOT}/"}: the commit message has a Change-Id or a local path (above)."
    fi
  done
  if ! grep -hE '^\+\s*// owner: ' "${PATCHES}"/*.patch | grep -qE 'owner: (@[A-Za-z0-9-]+$|@PLACEHOLDER \()'; then
    fail "hygiene: the feature gate's 'owner:' comment must name a GitHub handle, or say '@PLACEHOLDER (...)' until the PR is sent."
  fi
}

# The README names every target of the Makefile, and nothing else as one;
# the Makefile lists the settings the scripts read.
verify_docs() {
  kep::log::status "verify: the README's targets and the Makefile's"
  local targets named missing extra
  targets=$(sed -n 's/^\([a-z0-9-]*\):.*## .*/\1/p' "${ROOT}/Makefile" | LC_ALL=C sort -u)
  named=$(grep -o 'make [a-z0-9-]*' "${ROOT}/README.md" | cut -d' ' -f2 | LC_ALL=C sort -u)
  missing=$(LC_ALL=C comm -23 <(echo "${targets}") <(echo "${named}"))
  extra=$(LC_ALL=C comm -13 <(echo "${targets}") <(echo "${named}"))
  [[ -z "${missing}" ]] || fail "docs: the README does not name these targets of the Makefile: ${missing//$'\n'/ }"
  [[ -z "${extra}" ]] || fail "docs: the README names targets that the Makefile does not have: ${extra//$'\n'/ }"
  local setting
  for setting in $(grep -ohE '\$\{KEP_[A-Z0-9_]+:-' "${ROOT}"/hack/*.sh "${ROOT}"/hack/{lib,internal}/*.sh | sed 's/^..//; s/:-$//' | LC_ALL=C sort -u); do
    # Set by the harness for its own scripts, not by users.
    case "${setting}" in KEP_KUBE_ROOT | KEP_PATCHES | KEP_RELEASES | KEP_OUTPUT | KEP_NODE_INSIDE) continue ;; esac
    grep -q "^#[:-] ${setting} " "${ROOT}/Makefile" || fail "docs: ${setting} is read by hack/ but not listed in the Makefile's settings"
  done
  kep::log::status "verify: links, anchors, targets, paths and settings that the docs name"
  (
    cd "${ROOT}"
    # docs/harness.md names hack/tools as what the module zips lack.
    go run ./cmd/doc-check -tree "${KUBE_ROOT}" -absent hack/tools \
      README.md KEP.md docs/*.md test/images/*/README.md &&
      go run ./cmd/doc-test -list docs/changing-probes.md >/dev/null
  ) || fail "docs: a document names something that does not exist, or the guide's test-docs markup is wrong"
}

# run_checks CHECK... runs each check and logs the time it took, so that a
# slow one shows in the CI log.
run_checks() {
  local check start
  for check in "$@"; do
    start=${SECONDS}
    "${check}"
    kep::log::status "${check} took $((SECONDS - start))s"
  done
}

# The checks that take seconds first, and a stop if any fails; then those
# that rebuild a base or run upstream's tools.
kep::tree::ensure_checkout
run_checks verify_gofmt verify_project verify_hygiene verify_docs verify_boilerplate \
  verify_spelling verify_mocks verify_exported
if ((${#failed[@]})); then
  kep::log::error_exit "verify failed: ${failed[*]} (the quick checks; the series and upstream's checks did not run)"
fi
run_checks verify_series_applies verify_ports
if [[ "${KEP_VERIFY_UPSTREAM:-1}" != 0 ]]; then
  run_checks verify_upstream verify_import_boss verify_golangci_lint verify_e2e_ownership verify_generated
fi

if ((${#failed[@]})); then
  kep::log::error_exit "verify failed: ${failed[*]}"
fi
kep::log::status "verify: all checks passed"
