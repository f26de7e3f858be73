#!/usr/bin/env bash
# shellcheck disable=SC2016 # the checks are strings that eval expands when it runs them
# The harness's self-test, part of make test. It works on scratch copies of
# _output/kubernetes and of releases/, so that nothing real is touched:
# - make checkout leaves a tree that matches the series alone;
# - it refuses, and keeps the work, when the tree has an uncommitted edit,
#   an unexported commit, or a reworded commit;
# - make patches is stable, writes the maintainers as every patch's author,
#   and removes the files of dropped commits;
# - after the series changes (a git pull), make checkout applies it;
# - the other targets use the tree as it is, edits and unexported commits
#   included (the quick loop);
# - what the targets test comes from the tree: a package that only an
#   unexported commit changes is tested, and a tree that changes nothing,
#   or whose changes cannot be listed, is an error, not a pass;
# - make patches refuses to drop patches the tree never had, and to write
#   an empty series;
# - a patch that does not apply leaves the git am session, which every
#   target reports, and no path loses the series;
# - make port carries a change of the master series into the 1.38 series,
#   and stops, writing nothing, where the bases differ;
# - make clean refuses while any base's tree holds an uncommitted edit, an
#   unexported commit, a stash, a side branch or a git am session, and
#   KEP_FORCE=1 overrides it;
# - on a host with only cgroup v2, the node check and make run refuse at
#   the start, with one line that says so;
# - make verify finds a new hack/verify-NAME.sh by its name, with no list to
#   touch;
# - make pr refuses to write pull requests without the submitter's name,
#   e-mail and GitHub handle, or with a placeholder for one.
set -euo pipefail
# shellcheck source=hack/lib/init.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/init.sh"
# shellcheck source=hack/lib/golang.sh
source "${ROOT}/hack/lib/golang.sh"

[[ -d "${KUBE_ROOT}/.git" ]] || kep::log::error_exit "${KUBE_ROOT} does not exist. Run 'make checkout${MAKE_BASE}' first."
kep::tree::base_commit >/dev/null || kep::log::error_exit "${KUBE_ROOT} has no ${BASE_TAG} tag. Run 'make checkout${MAKE_BASE}' first."
mkdir -p "${OUTPUT}"
work=$(mktemp -d "${OUTPUT}/harness.XXXXXX")
trap 'rm -rf "${work}"' EXIT

