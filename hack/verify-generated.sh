#!/usr/bin/env bash
# Upstream's generated files (API docs, OpenAPI, apply configurations,
# generated.proto, the OpenAPI spec) match the tree of BASE, with that base's
# own generators (hack/internal/check-generated.sh). make verify runs it on
# each tree it checks (hack/verify.sh's TREE_CHECKS).
set -euo pipefail
# shellcheck source=hack/lib/init.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/init.sh"
# shellcheck source=hack/lib/tree.sh
source "${ROOT}/hack/lib/tree.sh"

kep::tree::ensure_checkout
kep::log::status "generated: upstream's generated files of ${TREE}"
"${ROOT}/hack/internal/check-generated.sh"
