#!/usr/bin/env bash
# Tests the apply/export loop of the harness on a scratch copy of
# _output/kubernetes and of patches/, so that nothing real is touched:
# - make checkout leaves a tree that matches patches/ alone;
# - it refuses, and keeps the work, when the tree has an uncommitted edit,
#   an unexported commit, or a reworded commit;
# - make patches is stable, and removes the files of dropped commits;
# - after patches/ changes (a git pull), make checkout applies it.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

[[ -d "${KUBE_ROOT}/.git" ]] || die "${KUBE_ROOT} does not exist. Run 'make checkout' first."
work=$(mktemp -d "${OUTPUT}/harness.XXXXXX")
trap 'rm -rf "${work}"' EXIT
git clone -q --shared --no-checkout "${KUBE_ROOT}" "${work}/kubernetes"
git -C "${work}/kubernetes" fetch -q --tags origin
mkdir -p "${work}/kubernetes/.git/info"
cp "${KUBE_ROOT}/.git/info/attributes" "${work}/kubernetes/.git/info/attributes"
git -C "${work}/kubernetes" checkout -q -B master origin/master
git -C "${work}/kubernetes" update-ref "${SYNCED_REF}" HEAD
cp -R "${PATCHES}" "${work}/patches"
export KEP_KUBE_ROOT="${work}/kubernetes" KEP_PATCHES="${work}/patches"
s=${KEP_KUBE_ROOT}

failures=0
check() {
  local what=$1
  shift
  if "$@"; then
    printf 'ok   %s\n' "${what}"
  else
    printf 'FAIL %s\n' "${what}"
    failures=$((failures + 1))
  fi
}
checkout() { "${ROOT}/hack/checkout.sh" >"${work}/out" 2>&1; }
export_patches() { "${ROOT}/hack/export-patches.sh" >"${work}/out" 2>&1; }
refuses() { ! checkout && grep -q "refusing to overwrite" "${work}/out"; }
head_is() { [[ "$(git -C "${s}" log -1 --format=%s)" == "$1" ]]; }

check "checkout of a tree that matches patches/ succeeds" checkout
check "and keeps HEAD" head_is "$(git -C "${KUBE_ROOT}" log -1 --format=%s)"

echo "// local edit" >>"${s}/pkg/features/kube_features.go"
check "checkout refuses a tree with an uncommitted edit" refuses
check "and keeps the edit" grep -q "// local edit" "${s}/pkg/features/kube_features.go"
git -C "${s}" checkout -q -- pkg/features/kube_features.go

git -C "${s}" commit -q --allow-empty -m "local work"
check "checkout refuses a tree with an unexported commit" refuses
check "and keeps the commit" head_is "local work"
git -C "${s}" reset -q --hard "${SYNCED_REF}"

git -C "${s}" commit -q --amend -m "KEP-6318: reworded"
check "checkout refuses a tree with a reworded commit" refuses
check "and keeps the commit" head_is "KEP-6318: reworded"
git -C "${s}" reset -q --hard "${SYNCED_REF}"

cp -R "${KEP_PATCHES}" "${work}/before"
check "export of an unchanged series succeeds" export_patches
check "and is byte-identical" diff -r "${work}/before" "${KEP_PATCHES}"

git -C "${s}" reset -q --hard HEAD~1
check "export after dropping the last commit succeeds" export_patches
check "and removes its patch file" test "$(find "${KEP_PATCHES}" -name '*.patch' | wc -l)" -eq "$(($(find "${work}/before" -name '*.patch' | wc -l) - 1))"

rm -rf "${KEP_PATCHES}"
cp -R "${work}/before" "${KEP_PATCHES}"
check "checkout after patches/ gained a patch (git pull) succeeds" checkout
check "and applies it" head_is "$(git -C "${KUBE_ROOT}" log -1 --format=%s)"

((failures == 0)) || die "${failures} harness checks failed"
log "harness: all checks passed"
