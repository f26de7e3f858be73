#!/usr/bin/env bash
# Upstream's spelling check (hack/verify-spelling.sh: misspell, as hack/tools
# pins it), on the files the tree changes on its base and the project's own.
set -euo pipefail
# shellcheck source=hack/lib/init.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/init.sh"
# shellcheck source=hack/lib/tree.sh
source "${ROOT}/hack/lib/tree.sh"

kep::tree::ensure_checkout
kep::util::lines files kep::tree::touched_files
files=("${files[@]/#/${KUBE_ROOT}/}")
project=$(cd "${ROOT}" && git ls-files --cached --others --exclude-standard |
  grep -v -e '\.patch$' -e '/testdata/' -e '/range-diff$' -e '^hack/tools/go\.\(mod\|sum\)$')
kep::util::lines project_files echo "${project}"
files+=("${project_files[@]/#/${ROOT}/}")
go -C "${ROOT}/hack/tools" tool misspell -i "Creater,creater,ect" -error -o stderr "${files[@]}" ||
  kep::log::error_exit "spelling: fix the words above (inside ${TREE} for the series; then 'make patches${MAKE_BASE}')."
