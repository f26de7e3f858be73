#!/usr/bin/env bash
# Checks that each patch of every series reads like an upstream commit: its
# subject starts with "KEP-6318: ", or, for the fixes of upstream bugs that
# the series carries without the feature gate, with the component ("kubelet: "),
# as upstream's commits do; it has a body, it carries no Change-Id, no path of
# a local machine and no placeholder, and its author is the project's
# maintainers (SERIES_AUTHOR_*, which 'make patches' writes; 'make pr' puts
# the submitter's name there). The feature gate's owner is a GitHub handle.
set -euo pipefail
# shellcheck source=hack/lib/init.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/init.sh"
# shellcheck source=hack/lib/tree.sh
source "${ROOT}/hack/lib/tree.sh"

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

# make_patches FILE is the command that exports the series that FILE is a
# patch of.
make_patches() {
  local release=${1#"${RELEASES}/"}
  release=${release%%/*}
  if [[ "${release}" == "${DEFAULT_BASE}" ]]; then echo "make patches"; else echo "make patches BASE=${release}"; fi
}

for f in "${files[@]}"; do
  name=${f#"${ROOT}/"}
  subject=$(git mailinfo /dev/null /dev/null <"${f}" | sed -n 's/^Subject: //p')
  body=$(sed -n '/^$/,/^---$/p' "${f}" | sed '1d;$d' | grep -c '[^[:space:]]' || true)
  [[ "${subject}" =~ ^(KEP-6318|kubelet):\  ]] ||
    fail "${name}: the subject must start with 'KEP-6318: ', or 'kubelet: ' for a fix of upstream that needs no feature gate (got '${subject}'). Reword the commit in its tree and run '$(make_patches "${f}")'."
  ((body > 0)) ||
    fail "${name}: the commit message has no body; say why the change is made. Reword it in its tree and run '$(make_patches "${f}")'."
  if grep -nE '^Change-Id:|/(work|home|root|tmp|Users)/' "${f}" | grep -v '^[0-9]*:[-+ ]' >&2; then
    fail "${name}: the commit message has a Change-Id or a local path (above)."
  fi
  if grep -nE 'PLACEHOLDER|TODO\((you|submitter)\)|@GATE_VERSION@' "${f}" >&2; then
    fail "${name}: a placeholder (above): the series is what upstream gets."
  fi
done

authors=$(kep::tree::foreign_authors "${files[@]}")
if [[ -n "${authors}" ]]; then
  printf '%s\n' "${authors}" >&2
  fail "the patches above are not by '${SERIES_AUTHOR_NAME} <${SERIES_AUTHOR_EMAIL}>', the series' one author. Run 'make patches' with the BASE of each (it writes that author), and commit."
fi

for release in $(kep::tree::releases); do
  if ! cat "$(kep::tree::release_patches "${release}")"/*.patch | grep -E -A1 '^\+\s*// owner: ' | grep -B1 'kep.k8s.io/6318' | grep -qE '^\+\s*// owner: @[A-Za-z0-9-]+$'; then
    fail "the ${release} series: the feature gate's 'owner:' comment must name a GitHub handle ('make pr' puts the submitter's there)."
  fi
done
((failed == 0)) || exit 1
