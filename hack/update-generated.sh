#!/usr/bin/env bash
# Regenerates, inside _output/kubernetes, what upstream derives from the API
# types, with upstream's generators (see hack/internal/verify-generated.sh):
#
#   hack/update-codegen.sh swagger openapi applyconfigs
#   every generated.proto and generated.pb.go (needs protoc; KEP_VERIFY_PROTOBUF=0
#   skips it)
#   hack/update-openapi-spec.sh (builds kube-apiserver and serves the spec
#   from it; KEP_VERIFY_OPENAPI_SPEC=0 skips it)
#
# On a base with stand-in modules, what the generators change in the base
# itself is taken out again (kep::generated::regenerate in hack/lib/generated.sh). The
# stand-ins of hack/lib/generated.sh are taken out at the end; the
# regenerated files are left for you to commit.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib/init.sh"

kep::generated::require
cleanup() {
  kep::generated::remove_standins "${KUBE_ROOT}"
  kep::tree::remove_worktree "${OUTPUT}/update-generated-base"
}
trap cleanup EXIT

what=etcd
[[ "${KEP_VERIFY_OPENAPI_SPEC:-1}" != 0 ]] || what=""
kep::generated::place_standins "${KUBE_ROOT}" "${what}"
base_tree=$(kep::generated::base_tree "${OUTPUT}/update-generated-base")
kep::log::status "update-generated: hack/update-codegen.sh ${UPSTREAM_CODEGENS[*]}"
kep::generated::regenerate "${KUBE_ROOT}" "${base_tree}" bash hack/update-codegen.sh "${UPSTREAM_CODEGENS[@]}"
if [[ "${KEP_VERIFY_PROTOBUF:-1}" != 0 ]]; then
  kep::log::status "update-generated: generated.proto"
  kep::generated::regenerate "${KUBE_ROOT}" "${base_tree}" kep::generated::protobuf .
fi
if [[ -n "${what}" ]]; then
  kep::log::status "update-generated: hack/update-openapi-spec.sh"
  # api/discovery records the API server's address, so the port must be upstream's.
  kep::generated::regenerate "${KUBE_ROOT}" "" env -u API_PORT bash hack/update-openapi-spec.sh
fi
cleanup
trap - EXIT
kep::log::status "update-generated: done; commit what changed in ${KUBE_ROOT#"${ROOT}/"}:"
kep::tree::git status --short
