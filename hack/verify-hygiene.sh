#!/usr/bin/env bash
# Checks that each patch of every series reads like an upstream commit: its
# subject starts with "KEP-6318: ", it has a body, it carries no Change-Id
# and no path of a local machine, and its author is the project's
# maintainers (SERIES_AUTHOR_*, which 'make patches' writes). The feature
# gate's owner is a GitHub handle, or marked as a placeholder to fill in for
# the pull request.
set -euo pipefail
# shellcheck source=hack/lib/init.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/init.sh"

failed=0
fail() {
  printf '!!! hygiene: %s\n' "$*" >&2
  failed=1
}

files=()
for release in "${RELEASES}"/*/; do
  kep::util::lines series find "$(kep::tree::release_patches "$(basename "${release}")")" \
    -maxdepth 1 -name '[0-9][0-9][0-9][0-9]-*.patch'
  files+=("${series[@]}")
done
((${#files[@]})) || fail "no patch in any series of releases/"

for f in "${files[@]}"; do
  name=${f#"${ROOT}/"}
  subject=$(git mailinfo /dev/null /dev/null <"${f}" | sed -n 's/^Subject: //p')
  body=$(sed -n '/^$/,/^---$/p' "${f}" | sed '1d;$d' | grep -c '[^[:space:]]' || true)
  [[ "${subject}" == "KEP-6318: "* ]] ||
    fail "${name}: the subject must start with 'KEP-6318: ' (got '${subject}'). Reword the commit in its tree and run 'make patches'."
  ((body > 0)) ||
    fail "${name}: the commit message has no body; say why the change is made. Reword it in its tree and run 'make patches'."
  if grep -nE '^Change-Id:|/(work|home|root|tmp|Users)/' "${f}" | grep -v '^[0-9]*:[-+ ]' >&2; then
    fail "${name}: the commit message has a Change-Id or a local path (above)."
  fi
done

authors=$(kep::tree::foreign_authors "${files[@]}")
if [[ -n "${authors}" ]]; then
  printf '%s\n' "${authors}" >&2
  fail "the patches above are not by '${SERIES_AUTHOR_NAME} <${SERIES_AUTHOR_EMAIL}>', the series' one author. Run 'make patches' (it writes that author), and commit."
fi

if ! cat "${PATCHES}"/*.patch | grep -E '^\+\s*// owner: ' | grep -qE 'owner: (@[A-Za-z0-9-]+$|@PLACEHOLDER \()'; then
  fail "the feature gate's 'owner:' comment must name a GitHub handle, or say '@PLACEHOLDER (...)' until the PR is sent."
fi
((failed == 0)) || exit 1
