//go:build ignore

// A bridge from k8s.io/apiextensions-apiserver@v0.37.2 to 1.38's
// k8s.io/apiextensions-api, written by the KEP-6318 harness (cmd/standin):
// marshal.go compares with nullLiteral, which v0.37.2 declares in
// conversion.go, a file that 1.38 keeps in k8s.io/apiextensions-apiserver
// and the stand-in leaves out.

package v1beta1

var nullLiteral = []byte(`null`)
