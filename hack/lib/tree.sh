# shellcheck shell=bash
# The upstream tree of a base and its series: the tree's git repository,
# worktrees, the export of its commits as the series, a git am session, the
# ports between bases, and what the tree changes.

# Sourced once, whatever sources it.
[[ " ${HARNESS_SOURCED:-} " != *" tree "* ]] || return 0
HARNESS_SOURCED+=" tree"
# shellcheck source=hack/lib/checkout.sh
source "${ROOT}/hack/lib/checkout.sh"

kep::tree::git() { git -C "${KUBE_ROOT}" "$@"; }

# kep::tree::in_base RELEASE TREE CMD... runs CMD, a command of this file or
# of hack/lib/checkout.sh, for another base, RELEASE, in a shell of its own
# that loads that base's settings, on TREE (empty: the base's own tree,
# _output/<KUBE_TREE>).
kep::tree::in_base() {
  BASE="$1" HARNESS_KUBE_ROOT="$2" bash -euo pipefail -c 'source "$0/hack/lib/init.sh"; source "$0/hack/lib/tree.sh"; "$@"' "${ROOT}" "${@:3}"
}

# kep::tree::new_worktree DIR COMMIT makes DIR a new worktree of _output/kubernetes,
# detached at COMMIT, replacing whatever DIR held.
kep::tree::new_worktree() {
  kep::tree::remove_worktree "$1"
  kep::tree::git worktree add -q --detach "$1" "$2"
}

# kep::tree::remove_worktree DIR removes the worktree DIR, or the directory if git does
# not know it.
kep::tree::remove_worktree() {
  kep::tree::git worktree remove --force "$1" >/dev/null 2>&1 || rm -rf "$1"
  kep::tree::git worktree prune
}

# kep::tree::base_commit prints the base commit of _output/kubernetes.
kep::tree::base_commit() { kep::tree::git rev-parse --verify -q "refs/tags/${BASE_TAG}^{commit}"; }

# kep::tree::standin_paths prints where the base commit of _output/kubernetes has
# stand-in modules (hack/lib/checkout.sh, releases/<minor>/upstream.env).
kep::tree::standin_paths() {
  local base name
  base=$(kep::tree::base_commit)
  for name in ${STAGING_UNSERVED:-}; do
    if kep::tree::git cat-file -e "${base}:staging/src/k8s.io/${name}" 2>/dev/null; then
      echo "staging/src/k8s.io/${name}"
    fi
  done
  for name in ${STANDIN_DEPENDENCIES:-}; do
    echo "standins/${name}"
  done
}

