#!/usr/bin/env bash
# Upstream's license header check (hack/verify-boilerplate.sh), on the files
# the tree changes on its base. The script itself cannot run here:
# boilerplate.py lost its executable bit in the module zip, and
# verify-boilerplate.sh then passes without checking anything.
set -euo pipefail
# shellcheck source=hack/lib/init.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/init.sh"
# shellcheck source=hack/lib/tree.sh
source "${ROOT}/hack/lib/tree.sh"

kep::deps::ensure python3
kep::tree::ensure_checkout
kep::util::lines files kep::tree::touched_files
bad=$(cd "${KUBE_ROOT}" && python3 hack/boilerplate/boilerplate.py --rootdir . --boilerplate-dir hack/boilerplate "${files[@]}")
if [[ -n "${bad}" ]]; then
  printf '%s\n' "${bad}" >&2
  kep::log::error_exit "boilerplate: the files above lack upstream's license header (new files say 'Copyright The Kubernetes Authors.', without a year). Fix them inside ${TREE} and run 'make patches${MAKE_BASE}'."
fi
