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
cd "${KUBE_ROOT}"

# Stamp the version as upstream's hack/lib/version.sh does, so that
# 'kubectl version' and the Node's kubeletVersion say which release and
# which commit of the patched tree this is. Only the link step reads these.
commit=$(kep::tree::git rev-parse HEAD)
state=clean
[[ -z "$(kep::tree::git status --porcelain --untracked-files=no)" ]] || state=dirty
# A base whose DefaultKubeBinaryVersion is raised (the one for master) is
# stamped as master's builds are: the next release's alpha.0. Otherwise the
# API server would emulate the release the base was served as, where the
# gate does not exist yet.
version=${KUBE_VERSION}
if [[ -n "${KUBE_BINARY_VERSION:-}" ]]; then
  version=v${KUBE_BINARY_VERSION}.0-alpha.0
fi
major=${version#v}
minor=${major#*.}
ldflags=()
for pkg in k8s.io/client-go/pkg/version k8s.io/component-base/version; do
  ldflags+=(
    "-X ${pkg}.gitVersion=${version}+kep.6318"
    "-X ${pkg}.gitMajor=${major%%.*}"
    "-X ${pkg}.gitMinor=${minor%%.*}"
    "-X ${pkg}.gitCommit=${commit}"
    "-X ${pkg}.gitTreeState=${state}"
  )
done

overlay=()
if [[ -n "${patch}" ]]; then
  # The patched copies of the files that the patch changes, in a scratch
  # directory that goes when the script exits.
  scratch=$(mktemp -d)
  trap 'rm -rf "${scratch}"' EXIT
  replace=()
  while read -r file; do
    mkdir -p "${scratch}/$(dirname "${file}")"
    cp "${file}" "${scratch}/${file}"
    replace+=("${KUBE_ROOT}/${file}" "${scratch}/${file}")
  done < <(sed -n 's|^+++ b/||p' "${patch}")
  patch -s -p1 -d "${scratch}" <"${patch}" || kep::log::error_exit "${patch} does not apply to ${KUBE_ROOT#"${ROOT}/"}"
  kep::golang::write_overlay "${scratch}/overlay.json" "${replace[@]}"
  overlay=(-overlay "${scratch}/overlay.json")
  kep::log::status "building with ${patch#"${ROOT}/"}"
fi

for target in "${tree_targets[@]}"; do
  kep::log::status "building ${target}"
  # Otherwise the build settings of the tests (-trimpath, as upstream's
  # release builds), so the binaries reuse the packages that the tests have
  # compiled (and the other way round).
  go build "${TRIMPATH}" "${overlay[@]}" -ldflags "${ldflags[*]}" -o "${out}/$(basename "${target}")" "./${target}"
done
kep::log::status "binaries are in ${out#"${ROOT}/"}"
