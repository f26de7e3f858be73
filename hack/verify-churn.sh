#!/usr/bin/env bash
# Checks that every series is a stack of final commits: the lines that one
# commit adds and a later commit of the same series deletes or rewrites
# (cmd/series-churn) stay within CHURN_BUDGET. A fix to a commit is folded
# into it (git commit --fixup, git rebase --autosquash), never added as a
# commit of its own; a deliberate refactor-then-change fits the budget.
# Each series is measured on its tree when the tree holds exactly the series,
# and otherwise on the tree that make verify checks out from the series
# (kep::tree::fresh_tree), which the ports check then uses too.
set -euo pipefail
# shellcheck source=hack/lib/init.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/init.sh"
# shellcheck source=hack/lib/tree.sh
source "${ROOT}/hack/lib/tree.sh"

CHURN_BUDGET=40

kep::tree::verify_run
failed=()
for release in $(kep::tree::releases); do
  tree="${OUTPUT}/$(kep::tree::release_var "${release}" KUBE_TREE)"
  base=$(kep::tree::release_var "${release}" BASE_TAG)
  if ! [[ -d "${tree}/.git" ]] || ! kep::tree::in_base "${release}" "${tree}" kep::tree::is_exported; then
    tree=$(kep::tree::fresh_tree "${release}") || {
      failed+=("${release}")
      continue
    }
  fi
  kep::log::status "churn: the ${release} series (${tree#"${ROOT}/"})"
  (cd "${ROOT}" && go run ./cmd/series-churn -max "${CHURN_BUDGET}" "${tree}" "${base}") || failed+=("${release}")
done
((${#failed[@]} == 0)) ||
  kep::log::error_exit "churn: the ${failed[*]} series have commits that fix earlier ones (above). Fold each fix into the commit it fixes in that series' tree (git commit --fixup=<commit>, git rebase -i --autosquash <base>), then 'make patches BASE=<base>'."
