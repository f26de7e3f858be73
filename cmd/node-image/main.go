// Command node-image packs a static binary, or a root filesystem directory,
// into a single-layer container image and writes it as a docker-archive tar,
// which 'ctr -n k8s.io images import' loads into the node's containerd. The
// node needs no registry: its images are built from the project and the
// patched tree.
//
//	node-image -binary _output/node/images/probe-target -tag registry.k8s.invalid/kep-6318/probe-target:1.0 -o out.tar
//	node-image -rootfs _output/upstream-e2e/rootfs/busybox -entrypoint /bin/sh -tag registry.k8s.io/e2e-test-images/busybox:1.37.0-2 -o out.tar
//
// -tag may be given more than once; the image gets every name.
package main

import (
	"archive/tar"
	"bytes"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
)

// listFlag is a flag that may be repeated.
type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, ",") }
func (l *listFlag) Set(s string) error { *l = append(*l, s); return nil }

func main() {
	var tags, cmd listFlag
	binary := flag.String("binary", "", "the static binary to pack; it becomes /<basename> and the entrypoint")
	rootfs := flag.String("rootfs", "", "a directory to pack as the image's root filesystem (files, directories and symlinks)")
	entrypoint := flag.String("entrypoint", "", "the entrypoint of a -rootfs image")
	flag.Var(&cmd, "cmd", "an argument of the image's default command (repeat for more)")
	flag.Var(&tags, "tag", "an image reference, for example registry.k8s.invalid/kep-6318/pause:1.0 (repeat for more)")
	out := flag.String("o", "", "the docker-archive tar to write")
	flag.Parse()
	if (*binary == "") == (*rootfs == "") || len(tags) == 0 || *out == "" {
		fmt.Fprintln(os.Stderr, "node-image: give -binary or -rootfs, at least one -tag, and -o")
		flag.Usage()
		os.Exit(2)
	}
	config := v1.Config{Cmd: cmd}
	var layer []byte
	var err error
	if *binary != "" {
		config.Entrypoint = []string{"/" + path.Base(*binary)}
		layer, err = binaryLayer(*binary)
	} else {
		if *entrypoint != "" {
			config.Entrypoint = []string{*entrypoint}
		}
		layer, err = rootfsLayer(*rootfs)
	}
	if err == nil {
		err = write(layer, config, tags, *out)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "node-image: %v\n", err)
		os.Exit(1)
	}
}

// binaryLayer returns a layer that holds only the binary, as /<basename>.
func binaryLayer(binary string) ([]byte, error) {
	content, err := os.ReadFile(binary)
	if err != nil {
		return nil, err
	}
	var layer bytes.Buffer
	tw := tar.NewWriter(&layer)
	if err := tw.WriteHeader(&tar.Header{Name: path.Base(binary), Mode: 0o755, Size: int64(len(content)), Typeflag: tar.TypeReg}); err != nil {
		return nil, err
	}
	if _, err := tw.Write(content); err != nil {
		return nil, err
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	return layer.Bytes(), nil
}

// rootfsLayer returns a layer that holds the directory tree under root, owned by root.
func rootfsLayer(root string) ([]byte, error) {
	var layer bytes.Buffer
	tw := tar.NewWriter(&layer)
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == root {
			return err
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		var link string
		if info.Mode()&fs.ModeSymlink != 0 {
			if link, err = os.Readlink(p); err != nil {
				return err
			}
		}
		hdr, err := tar.FileInfoHeader(info, link)
		if err != nil {
			return err
		}
		hdr.Name = filepath.ToSlash(rel)
		if d.IsDir() {
			hdr.Name += "/"
		}
		hdr.Uid, hdr.Gid, hdr.Uname, hdr.Gname = 0, 0, "", ""
		if err := tw.WriteHeader(hdr); err != nil {
			return err
		}
		if !info.Mode().IsRegular() {
			return nil
		}
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		defer f.Close()
		_, err = io.Copy(tw, f)
		return err
	})
	if err != nil {
		return nil, err
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	return layer.Bytes(), nil
}

// write writes an image of the one layer and config, named by each tag, to out.
func write(layer []byte, config v1.Config, tags []string, out string) error {
	l, err := tarball.LayerFromOpener(func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(layer)), nil
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
	cfg.Config = config
	img, err = mutate.ConfigFile(img, cfg)
	if err != nil {
		return err
	}
	refs := map[name.Reference]v1.Image{}
	for _, tag := range tags {
		ref, err := name.NewTag(tag)
		if err != nil {
			return err
		}
		refs[ref] = img
	}
	return tarball.MultiRefWriteToFile(out, refs)
}
