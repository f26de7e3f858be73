#!/usr/bin/env bash
# Upstream's import restrictions (hack/verify-import-boss.sh), on the
# packages the tree changes on its base.
set -euo pipefail
# shellcheck source=hack/lib/init.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/init.sh"
# shellcheck source=hack/lib/tree.sh
source "${ROOT}/hack/lib/tree.sh"

kep::tree::ensure_checkout
kep::util::lines pkgs kep::tree::touched_packages
(cd "${KUBE_ROOT}" && go run ./cmd/import-boss "${pkgs[@]}") ||
  kep::log::error_exit "import-boss: a package the tree changes imports what its .import-restrictions forbid (above). Fix it inside ${TREE} and run 'make patches${MAKE_BASE}'."
