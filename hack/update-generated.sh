#!/usr/bin/env bash
# Regenerates, inside _output/kubernetes, what upstream derives from the API
# types, with upstream's generators (see hack/internal/check-generated.sh);
# WHAT names some of the steps only:
#
#   codegen        hack/update-codegen.sh swagger openapi applyconfigs
#   protobuf       every generated.proto and generated.pb.go (Debian's protoc)
#   openapi-spec   hack/update-openapi-spec.sh (builds kube-apiserver and
#                  serves the spec from it)
#
# On a base with stand-in modules, what the generators change in the base
# itself is taken out again (kep::generated::regenerate in hack/lib/generated.sh). The
# stand-ins of hack/lib/generated.sh are taken out at the end; the
# regenerated files are left for you to commit.
set -euo pipefail
# shellcheck source=hack/lib/init.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/init.sh"
# shellcheck source=hack/lib/generated.sh
source "${ROOT}/hack/lib/generated.sh"
# shellcheck source=hack/lib/tree.sh
source "${ROOT}/hack/lib/tree.sh"

read -ra what_steps <<<"${WHAT:-}"
steps=()
kep::util::lines steps kep::generated::steps "${what_steps[@]}"
kep::generated::require
cleanup() {
  kep::generated::remove_standins "${KUBE_ROOT}"
  kep::tree::remove_worktree "${OUTPUT}/update-generated-base"
}
kep::util::trap_add cleanup EXIT

what=""
[[ " ${steps[*]} " != *" openapi-spec "* ]] || what=etcd
kep::generated::place_standins "${KUBE_ROOT}" "${what}"
base_tree=$(kep::generated::base_tree "${OUTPUT}/update-generated-base")
for step in "${steps[@]}"; do
  kep::log::status "update-generated: ${step}"
  case "${step}" in
    codegen) kep::generated::regenerate "${KUBE_ROOT}" "${base_tree}" bash hack/update-codegen.sh "${UPSTREAM_CODEGENS[@]}" ;;
    protobuf) kep::generated::regenerate "${KUBE_ROOT}" "${base_tree}" kep::generated::protobuf . ;;
    openapi-spec) kep::generated::regenerate "${KUBE_ROOT}" "" kep::generated::openapi_spec ;;
  esac
done
# Before the status below; the trap's second run finds nothing to remove.
cleanup
kep::log::status "update-generated: done; commit what changed in ${KUBE_ROOT#"${ROOT}/"}:"
kep::tree::git status --short
