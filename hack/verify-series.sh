#!/usr/bin/env bash
# Checks that the series applies with git am to a base rebuilt from the Go
# module proxy and gives exactly the tree of _output/kubernetes at HEAD.
set -euo pipefail
# shellcheck source=hack/lib/init.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/init.sh"
# shellcheck source=hack/lib/tree.sh
source "${ROOT}/hack/lib/tree.sh"

# A tree that make verify has just made from the series (a fresh clone's) is
# that fresh tree (kep::tree::fresh_tree).
kep::tree::verify_run
kep::tree::ensure_checkout
kep::log::status "series: ${SERIES}/ applies to a fresh ${KUBE_VERSION} base and reproduces ${TREE}"
fresh_tree=$(kep::tree::fresh_tree "${BASE}") ||
  kep::log::error_exit "series: ${SERIES}/ does not apply to a fresh base. Rebase the series in ${TREE}, run 'make patches${MAKE_BASE}', and commit."
fresh=$(git -C "${fresh_tree}" rev-parse 'HEAD^{tree}')
fresh_base=$(git -C "${fresh_tree}" rev-parse "${BASE_TAG}^{tree}")
head=$(kep::tree::git rev-parse 'HEAD^{tree}')
base=$(kep::tree::git rev-parse "${BASE_TAG}^{tree}")
[[ "${fresh_base}" == "${base}" ]] ||
  kep::log::error_exit "series: the ${BASE_TAG} commit of ${TREE} is not the pristine base. Run 'make patches${MAKE_BASE}', then 'make clean checkout${MAKE_BASE}'."
[[ "${fresh}" == "${head}" ]] ||
  kep::log::error_exit "series: ${SERIES}/ does not reproduce ${TREE} at HEAD. Run 'make patches${MAKE_BASE}' and commit ${SERIES}/ (or 'make checkout${MAKE_BASE}' after a 'git pull')."
