# shellcheck shell=bash
# make checkout (hack/checkout.sh): the tree of a base, rebuilt from the Go
# module proxy with the series applied.

# Sourced once, whatever sources it.
[[ " ${HARNESS_SOURCED:-} " != *" checkout "* ]] || return 0
HARNESS_SOURCED+=" checkout"
# shellcheck source=hack/lib/tree.sh
source "${ROOT}/hack/lib/tree.sh"

# kep::checkout::module_field FIELD MODULE@VERSION... downloads module
# versions through the module proxy and prints FIELD of each (Dir: its
# directory in the module cache; Sum, GoModSum: its go.sum hashes).
kep::checkout::module_field() {
  local field=$1 out
  shift
  out=$(cd "${TMPDIR:-/tmp}" && GOWORK=off GOFLAGS='' go mod download -json "$@" 2>&1) || true
  if grep -q '"Error"' <<<"${out}" || ! grep -q '"Dir"' <<<"${out}"; then
    printf '%s\n' "${out}" >&2
    kep::log::error_exit "could not download $* through the Go module proxy ($(go env GOPROXY)). Check the network and GOPROXY, then run 'make checkout${MAKE_BASE}' again."
  fi
  sed -n "s/^[[:space:]]*\"${field}\": \"\\(.*\\)\",\\?\$/\\1/p" <<<"${out}"
}

# kep::checkout::staging_modules DIR lists the staging module names (api,
# client-go, ...) that the go.work of DIR uses.
kep::checkout::staging_modules() {
  sed -n 's#^[[:space:]]*\./staging/src/k8s\.io/\([a-z0-9-]*\)$#\1#p' "$1/go.work"
}

# kep::checkout::standin_source MODULE prints the served module that
# cmd/standin makes the stand-in of MODULE from, or fails if it knows no
# such module.
kep::checkout::standin_source() {
  (cd "${ROOT}" && go run ./cmd/standin -module "$1" -source-module 2>/dev/null)
}

# kep::checkout::standin MODULE DIR BASE writes the stand-in of MODULE into
# DIR, with the requirements of BASE/go.mod, or fails if cmd/standin knows
# no such module.
kep::checkout::standin() {
  local source
  source=$(kep::checkout::standin_source "$1") || return 1
  kep::log::status "writing a stand-in for $1 from ${source}"
  (cd "${ROOT}" && go run ./cmd/standin -module "$1" -source "$(kep::checkout::module_field Dir "${source}")" -gomod "$3/go.mod" -o "$2")
}

