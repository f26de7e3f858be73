#!/bin/sh
# curl for the agnhost image of make test-upstream-e2e: upstream's image is
# Alpine with curl, and specs run 'curl URL' to make a plain GET. This does
# that GET with busybox's wget and prints the body; -m/--max-time and
# --connect-timeout become wget's timeout, -s, -S, -f, -g, -k and -L are
# what wget does anyway, and any other option fails loudly.
url="" timeout=""
while [ $# -gt 0 ]; do
  case "$1" in
    -m | --max-time | --connect-timeout)
      timeout=$2
      shift 2
      ;;
    -s | -S | -f | -g | -k | -L | --silent | --show-error | --fail | --insecure | --location) shift ;;
    -*)
      echo "curl: option $1 is not supported by this stand-in (hack/lib/e2e.sh)" >&2
      exit 2
      ;;
    *)
      url=$1
      shift
      ;;
  esac
done
exec /bin/busybox wget -q -O - ${timeout:+-T "${timeout}"} "${url}"
