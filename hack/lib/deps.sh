# shellcheck shell=bash
# The Debian packages the targets use, in one list, and the one helper that
# installs them: each target calls kep::deps::ensure with what it needs,
# and a fresh Debian or Ubuntu machine needs nothing prepared beyond Go and
# root (hack/install-deps.sh installs the whole list at once, for a machine
# without make). hack/lib/init.sh sources it.

# PACKAGE COMMAND: the package, and the command that shows it is there
# (none: ask dpkg). A command found on PATH is enough, wherever it came from.
HARNESS_DEBIAN_PACKAGES=(
  "ca-certificates -"     # the Go module proxy and Debian's mirrors over HTTPS
  "git git"               # every target: the upstream trees are git repositories
  "make make"             # the targets
  "gcc gcc"               # cgo: runc (make run), go test -race
  "libc6-dev -"           # cgo's C library headers
  "pkg-config pkg-config" # runc's build finds libseccomp with it
  "libseccomp-dev -"      # runc's seccomp support
  "procps pgrep"          # pgrep, sysctl, free: the node and its teardown
  "util-linux unshare"    # unshare, nsenter, setsid: the node's namespaces
  "iproute2 ss"           # the node's bridge, the teardown's check; upstream's etcd port check
  "busybox-static -"      # the shell and applets of the node's images
  "openssl openssl"       # the API servers' certificates
  "curl curl"             # waiting for etcd; the user guide; the OpenAPI spec
  "jq jq"                 # go -overlay files; the user guide; upstream's e2e test ownership check
  "python3 python3"       # upstream's license header check
  "protobuf-compiler protoc" # generated.proto (make verify, make update-generated)
  "shellcheck shellcheck" # make verify's check of hack/
)

# kep::deps::missing PACKAGE... prints the packages named that are not there.
kep::deps::missing() {
  local want entry package command found
  for want in "$@"; do
    found=""
    for entry in "${HARNESS_DEBIAN_PACKAGES[@]}"; do
      read -r package command _ <<<"${entry}"
      [[ "${package}" == "${want}" ]] || continue
      found=1
      if [[ "${command}" != - ]]; then
        command -v "${command}" >/dev/null || echo "${package}"
      elif [[ "$(dpkg-query -W -f='${Status}' "${package}" 2>/dev/null)" != "install ok installed" ]]; then
        echo "${package}"
      fi
    done
    [[ -n "${found}" ]] || kep::log::error_exit "kep::deps::ensure ${want}: not in the list of hack/lib/deps.sh; add it there"
  done
}

# kep::deps::ensure PACKAGE... installs, with apt-get, the Debian packages named
# (from HARNESS_DEBIAN_PACKAGES; "all" for every one) that are not there yet, or
# stops saying how to install them.
kep::deps::ensure() {
  local -a want=("$@") missing
  if [[ "${want[*]}" == all ]]; then
    want=()
    local entry
    for entry in "${HARNESS_DEBIAN_PACKAGES[@]}"; do
      want+=("${entry%% *}")
    done
  fi
  local out
  out=$(kep::deps::missing "${want[@]}")
  [[ -n "${out}" ]] || return 0
  mapfile -t missing <<<"${out}"
  if [[ "$(id -u)" != 0 ]] || ! command -v apt-get >/dev/null; then
    kep::log::error_exit "this needs the Debian packages ${missing[*]}; install them (apt-get install -y ${missing[*]}) and run it again."
  fi
  kep::log::status "installing the Debian packages ${missing[*]} (hack/lib/deps.sh)"
  # Another target, or another engineer, may be installing: wait for dpkg's lock.
  # apt-get's output, kept in memory, shows only when it fails.
  local apt=(apt-get -qq -o DPkg::Lock::Timeout=600) log
  if ! log=$({ "${apt[@]}" update && DEBIAN_FRONTEND=noninteractive "${apt[@]}" install -y --no-install-recommends "${missing[@]}"; } 2>&1); then
    printf '%s\n' "${log}" >&2
    kep::log::error_exit "apt-get could not install ${missing[*]} (above); check the network and the package sources, then run it again"
  fi
  out=$(kep::deps::missing "${missing[@]}")
  [[ -z "${out}" ]] || kep::log::error_exit "installed ${missing[*]}, but still missing: ${out//$'\n'/ }"
}
