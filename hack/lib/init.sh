# shellcheck shell=bash
# The settings and paths of the hack/ scripts, their logging and small
# utilities. Source it first; do not run it. The other helpers of hack/lib/,
# each a concern of its own (tree.sh, golang.sh, ...), are sourced after it
# by the scripts that use them.

# A command that fails inside $(...) stops it too, as set -e stops the script:
# a list of packages or of work to keep is never silently cut short.
shopt -s inherit_errexit

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# HARNESS_OUTPUT lets hack/internal/test-harness.sh try make clean on a scratch _output/.
OUTPUT="${HARNESS_OUTPUT:-${ROOT}/_output}"

# BASE names the upstream release to work on: releases/BASE/upstream.env
# pins it, and releases/BASE/patches is its series. HARNESS_RELEASES lets
# hack/internal/test-harness.sh work on a copy of releases/.
DEFAULT_BASE=master
BASE="${BASE:-${DEFAULT_BASE}}"
RELEASES="${HARNESS_RELEASES:-${ROOT}/releases}"
RELEASE="${RELEASES}/${BASE}"
if [[ ! -f "${RELEASE}/upstream.env" ]]; then
  printf '!!! BASE=%s: there is no releases/%s/upstream.env; the bases are: %s\n' \
    "${BASE}" "${BASE}" "$(cd "${RELEASES}" && echo *)" >&2
  exit 1
fi
# shellcheck source=releases/master/upstream.env
source "${RELEASE}/upstream.env"

# HARNESS_KUBE_ROOT lets the checks (hack/verify-*.sh) and hack/internal/test-harness.sh use a scratch tree.
KUBE_ROOT="${HARNESS_KUBE_ROOT:-${OUTPUT}/${KUBE_TREE}}"
PATCHES="${RELEASE}/patches"
# The tree and the series as messages name them.
TREE=${KUBE_ROOT#"${ROOT}/"}
SERIES=${PATCHES#"${ROOT}/"}
# What a make command that messages tell you to run adds for this base:
# nothing for the default base, " BASE=<base>" for another.
MAKE_BASE=""
[[ "${BASE}" == "${DEFAULT_BASE}" ]] || MAKE_BASE=" BASE=${BASE}"
# The binaries of this base: the default base's in _output/bin, another's in
# _output/bin/<base>, so that a target of one base never replaces a binary
# that another's node or tests run (.ci/run runs two bases' targets at once).
BIN="${OUTPUT}/bin"
[[ "${BASE}" == "${DEFAULT_BASE}" ]] || BIN="${BIN}/${BASE}"
# kubectl's cache of what each API server serves, for every kubectl and
# plugin that the harness and its tests run: the harness's own, not the
# user's ~/.kube/cache, which clusters on ever new ports would fill.
export KUBECACHEDIR="${OUTPUT}/kube-cache"
# The etcd of this base, which pins its own release: each base keeps its own,
# so that a target of one base never replaces the etcd that another's node or
# tests run (.ci/run runs two bases' targets at once).
ETCD="${OUTPUT}/etcd/${BASE}/etcd"
# The ref that records the last commit of _output/kubernetes that the series was
# applied from or exported to. HEAD beyond it is work that is not exported.
SYNCED_REF=refs/kep/synced
# Under it, the commit that make pr last wrote to each pull request's branch
# (refs/kep/pr/kep-6318/NN-NAME): a branch with commits beyond it holds work
# of its own, which make pr and make clean keep.
PR_REFS=refs/kep/pr

# Fixed identity and dates make the base commit, and every commit that git am
# creates, the same on every machine. Every patch of every series has one
# author, the project's maintainers: 'make patches' writes it, whoever made
# the commit, and 'make verify' checks it.
SERIES_AUTHOR_NAME="KEP-6318 maintainers"
SERIES_AUTHOR_EMAIL="kep-6318@kubernetes.invalid"
export GIT_AUTHOR_NAME="${GIT_AUTHOR_NAME:-Kubernetes Upstream}"
export GIT_AUTHOR_EMAIL="${GIT_AUTHOR_EMAIL:-upstream@kubernetes.invalid}"
export GIT_COMMITTER_NAME="${GIT_COMMITTER_NAME:-KEP-6318 harness}"
export GIT_COMMITTER_EMAIL="${GIT_COMMITTER_EMAIL:-harness@kubernetes.invalid}"

kep::log::status() { printf '+++ %s\n' "$*" >&2; }

kep::log::error_exit() {
  printf '!!! %s\n' "$*" >&2
  exit 1
}

# kep::util::lines NAME CMD... runs CMD and sets the array NAME to the lines it
# prints (none for no output). Unlike mapfile < <(CMD), it fails when CMD does.
kep::util::lines() {
  # shellcheck disable=SC2034 # a reference: it sets the caller's array
  local -n kep_lines=$1
  local text
  shift
  text=$("$@") || return
  kep_lines=()
  [[ -z "${text}" ]] || mapfile -t kep_lines <<<"${text}"
}

# kep::util::trap_add CMD SIGNAL makes the trap on SIGNAL run CMD and then
# what it ran before, as upstream's kube::util::trap_add does: a helper that
# cleans up after itself never drops its caller's trap, nor the caller its.
kep::util::trap_add() {
  local cmd=$1 signal=$2 previous=()
  # In a subshell, trap -p prints the traps of the shell it was forked from,
  # which do not run in it, until it sets one of its own: setting one first
  # (RETURN's, reset) leaves only the subshell's own to chain.
  trap - RETURN
  # trap -p prints the trap as a quoted trap command: trap -- 'CMD' SIGNAL.
  eval "previous=($(trap -p "${signal}"))"
  # shellcheck disable=SC2064 # the commands are joined now, and run later
  trap "${cmd}${previous[2]:+; ${previous[2]}}" "${signal}"
}

# kep::util::timed NAME CMD... runs CMD and logs how long it took, so that a
# slow part shows in the CI log (docs/ci.md says where the time goes).
kep::util::timed() {
  local name=$1 start=${SECONDS}
  shift
  "$@" || return
  kep::log::status "${name} took $((SECONDS - start))s"
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
# .go-version. Share the machine's caches, and use the base's Go, the
# release its .go-version names, which the go command fetches through the
# module proxy unless the machine's Go is that release.
GOCACHE=$(GOTOOLCHAIN=local go env GOCACHE)
GOMODCACHE=$(GOTOOLCHAIN=local go env GOMODCACHE)
export GOTOOLCHAIN="${KUBE_GOTOOLCHAIN}" FORCE_HOST_GO=1 GOCACHE GOMODCACHE

# Each script sources the helpers it uses, and each helper the ones it
# uses, once (HARNESS_SOURCED names those sourced since this file was):
# deps.sh, which this file uses, is sourced here.
unset HARNESS_SOURCED
# shellcheck source=hack/lib/deps.sh
source "${ROOT}/hack/lib/deps.sh"
kep::deps::ensure git
