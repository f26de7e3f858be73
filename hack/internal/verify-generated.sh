#!/usr/bin/env bash
# Checks that upstream's generators leave _output/kubernetes at HEAD
# unchanged, in a scratch worktree, the way upstream's hack/verify-*.sh do:
#
#   codegen        hack/update-codegen.sh swagger openapi applyconfigs, what
#                  'hack/verify-codegen.sh swagger openapi applyconfigs' checks
#   protobuf       every generated.proto and generated.pb.go (needs protoc;
#                  KEP_VERIFY_PROTOBUF=0 skips it)
#   openapi-spec   hack/update-openapi-spec.sh, what hack/verify-openapi-spec.sh
#                  checks: builds kube-apiserver as upstream's make does and
#                  serves api/openapi-spec and api/discovery from it. It takes
#                  long, so only with KEP_VERIFY_OPENAPI_SPEC=1.
#
# hack/lib/generated.sh says why upstream's verify scripts cannot run as they
# are in a tree rebuilt from module zips. 'hack/update-generated.sh' fixes
# what this reports.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib/init.sh"

require_generators

scratch=$(mktemp -d "${OUTPUT}/verify-generated.XXXXXX")
tree="${scratch}/kubernetes"
cleanup() {
  remove_worktree "${tree}"
  rm -rf "${scratch}"
}
trap cleanup EXIT
new_worktree "${tree}" HEAD

failed=()
# verify_step NAME COMMAND... runs COMMAND in the scratch tree, then fails NAME if
# the tree changed, and resets it for the next step.
verify_step() {
  local name=$1 start=${SECONDS}
  shift
  log "verify-generated: ${name}"
  if ! (cd "${tree}" && "$@") >"${scratch}/${name}.log" 2>&1; then
    tail -n 30 "${scratch}/${name}.log" >&2
    failed+=("${name}")
    log "verify-generated: ${name} did not run, after $((SECONDS - start))s"
  else
    local changes
    changes=$(generated_changes "${tree}")
    if [[ -n "${changes}" ]]; then
      printf '%s\n' "${changes}" >&2
      git -C "${tree}" -c core.fileMode=false diff --stat >&2
      failed+=("${name}")
    fi
    log "verify-generated: ${name} took $((SECONDS - start))s"
  fi
  local path
  local -a keep=()
  for path in "${STANDINS[@]}"; do
    keep+=(":!${path}")
  done
  git -C "${tree}" -c core.fileMode=false checkout -q -- .
  git -C "${tree}" clean -q -fd -- . "${keep[@]}"
}

what=""
[[ "${KEP_VERIFY_OPENAPI_SPEC:-0}" == 1 ]] && what=etcd
place_standins "${tree}" "${what}"
verify_step codegen bash hack/update-codegen.sh "${UPSTREAM_CODEGENS[@]}"
if [[ "${KEP_VERIFY_PROTOBUF:-1}" != 0 ]]; then
  verify_step protobuf generate_protobuf "${tree}"
fi
if [[ "${KEP_VERIFY_OPENAPI_SPEC:-0}" == 1 ]]; then
  # api/discovery records the API server's address, so the port must be upstream's.
  verify_step openapi-spec env -u API_PORT bash hack/update-openapi-spec.sh
fi

if ((${#failed[@]})); then
  die "generated files are out of date or could not be generated: ${failed[*]}. Run 'hack/update-generated.sh', commit the result in ${TREE} with the patch it belongs to, and run 'make patches'."
fi
log "verify-generated: generated files are up to date"
