#!/usr/bin/env bash
# Checks that the series applies with git am to a base rebuilt from the Go
# module proxy and gives exactly the tree of _output/kubernetes at HEAD.
set -euo pipefail
# shellcheck source=hack/lib/init.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/init.sh"

kep::tree::ensure_checkout
mkdir -p "${OUTPUT}"
scratch=$(mktemp -d "${OUTPUT}/verify.XXXXXX")
trap 'rm -rf "${scratch}"' EXIT
kep::log::status "series: ${SERIES}/ applies to a fresh ${KUBE_VERSION} base and reproduces ${TREE}"
if ! HARNESS_KUBE_ROOT="${scratch}/kubernetes" "${ROOT}/hack/checkout.sh" >"${scratch}/log" 2>&1; then
  cat "${scratch}/log" >&2
  kep::log::error_exit "series: ${SERIES}/ does not apply to a fresh base. Rebase the series in ${TREE}, run 'make patches', and commit."
fi
fresh=$(git -C "${scratch}/kubernetes" rev-parse 'HEAD^{tree}')
fresh_base=$(git -C "${scratch}/kubernetes" rev-parse "${BASE_TAG}^{tree}")
head=$(kep::tree::git rev-parse 'HEAD^{tree}')
base=$(kep::tree::git rev-parse "${BASE_TAG}^{tree}")
[[ "${fresh_base}" == "${base}" ]] ||
  kep::log::error_exit "series: the ${BASE_TAG} commit of ${TREE} is not the pristine base. Run 'make patches', then 'make clean checkout'."
[[ "${fresh}" == "${head}" ]] ||
  kep::log::error_exit "series: ${SERIES}/ does not reproduce ${TREE} at HEAD. Run 'make patches' and commit ${SERIES}/ (or 'make checkout' after a 'git pull')."
