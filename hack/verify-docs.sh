#!/usr/bin/env bash
# Checks the docs against the harness: the README is at most 150 lines; the
# docs name every target of the Makefile; the Makefile lists every setting
# that hack/ reads, and at most 17; and every link, anchor, make target,
# path and setting that the docs name exists (cmd/doc-check), and the user
# guide's test markup parses (cmd/doc-test).
set -euo pipefail
# shellcheck source=hack/lib/init.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/init.sh"

MAX_README_LINES=150
MAX_SETTINGS=17
# Names that hack/ reads with a default but that are no settings: the
# harness's own, HARNESS_*, which it sets for its scripts and tests (a scratch
# tree, releases/ or _output/, a node script that already runs inside the
# node, a fake mount table); those releases/BASE/upstream.env sets; and the
# environment's or git's. The settings are the upstream names the Makefile
# lists, KEP_*, and the two-node cluster's NODES and NODE2_GATE.
NOT_SETTINGS=(STAGING_UNSERVED STANDIN_DEPENDENCIES MODULE_SUBSTITUTES PORT_FROM KUBE_BINARY_VERSION ETCD_VERSION KUBECTL TMPDIR
  GIT_AUTHOR_NAME GIT_AUTHOR_EMAIL GIT_COMMITTER_NAME GIT_COMMITTER_EMAIL)

failed=0
fail() {
  printf '!!! docs: %s\n' "$*" >&2
  failed=1
}

lines=$(wc -l <"${ROOT}/README.md")
((lines <= MAX_README_LINES)) ||
  fail "README.md has ${lines} lines, more than ${MAX_README_LINES}: move details to docs/."

targets=$(sed -n 's/^\([a-z0-9-]*\):.*## .*/\1/p' "${ROOT}/Makefile" | LC_ALL=C sort -u)
named=$(cat "${ROOT}/README.md" "${ROOT}"/docs/*.md | grep -o 'make [a-z0-9-]*' | cut -d' ' -f2 | LC_ALL=C sort -u)
unnamed=$(LC_ALL=C comm -23 <(echo "${targets}") <(echo "${named}"))
[[ -z "${unnamed}" ]] || fail "no doc (README.md, docs/) names these targets of the Makefile: ${unnamed//$'\n'/ }"

listed=$(sed -n 's/^#: \([A-Z][A-Z0-9_]*\) .*/\1/p' "${ROOT}/Makefile" | LC_ALL=C sort -u)
count=$(wc -l <<<"${listed}")
((count <= MAX_SETTINGS)) || fail "the Makefile lists ${count} settings, more than ${MAX_SETTINGS}: fold some."
read_names=$(cat "${ROOT}"/hack/*.sh "${ROOT}"/hack/{lib,internal}/*.sh "${ROOT}/.ci/run" |
  grep -oE '\$\{[A-Z][A-Z0-9_]*:-' | sed 's/^..//; s/:-$//' | LC_ALL=C sort -u)
for name in ${read_names}; do
  [[ " ${NOT_SETTINGS[*]} " != *" ${name} "* && "${name}" != HARNESS_* ]] || continue
  grep -qx -- "${name}" <<<"${listed}" || fail "${name} is read by hack/ but is not a setting the Makefile lists (#: ${name} ...); a name the harness sets for itself is HARNESS_${name#KEP_}."
done
# Every KEP_ name that hack/ reads is a setting: the harness's own are HARNESS_.
kep_names=$(cat "${ROOT}"/hack/*.sh "${ROOT}"/hack/{lib,internal}/*.sh "${ROOT}/.ci/run" | grep -oE '\bKEP_[A-Z0-9_]+' | LC_ALL=C sort -u)
for name in ${kep_names}; do
  grep -qx -- "${name}" <<<"${listed}" || fail "${name} is not a setting the Makefile lists: the harness's own names are HARNESS_*, not KEP_*."
done

(
  cd "${ROOT}"
  # docs/harness.md names hack/tools as what the module zips lack.
  go run ./cmd/doc-check -tree "${KUBE_ROOT}" -absent hack/tools \
    README.md KEP.md docs/*.md test/images/*/README.md &&
    go run ./cmd/doc-test -list docs/changing-probes.md >/dev/null
) || fail "a document names something that does not exist, or the guide's test-docs markup is wrong (above)."
((failed == 0)) || exit 1