# scratch_tree DIR makes DIR a clone of _output/kubernetes at the base plus
# the series as committed, whatever _output/kubernetes holds: work in
# progress there changes none of these checks.
scratch_tree() {
  git clone -q --shared --no-checkout "${KUBE_ROOT}" "$1"
  git -C "$1" fetch -q --tags origin
  mkdir -p "$1/.git/info"
  cp "${KUBE_ROOT}/.git/info/attributes" "$1/.git/info/attributes"
  git -C "$1" checkout -q -B master "${BASE_TAG}"
  git -C "$1" am -q --committer-date-is-author-date "${PATCHES}"/*.patch
  git -C "$1" update-ref "${SYNCED_REF}" HEAD
}
mkdir -p "${work}/project"
cp -R "${RELEASES}" "${work}/project/releases"
scratch_tree "${work}/kubernetes"
export HARNESS_RELEASES="${work}/project/releases" HARNESS_KUBE_ROOT="${work}/kubernetes"
s=${HARNESS_KUBE_ROOT}
series="${HARNESS_RELEASES}/${BASE}/patches"
series_head=$(git -C "${s}" log -1 --format=%s)

failures=0
check() {
  local what=$1
  shift
  if "$@"; then
    printf 'ok   %s\n' "${what}"
  else
    printf 'FAIL %s\n' "${what}"
    [[ ! -s "${work}/out" ]] || sed 's/^/     | /' "${work}/out"
    failures=$((failures + 1))
  fi
}
checkout() { "${ROOT}/hack/checkout.sh" >"${work}/out" 2>&1; }
export_patches() { "${ROOT}/hack/export-patches.sh" >"${work}/out" 2>&1; }
refuses() { ! checkout && said "refusing to overwrite"; }
head_is() { [[ "$(git -C "${s}" log -1 --format=%s)" == "$1" ]]; }
said() { grep -q -- "$1" "${work}/out"; }
count_patches() { find "${series}" -name '*.patch' | wc -l; }
series_files() { find "${series}" -maxdepth 1 -name '[0-9][0-9][0-9][0-9]-*.patch' | LC_ALL=C sort; }
# in_harness CMD... runs CMD with the harness's helpers, on the scratch tree.
in_harness() {
  (
    # shellcheck source=hack/lib/init.sh
    source "${ROOT}/hack/lib/init.sh"
    "$@"
  ) >"${work}/out" 2>&1
}

check "checkout of a tree that matches the series succeeds" checkout
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

cp -R "${series}" "${work}/before"
check "export of an unchanged series succeeds" export_patches
check "and is byte-identical" diff -r "${work}/before" "${series}"

git -C "${s}" commit -q --amend --no-edit --author="Someone Else <someone@example.com>"
check "export of a commit by someone else succeeds" export_patches
check "and writes the maintainers as its author" eval '[[ -z "$(kep::tree::foreign_authors "${series}"/*.patch)" ]]'
check "and nothing else changes" diff -r "${work}/before" "${series}"
git -C "${s}" reset -q --hard "${SYNCED_REF}"

git -C "${s}" reset -q --hard HEAD~1
check "export after dropping the last commit succeeds" export_patches
check "and removes its patch file" test "$(count_patches)" -eq "$(($(find "${work}/before" -name '*.patch' | wc -l) - 1))"

rm -rf "${series}"
cp -R "${work}/before" "${series}"
git -C "${s}" checkout -q -b other
git -C "${s}" checkout -q master
git -C "${s}" commit -q --allow-empty -m "work left on master"
git -C "${s}" checkout -q other
check "checkout refuses while the branch master, not checked out, holds work" eval 'refuses && said "work left on master"'
check "and keeps the commit" eval '[[ "$(git -C "${s}" log -1 --format=%s master)" == "work left on master" ]]'
git -C "${s}" checkout -q master
git -C "${s}" reset -q --hard other
git -C "${s}" branch -q -D other
check "checkout after the series gained a patch (git pull) succeeds" checkout
check "and applies it" head_is "${series_head}"

synced_head=$(git -C "${s}" rev-parse HEAD)
echo "// quick loop" >>"${s}/pkg/features/kube_features.go"
check "a target uses a tree with an uncommitted edit" in_harness kep::tree::ensure_checkout
check "and says so" said "uncommitted changes"
check "and keeps the edit" grep -q "// quick loop" "${s}/pkg/features/kube_features.go"
git -C "${s}" commit -q -am "KEP-6318: quick loop"
check "a target uses a tree with an unexported commit" in_harness kep::tree::ensure_checkout
check "and says so" said "1 commits not yet exported"
check "and keeps the commit" head_is "KEP-6318: quick loop"

# What the targets test comes from the tree. A package that no patch
# touches, changed by a commit that is not exported:
pkg=pkg/kepharnesscheck
mkdir -p "${s}/${pkg}"
cat >"${s}/${pkg}/check_test.go" <<'EOF'
package kepharnesscheck

import "testing"

func TestHarnessRunsMe(t *testing.T) { t.Log("tested") }
EOF
git -C "${s}" add "${pkg}"
git -C "${s}" commit -q -m "KEP-6318: a package of an unexported commit"
check "the packages to test come from the tree: an unexported commit's package is listed" \
  eval 'in_harness kep::tree::touched_packages && grep -qx "./${pkg}" "${work}/out"'
check "and so is every package of the series" eval 'grep -qx "./pkg/kubelet/prober" "${work}/out"'
# make test's unit step, on a tree of the base and that commit only, so
# that it runs that package alone.
scratch_tree "${work}/unexported"
git -C "${work}/unexported" reset -q --hard "${BASE_TAG}"
git -C "${work}/unexported" fetch -q "${s}" HEAD
git -C "${work}/unexported" cherry-pick FETCH_HEAD >/dev/null
git -C "${work}/unexported" update-ref -d "${SYNCED_REF}"
unit_step() { HARNESS_KUBE_ROOT=$1 in_harness kep::golang::test_units -timeout=5m; }
check "make test's unit step tests the package of an unexported commit" unit_step "${work}/unexported"
check "and says so" eval 'said "^ok[[:space:]]*k8s.io/kubernetes/${pkg}" && said "upstream tests of what .* changes: ./${pkg}$"'
git -C "${work}/unexported" reset -q --hard "${BASE_TAG}"
check "a tree that changes nothing on its base is an error" eval '! unit_step "${work}/unexported"'
check "that says so" said "changes nothing on ${BASE_TAG}"
echo "not Go" >"${work}/unexported/NOTES.txt"
check "a tree that changes no Go package is an error" eval '! unit_step "${work}/unexported"'
check "that says so" said "changes no Go package on ${BASE_TAG}"
git -C "${work}/unexported" tag -d "${BASE_TAG}" >/dev/null
check "a tree whose changes cannot be listed is an error" eval '! HARNESS_KUBE_ROOT="${work}/unexported" in_harness kep::tree::touched_packages'
rm -rf "${work}/unexported"
git -C "${s}" reset -q --hard HEAD~1

n=$(count_patches)
check "export of the new commit succeeds" export_patches
check "and adds its patch" test "$(count_patches)" -eq $((n + 1))

# The series gains a patch that the tree never had, as with a git pull of
# someone else's work, while the tree is at its last sync.
git -C "${s}" reset -q --hard "${synced_head}"
git -C "${s}" update-ref "${SYNCED_REF}" HEAD
check "export refuses to drop a patch the tree never had" eval '! export_patches && said "never had"'
check "and keeps it" test "$(count_patches)" -eq $((n + 1))
check "export drops it with KEP_FORCE=1" eval 'KEP_FORCE=1 export_patches'
check "and only it" test "$(count_patches)" -eq "${n}"

# A patch of the series changes under its subject, as with a git pull of a
# teammate's fix, while the tree is at its last sync.
kep::util::lines files series_files
cp "${files[0]}" "${work}/pulled"
sed -i '0,/^diff --git /s//A line of a teammate.\n\ndiff --git /' "${files[0]}"
cp "${files[0]}" "${work}/pulled-changed"
check "export refuses to undo a patch changed since the last sync" eval '! export_patches && said "changed since"'
check "and keeps the change" cmp -s "${files[0]}" "${work}/pulled-changed"
cp "${work}/pulled" "${files[0]}"
# A patch by someone else, pulled and applied: make patches writes it with
# the maintainers as its author, though the series then differs from it.
sed -i '0,/^From: .*/s//From: A. Teammate <teammate@example.invalid>/' "${files[0]}"
checkout
check "export of a pulled patch by someone else, once applied, succeeds" export_patches
check "and writes the maintainers as its author" cmp -s "${files[0]}" "${work}/pulled"
# A pulled change of a patch under its subject while the tree holds work.
echo "// work in progress" >>"${s}/pkg/features/kube_features.go"
git -C "${s}" commit -q -a -m "KEP-6318: work in progress"
sed -i '0,/^diff --git /s//A line of a teammate.\n\ndiff --git /' "${files[0]}"
check "export refuses to undo a pulled change while the tree holds work" eval '! export_patches && said "changed since"'
git -C "${s}" reset -q --hard HEAD~1
# The same, on a tree synced before the series was recorded.
git -C "${s}" config --unset kep.syncedseries
check "export refuses it on a tree synced before the series was recorded" eval '! export_patches && said "changed since"'
cp "${work}/pulled" "${files[0]}"
check "checkout of the series as it was records it again" eval 'checkout && git -C "${s}" config kep.syncedseries >/dev/null'

# The last patch stops applying (it repeats the change of the one before),
# in a tree synced with the series before it changed.
kep::util::lines files series_files
last=${files[-1]}
cp "${files[-2]}" "${last}"
cp -R "${series}" "${work}/intact"
check "checkout of a patch that does not apply fails" eval '! checkout'
check "and names the patch" said "$(basename "${last}")"
check "and keeps the git am session" test -d "${s}/.git/rebase-apply"
check "with the patches before it applied" test "$(git -C "${s}" rev-list --count "${BASE_TAG}..HEAD")" -eq $((n - 1))
check "a target then reports the session" eval '! in_harness kep::tree::ensure_checkout && said "am --continue"'
check "export refuses during the session" eval '! export_patches && said "am --abort"'
check "and leaves the series as it was" diff -r "${series}" "${work}/intact"
# Resolved in the tree, the session's end is the tree's series. Here the
# patch is left out: its subject is that of the patch before it, so the
# series that make patches writes drops no subject the tree never had.
git -C "${s}" am -q --skip
check "after the session is resolved, export writes the tree's series" export_patches
check "of the patches the tree has" test "$(series_files | wc -l)" -eq $((n - 1))
# Started again and aborted, back at the base.
rm -rf "${series}"
cp -R "${work}/intact" "${series}"
check "checkout of the patch that does not apply fails again" eval '! checkout'
git -C "${s}" am --abort
check "after git am --abort, export refuses to empty the series" eval '! export_patches && said "refusing to write an empty series"'
check "and leaves the series as it was" diff -r "${series}" "${work}/intact"
rm -rf "${series}"
cp -R "${RELEASES}/${BASE}/patches" "${series}"
check "checkout of the fixed series after git am --abort succeeds" checkout

# make port carries a change of the master series into the 1.38 series, on
# copies of releases/ and of the 1.38 tree; the port check of make verify
# sees a change that was not carried.
port() {
  BASE=1.38 HARNESS_KUBE_ROOT="${work}/kubernetes-1.38" "${ROOT}/hack/port.sh" "$@" >"${work}/out" 2>&1
}
series_patch() { find "${HARNESS_RELEASES}/$1/patches" -name "$2-*.patch"; }
check "the 1.38 series applies with git am and passes the port check" port check
# The edits below depend on no patch's text: one adds a file to the first
# patch, the other changes the line of the binary version, where the master
# base differs from 1.38's (KUBE_BINARY_VERSION in its upstream.env).
first=$(series_patch master 0001)
cat >>"${first}" <<'EOF'
diff --git a/harness-port-check b/harness-port-check
new file mode 100644
--- /dev/null
+++ b/harness-port-check
@@ -0,0 +1 @@
+carried by make port
EOF
check "the port check fails after the master series changed" eval '! port check && said "has changed since" && said "does not record"'
# The commit messages of the 1.38 series, which differ from master's
# where the gate's release does.
messages() { for p in "${HARNESS_RELEASES}/1.38/patches/"*.patch; do sed -n '/^diff --git /q; /^Subject:/,$p' "${p}"; done; }
messages >"${work}/messages"
# A port by hand of a teammate's, pulled: the 1.38 tree is not the series.
last138=$(find "${HARNESS_RELEASES}/1.38/patches" -name '*.patch' | sort | tail -n 1)
cp "${last138}" "${work}/ported-by-hand"
sed -i '0,/^diff --git /s//A line of a port by hand.\n\ndiff --git /' "${last138}"
cp "${last138}" "${work}/ported-by-hand-changed"
check "port refuses a series changed since its tree was applied" eval '! port && said "changed since" && said "make checkout BASE=1.38"'
check "and writes nothing" cmp -s "${last138}" "${work}/ported-by-hand-changed"
cp "${work}/ported-by-hand" "${last138}"
check "port succeeds" port
check "and carries the change into the 1.38 series" grep -q "^+carried by make port" "$(series_patch 1.38 0001)"
check "and keeps the 1.38 series' own commit messages" eval 'messages | cmp -s "${work}/messages" -'
check "after which the port check passes" port check
sed -i '0,/^diff --git /s//A line of the message carried by make port.\n\ndiff --git /' "${first}"
check "a reworded commit ports" port
check "and its new line is merged into the 1.38 message" grep -q "^A line of the message carried by make port" "$(series_patch 1.38 0001)"
cp -R "${HARNESS_RELEASES}/1.38" "${work}/ported"
version_file=staging/src/k8s.io/component-base/version/base.go
git -C "${s}" show "${BASE_TAG}:${version_file}" >"${work}/base.go"
n=$(grep -n 'DefaultKubeBinaryVersion = ' "${work}/base.go" | cut -d: -f1)
{
  printf 'diff --git a/%s b/%s\n--- a/%s\n+++ b/%s\n@@ -%d,3 +%d,3 @@\n' \
    "${version_file}" "${version_file}" "${version_file}" "${version_file}" $((n - 1)) $((n - 1))
  awk -v n="${n}" 'NR == n - 1 || NR == n + 1 { print " " $0 } NR == n { print "-" $0; print "+" $0 " // carried by make port" }' "${work}/base.go"
} >>"${first}"
check "a change where the bases differ does not port" eval '! port && said "first in 0001" && said "version/base.go"'
check "and nothing is written" diff -r "${work}/ported" "${HARNESS_RELEASES}/1.38"
rm -rf "${HARNESS_RELEASES}"
cp -R "${RELEASES}" "${HARNESS_RELEASES}"

# make clean refuses while the tree of any base, not only the default one,
# holds work that is in no series, names it, and says how to keep it.
t138="${work}/kubernetes-1.38"
new_output() {
  rm -rf "${work}/output"
  mkdir -p "${work}/output"
  ln -s "${work}/kubernetes" "${work}/output/kubernetes"
  ln -s "${t138}" "${work}/output/kubernetes-1.38"
}
clean() {
  env -u HARNESS_KUBE_ROOT HARNESS_OUTPUT="${work}/output" "${ROOT}/hack/clean.sh" >"${work}/out" 2>&1
}
kept() { test -L "${work}/output/kubernetes-1.38"; }
new_output
git -C "${t138}" commit -q --allow-empty -m "local work"
check "clean refuses while the 1.38 tree has an unexported commit" \
  eval '! clean && said "kubernetes-1.38 holds work" && said "local work" && said "make patches BASE=1.38"'
check "and removes nothing" kept
git -C "${t138}" reset -q --hard HEAD~1
echo "// edit" >>"${t138}/pkg/features/kube_features.go"
check "clean refuses while a tree has an uncommitted edit" eval '! clean && said "uncommitted changes" && said "kube_features.go"'
git -C "${t138}" stash -q
check "clean refuses while a tree has a stash" eval '! clean && said "1 stashes" && said "stash pop"'
check "and removes nothing" kept
git -C "${t138}" stash drop -q
git -C "${t138}" checkout -q -b side
git -C "${t138}" commit -q --allow-empty -m "work on a side branch"
git -C "${t138}" checkout -q master
check "clean refuses while a tree has a side branch with work" \
  eval '! clean && said "the branch side" && said "work on a side branch" && said "rebase HEAD side"'
check "and removes nothing" kept
git -C "${t138}" branch -q -f side master
# A pull request's branch (make pr) holds work only beyond what make pr wrote.
git -C "${t138}" branch -q kep-6318/01-fix master
git -C "${t138}" commit -q --allow-empty -m "what make pr wrote"
git -C "${t138}" branch -q -f kep-6318/01-fix HEAD
git -C "${t138}" reset -q --hard HEAD~1
check "clean refuses while a pull request's branch is not one make pr wrote" \
  eval '! clean && said "branch kep-6318/01-fix, with commits that make pr did not write" && said "what make pr wrote"'
git -C "${t138}" update-ref refs/kep/pr/kep-6318/01-fix kep-6318/01-fix
new_output
check "clean leaves alone a pull request's branch as make pr wrote it" clean
new_output
git -C "${t138}" checkout -q kep-6318/01-fix
git -C "${t138}" commit -q --allow-empty -m "a review fix on the branch"
git -C "${t138}" checkout -q master
check "clean refuses while a pull request's branch has a commit beyond what make pr wrote" \
  eval '! clean && said "a review fix on the branch" && ! said "what make pr wrote" && said "branch -D kep-6318/01-fix"'
check "and removes nothing" kept
git -C "${t138}" branch -q -D kep-6318/01-fix
mkdir -p "${t138}/.git/rebase-apply"
check "clean refuses during a git am session" eval '! clean && said "a git am session" && ! said "the branch side"'
check "and removes nothing" kept
check "clean removes it all the same with KEP_FORCE=1" eval 'KEP_FORCE=1 clean && said "KEP_FORCE=1"'
check "and removes _output/" test ! -e "${work}/output"
rmdir "${t138}/.git/rebase-apply"
new_output
git init -q "${work}/output/moved-aside"
git -C "${work}/output/moved-aside" commit -q --allow-empty -m "work in a tree moved aside"
check "clean refuses while _output/ holds a repository that is no base's tree" \
  eval '! clean && said "moved-aside is a git repository that is no base"'
check "and removes nothing" test -d "${work}/output/moved-aside/.git"
rm -rf "${work}/output/moved-aside"
echo "A. Name" >"${work}/output/pr-identity"
check "clean succeeds when no tree holds work (a branch with nothing new is none)" clean
check "and removes _output/ but for what was written for make pr" \
  eval '[[ "$(ls -A "${work}/output")" == pr-identity ]] && said "but for what you wrote for make pr: pr-identity"'
rm -rf "${work}/output"

# A host with only cgroup v2: the node check and make run refuse at once.
printf 'cgroup2 /sys/fs/cgroup cgroup2 rw,nosuid,nodev,noexec,relatime 0 0\n' >"${work}/mounts-v2"
check "the node check refuses a host with only cgroup v2" \
  eval '! HARNESS_PROC_MOUNTS="${work}/mounts-v2" "${ROOT}/hack/node-check.sh" >"${work}/out" 2>&1 && said "cgroup v1: this host has only cgroup v2"'
check "make run refuses it at the start, building nothing" \
  eval '! HARNESS_PROC_MOUNTS="${work}/mounts-v2" KEP_RUN_EXIT=1 HARNESS_OUTPUT="${work}/run-output" "${ROOT}/hack/run.sh" </dev/null >"${work}/out" 2>&1 && said "cgroup v1: this host has only cgroup v2" && ! said "building" && test ! -e "${work}/run-output/bin"'

# make verify runs every hack/verify-*.sh: one planted in a copy of hack/ is
# listed, after the quick checks.
mkdir -p "${work}/root"
cp -R "${ROOT}/hack" "${work}/root/hack"
printf '#!/usr/bin/env bash\ntrue\n' >"${work}/root/hack/verify-planted.sh"
chmod +x "${work}/root/hack/verify-planted.sh"
check "make verify finds a new check by its name" \
  eval '"${work}/root/hack/verify.sh" --list >"${work}/out" 2>&1 && [[ "$(tail -n +10 "${work}/out")" == *planted* ]] && [[ "$(head -n 9 "${work}/out")" != *planted* ]]'

# kep::util::trap_add chains the traps of its own shell only: in a subshell,
# not the one it was forked from, which runs when that shell exits.
trap_order() {
  bash -c 'source "$1/hack/lib/init.sh"; trap "echo parent" EXIT; (kep::util::trap_add "echo first" EXIT; kep::util::trap_add "echo second" EXIT); echo after' - "${ROOT}"
}
check "trap_add in a subshell chains the subshell's own traps, not its parent's" \
  eval '[[ "$(trap_order 2>&1)" == "$(printf "second\nfirst\nafter\nparent")" ]]'

# make pr: no identity, no pull request; a placeholder is no identity.
pr() { HARNESS_OUTPUT="${work}/pr-output" "${ROOT}/hack/pr.sh" </dev/null >"${work}/out" 2>&1; }
mkdir -p "${work}/pr-output"
check "make pr refuses without the submitter's identity, off a terminal" \
  eval '! pr && said "needs the submitter'"'"'s name, e-mail and GitHub handle" && test ! -e "${work}/pr-output/pr"'
printf 'Ada Lovelace\nada@lovelace.dev\nPLACEHOLDER\n' >"${work}/pr-output/pr-identity"
check "make pr refuses a placeholder for the GitHub handle" eval '! pr && said "not a GitHub handle" && test ! -e "${work}/pr-output/pr"'
printf 'Ada Lovelace\nkep-6318@kubernetes.invalid\nadalovelace\n' >"${work}/pr-output/pr-identity"
check "make pr refuses an e-mail no CLA check accepts" eval '! pr && said "is not one a CLA check accepts" && test ! -e "${work}/pr-output/pr"'
printf 'Ada Lovelace\nada@lovelace.dev\nadalovelace\n' >"${work}/pr-output/pr-identity"
check "make pr refuses without the AI usage disclosure, off a terminal" \
  eval '! pr && said "needs your AI usage disclosure" && test ! -e "${work}/pr-output/pr"'
printf 'TODO\n' >"${work}/pr-output/pr-ai-disclosure"
check "make pr refuses a placeholder for the AI usage disclosure" eval '! pr && said "is empty or a placeholder" && test ! -e "${work}/pr-output/pr"'
printf 'me\n' >"${work}/pr-output/pr-owner"
check "make pr refuses an owner line other than the KEP owner's or the submitter's" \
  eval '! pr && said "pr-owner says '"'"'me'"'"'" && test ! -e "${work}/pr-output/pr"'

((failures == 0)) || kep::log::error_exit "${failures} harness checks failed"
kep::log::status "harness: all checks passed"
