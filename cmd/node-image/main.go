// Command node-image packs a static binary into a single-layer container
// image and writes it as a docker-archive tar, which
// 'ctr -n k8s.io images import' loads into the node's containerd. The node
// needs no registry: its images are built from the project.
//
//	node-image -binary _output/node/images/probe-target -tag registry.k8s.invalid/kep-6318/probe-target:1.0 -o out.tar
package main

import (
	"archive/tar"
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"path"
	"runtime"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
)

func main() {
	binary := flag.String("binary", "", "the static binary to pack; it becomes /<basename> and the entrypoint")
	tag := flag.String("tag", "", "the image reference, for example registry.k8s.invalid/kep-6318/pause:1.0")
	out := flag.String("o", "", "the docker-archive tar to write")
	flag.Parse()
	if *binary == "" || *tag == "" || *out == "" {
		flag.Usage()
		os.Exit(2)
	}
	if err := build(*binary, *tag, *out); err != nil {
		fmt.Fprintf(os.Stderr, "node-image: %v\n", err)
		os.Exit(1)
	}
}

func build(binary, tag, out string) error {
	ref, err := name.NewTag(tag)
	if err != nil {
		return err
	}
	content, err := os.ReadFile(binary)
	if err != nil {
		return err
	}
	entrypoint := "/" + path.Base(binary)
	var layer bytes.Buffer
	tw := tar.NewWriter(&layer)
	if err := tw.WriteHeader(&tar.Header{Name: entrypoint[1:], Mode: 0o755, Size: int64(len(content)), Typeflag: tar.TypeReg}); err != nil {
		return err
	}
	if _, err := tw.Write(content); err != nil {
		return err
	}
	if err := tw.Close(); err != nil {
		return err
	}
	l, err := tarball.LayerFromOpener(func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(layer.Bytes())), nil
	})
	if err != nil {
		return err
	}
	img, err := mutate.AppendLayers(empty.Image, l)
	if err != nil {
		return err
	}
	cfg, err := img.ConfigFile()
	if err != nil {
		return err
	}
	cfg = cfg.DeepCopy()
	cfg.OS, cfg.Architecture = "linux", runtime.GOARCH
	cfg.Config = v1.Config{Entrypoint: []string{entrypoint}}
	img, err = mutate.ConfigFile(img, cfg)
	if err != nil {
		return err
	}
	return tarball.WriteToFile(out, ref, img)
}
