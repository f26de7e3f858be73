# shellcheck shell=bash
# The one copy of how the project runs etcd and kube-apiserver: the
# certificates, the token, the kubeconfig and the flags that the node's API
# servers (hack/internal/node-init.sh) and the loopback control plane of
# make run and make test-e2e (hack/internal/loopback-control-plane.sh) share.

# Sourced once, whatever sources it.
[[ " ${HARNESS_SOURCED:-} " != *" control-plane "* ]] || return 0
HARNESS_SOURCED+=" control-plane"

# The Service IP range of every API server here; its first address is in the
# serving certificate, as the in-cluster name kubernetes.default.svc.
SERVICE_CIDR=10.96.0.0/24

# kep::control_plane::write_pki DIR IP... writes into DIR a CA (ca.crt), a serving certificate
# it signs for the API server (apiserver.crt) that is valid for the IPs
# given, 127.0.0.1, localhost and the in-cluster names, the service-account
# key pair (sa.key, sa.pub), and one administrator token for the user and
# every component (tokens.csv): these clusters are test beds, not hardened.
kep::control_plane::write_pki() {
  local dir=$1 san="IP:127.0.0.1,IP:${SERVICE_CIDR%.*}.1,DNS:localhost,DNS:kubernetes,DNS:kubernetes.default.svc" ip
  shift
  for ip in "$@"; do
    san+=",IP:${ip}"
  done
  mkdir -p "${dir}"
  (
    cd "${dir}" || exit
    openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=kep-6318-ca" \
      -keyout ca.key -out ca.crt 2>/dev/null
    openssl req -newkey rsa:2048 -nodes -subj "/CN=kube-apiserver" \
      -keyout apiserver.key -out apiserver.csr 2>/dev/null
    echo "subjectAltName=${san}" >apiserver.ext
    openssl x509 -req -in apiserver.csr -CA ca.crt -CAkey ca.key -CAcreateserial -days 2 \
      -extfile apiserver.ext -out apiserver.crt 2>/dev/null
    openssl genrsa -out sa.key 2048 2>/dev/null
    openssl rsa -in sa.key -pubout -out sa.pub 2>/dev/null
    echo "$(openssl rand -hex 16),admin,admin,system:masters" >tokens.csv
  )
}

# kep::control_plane::write_kubeconfig FILE SERVER DIR writes a kubeconfig for SERVER that
# trusts the CA of DIR (kep::control_plane::write_pki) and uses its administrator token.
kep::control_plane::write_kubeconfig() {
  local kc=("${BIN}/kubectl" --kubeconfig "$1")
  "${kc[@]}" config set-cluster kep --server "$2" --certificate-authority "$3/ca.crt" --embed-certs >/dev/null
  "${kc[@]}" config set-credentials admin --token "$(cut -d, -f1 "$3/tokens.csv")" >/dev/null
  "${kc[@]}" config set-context kep --cluster kep --user admin >/dev/null
  "${kc[@]}" config use-context kep >/dev/null
}

# kep::control_plane::etcd_flags NAME DIR CLIENT_PORT PEER_PORT prints, one a
# line, the flags of a one-member etcd on loopback that keeps its data in DIR.
kep::control_plane::etcd_flags() {
  local client="http://127.0.0.1:$3" peer="http://127.0.0.1:$4"
  printf '%s\n' --name "$1" --data-dir "$2" \
    --listen-client-urls "${client}" --advertise-client-urls "${client}" \
    --listen-peer-urls "${peer}" --initial-advertise-peer-urls "${peer}" \
    --initial-cluster "$1=${peer}"
}

# kep::control_plane::apiserver_flags DIR ETCD_PORT PORT GATE prints, one a
# line, the flags of a kube-apiserver on PORT, storing in the etcd on
# 127.0.0.1:ETCD_PORT, with the certificates and token of DIR
# (kep::control_plane::write_pki), RBAC, and MutableContainerProbes set to
# GATE. An empty GATE sets no feature gate: the base release does not know
# it.
kep::control_plane::apiserver_flags() {
  local dir=$1
  printf '%s\n' --etcd-servers "http://127.0.0.1:$2" --secure-port "$3" \
    --tls-cert-file "${dir}/apiserver.crt" --tls-private-key-file "${dir}/apiserver.key" \
    --client-ca-file "${dir}/ca.crt" --token-auth-file "${dir}/tokens.csv" \
    --authorization-mode RBAC --service-cluster-ip-range "${SERVICE_CIDR}" \
    --service-account-issuer https://kubernetes.default.svc.cluster.local \
    --service-account-key-file "${dir}/sa.pub" --service-account-signing-key-file "${dir}/sa.key"
  [[ -z "$4" ]] || printf '%s\n' --feature-gates "MutableContainerProbes=$4"
}
