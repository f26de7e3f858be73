// Command node-forward makes the API server of the project's single-node
// cluster reachable from the host. The cluster runs in a network namespace of
// its own, so that it changes nothing on the host's network; node-forward
// listens on the host (127.0.0.1) and opens each upstream connection from
// inside that namespace.
//
//	node-forward -netns /proc/<pid>/ns/net -listen 127.0.0.1:6443 -target 10.88.0.1:6443
package main

import (
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"os"
	"runtime"
	"sync"

	"golang.org/x/sys/unix"
)

// dialer opens TCP connections from inside a network namespace. A socket
// belongs to the namespace of the thread that creates it, so every dial runs
// on one OS thread that has joined the namespace.
type dialer struct {
	requests chan dialRequest
}

type dialRequest struct {
	address string
	result  chan dialResult
}

type dialResult struct {
	conn net.Conn
	err  error
}

func newDialer(netns string) (*dialer, error) {
	d := &dialer{requests: make(chan dialRequest)}
	ready := make(chan error)
	go func() {
		// The thread is never unlocked: when this goroutine exits, the
		// runtime ends the thread instead of reusing it outside the
		// namespace.
		runtime.LockOSThread()
		f, err := os.Open(netns)
		if err != nil {
			ready <- err
			return
		}
		err = unix.Setns(int(f.Fd()), unix.CLONE_NEWNET)
		f.Close()
		if err != nil {
			ready <- fmt.Errorf("joining %s: %w", netns, err)
			return
		}
		close(ready)
		for req := range d.requests {
			conn, err := net.Dial("tcp", req.address)
			req.result <- dialResult{conn, err}
		}
	}()
	return d, <-ready
}

func (d *dialer) dial(address string) (net.Conn, error) {
	result := make(chan dialResult, 1)
	d.requests <- dialRequest{address, result}
	r := <-result
	return r.conn, r.err
}

func forward(client net.Conn, d *dialer, target string) {
	defer client.Close()
	upstream, err := d.dial(target)
	if err != nil {
		log.Printf("dialing %s: %v", target, err)
		return
	}
	defer upstream.Close()
	var wg sync.WaitGroup
	wg.Add(2)
	pipe := func(dst, src net.Conn) {
		defer wg.Done()
		_, _ = io.Copy(dst, src)
		// Pass the half-close on, so that each side sees the other's EOF.
		if tcp, ok := dst.(*net.TCPConn); ok {
			_ = tcp.CloseWrite()
		}
	}
	go pipe(upstream, client)
	go pipe(client, upstream)
	wg.Wait()
}

func main() {
	netns := flag.String("netns", "", "the network namespace file of the cluster, /proc/<pid>/ns/net")
	listen := flag.String("listen", "127.0.0.1:6443", "the host address to listen on")
	target := flag.String("target", "", "the address to connect to inside the namespace")
	flag.Parse()
	if *netns == "" || *target == "" {
		flag.Usage()
		os.Exit(2)
	}
	d, err := newDialer(*netns)
	if err != nil {
		log.Fatal(err)
	}
	l, err := net.Listen("tcp", *listen)
	if err != nil {
		log.Fatal(err)
	}
	log.Printf("forwarding %s to %s in %s", l.Addr(), *target, *netns)
	for {
		conn, err := l.Accept()
		if err != nil {
			log.Fatal(err)
		}
		go forward(conn, d, *target)
	}
}
