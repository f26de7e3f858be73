#!/usr/bin/env bash
# Checks that the series bisects: applies the patches one at a time to the
# base, in a scratch worktree of _output/kubernetes, and after each one runs
# go vet and go test on the packages that patch touches, integration packages
# included (with the etcd that make test-integration builds).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib/init.sh"
# The flags and environment of make test's unit and integration runs, so
# that a package whose inputs are those of HEAD gets make test's result from
# Go's test cache instead of running again.
kep::golang::test_flags 60m
integration_flags=("${GO_TEST_FLAGS[@]}")
kep::golang::test_flags 30m

kep::tree::ensure_checkout
kep::golang::build_etcd

scratch="${OUTPUT}/series"
trap 'kep::tree::remove_worktree "${scratch}"' EXIT
kep::tree::new_worktree "${scratch}" "$(kep::tree::base_commit)"
git -C "${scratch}" config am.threeWay false

mapfile -t patches < <(kep::tree::patch_files)
for patch in "${patches[@]}"; do
  name=$(basename "${patch}")
  kep::log::status "series: ${name} ($((SECONDS / 60)) min so far)"
  git -C "${scratch}" am -q --committer-date-is-author-date "${patch}" ||
    kep::log::error_exit "${name} does not apply on top of the patches before it. Rebase the series in ${TREE} and run 'make patches'."
  mapfile -t pkgs < <(cd "${ROOT}" && go run ./cmd/series packages "${scratch}" "${patch}")
  ((${#pkgs[@]})) || continue
  # go vet has checked the packages and their tests; go test would run a
  # subset of its checks again.
  # go vet builds the node e2e suite; its specs need a node (make test-node).
  mapfile -t unit < <(printf '%s\n' "${pkgs[@]}" | grep -Ev "${INTEGRATION_PACKAGES}|${NODE_E2E_PACKAGES}" || true)
  mapfile -t integration < <(printf '%s\n' "${pkgs[@]}" | grep -E "${INTEGRATION_PACKAGES}" || true)
  if ! (cd "${scratch}" && go vet ${TRIMPATH} "${pkgs[@]}" &&
    { ((${#unit[@]} == 0)) || go test ${TRIMPATH} -vet=off "${GO_TEST_FLAGS[@]}" "${unit[@]}"; } &&
    { ((${#integration[@]} == 0)) || kep::golang::test_integration -vet=off "${integration_flags[@]}" "${integration[@]}"; }); then
    kep::log::error_exit "${name}: its packages do not pass on their own. Fix the patch in ${TREE} so that each commit builds and passes, then run 'make patches'."
  fi
done
kep::log::status "series: every patch builds and passes the tests of the packages it touches"
