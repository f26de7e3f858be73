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
# The stand-ins of hack/lib/generated.sh are taken out again at the end; the
# regenerated files are left for you to commit.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib/init.sh"

require_generators
trap 'remove_standins "${KUBE_ROOT}"' EXIT

what=""
[[ "${KEP_VERIFY_OPENAPI_SPEC:-1}" != 0 ]] && what=etcd
place_standins "${KUBE_ROOT}" "${what}"
log "update-generated: hack/update-codegen.sh ${UPSTREAM_CODEGENS[*]}"
(cd "${KUBE_ROOT}" && bash hack/update-codegen.sh "${UPSTREAM_CODEGENS[@]}")
if [[ "${KEP_VERIFY_PROTOBUF:-1}" != 0 ]]; then
  log "update-generated: generated.proto"
  generate_protobuf "${KUBE_ROOT}"
fi
if [[ "${KEP_VERIFY_OPENAPI_SPEC:-1}" != 0 ]]; then
  log "update-generated: hack/update-openapi-spec.sh"
  # api/discovery records the API server's address, so the port must be upstream's.
  (cd "${KUBE_ROOT}" && env -u API_PORT bash hack/update-openapi-spec.sh)
fi
remove_standins "${KUBE_ROOT}"
trap - EXIT
log "update-generated: done; commit what changed in ${KUBE_ROOT#"${ROOT}/"}:"
kgit status --short
