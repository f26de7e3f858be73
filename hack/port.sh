#!/usr/bin/env bash
# Carries changes of a series to the series ported from it: 'make port
# BASE=1.38' brings into releases/1.38/patches what changed in
# releases/master/patches (PORT_FROM in releases/1.38/upstream.env) since the
# last port, and 'make port BASE=1.37' what changed in releases/1.38/patches.
#
# The ported series is its own record of how it was ported: every conflict
# resolution and every deliberate difference (the gate's version, for
# example) is in its commits. releases/BASE/ported-from names the origin
# series it was ported from, as the git tree of its patches/ folder. For
# each patch k, the new commit is this series' commit k plus what changed
# in the origin's commit k since the last port (git diff of the two, applied
# with git apply --3way), so a fix to the origin lands in the ported series
# unless it touches lines where the two bases differ. Then the merge
# conflicts, nothing is written, and the script says which patch and files
# to port by hand (see docs/development.md).
# The origin must keep its patches; adding or removing one is ported by hand.
#
# On success it writes releases/BASE/patches, releases/BASE/ported-from and
# releases/BASE/range-diff.
#
#   hack/port.sh          port (make port BASE=...)
#   hack/port.sh record   after a port by hand: record ported-from and range-diff
#   hack/port.sh check    for make verify, on a fresh tree (HARNESS_KUBE_ROOT): the
#                         series applies with git am, is ported from the origin
#                         as it is, and differs from it only as recorded
set -euo pipefail
# shellcheck source=hack/lib/init.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/init.sh"
# shellcheck source=hack/lib/tree.sh
source "${ROOT}/hack/lib/tree.sh"
# shellcheck source=hack/lib/checkout.sh
source "${ROOT}/hack/lib/checkout.sh"
mode=${1:-port}

[[ -n "${PORT_FROM:-}" ]] || kep::log::error_exit "releases/${BASE} is not ported from another series (no PORT_FROM in its upstream.env)."
[[ -d "${KUBE_ROOT}/.git" ]] || kep::checkout::tree
! kep::tree::am_in_progress || kep::tree::am_in_progress_error
work=$(kep::tree::unexported_work)
if [[ -n "${work}" ]]; then
  printf '%s\n' "${work}" >&2
  kep::log::error_exit "${TREE} holds work that is not in ${SERIES}/. Run 'make patches BASE=${BASE}' first."
fi
# The port carries the change onto the tree's commits, and writes them over
# the series: the series must not have changed since the tree was applied
# (a teammate's port by hand, pulled).
if kep::tree::series_changed; then
  kep::log::error_exit "${SERIES}/ changed since ${TREE} was applied (a git pull, say), and a port would write the tree's over it. Run 'make checkout BASE=${BASE}' first."
fi

origin_dir=$(kep::tree::release_patches "${PORT_FROM}")
origin_series=${origin_dir#"${ROOT}/"}
new=$(kep::tree::series_tree "${origin_dir}")

scratch=$(mktemp -d "${OUTPUT}/port.XXXXXX")
trap 'rm -rf "${scratch}"' EXIT

# record writes what make verify compares: the origin series the series is
# ported from, how the two differ, and a port's pull requests, which are
# master's (hack/internal/port-prs.py).
record() {
  echo "${new}" >"${RELEASE}/ported-from"
  kep::tree::range_diff "refs/kep/port-new~${#N[@]}" refs/kep/port-new >"${RELEASE}/range-diff"
  [[ ! -f "${RELEASE}/prs.md" ]] || python3 "${ROOT}/hack/internal/port-prs.py" "${RELEASES}" "${BASE}"
  kep::log::status "recorded releases/${BASE}/ported-from, releases/${BASE}/range-diff and the pull requests; review and commit releases/${BASE}/"
}

# The origin's commits now (N), as last ported (O), on the origin's base,
# and this series' commits (P).
origin_base=$(kep::tree::release_var "${PORT_FROM}" BASE_TAG)
kep::tree::origin_commits "${scratch}" "${origin_dir}" refs/kep/port-new
kep::util::lines N kep::tree::git rev-list --reverse "${origin_base}..refs/kep/port-new"
old=$(cat "${RELEASE}/ported-from" 2>/dev/null || true)
case "${mode}" in
  record)
    record
    exit 0
    ;;
  check)
    rc=0
    if [[ "${old}" != "${new}" ]]; then
      printf '!!! %s\n' "${origin_series}/ has changed since ${SERIES}/ was ported from it. Run 'make port BASE=${BASE}' and commit releases/${BASE}/." >&2
      rc=1
    fi
    if ! kep::tree::range_diff "refs/kep/port-new~${#N[@]}" refs/kep/port-new | diff -u "${RELEASE}/range-diff" - >"${scratch}/diff"; then
      head -n 60 "${scratch}/diff" >&2
      printf '!!! %s\n' "${SERIES}/ and ${origin_series}/ differ in ways that releases/${BASE}/range-diff does not record (above). Port the change with 'make port BASE=${BASE}'; if the difference is meant, 'hack/port.sh record' with BASE=${BASE} records it for review." >&2
      rc=1
    fi
    exit "${rc}"
    ;;
