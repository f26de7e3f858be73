#!/usr/bin/env bash
# Checks that the Go files the tree changes on its base, and the project's
# own, are gofmt -s clean.
set -euo pipefail
# shellcheck source=hack/lib/init.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/init.sh"
# shellcheck source=hack/lib/tree.sh
source "${ROOT}/hack/lib/tree.sh"

kep::tree::ensure_checkout
files=$(kep::tree::touched_files)
go_files=$(grep '\.go$' <<<"${files}" || true)
tree_files=() project_files=()
kep::util::lines tree_files echo "${go_files}"
kep::util::lines project_files git -C "${ROOT}" ls-files --cached --others --exclude-standard '*.go'
bad=""
if ((${#tree_files[@]})); then
  bad=$(cd "${KUBE_ROOT}" && gofmt -s -l "${tree_files[@]}")
fi
bad+=$(cd "${ROOT}" && gofmt -s -l "${project_files[@]}")
if [[ -n "${bad}" ]]; then
  printf '%s\n' "${bad}" >&2
  kep::log::error_exit "gofmt: the files above are not formatted. Run 'gofmt -s -w' on them (inside ${TREE} for the series), commit, and run 'make patches${MAKE_BASE}'."
fi