# kep::tree::releases prints every release, a folder of releases/ each.
kep::tree::releases() {
  local release
  for release in "${RELEASES}"/*/; do
    basename "${release}"
  done
}

# kep::tree::ported_from_any prints the releases whose series is ported from
# another one (PORT_FROM in their upstream.env), whatever that one is.
kep::tree::ported_from_any() {
  local release
  for release in $(kep::tree::releases); do
    [[ -z "$(kep::tree::release_var "${release}" PORT_FROM)" ]] || echo "${release}"
  done
}

# kep::tree::port_leaves prints the releases that are ported from another one
# and that none is ported from: the ends of the port chains (master -> 1.38 ->
# 1.37: 1.37).
kep::tree::port_leaves() {
  local release other origins=" "
  for other in $(kep::tree::releases); do
    origins+="$(kep::tree::release_var "${other}" PORT_FROM) "
  done
  for release in $(kep::tree::ported_from_any); do
    [[ "${origins}" == *" ${release} "* ]] || echo "${release}"
  done
}

kep::tree::patch_files() {
  find "${PATCHES}" -maxdepth 1 -name '[0-9][0-9][0-9][0-9]-*.patch' | LC_ALL=C sort
}

# kep::tree::export_series writes base..HEAD of _output/kubernetes as patch files into
# DIR. Every setting that changes format-patch output is pinned, so that a
# developer's git config cannot, and an unchanged commit always gives a
# byte-identical file: hashes are zeroed, and every patch's author is the
# project's maintainers (SERIES_AUTHOR_*), whoever made the commit.
kep::tree::export_series() {
  kep::tree::git -c core.abbrev=12 -c diff.noprefix=false -c diff.mnemonicPrefix=false \
    -c diff.algorithm=myers -c diff.renames=false -c format.signature= \
    -c format.numbered=false -c format.coverLetter=false \
    format-patch -q --zero-commit --no-signature --no-stat --no-renames \
    --no-numbered --no-attach --no-thread --subject-prefix=PATCH \
    -o "$1" "$(kep::tree::base_commit)..HEAD" || return
  local f
  for f in "$1"/*.patch; do
    [[ -e "${f}" ]] || continue
    kep::tree::set_author "${f}" || return
  done
}

# kep::tree::set_author FILE makes the maintainers the author of the patch FILE:
# its From: header (with any folded continuation lines) becomes theirs.
kep::tree::set_author() {
  awk -v from="From: ${SERIES_AUTHOR_NAME} <${SERIES_AUTHOR_EMAIL}>" '
    header && /^From: / { print from; skip = 1; next }
    header && skip && /^[ \t]/ { next }
    { skip = 0 }
    header && /^$/ { header = 0 }
    { print }
  ' header=1 "$1" >"$1.tmp" && mv "$1.tmp" "$1"
}

# kep::tree::foreign_authors FILE... prints the From: header of each patch file that
# is not the maintainers', as "FILE: From: ...".
kep::tree::foreign_authors() {
  local f from want="From: ${SERIES_AUTHOR_NAME} <${SERIES_AUTHOR_EMAIL}>"
  for f in "$@"; do
    from=$(sed -n '/^$/q; /^From: /{N; s/\n[ \t]\+/ /; P; q}' "${f}")
    [[ "${from}" == "${want}" ]] || echo "${f#"${ROOT}/"}: ${from:-no From: header}"
  done
}

# kep::tree::is_exported succeeds when the series is exactly what 'make patches' would
# write for HEAD of _output/kubernetes, and returns 1 when it is not. When the
# export itself fails, which tells nothing, it says so and returns 2. It runs
# in a subshell, whose trap removes its scratch directory on every path.
kep::tree::is_exported() (
  local tmp
  tmp=$(mktemp -d)
  trap 'rm -rf "${tmp}"' EXIT
  if ! kep::tree::export_series "${tmp}"; then
    printf '!!! could not export %s to compare it with %s/ (above)\n' "${TREE}" "${SERIES}" >&2
    return 2
  fi
  diff -r -q "${tmp}" "${PATCHES}" --exclude='.*' --exclude='*.orig' --exclude='*.rej' >/dev/null 2>&1 || return 1
)

# kep::tree::unexported_work prints what in _output/kubernetes is not in the series:
# uncommitted edits, and commits that 'make patches' has not written. HEAD at
# the last apply or export (SYNCED_REF) holds nothing new even when the series
# has changed since, for example after a 'git pull'.
kep::tree::unexported_work() {
  local dirty synced
  dirty=$(kep::tree::git status --porcelain --untracked-files=normal)
  if [[ -n "${dirty}" ]]; then
    echo "uncommitted changes:"
    sed -n 1,20p <<<"${dirty}"
  fi
  synced=$(kep::tree::git rev-parse --verify -q "${SYNCED_REF}" || true)
  [[ "$(kep::tree::git rev-parse HEAD)" != "${synced}" ]] || return 0
  local exported=0
  kep::tree::is_exported || exported=$?
  if ((exported == 2)); then
    echo "commits that may not be exported: ${TREE} could not be exported to compare them with ${SERIES}/"
    return 2
  elif ((exported == 1)); then
    echo "commits that 'make patches${MAKE_BASE}' has not exported:"
    kep::tree::git log --oneline -n 20 "${synced:-$(kep::tree::base_commit)}..HEAD"
  fi
}

# kep::tree::am_dir prints the directory of a git am session of _output/kubernetes.
kep::tree::am_dir() { echo "$(kep::tree::git rev-parse --absolute-git-dir)/rebase-apply"; }

# kep::tree::am_in_progress succeeds while a git am session of _output/kubernetes waits
# for a patch that did not apply.
kep::tree::am_in_progress() { [[ -d "$(kep::tree::am_dir)" ]]; }

# kep::tree::am_in_progress_error stops, naming the patch that did not apply and saying
# how to finish the session.
kep::tree::am_in_progress_error() {
  local n file
  n=$(cat "$(kep::tree::am_dir)/next" 2>/dev/null || echo 0)
  file=$(kep::tree::patch_files | sed -n "${n}p")
  kep::log::error_exit "${TREE} is applying ${SERIES}/ and stopped at ${file:+${file#"${ROOT}/"}, }\"$(head -n 1 "$(kep::tree::am_dir)/final-commit" 2>/dev/null)\", which did not apply. Either resolve it there, 'git -C ${TREE} am --continue' and 'make patches${MAKE_BASE}'; or 'git -C ${TREE} am --abort', fix ${SERIES}/ and 'make checkout${MAKE_BASE}'."
}

# kep::tree::side_branches prints the branches of _output/kubernetes with
# commits that neither HEAD nor the last apply or export (SYNCED_REF) has;
# for a pull request's branch (kep-6318/*), commits that make pr did not
# write there (kep::tree::pr_branch_work).
kep::tree::side_branches() {
  local branch synced branches=() commit
  synced=$(kep::tree::git rev-parse --verify -q "${SYNCED_REF}" || kep::tree::base_commit) || return
  kep::util::lines branches kep::tree::git for-each-ref --format='%(refname:short)' refs/heads/ || return
  for branch in "${branches[@]}"; do
    if [[ "${branch}" == kep-6318/* ]]; then
      commit=$(kep::tree::pr_branch_work "${branch}") || return
    else
      commit=$(kep::tree::git rev-list -n 1 "refs/heads/${branch}" ^HEAD "^${synced}") || return
    fi
    [[ -z "${commit}" ]] || echo "${branch}"
  done
}

# kep::tree::pr_branch_work BRANCH prints the commits of the pull request's
# branch BRANCH that make pr did not write there (PR_REFS): a review fix or a
# rebase onto upstream master made on the branch; all its commits when make
# pr has no record of it. Nothing when the branch does not exist.
kep::tree::pr_branch_work() {
  local branch=$1 written
  kep::tree::git rev-parse --verify -q "refs/heads/${branch}" >/dev/null || return 0
  written=$(kep::tree::git rev-parse --verify -q "${PR_REFS}/${branch}") || written=HEAD
  kep::tree::git rev-list --oneline "refs/heads/${branch}" "^${written}" ^HEAD
}

# kep::tree::lost_work prints what removing _output/kubernetes would lose, and
# how to keep it; nothing when it would lose nothing. It fails when it cannot
# tell. make clean runs it for each base.
kep::tree::lost_work() {
  [[ -d "${KUBE_ROOT}/.git" ]] && kep::tree::base_commit >/dev/null || return 0
  local items=() work stashes branches=() branch rc=0
  if kep::tree::am_in_progress; then
    items+=("- a git am session: finish it ('git -C ${TREE} am --continue', then 'make patches${MAKE_BASE}') or abort it ('git -C ${TREE} am --abort').")
  fi
  # unexported_work says with 2 that it could not compare, in what it prints.
  work=$(kep::tree::unexported_work) || rc=$?
  ((rc == 0 || rc == 2)) || return "${rc}"
  if [[ -n "${work}" ]]; then
    items+=("- work that is not in ${SERIES}/; keep it with 'make patches${MAKE_BASE}' (commit uncommitted changes first):" "    ${work//$'\n'/$'\n'    }")
  fi
  stashes=$(kep::tree::git stash list) || return
  if [[ -n "${stashes}" ]]; then
    items+=("- $(wc -l <<<"${stashes}") stashes; keep them with 'git -C ${TREE} stash pop', a commit and 'make patches${MAKE_BASE}', or drop them with 'git -C ${TREE} stash clear':" "    ${stashes//$'\n'/$'\n'    }")
  fi
  kep::util::lines branches kep::tree::side_branches || return
  for branch in "${branches[@]}"; do
    if [[ "${branch}" == kep-6318/* ]]; then
      items+=("- the pull request's branch ${branch}, with commits that make pr did not write; keep them by folding them into the series' commits in ${TREE} and 'make patches${MAKE_BASE}', or by pushing the branch, or delete it ('git -C ${TREE} branch -D ${branch}'):")
      work=$(kep::tree::pr_branch_work "${branch}" | head -n 5) || return
    else
      items+=("- the branch ${branch}, with commits in no series; keep them by rebasing them onto HEAD ('git -C ${TREE} rebase HEAD ${branch}') and 'make patches${MAKE_BASE}', or delete it ('git -C ${TREE} branch -D ${branch}'):")
      work=$(kep::tree::git log --oneline -n 5 "refs/heads/${branch}" ^HEAD) || return
    fi
    items+=("    ${work//$'\n'/$'\n'    }")
  done
  ((${#items[@]} == 0)) || printf '%s holds work that removing _output/ would lose:\n%s\n' "${TREE}" "$(printf '%s\n' "${items[@]}")"
}

# kep::tree::ensure_checkout makes sure _output/kubernetes exists, creating it from
# the series when it is missing, and otherwise leaves it as it is: the targets
# test and build the tree you are working on. It says so in one line when the
# tree and the series differ. Only 'make checkout' rebuilds an existing tree.
kep::tree::ensure_checkout() {
  if [[ ! -d "${KUBE_ROOT}/.git" ]]; then
    kep::checkout::tree
    return
  fi
  kep::tree::base_commit >/dev/null || kep::log::error_exit "${KUBE_ROOT} has no ${BASE_TAG} tag. Move it away and run 'make checkout${MAKE_BASE}'."
  ! kep::tree::am_in_progress || kep::tree::am_in_progress_error
  local dirty="" synced unexported exported=0
  [[ -z "$(kep::tree::git status --porcelain --untracked-files=normal)" ]] || dirty=" and uncommitted changes"
  synced=$(kep::tree::git rev-parse --verify -q "${SYNCED_REF}" || true)
  kep::tree::is_exported || exported=$?
  ((exported != 2)) || kep::log::error_exit "cannot tell whether ${TREE} and ${SERIES}/ differ (above)."
  if [[ "$(kep::tree::git rev-parse HEAD)" == "${synced}" ]]; then
    if ((exported)) && kep::tree::series_changed; then
      kep::log::status "using ${TREE} as it is${dirty}; ${SERIES}/ has changed since it was applied ('make checkout${MAKE_BASE}' applies it)"
    elif ((exported)); then
      kep::log::status "using ${TREE} as it is${dirty}; 'make patches${MAKE_BASE}' writes ${SERIES}/ otherwise (a patch by someone else, say)"
    elif [[ -n "${dirty}" ]]; then
      kep::log::status "using ${TREE} as it is, with uncommitted changes"
    fi
  elif ((exported)); then
    unexported=$(kep::tree::git rev-list --count "${synced:-$(kep::tree::base_commit)}..HEAD" 2>/dev/null || echo "some")
    kep::log::status "using ${TREE} as it is: ${unexported} commits not yet exported${dirty} ('make patches${MAKE_BASE}' exports them)"
  elif [[ -n "${dirty}" ]]; then
    kep::log::status "using ${TREE} as it is, with uncommitted changes"
  fi
}

# kep::tree::fresh_tree RELEASE prints a tree that holds the series of RELEASE
# applied with git am to its freshly downloaded base, checking one out at most
# once in a make verify run: in the release's own tree when it does not exist
# yet (as in CI's fresh clone; the targets then use it), and otherwise in
# HARNESS_VERIFY_RUN, the run's scratch directory, leaving the tree you work
# in as it is. The checks that need such a tree (churn, ports) share it.
kep::tree::fresh_tree() {
  local release=$1 tree
  [[ -n "${HARNESS_VERIFY_RUN:-}" ]] || kep::log::error_exit "kep::tree::fresh_tree needs HARNESS_VERIFY_RUN (kep::tree::verify_run)"
  tree="${OUTPUT}/$(kep::tree::release_var "${release}" KUBE_TREE)"
  if [[ -f "${HARNESS_VERIFY_RUN}/${release}.fresh" ]]; then
    cat "${HARNESS_VERIFY_RUN}/${release}.fresh"
    return
  fi
  [[ ! -e "${tree}" ]] || tree="${HARNESS_VERIFY_RUN}/${release}"
  kep::tree::in_base "${release}" "${tree}" kep::checkout::tree >&2 || return
  echo "${tree}" >"${HARNESS_VERIFY_RUN}/${release}.fresh"
  echo "${tree}"
}

# kep::tree::verify_run sets HARNESS_VERIFY_RUN, the scratch directory of a make
# verify run, unless hack/verify.sh has: a check run on its own gets its own.
# The directory goes when the script exits.
kep::tree::verify_run() {
  [[ -z "${HARNESS_VERIFY_RUN:-}" ]] || return 0
  mkdir -p "${OUTPUT}"
  HARNESS_VERIFY_RUN=$(mktemp -d "${OUTPUT}/verify.XXXXXX")
  export HARNESS_VERIFY_RUN
  # shellcheck disable=SC2016 # expanded when the trap runs
  kep::util::trap_add 'rm -rf "${HARNESS_VERIFY_RUN}"' EXIT
}

# kep::tree::release_patches RELEASE prints the directory of the series of RELEASE.
kep::tree::release_patches() { echo "${RELEASES}/$1/patches"; }

# kep::tree::release_var RELEASE NAME prints the setting NAME of releases/RELEASE.
kep::tree::release_var() (
  # shellcheck source=/dev/null
  source "${RELEASES}/$1/upstream.env"
  echo "${!2:-}"
)

# kep::tree::mark_synced records that HEAD of _output/kubernetes is what the
# series makes (SYNCED_REF), and the series as it is now (its git tree, in
# the tree's git config), which a git pull may change later.
kep::tree::mark_synced() {
  local series
  series=$(kep::tree::series_tree "${PATCHES}") || return
  kep::tree::git update-ref "${SYNCED_REF}" HEAD
  kep::tree::git config kep.syncedseries "${series}"
}

# kep::tree::series_changed succeeds when the series is not what it was at
# the tree's last sync (kep::tree::mark_synced): a git pull changed it. A
# tree synced before the series was recorded is judged as before: at its
# last sync, and not what make patches writes as the series.
kep::tree::series_changed() {
  local synced now
  if synced=$(kep::tree::git config kep.syncedseries); then
    now=$(kep::tree::series_tree "${PATCHES}") || return 0
    [[ "${now}" != "${synced}" ]]
    return
  fi
  [[ "$(kep::tree::git rev-parse HEAD)" == "$(kep::tree::git rev-parse --verify -q "${SYNCED_REF}" || true)" ]] && ! kep::tree::is_exported
}

# kep::tree::series_tree DIR prints the git tree of the files in DIR, committed or not,
# and stores it in the project's repository. It runs in a subshell, whose trap
# removes its scratch index on every path.
kep::tree::series_tree() (
  local index
  index=$(mktemp)
  trap 'rm -f "${index}"' EXIT
  rm -f "${index}"
  # The patches, not an editor's swap file or what a patch left.
  GIT_INDEX_FILE="${index}" git -C "${ROOT}" --work-tree="$1" add -f -A -- . ':(exclude).*' ':(exclude)*.orig' ':(exclude)*.rej'
  GIT_INDEX_FILE="${index}" git -C "${ROOT}" write-tree
)

# kep::tree::origin_commits SCRATCH DIR REF applies the patch files of DIR, a series of
# the release PORT_FROM, to that release's base, as git am would, and stores
# the result as REF in the tree of BASE. It works in the object store of
# PORT_FROM's tree, which is created if it does not exist and whose files,
# index and branches are left as they are.
kep::tree::origin_commits() {
  local scratch=$1 dir=$2 ref=$3 origin tag parent f
  origin="${OUTPUT}/$(kep::tree::release_var "${PORT_FROM}" KUBE_TREE)"
  tag=$(kep::tree::release_var "${PORT_FROM}" BASE_TAG)
  [[ -d "${origin}/.git" ]] || kep::tree::in_base "${PORT_FROM}" '' kep::checkout::tree
  parent=$(git -C "${origin}" rev-parse "${tag}^{commit}")
  GIT_INDEX_FILE="${scratch}/origin-index" git -C "${origin}" read-tree "${parent}"
  for f in "${dir}"/[0-9][0-9][0-9][0-9]-*.patch; do
    git mailinfo "${scratch}/msg" "${scratch}/patch" <"${f}" >"${scratch}/info"
    GIT_INDEX_FILE="${scratch}/origin-index" git -C "${origin}" apply --cached "${scratch}/patch" ||
      kep::log::error_exit "${f#"${ROOT}/"} does not apply to ${tag}"
    local subject name email date
    subject=$(sed -n 's/^Subject: //p' "${scratch}/info")
    name=$(sed -n 's/^Author: //p' "${scratch}/info")
    email=$(sed -n 's/^Email: //p' "${scratch}/info")
    date=$(sed -n 's/^Date: //p' "${scratch}/info")
    parent=$(printf '%s\n\n%s\n' "${subject}" "$(cat "${scratch}/msg")" | git stripspace |
      GIT_AUTHOR_NAME="${name}" GIT_AUTHOR_EMAIL="${email}" GIT_AUTHOR_DATE="${date}" GIT_COMMITTER_DATE="${date}" \
        git -C "${origin}" commit-tree "$(GIT_INDEX_FILE="${scratch}/origin-index" git -C "${origin}" write-tree)" -p "${parent}")
  done
  git -C "${origin}" update-ref "${ref}" "${parent}"
  kep::tree::git fetch -q "${origin}" "+${ref}:${ref}" "+refs/tags/${tag}:refs/tags/${tag}"
  git -C "${origin}" update-ref -d "${ref}"
}

# kep::tree::range_diff ORIGIN_BASE ORIGIN_HEAD prints how the commits of the tree of
# BASE differ from those of the origin series (ORIGIN_BASE..ORIGIN_HEAD in
# the same repository), without commit ids: what releases/BASE/range-diff
# records.
kep::tree::range_diff() {
  kep::tree::git -c core.abbrev=12 range-diff --no-color --no-dual-color "$1..$2" "$(kep::tree::base_commit)..HEAD" |
    sed -E '/^ *[-0-9]+:/s/[0-9a-f]{12}|-{12}/-/g'
}

# What the targets test and check is what the tree changes on its base,
# whatever the series says: committed or not, exported or not.

# kep::tree::changed_files ROOT FROM prints the files of the work tree of ROOT
# that differ from the commit FROM, new files included and deleted ones left
# out, relative to ROOT.
kep::tree::changed_files() {
  local root=$1 from=$2 files f
  files=$(git -C "${root}" diff --name-only --no-renames "${from}" --) || return
  files+=$'\n'$(git -C "${root}" ls-files --others --exclude-standard) || return
  while IFS= read -r f; do
    [[ -z "${f}" || ! -f "${root}/${f}" ]] || echo "${f}"
  done <<<"${files}" | LC_ALL=C sort -u
}

# kep::tree::packages_of ROOT reads file names of ROOT on stdin and prints the Go
# packages (./dir) they belong to: the directory of a .go file, or the one
# that holds the testdata a file is in, if it has .go files in ROOT.
kep::tree::packages_of() {
  local root=$1 f dir
  while IFS= read -r f; do
    if [[ "/${f}" == */testdata/* ]]; then
      dir=${f%%/testdata/*}
      [[ "${f}" != testdata/* ]] || dir=.
    elif [[ "${f}" == *.go ]]; then
      dir=$(dirname "${f}")
    else
      continue
    fi
    echo "${dir}"
  done | LC_ALL=C sort -u | while IFS= read -r dir; do
    if compgen -G "${root}/${dir}/*.go" >/dev/null; then
      echo "./${dir#./}"
    fi
  done
}

# kep::tree::touched_files prints the files that _output/kubernetes changes on its
# base (kep::tree::changed_files). It stops, saying why, when git fails or
# the list is empty: nothing to test or check is an error, not a pass.
kep::tree::touched_files() {
  local files base
  base=$(kep::tree::base_commit) || kep::log::error_exit "${TREE} has no ${BASE_TAG} tag. Move it away and run 'make checkout${MAKE_BASE}'."
  files=$(kep::tree::changed_files "${KUBE_ROOT}" "${base}") ||
    kep::log::error_exit "could not list what ${TREE} changes on ${BASE_TAG} (git diff --name-only ${BASE_TAG}, above)."
  [[ -n "${files}" ]] ||
    kep::log::error_exit "${TREE} changes nothing on ${BASE_TAG} (git diff --name-only ${BASE_TAG} is empty): nothing to test or check. 'make checkout${MAKE_BASE}' applies ${SERIES}/."
  echo "${files}"
}

# kep::tree::touched_packages prints the Go packages (./dir) that _output/kubernetes
# changes on its base, and stops, saying why, when there are none.
kep::tree::touched_packages() {
  local files pkgs
  files=$(kep::tree::touched_files) || return
  pkgs=$(kep::tree::packages_of "${KUBE_ROOT}" <<<"${files}") || return
  [[ -n "${pkgs}" ]] ||
    kep::log::error_exit "${TREE} changes no Go package on ${BASE_TAG} (git diff --name-only ${BASE_TAG} has no .go file): nothing to test. 'make checkout${MAKE_BASE}' applies ${SERIES}/."
  echo "${pkgs}"
}
