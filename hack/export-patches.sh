#!/usr/bin/env bash
# Exports the commits of _output/kubernetes after the base into the series,
# releases/BASE/patches.
# The output is stable: an unchanged commit gives a byte-identical file, and
# patch files of commits that no longer exist are removed. It refuses to drop
# patches that the tree never had, and to empty the series (KEP_FORCE=1
# overrides both). Every patch's author is the project's maintainers
# (kep::tree::export_series).
set -euo pipefail
# shellcheck source=hack/lib/init.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/init.sh"
# shellcheck source=hack/lib/tree.sh
source "${ROOT}/hack/lib/tree.sh"

[[ -d "${KUBE_ROOT}/.git" ]] || kep::log::error_exit "${KUBE_ROOT} does not exist. Run 'make checkout${MAKE_BASE}' first."
kep::tree::base_commit >/dev/null || kep::log::error_exit "${KUBE_ROOT} has no ${BASE_TAG} tag. Run 'make checkout${MAKE_BASE}' first."
if [[ -n "$(kep::tree::git status --porcelain --untracked-files=no)" ]]; then
  kep::tree::git status --short --untracked-files=no >&2
  kep::log::error_exit "${TREE} has uncommitted changes. Commit them there (one commit per logical patch), then run 'make patches${MAKE_BASE}' again."
fi

! kep::tree::am_in_progress || kep::tree::am_in_progress_error

tmp=$(mktemp -d)
trap 'rm -rf "${tmp}"' EXIT
kep::tree::export_series "${tmp}"

# subjects prints the subjects of the patch files given.
subjects() {
  local f
  for f in "$@"; do
    git mailinfo /dev/null /dev/null <"${f}" | sed -n 's/^Subject: //p'
  done
}

# The series written must not lose a patch that the tree never had: a patch
# of the series that HEAD lacks must have been in the tree when it was last
# applied or exported (SYNCED_REF), and removed since. A patch that the series
# gained afterwards, for example with a git pull, is not the tree's to drop.
current=()
kep::util::lines current kep::tree::patch_files
if ((${#current[@]})) && [[ "${KEP_FORCE:-0}" != 1 ]]; then
  if ! compgen -G "${tmp}/*.patch" >/dev/null; then
    kep::log::error_exit "${TREE} has no commits on top of ${BASE_TAG}, and ${SERIES}/ has ${#current[@]} patches: refusing to write an empty series over them. 'make checkout${MAKE_BASE}' applies ${SERIES}/; KEP_FORCE=1 make patches empties it."
  fi
  synced=$(kep::tree::git rev-parse --verify -q "${SYNCED_REF}" || true)
  had=$(if [[ -n "${synced}" ]]; then kep::tree::git log --format=%s "$(kep::tree::base_commit)..${synced}"; fi)
  has=$(subjects "${tmp}"/*.patch)
  current_subjects=$(subjects "${current[@]}")
  lost=()
  while read -r subject; do
    if ! grep -qxF -- "${subject}" <<<"${has}" && ! grep -qxF -- "${subject}" <<<"${had}"; then
      lost+=("${subject}")
    fi
  done <<<"${current_subjects}"
  if ((${#lost[@]})); then
    printf '  %s\n' "${lost[@]}" >&2
    kep::log::error_exit "${SERIES}/ has ${#lost[@]} patches that ${TREE} never had (above), for example from a git pull: writing the series would drop them. Apply them to the tree first ('make checkout${MAKE_BASE}' if it holds no work of its own, or git am), or drop them with KEP_FORCE=1 make patches."
  fi
  # A series that changed since the tree's last sync (a git pull of a
  # teammate's fix, under the same subjects) is not the tree's to undo,
  # whatever work the tree holds. One that did not, but that make patches
  # writes another way (a patch by someone else), it writes.
  if kep::tree::series_changed; then
    if [[ "$(kep::tree::git rev-parse HEAD)" == "${synced}" ]]; then
      kep::log::error_exit "${SERIES}/ changed since ${TREE} was last applied or exported, and the tree holds nothing new: writing the series would undo that change. 'make checkout${MAKE_BASE}' applies it; KEP_FORCE=1 make patches writes the tree's series over it."
    fi
    kep::log::error_exit "${SERIES}/ changed since ${TREE} was last applied or exported (a git pull, say), and writing the tree's series would undo that change. Bring it into the tree's commits (git diff of ${SERIES}/ shows it), then KEP_FORCE=1 make patches${MAKE_BASE}."
  fi
fi

# The series is replaced with Ctrl-C and TERM ignored: interrupted between
# the removal and the copy, it would be empty or partial.
(
  trap '' INT TERM
  mkdir -p "${PATCHES}"
  find "${PATCHES}" -maxdepth 1 -name '*.patch' -delete
  if compgen -G "${tmp}/*.patch" >/dev/null; then
    cp "${tmp}"/*.patch "${PATCHES}/"
  fi
)
# The tree's commits become what the series makes of them, as 'make checkout'
# would: the same changes and messages, by the maintainers. Commits by
# anyone else are applied again from the series (the port's range-diff and
# make verify compare commits, authors included).
author="${SERIES_AUTHOR_NAME} <${SERIES_AUTHOR_EMAIL}>"
if kep::tree::git log --format='%an <%ae>' "$(kep::tree::base_commit)..HEAD" | grep -qvxF -- "${author}"; then
  branch=$(kep::tree::git symbolic-ref -q --short HEAD || true)
  kep::util::lines files kep::tree::patch_files
  kep::tree::git checkout -q --detach "$(kep::tree::base_commit)"
  kep::tree::git am -q --committer-date-is-author-date "${files[@]}"
  [[ -z "${branch}" ]] || kep::tree::git checkout -q -B "${branch}"
  kep::log::status "${TREE}: its commits applied again from ${SERIES}/, by ${author}"
fi
kep::tree::mark_synced
kep::log::status "exported $(kep::tree::patch_files | wc -l) patches to ${SERIES}/"
