# The settings and paths of the hack/ scripts, and their logging. Source it;
# do not run it. It sources the other helpers of hack/lib/ too, each a
# concern of its own (tree.sh, golang.sh, ...), but for walkthrough.sh (the
# walkthroughs' own).

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# KEP_OUTPUT lets hack/internal/test-checkout-export.sh try make clean on a scratch _output/.
OUTPUT="${KEP_OUTPUT:-${ROOT}/_output}"

# BASE names the upstream release to work on: releases/BASE/upstream.env
# pins it and names its series (PATCHES_DIR: patches/ for 1.37,
# releases/1.38/patches for 1.38). KEP_RELEASES lets hack/internal/test-checkout-export.sh
# work on a copy of releases/ (with the copy of patches/ beside it).
DEFAULT_BASE=1.37
BASE="${BASE:-${DEFAULT_BASE}}"
RELEASES="${KEP_RELEASES:-${ROOT}/releases}"
RELEASE="${RELEASES}/${BASE}"
if [[ ! -f "${RELEASE}/upstream.env" ]]; then
  printf '!!! BASE=%s: there is no releases/%s/upstream.env; the bases are: %s\n' \
    "${BASE}" "${BASE}" "$(cd "${RELEASES}" && echo *)" >&2
  exit 1
fi
# shellcheck source=releases/1.37/upstream.env
source "${RELEASE}/upstream.env"

# KEP_KUBE_ROOT lets hack/verify.sh and hack/internal/test-checkout-export.sh use a scratch tree.
KUBE_ROOT="${KEP_KUBE_ROOT:-${OUTPUT}/${KUBE_TREE}}"
# KEP_PATCHES lets hack/internal/test-checkout-export.sh work on a copy of the series.
PATCHES="${KEP_PATCHES:-$(realpath -m "${RELEASE}/${PATCHES_DIR}")}"
# The tree and the series as messages name them.
TREE=${KUBE_ROOT#"${ROOT}/"}
SERIES=${PATCHES#"${ROOT}/"}
BIN="${OUTPUT}/bin"
# The ref that records the last commit of _output/kubernetes that patches/ was
# applied from or exported to. HEAD beyond it is work that is not exported.
SYNCED_REF=refs/kep/synced

# Fixed identity and dates make the base commit, and every commit that git am
# creates, the same on every machine.
export GIT_AUTHOR_NAME="${GIT_AUTHOR_NAME:-Kubernetes Upstream}"
export GIT_AUTHOR_EMAIL="${GIT_AUTHOR_EMAIL:-upstream@kubernetes.invalid}"
export GIT_COMMITTER_NAME="${GIT_COMMITTER_NAME:-KEP-6318 harness}"
export GIT_COMMITTER_EMAIL="${GIT_COMMITTER_EMAIL:-harness@kubernetes.invalid}"

kep::log::status() { printf '+++ %s\n' "$*" >&2; }

kep::log::error_exit() {
  printf '!!! %s\n' "$*" >&2
  exit 1
}

# kep::util::poll SECONDS [--while CHECK] CMD... runs CMD every half second, its output
# discarded, until it succeeds. It returns 1 once SECONDS have passed, and 2
# as soon as the command CHECK fails: what CMD waits for has died.
kep::util::poll() {
  local seconds=$1 check=(true)
  shift
  if [[ "$1" == --while ]]; then
    check=("$2")
    shift 2
  fi
  local deadline=$((SECONDS + seconds))
  until "$@" >/dev/null 2>&1; do
    "${check[@]}" || return 2
    ((SECONDS < deadline)) || return 1
    sleep 0.5
  done
}

# Upstream's hack/ scripts would otherwise use a private GOPATH and caches
# under _output/kubernetes/_output and fetch the Go release named in
# .go-version. Share the machine's caches, and use the base's Go: the
# machine's, or the release the go command fetches through the module proxy.
export GOTOOLCHAIN="${KUBE_GOTOOLCHAIN}" FORCE_HOST_GO=1
GOCACHE=$(go env GOCACHE)
GOMODCACHE=$(go env GOMODCACHE)
export GOCACHE GOMODCACHE

# The helpers of the tree and its series, of go, the control plane, the
# node, its e2e runs, the side-by-side runs and upstream's generators.
for lib in tree golang control-plane node e2e sidebyside generated; do
  # shellcheck source=/dev/null
  source "${ROOT}/hack/lib/${lib}.sh"
done
unset lib