esac
if [[ "${old}" == "${new}" ]]; then
  kep::log::status "${SERIES}/ is ported from ${origin_series}/ as it is; nothing to do"
  exit 0
fi
if [[ -z "${old}" ]] || ! git -C "${ROOT}" cat-file -e "${old}^{tree}" 2>/dev/null; then
  kep::log::error_exit "releases/${BASE}/ported-from is missing or names a tree (${old:-none}) that is not in this clone's history. Fetch the full history (git fetch --unshallow); after a port by hand, 'BASE=${BASE} hack/port.sh record' records it."
fi
mkdir -p "${scratch}/old"
git -C "${ROOT}" archive "${old}" | tar -x -C "${scratch}/old"
kep::tree::origin_commits "${scratch}" "${scratch}/old" refs/kep/port-old
kep::util::lines O kep::tree::git rev-list --reverse "${origin_base}..refs/kep/port-old"
kep::util::lines P kep::tree::git rev-list --reverse "$(kep::tree::base_commit)..HEAD"
if ((${#O[@]} != ${#P[@]} || ${#N[@]} != ${#P[@]})); then
  kep::log::error_exit "${origin_series}/ had ${#O[@]} patches when last ported, has ${#N[@]} now, and ${SERIES}/ has ${#P[@]}: a patch was added or removed. Port it by hand in ${TREE} (git am -3), run 'make patches BASE=${BASE}', then 'BASE=${BASE} hack/port.sh record'."
fi

parent=$(kep::tree::base_commit)
export GIT_INDEX_FILE="${scratch}/index"
for k in "${!P[@]}"; do
  kep::tree::git read-tree "${P[k]}"
  if ! kep::tree::git diff --binary "${O[k]}" "${N[k]}" | kep::tree::git apply --cached --3way --allow-empty >"${scratch}/apply" 2>&1; then
    # Each commit carries the change on, so the patches after it conflict too.
    sed -n 's/^U /  /p; /^error/p' "${scratch}/apply" >&2
    kep::log::error_exit "the change to ${origin_series}/ touches lines where the two bases differ, first in $(printf '%04d' $((k + 1))) \"$(kep::tree::git log -1 --format=%s "${N[k]}")\", in the files above; nothing was written. Port it by hand: in ${TREE}, edit that commit as the origin's was edited, run 'make patches BASE=${BASE}', then 'BASE=${BASE} hack/port.sh record'."
  fi
  # The message is this series' own with what changed in the origin's merged in, so that a
  # deliberate difference (the gate's release) is kept; the author is the origin's.
  for c in P O N; do
    ref="${c}[k]"
    # The message exactly as stored: git log's %B adds a newline.
    kep::tree::git cat-file commit "${!ref}" | sed '1,/^$/d' >"${scratch}/message.${c}"
  done
  if ! git merge-file -q "${scratch}/message.P" "${scratch}/message.O" "${scratch}/message.N"; then
    kep::log::error_exit "the change to the message of ${origin_series}/$(printf '%04d' $((k + 1))) \"$(kep::tree::git log -1 --format=%s "${N[k]}")\" touches lines where the two series' messages differ; nothing was written. Port it by hand: in ${TREE}, reword that commit as the origin's was reworded, run 'make patches BASE=${BASE}', then 'BASE=${BASE} hack/port.sh record'."
  fi
  ident=$(kep::tree::git log -1 --format=$'%an\t%ae\t%aI' "${N[k]}")
  IFS=$'\t' read -r name email date <<<"${ident}"
  parent=$(GIT_AUTHOR_NAME="${name}" GIT_AUTHOR_EMAIL="${email}" GIT_AUTHOR_DATE="${date}" GIT_COMMITTER_DATE="${date}" \
    kep::tree::git commit-tree "$(kep::tree::git write-tree)" -p "${parent}" -F "${scratch}/message.P")
done
unset GIT_INDEX_FILE

kep::tree::git reset -q --hard "${parent}"
"${ROOT}/hack/export-patches.sh"
record
