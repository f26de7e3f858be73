#!/usr/bin/env bash
# Says which measured documents describe another series than today's. A
# document of docs/ that holds measurements records, near its top, the
# series it measured and the command that measures it again, which names
# BASE=RELEASE for a release other than the default:
#
#   <!-- measured: release=master series-tree=<git tree> command="make bench" -->
#   <!-- measured: release=1.37 series-tree=<git tree> command="make bench BASE=1.37" -->
#
# series-tree is the git tree of releases/RELEASE/patches that was measured
# (kep::tree::series_tree; git rev-parse HEAD:releases/RELEASE/patches when
# it is committed), or unknown. Each document whose tree is not the series'
# tree now, committed or not, gets a WARNING naming the command. That is no
# failure: measuring again takes a node or half an hour. A marker that
# cannot be read, or no document with one, is.
set -euo pipefail
# shellcheck source=hack/lib/init.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/init.sh"
# shellcheck source=hack/lib/tree.sh
source "${ROOT}/hack/lib/tree.sh"

MARKER='^<!-- measured: release=([^ ]+) series-tree=([0-9a-f]{40}|unknown) command="([^"]+)" -->$'

failed=0 docs=0 stale=0
for doc in "${ROOT}"/docs/*.md; do
  name=${doc#"${ROOT}/"}
  line=$(grep -m 1 '^<!-- measured:' "${doc}") || continue
  docs=$((docs + 1))
  if [[ ! "${line}" =~ ${MARKER} ]]; then
    printf '!!! measured: %s: "%s" is not <!-- measured: release=RELEASE series-tree=<git tree>|unknown command="COMMAND" -->\n' "${name}" "${line}" >&2
    failed=1
    continue
  fi
  release=${BASH_REMATCH[1]} measured=${BASH_REMATCH[2]} command=${BASH_REMATCH[3]}
  # The command measures that release again: BASE names any but the default.
  if [[ "${release}" != "${DEFAULT_BASE}" && " ${command} " != *" BASE=${release} "* ||
    "${release}" == "${DEFAULT_BASE}" && "${command}" == *"BASE="* ]]; then
    printf '!!! measured: %s: the command "%s" does not measure the %s series (BASE=%s names a base other than the default, %s)\n' \
      "${name}" "${command}" "${release}" "${release}" "${DEFAULT_BASE}" >&2
    failed=1
    continue
  fi
  patches=$(kep::tree::release_patches "${release}")
  if [[ ! -d "${patches}" ]]; then
    printf 'WARNING: %s measured the %s series, and there is no releases/%s/patches now: %s measures it again.\n' \
      "${name}" "${release}" "${release}" "${command}" >&2
    stale=$((stale + 1))
    continue
  fi
  current=$(kep::tree::series_tree "${patches}")
  [[ "${measured}" != "${current}" ]] || continue
  what="tree ${measured:0:12}"
  [[ "${measured}" != unknown ]] || what="an unknown tree"
  printf 'WARNING: %s measured %s of the %s series, which is tree %s now: %s measures it again.\n' \
    "${name}" "${what}" "${release}" "${current:0:12}" "${command}" >&2
  stale=$((stale + 1))
done

((docs > 0)) || kep::log::error_exit "measured: no document of docs/ records what it measured (<!-- measured: ... -->)."
((failed == 0)) || kep::log::error_exit "measured: fix the markers above."
kep::log::status "measured: ${docs} measured documents, ${stale} of another series than today's (warnings above)"
