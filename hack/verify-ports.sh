#!/usr/bin/env bash
# Checks that every series ported from this base's (PORT_FROM) applies with
# git am to its own freshly downloaded base, is ported from this series as it
# is, and differs from it only as its range-diff records (hack/port.sh check).
set -euo pipefail
# shellcheck source=hack/lib/init.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/init.sh"

mkdir -p "${OUTPUT}"
failed=()
for release in $(kep::tree::ported_releases); do
  kep::log::status "ports: the ${release} series applies to a fresh $(kep::tree::release_var "${release}" KUBE_VERSION) base and is ported from ${SERIES}/"
  scratch=$(mktemp -d "${OUTPUT}/verify.XXXXXX")
  BASE="${release}" KEP_KUBE_ROOT="${scratch}/kubernetes" "${ROOT}/hack/port.sh" check || failed+=("${release}")
  rm -rf "${scratch}"
done
((${#failed[@]} == 0)) || kep::log::error_exit "ports: the ${failed[*]} series (above)."
