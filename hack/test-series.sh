#!/usr/bin/env bash
# Checks that the series bisects: checks out the commits of
# _output/kubernetes after its base one at a time, exported or not, in a
# scratch worktree, and at each runs go vet and go test on the packages the
# commit changes, integration packages included (with the etcd that make
# test-integration builds).
set -euo pipefail
# shellcheck source=hack/lib/init.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/init.sh"
# shellcheck source=hack/lib/golang.sh
source "${ROOT}/hack/lib/golang.sh"
# shellcheck source=hack/lib/tree.sh
source "${ROOT}/hack/lib/tree.sh"
kep::tree::ensure_checkout
commits=()
kep::util::lines commits kep::tree::git rev-list --reverse "$(kep::tree::base_commit)..HEAD"
((${#commits[@]})) || kep::log::error_exit "${TREE} has no commits on ${BASE_TAG}: nothing to bisect. 'make checkout${MAKE_BASE}' applies ${SERIES}/."
[[ -z "$(kep::tree::git status --porcelain --untracked-files=no)" ]] ||
  kep::log::status "series: the commits of ${TREE}; its uncommitted changes are in none of them"
kep::golang::test_stack "${OUTPUT}/series/${BASE}" series \
  "fix that commit in ${TREE} so that each commit builds and passes, then run 'make patches${MAKE_BASE}'." "${commits[@]}"
kep::log::status "series: every patch builds and passes the tests of the packages it changes"
