#!/usr/bin/env bash
# Checks the pull requests of every series (releases/BASE/prs.md, which make
# pr reads): their commits take the series' patches in order, each once; and
# a port's file is master's texts for its base (hack/internal/port-prs.py),
# so that it cannot fall behind master's.
set -euo pipefail
# shellcheck source=hack/lib/init.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/init.sh"
# shellcheck source=hack/lib/tree.sh
source "${ROOT}/hack/lib/tree.sh"

failed=()
for release in $(kep::tree::releases); do
  prs="${RELEASES}/${release}/prs.md"
  [[ -f "${prs}" ]] || continue
  patches=$(find "${RELEASES}/${release}/patches" -name '*.patch' | wc -l)
  # The commit ranges, in order, must be 1-A, A+1-B, ..., ending at the last patch.
  ranges=$(sed -n 's/^- commits: \([0-9]*\)-\([0-9]*\)$/\1 \2/p' "${prs}")
  next=1
  while read -r first last; do
    [[ -n "${first}" ]] || continue
    if ((first != next || last < first)); then
      echo "releases/${release}/prs.md: a pull request has commits ${first}-${last}; the next commit is ${next}" >&2
      failed+=("${release}")
      continue 2
    fi
    next=$((last + 1))
  done <<<"${ranges}"
  if ((next != patches + 1)); then
    echo "releases/${release}/prs.md: the pull requests take commits 1-$((next - 1)); the series has ${patches}" >&2
    failed+=("${release}")
    continue
  fi
  if [[ "${release}" != master ]]; then
    python3 "${ROOT}/hack/internal/port-prs.py" "${RELEASES}" "${release}" --check || failed+=("${release}")
  fi
done
((${#failed[@]} == 0)) || kep::log::error_exit "prs: releases ${failed[*]} (above)."
kep::log::status "prs: every series' pull requests take its commits in order, and the ports' are master's"
