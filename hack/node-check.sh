#!/usr/bin/env bash
# Exits 0 when this machine can run the single-node cluster, and otherwise
# says what it lacks and exits 1.
set -euo pipefail
# shellcheck source=hack/lib/init.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/init.sh"
# shellcheck source=hack/lib/node.sh
source "${ROOT}/hack/lib/node.sh"

kep::node::require "the single-node cluster"