# kep::checkout::create_base makes KUBE_ROOT a repository whose one commit,
# tagged BASE_TAG, is the base of releases/BASE from the Go module proxy.
kep::checkout::create_base() {
  local tmp src name dir
  tmp="${KUBE_ROOT}.tmp"
  rm -rf "${tmp}"
  mkdir -p "$(dirname "${KUBE_ROOT}")"

  kep::log::status "downloading ${KUBE_MODULE}@${KUBE_VERSION}"
  src=$(kep::checkout::module_field Dir "${KUBE_MODULE}@${KUBE_VERSION}")
  cp -R "${src}" "${tmp}"
  chmod -R u+w "${tmp}"
  # The base's Go is the release upstream builds it with.
  [[ "go$(cat "${tmp}/.go-version")" == "${KUBE_GOTOOLCHAIN}" ]] ||
    kep::log::error_exit "releases/${BASE}/upstream.env says KUBE_GOTOOLCHAIN=${KUBE_GOTOOLCHAIN}, and ${KUBE_VERSION}'s .go-version says $(cat "${tmp}/.go-version"): make them agree."

  local -a wanted=()
  for name in $(kep::checkout::staging_modules "${tmp}"); do
    if [[ " ${STAGING_UNSERVED} " == *" ${name} "* ]]; then
      continue
    fi
    wanted+=("k8s.io/${name}@${STAGING_VERSION}")
  done
  kep::log::status "downloading ${#wanted[@]} staging modules at ${STAGING_VERSION}"
  kep::checkout::module_field Dir "${wanted[@]}" >/dev/null
  for name in "${wanted[@]}"; do
    name=${name#k8s.io/}
    name=${name%@*}
    dir=$(kep::checkout::module_field Dir "k8s.io/${name}@${STAGING_VERSION}")
    mkdir -p "${tmp}/staging/src/k8s.io"
    cp -R "${dir}" "${tmp}/staging/src/k8s.io/${name}"
  done
  chmod -R u+w "${tmp}/staging"

  # A staging module that the proxy does not serve is dropped from the
  # workspace, unless go.mod requires it: then it becomes a stand-in, made
  # from the served module of the previous release that it was made of
  # upstream (cmd/standin), or empty when no such module is known, so that
  # the workspace resolves and only the packages that import it cannot build.
  # STANDIN_DEPENDENCIES are other modules that go.mod requires at a version
  # the proxy does not serve: their stand-ins join the workspace under
  # standins/.
  local standins=() dropped=() name dir
  for name in ${STAGING_UNSERVED}; do
    dir="${tmp}/staging/src/k8s.io/${name}"
    if ! grep -q "^[[:space:]]*k8s\.io/${name} v" "${tmp}/go.mod"; then
      dropped+=("${name}")
      sed -i "\#^[[:space:]]*\./staging/src/k8s\.io/${name}\$#d" "${tmp}/go.work"
      sed -i "\#^[[:space:]]*k8s\.io/${name} => \./staging/src/k8s\.io/${name}\$#d" "${tmp}/go.mod"
    elif kep::checkout::standin "k8s.io/${name}" "${dir}" "${tmp}"; then
      standins+=("k8s.io/${name} (from $(kep::checkout::standin_source "k8s.io/${name}"))")
    else
      standins+=("k8s.io/${name} (empty)")
      mkdir -p "${dir}"
      printf 'module k8s.io/%s\n\n%s\n' "${name}" "$(grep -m1 '^go ' "${tmp}/go.mod")" >"${dir}/go.mod"
    fi
  done
  for name in ${STANDIN_DEPENDENCIES:-}; do
    kep::checkout::standin "${name}" "${tmp}/standins/${name}" "${tmp}" ||
      kep::log::error_exit "cmd/standin does not know ${name}, which releases/${BASE}/upstream.env lists in STANDIN_DEPENDENCIES"
    go -C "${tmp}" work use "./standins/${name}"
    standins+=("${name} (from $(kep::checkout::standin_source "${name}"))")
  done

  # A dependency version that the proxy does not serve is replaced, in
  # go.work, by the nearest version it does serve.
  local sub mod served
  for sub in ${MODULE_SUBSTITUTES:-}; do
    mod=${sub%@*}
    served="${mod}@${sub#*=}"
    go -C "${tmp}" work edit -replace="${sub%=*}=${served}"
    printf '%s %s %s\n%s %s/go.mod %s\n' \
      "${mod}" "${served#*@}" "$(kep::checkout::module_field Sum "${served}")" \
      "${mod}" "${served#*@}" "$(kep::checkout::module_field GoModSum "${served}")" >>"${tmp}/go.work.sum"
  done

  # The base of the series for master: master is the next release once the
  # last one is branched, and upstream then raises DefaultKubeBinaryVersion,
  # a one-line change, so that gates can be registered at the next release.
  local binary=""
  if [[ -n "${KUBE_BINARY_VERSION:-}" ]]; then
    local base_go="${tmp}/staging/src/k8s.io/component-base/version/base.go"
    sed -i -E "s/^(\s*DefaultKubeBinaryVersion = )\"[0-9.]+\"/\1\"${KUBE_BINARY_VERSION}\"/" "${base_go}"
    grep -qE "^\s*DefaultKubeBinaryVersion = \"${KUBE_BINARY_VERSION}\"" "${base_go}" ||
      kep::log::error_exit "could not set DefaultKubeBinaryVersion to ${KUBE_BINARY_VERSION} in ${base_go#"${tmp}/"}"
    binary=" DefaultKubeBinaryVersion is ${KUBE_BINARY_VERSION}, as upstream sets it on master once the release before is branched."
  fi

  # Module zips do not keep file modes, so upstream's scripts are run with bash.
  git -C "${tmp}" init -q -b master
  git -C "${tmp}" config core.autocrlf false
  git -C "${tmp}" config am.threeWay false
  # Keep every file byte for byte as the module proxy serves it; upstream's
  # .gitattributes would otherwise rewrite the CRLF in some testdata.
  printf '* -text\n' >"${tmp}/.git/info/attributes"
  git -C "${tmp}" add -A -f .
  GIT_AUTHOR_DATE="2000-01-01T00:00:00Z" GIT_COMMITTER_DATE="2000-01-01T00:00:00Z" \
    git -C "${tmp}" commit -q -m "upstream ${KUBE_VERSION}" \
    -m "${KUBE_MODULE}@${KUBE_VERSION} and its staging modules at ${STAGING_VERSION}, from the Go module proxy. The proxy does not serve ${STAGING_UNSERVED}. Dropped from go.work and go.mod: ${dropped[*]:-none}. Stand-in modules, because go.mod requires them (cmd/standin of the KEP-6318 harness): ${standins[*]:-none}. Replaced in go.work by a version the proxy serves: ${MODULE_SUBSTITUTES:-none}.${binary}"
  git -C "${tmp}" tag "${BASE_TAG}"
  mv "${tmp}" "${KUBE_ROOT}"
}

# kep::checkout::apply_series applies the series to the base of KUBE_ROOT
# with git am. The tree is synced at the base with this series before the
# first patch, so that a patch that does not apply leaves a tree whose work
# is judged against it: resolved and 'git am --continue', make patches
# writes it; 'git am --abort', back at the base, it holds no work.
kep::checkout::apply_series() {
  local base files=()
  base=$(kep::tree::base_commit)
  kep::tree::git checkout -q -B master "${base}"
  kep::tree::mark_synced
  kep::util::lines files kep::tree::patch_files
  if ((${#files[@]})); then
    kep::log::status "applying ${#files[@]} patches"
    # A patch that does not apply leaves the git am session for you to
    # resolve or abort; nothing is reset.
    kep::tree::git am -q --committer-date-is-author-date "${files[@]}" || kep::tree::am_in_progress_error
  fi
  kep::tree::mark_synced
}

# kep::checkout::tree is make checkout: it makes KUBE_ROOT the base of
# releases/BASE plus its series, and leaves a tree that already is, or that
# holds work the series does not have, as it is.
kep::checkout::tree() {
  if [[ -e "${KUBE_ROOT}" && ! -d "${KUBE_ROOT}/.git" ]]; then
    kep::log::error_exit "${KUBE_ROOT} exists but is not a git repository. Move it away and run 'make checkout${MAKE_BASE}' again."
  fi
  if [[ ! -d "${KUBE_ROOT}" ]]; then
    kep::checkout::create_base
    kep::checkout::apply_series
    kep::log::status "${KUBE_ROOT#"${ROOT}/"} is at ${KUBE_VERSION} plus $(kep::tree::patch_files | wc -l) patches"
    return
  fi
  kep::tree::base_commit >/dev/null || kep::log::error_exit "${KUBE_ROOT} has no ${BASE_TAG} tag. Move it away and run 'make checkout${MAKE_BASE}' again."
  ! kep::tree::am_in_progress || kep::tree::am_in_progress_error

  if [[ -z "$(kep::tree::git status --porcelain --untracked-files=normal)" ]] && kep::tree::is_exported; then
    kep::tree::mark_synced
    kep::log::status "${TREE} is up to date with ${SERIES}/"
    return
  fi
  local work
  work=$(kep::tree::unexported_work)
  if [[ -n "${work}" ]]; then
    printf '%s\n' "${work}" >&2
    kep::log::error_exit "refusing to overwrite ${TREE}: it holds work that is not in ${SERIES}/. Run 'make patches${MAKE_BASE}' to export it (or discard it with 'git -C ${TREE} reset --hard ${SYNCED_REF}'), then run 'make checkout${MAKE_BASE}' again."
  fi
  # The series is applied on the branch master, checked out or not.
  if kep::tree::side_branches | grep -qx master; then
    kep::tree::git log --oneline -n 5 refs/heads/master ^HEAD >&2
    kep::log::error_exit "refusing to overwrite ${TREE}: its branch master, which the series is applied on, holds commits that are in no series (above). Check it out and run 'make patches${MAKE_BASE}' to export them, or rename it ('git -C ${TREE} branch -m master NAME'), then run 'make checkout${MAKE_BASE}' again."
  fi
  kep::checkout::apply_series
  kep::log::status "${TREE} now matches ${SERIES}/"
}

