#!/usr/bin/env bash
# Tests the apply/export loop of the harness on a scratch copy of
# _output/kubernetes and of patches/, so that nothing real is touched:
# - make checkout leaves a tree that matches patches/ alone;
# - it refuses, and keeps the work, when the tree has an uncommitted edit,
#   an unexported commit, or a reworded commit;
# - make patches is stable, and removes the files of dropped commits;
# - after patches/ changes (a git pull), make checkout applies it;
# - the other targets use the tree as it is, edits and unexported commits
#   included (the quick loop);
# - make patches refuses to drop patches the tree never had, and to write
#   an empty series;
# - a patch that does not apply leaves the git am session, which every
#   target reports, and no path loses patches/;
# - make port carries a change of the 1.37 series into the 1.38 series, and
#   stops, writing nothing, where the bases differ;
# - make clean refuses while any base's tree holds work not exported.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib/init.sh"

[[ -d "${KUBE_ROOT}/.git" ]] || kep::log::error_exit "${KUBE_ROOT} does not exist. Run 'make checkout' first."
kep::tree::base_commit >/dev/null || kep::log::error_exit "${KUBE_ROOT} has no ${BASE_TAG} tag. Run 'make checkout' first."
work=$(mktemp -d "${OUTPUT}/harness.XXXXXX")
trap 'rm -rf "${work}"' EXIT
git clone -q --shared --no-checkout "${KUBE_ROOT}" "${work}/kubernetes"
git -C "${work}/kubernetes" fetch -q --tags origin
mkdir -p "${work}/kubernetes/.git/info"
cp "${KUBE_ROOT}/.git/info/attributes" "${work}/kubernetes/.git/info/attributes"
cp -R "${PATCHES}" "${work}/patches"
# The scratch tree is the base plus the series as committed, whatever
# _output/kubernetes holds: work in progress there changes none of these checks.
git -C "${work}/kubernetes" checkout -q -B master "${BASE_TAG}"
git -C "${work}/kubernetes" am -q --committer-date-is-author-date "${work}/patches"/*.patch
git -C "${work}/kubernetes" update-ref "${SYNCED_REF}" HEAD
series_head=$(git -C "${work}/kubernetes" log -1 --format=%s)
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
check "and keeps HEAD" head_is "${series_head}"

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
check "and applies it" head_is "${series_head}"

ensure() { (source "${ROOT}/hack/lib/init.sh" && kep::tree::ensure_checkout) >"${work}/out" 2>&1; }
said() { grep -q "$1" "${work}/out"; }
count_patches() { find "${KEP_PATCHES}" -name '*.patch' | wc -l; }
synced_head=$(git -C "${s}" rev-parse HEAD)

echo "// quick loop" >>"${s}/pkg/features/kube_features.go"
check "a target uses a tree with an uncommitted edit" ensure
check "and says so" said "uncommitted changes"
check "and keeps the edit" grep -q "// quick loop" "${s}/pkg/features/kube_features.go"
git -C "${s}" commit -q -am "KEP-6318: quick loop"
check "a target uses a tree with an unexported commit" ensure
check "and says so" said "1 commits not yet exported"
check "and keeps the commit" head_is "KEP-6318: quick loop"
n=$(count_patches)
check "export of the new commit succeeds" export_patches
check "and adds its patch" test "$(count_patches)" -eq $((n + 1))

# patches/ gains a patch that the tree never had, as with a git pull of
# someone else's work, while the tree is at its last sync.
git -C "${s}" reset -q --hard "${synced_head}"
git -C "${s}" update-ref "${SYNCED_REF}" HEAD
check "export refuses to drop a patch the tree never had" eval '! export_patches && said "never had"'
check "and keeps it" test "$(count_patches)" -eq $((n + 1))
check "export drops it with KEP_PATCHES_FORCE=1" env KEP_PATCHES_FORCE=1 "${ROOT}/hack/export-patches.sh"
check "and only it" test "$(count_patches)" -eq "${n}"

# The last patch stops applying: it repeats the change of the one before.
mapfile -t files < <(find "${KEP_PATCHES}" -name '*.patch' | LC_ALL=C sort)
last=${files[-1]}
cp "${files[-2]}" "${last}"
cp -R "${KEP_PATCHES}" "${work}/intact"
git -C "${s}" reset -q --hard "$(git -C "${s}" rev-parse "${BASE_TAG}")"
git -C "${s}" update-ref "${SYNCED_REF}" HEAD
check "checkout of a patch that does not apply fails" eval '! checkout'
check "and names the patch" said "$(basename "${last}")"
check "and keeps the git am session" test -d "${s}/.git/rebase-apply"
check "with the patches before it applied" test "$(git -C "${s}" rev-list --count "${BASE_TAG}..HEAD")" -eq $((n - 1))
check "a target then reports the session" eval '! ensure && said "am --continue"'
check "export refuses during the session" eval '! export_patches && said "am --abort"'
check "and leaves patches/ as it was" diff -r "${KEP_PATCHES}" "${work}/intact"
git -C "${s}" am --abort
check "after git am --abort, export refuses to empty patches/" eval '! export_patches && said "refusing to write an empty series"'
check "and leaves patches/ as it was" diff -r "${KEP_PATCHES}" "${work}/intact"

# make port carries a change of the 1.37 series into the 1.38 series, on
# copies of releases/ and of the 1.38 tree; the port check of make verify
# sees a change that was not carried.
mkdir -p "${work}/project"
cp -R "${RELEASES}" "${work}/project/releases"
cp -R "$(kep::tree::release_patches 1.37)" "${work}/project/patches"
port() {
  env -u KEP_PATCHES BASE=1.38 KEP_RELEASES="${work}/project/releases" KEP_KUBE_ROOT="${work}/kubernetes-1.38" \
    "${ROOT}/hack/port.sh" "$@" >"${work}/out" 2>&1
}
series_patch() { find "$(RELEASES="${work}/project/releases" kep::tree::release_patches "$1")" -name "$2-*.patch"; }
check "the 1.38 series applies with git am and passes the port check" port check
# The edits below depend on no patch's text: one adds a file to the first
# patch, the other changes .go-version, which names each base's Go release.
first=$(series_patch 1.37 0001)
cat >>"${first}" <<'EOF'
diff --git a/harness-port-check b/harness-port-check
new file mode 100644
--- /dev/null
+++ b/harness-port-check
@@ -0,0 +1 @@
+carried by make port
EOF
check "the port check fails after the 1.37 series changed" eval '! port check && said "has changed since" && said "does not record"'
check "port succeeds" port
check "and carries the change into the 1.38 series" grep -q "^+carried by make port" "$(series_patch 1.38 0001)"
check "after which the port check passes" port check
cp -R "${work}/project/releases/1.38" "${work}/ported"
go_version=$(git -C "${s}" show "${BASE_TAG}:.go-version")
cat >>"${first}" <<EOF
diff --git a/.go-version b/.go-version
--- a/.go-version
+++ b/.go-version
@@ -1 +1 @@
-${go_version}
+${go_version}.1
EOF
check "a change where the bases differ does not port" eval '! port && said "first in 0001" && said ".go-version"'
check "and nothing is written" diff -r "${work}/ported" "${work}/project/releases/1.38"

# make clean refuses while the tree of any base, not only the default one,
# holds work that is not exported.
mkdir -p "${work}/output"
ln -s "${work}/kubernetes-1.38" "${work}/output/kubernetes-1.38"
clean() {
  env -u KEP_PATCHES -u KEP_KUBE_ROOT KEP_OUTPUT="${work}/output" KEP_RELEASES="${work}/project/releases" \
    "${ROOT}/hack/clean.sh" >"${work}/out" 2>&1
}
git -C "${work}/kubernetes-1.38" commit -q --allow-empty -m "local work"
check "clean refuses while the 1.38 tree has an unexported commit" eval '! clean && said "kubernetes-1.38 holds work"'
check "and removes nothing" test -L "${work}/output/kubernetes-1.38"
git -C "${work}/kubernetes-1.38" reset -q --hard HEAD~1
check "clean succeeds once it is exported" clean
check "and removes _output/" test ! -e "${work}/output"

((failures == 0)) || kep::log::error_exit "${failures} harness checks failed"
kep::log::status "harness: all checks passed"
