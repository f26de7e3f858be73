#!/usr/bin/env bash
# Checks that upstream's generators leave the tree of BASE at HEAD
# unchanged, in a scratch worktree, the way upstream's hack/verify-*.sh do
# (hack/verify-generated.sh runs it on each tree make verify checks):
#
#   codegen        hack/update-codegen.sh swagger openapi applyconfigs, what
#                  'hack/verify-codegen.sh swagger openapi applyconfigs' checks
#   protobuf       every generated.proto and generated.pb.go (with Debian's
#                  protoc)
#   openapi-spec   hack/update-openapi-spec.sh, what hack/verify-openapi-spec.sh
#                  checks: builds kube-apiserver (as make build does, see
#                  hack/lib/generated.sh) and serves api/openapi-spec and
#                  api/discovery from it
#
#   hack/internal/check-generated.sh [STEP...]   (default: all three)
#
# On a base with stand-in modules, codegen and protobuf also run on the base
# commit, and what they change there is not the series' (see kep::generated::regenerate in
# hack/lib/generated.sh). openapi-spec does not depend on the stand-ins' doc
# comments, but on the binary version (kep::generated::openapi_spec).
#
# hack/lib/generated.sh says why upstream's verify scripts cannot run as they
# are in a tree rebuilt from module zips. 'hack/update-generated.sh' fixes
# what this reports.
set -euo pipefail
# shellcheck source=hack/lib/init.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/init.sh"
# shellcheck source=hack/lib/generated.sh
source "${ROOT}/hack/lib/generated.sh"

steps=()
kep::util::lines steps kep::generated::steps "$@"
kep::generated::require

scratch=$(mktemp -d "${OUTPUT}/verify-generated.XXXXXX")
tree="${scratch}/kubernetes"
cleanup() {
  kep::tree::remove_worktree "${tree}"
  kep::tree::remove_worktree "${scratch}/base"
  rm -rf "${scratch}"
}
trap cleanup EXIT

what=""
[[ " ${steps[*]} " != *" openapi-spec "* ]] || what=etcd
kep::tree::new_worktree "${tree}" HEAD
kep::generated::place_standins "${tree}" "${what}"
base_tree=$(kep::generated::base_tree "${scratch}/base")

failed=()
# verify_step [--base] NAME COMMAND... runs COMMAND in the scratch tree (with
# --base, as kep::generated::regenerate does), fails NAME if the tree changed, and resets it
# for the next step.
verify_step() {
  local base=""
  if [[ "$1" == --base ]]; then
    base=${base_tree}
    shift
  fi
  local name=$1 start=${SECONDS}
  shift
  kep::log::status "verify-generated: ${name}"
  if ! kep::generated::regenerate "${tree}" "${base}" "$@" >"${scratch}/${name}.log" 2>&1; then
    tail -n 30 "${scratch}/${name}.log" >&2
    failed+=("${name}")
    kep::log::status "verify-generated: ${name} did not run, after $((SECONDS - start))s"
  else
    local changes
    changes=$(kep::generated::changes "${tree}")
    if [[ -n "${changes}" ]]; then
      printf '%s\n' "${changes}" >&2
      git -C "${tree}" -c core.fileMode=false diff --stat >&2
      failed+=("${name}")
    fi
    kep::log::status "verify-generated: ${name} took $((SECONDS - start))s"
  fi
  kep::generated::reset "${tree}"
}

for step in "${steps[@]}"; do
  case "${step}" in
    codegen) verify_step --base codegen bash hack/update-codegen.sh "${UPSTREAM_CODEGENS[@]}" ;;
    protobuf) verify_step --base protobuf kep::generated::protobuf . ;;
    openapi-spec) verify_step openapi-spec kep::generated::openapi_spec ;;
  esac
done

if ((${#failed[@]})); then
  kep::log::error_exit "generated files are out of date or could not be generated: ${failed[*]}. Run 'make update-generated BASE=${BASE}' (WHAT='${failed[*]}' for those only), commit the result in ${TREE} with the patch it belongs to, and run 'make patches${MAKE_BASE}'$([[ -z "${PORT_FROM:-}" ]] || echo " and 'BASE=${BASE} hack/port.sh record'")."
fi
kep::log::status "verify-generated: generated files are up to date"
