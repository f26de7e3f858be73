#!/usr/bin/env bash
# Upstream's golangci-lint (hack/verify-golangci-lint.sh) with upstream's
# configuration (hack/golangci.yaml), on the packages the tree changes on its
# base, reporting only what the tree adds (--new-from-rev, as the script's
# -r). golangci-lint and its logcheck and kube-api-linter linters are built
# from hack/tools: compiled into golangci-lint (hack/tools/golangci-lint),
# which the configuration of master and 1.38 loads as module plugins, and as
# Go plugins, which that of 1.37 loads (built only for it). The
# configuration's "sorted" linter (feature gates in order) is left out: its
# source is in upstream's hack/tools, which the module zip of
# k8s.io/kubernetes lacks.
set -euo pipefail
# shellcheck source=hack/lib/init.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/init.sh"
# shellcheck source=hack/lib/golang.sh
source "${ROOT}/hack/lib/golang.sh"
# shellcheck source=hack/lib/tree.sh
source "${ROOT}/hack/lib/tree.sh"

kep::tree::ensure_checkout
bin="${OUTPUT}/tools"
mkdir -p "${bin}"
# The Go plugins only for a configuration that loads them (1.37's): a
# plugin build compiles every package it uses again.
goplugins=()
if grep -q '^ *path: _output/local/bin/.*\.so$' "${KUBE_ROOT}/hack/golangci.yaml"; then
  goplugins=(logcheck.so=sigs.k8s.io/logtools/logcheck/plugin kube-api-linter.so=sigs.k8s.io/kube-api-linter/pkg/plugin)
fi
build_tools() {
  local plugin
  go -C "${ROOT}/hack/tools" build -o "${bin}/golangci-lint" ./golangci-lint || return
  for plugin in "${goplugins[@]}"; do
    go -C "${ROOT}/hack/tools" build -buildmode=plugin -o "${bin}/${plugin%%=*}" "${plugin#*=}" || return
  done
}
build_tools || kep::log::error_exit "golangci-lint: building it from hack/tools failed (above)."
sed -e "s;path: _output/local/bin/;path: ${bin}/;" -e '/^    - sorted$/d' \
  -e '/^      sorted:$/,/^      kubeapilinter:$/{/^      kubeapilinter:$/!d}' \
  "${KUBE_ROOT}/hack/golangci.yaml" >"${bin}/golangci.yaml"
targets=()
kep::util::lines targets kep::tree::touched_packages
# With -trimpath the packages that golangci-lint has go list compile for
# their types do not depend on the tree's path, so a fresh clone gets them
# from Go's cache (without it, 5 min here).
(cd "${KUBE_ROOT}" && GOFLAGS="${GOFLAGS:+${GOFLAGS} }${TRIMPATH}" "${bin}/golangci-lint" run --config="${bin}/golangci.yaml" \
  --new --new-from-rev="$(kep::tree::base_commit)" "${targets[@]}") ||
  kep::log::error_exit "golangci-lint: fix what the tree adds (above) inside ${TREE} (upstream's hack/verify-golangci-lint.sh runs the same), and run 'make patches${MAKE_BASE}'."
