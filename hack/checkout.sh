#!/usr/bin/env bash
# Rebuilds _output/kubernetes: the pristine upstream base from the Go module
# proxy as its first commit, then the series, releases/BASE/patches, applied
# with git am.
#
# Idempotent: a tree that already matches the series is left alone. A tree that
# holds work not exported to the series is never overwritten. When a patch does
# not apply, the git am session stays, so that the patch can be resolved
# (git am --continue) or the apply abandoned (git am --abort). Only this
# script ('make checkout') rebuilds an existing tree; the other targets use
# it as it is (kep::tree::ensure_checkout in hack/lib/tree.sh).
set -euo pipefail
# shellcheck source=hack/lib/init.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/init.sh"
# shellcheck source=hack/lib/checkout.sh
source "${ROOT}/hack/lib/checkout.sh"
# shellcheck source=hack/lib/tree.sh
source "${ROOT}/hack/lib/tree.sh"

kep::checkout::tree
