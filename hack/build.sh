#!/usr/bin/env bash
# Builds binaries from the patched tree into _output/bin (another base's into
# _output/bin/<base>), and the project's kubectl plugin, cmd/kubectl-probe,
# from this repository.
#
#   WHAT="cmd/kubelet" hack/build.sh
#   WHAT="cmd/kubectl-probe" hack/build.sh
#   WHAT="cmd/kubelet" hack/build.sh --patch=FILE --out=DIR
#
# --patch builds the tree as it is with FILE, a patch of its Go files,
# applied through go build -overlay, into --out: a variant of a binary
# for a measurement, which leaves the tree untouched.
set -euo pipefail
# shellcheck source=hack/lib/init.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/init.sh"
# shellcheck source=hack/lib/golang.sh
source "${ROOT}/hack/lib/golang.sh"
# shellcheck source=hack/lib/tree.sh
source "${ROOT}/hack/lib/tree.sh"

PLUGIN=cmd/kubectl-probe

patch="" out="${BIN}"
for arg in "$@"; do
  case "${arg}" in
    --patch=*) patch=$(realpath "${arg#*=}") ;;
    --out=*) out=${arg#*=} ;;
    *) kep::log::error_exit "hack/build.sh: unknown option ${arg} (see the script's header)" ;;
  esac
done

read -ra targets <<<"${WHAT:-cmd/kube-apiserver cmd/kubelet cmd/kubectl ${PLUGIN}}"
mkdir -p "${out}"

# The plugin is the project's own Go code: it needs no Kubernetes tree.
tree_targets=()
for target in "${targets[@]}"; do
  if [[ "${target}" == "${PLUGIN}" ]]; then
    kep::log::status "building ${PLUGIN}, the kubectl plugin (kubectl probe)"
    (cd "${ROOT}" && go build -o "${out}/kubectl-probe" "./${PLUGIN}")
  else
    tree_targets+=("${target}")
  fi
done
if ((${#tree_targets[@]} == 0)); then
  kep::log::status "binaries are in ${out#"${ROOT}/"}"
  exit 0
fi

kep::tree::ensure_checkout
kep::golang::build_binaries "${KUBE_ROOT}" "${out}" "${patch}" "${tree_targets[@]}"
