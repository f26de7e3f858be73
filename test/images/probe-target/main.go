// Command probe-target is the container that the project's node tests and
// make run probe. Its health endpoints can be made healthy, failing or slow
// while it runs, and it reports state that only the same process can know, so
// a test can tell a container that kept running from one that was restarted.
//
// Endpoints (all on --listen):
//
//	GET  /healthz, /readyz, /livez, /startz  answer by the endpoint's mode
//	POST /mode?healthz=fail&readyz=ok ...    sets modes
//	POST /memory?value=...                   stores a value in memory
//	POST /exit?code=1                        ends the process with the code
//	GET  /state                              reports the process's state (JSON)
//
// With --grpc-listen, it also serves the gRPC health service there, which
// answers SERVING.
//
// Every request to a health endpoint is recorded by its request URI, query
// included, with the time it arrived: a probe whose path carries a query
// that no earlier configuration used, such as /readyz?trial=3, shows when the
// new configuration's first request reached the container. /state reports
// the latest arrivals of each URI.
//
// A mode is "ok" (200), "fail" (503), "slow:<duration>" (200 after the
// delay) or "fail-for:<duration>" (503 until the process has run that long,
// then 200). The initial modes come from the environment, for example
// READYZ=fail, so that a restarted container starts as the first did.
package main

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
)

var endpoints = []string{"healthz", "readyz", "livez", "startz"}

// mode is how an endpoint answers.
type mode struct {
	fail  bool
	delay time.Duration
	// failFor makes the endpoint fail until the process has run this long.
	failFor time.Duration
}

func parseMode(s string) (mode, error) {
	name, arg, _ := strings.Cut(s, ":")
	switch name {
	case "ok":
		return mode{}, nil
	case "fail":
		return mode{fail: true}, nil
	case "slow", "fail-for":
		d, err := time.ParseDuration(arg)
		if err != nil {
			return mode{}, fmt.Errorf("mode %q: %w", s, err)
		}
		if name == "slow" {
			return mode{delay: d}, nil
		}
		return mode{failFor: d}, nil
	}
	return mode{}, fmt.Errorf("unknown mode %q: want ok, fail, slow:<duration> or fail-for:<duration>", s)
}

// State is what GET /state reports.
type State struct {
	// Instance is random per process: it changes with every restart.
	Instance string `json:"instance"`
	PID      int    `json:"pid"`
	// Starts counts the processes started with the same --state-dir, this
	// one included; it survives container restarts through an emptyDir.
	Starts    int               `json:"starts"`
	StartedAt time.Time         `json:"startedAt"`
	Memory    string            `json:"memory"`
	Modes     map[string]string `json:"modes"`
	// Hits counts the requests each health endpoint has answered.
	Hits map[string]int `json:"hits"`
	// Arrivals holds, for each request URI of a health endpoint, when its
	// latest requests arrived (at most maxArrivals of them), oldest first.
	Arrivals map[string][]time.Time `json:"arrivals"`
}

// maxArrivals bounds what State.Arrivals keeps for one request URI, and
// maxURIs the number of request URIs it keeps.
const (
	maxArrivals = 8
	maxURIs     = 4096
)

type server struct {
	mu        sync.Mutex
	state     State
	modes     map[string]mode
	startedAt time.Time
}

func (s *server) health(name string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		arrived := time.Now()
		s.mu.Lock()
		m := s.modes[name]
		s.state.Hits[name]++
		uri := r.URL.RequestURI()
		if a, ok := s.state.Arrivals[uri]; ok || len(s.state.Arrivals) < maxURIs {
			if len(a) == maxArrivals {
				a = append(a[:0], a[1:]...)
			}
			s.state.Arrivals[uri] = append(a, arrived)
		}
		s.mu.Unlock()
		if m.delay > 0 {
			select {
			case <-time.After(m.delay):
			case <-r.Context().Done():
				return
			}
		}
		if m.fail || time.Since(s.startedAt) < m.failFor {
			http.Error(w, name+" failing", http.StatusServiceUnavailable)
			return
		}
		fmt.Fprintln(w, "ok")
	}
}

func (s *server) setModes(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		http.Error(w, "use POST", http.StatusMethodNotAllowed)
		return
	}
	modes := map[string]mode{}
	for name, values := range r.URL.Query() {
		// The endpoints are fixed at start; s.modes changes under s.mu.
		if !slices.Contains(endpoints, name) {
			http.Error(w, "unknown endpoint "+name, http.StatusBadRequest)
			return
		}
		m, err := parseMode(values[len(values)-1])
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		modes[name] = m
	}
	s.mu.Lock()
	for name, m := range modes {
		s.modes[name] = m
		s.state.Modes[name] = r.URL.Query().Get(name)
	}
	s.mu.Unlock()
	s.report(w)
}

func (s *server) setMemory(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		http.Error(w, "use POST", http.StatusMethodNotAllowed)
		return
	}
	s.mu.Lock()
	s.state.Memory = r.URL.Query().Get("value")
	s.mu.Unlock()
	s.report(w)
}

func (s *server) report(w http.ResponseWriter) {
	s.mu.Lock()
	defer s.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	if err := json.NewEncoder(w).Encode(s.state); err != nil {
		log.Printf("writing state: %v", err)
	}
}

// countStart increments the start counter in dir and returns it.
func countStart(dir string) (int, error) {
	if dir == "" {
		return 1, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return 0, err
	}
	path := filepath.Join(dir, "starts")
	starts := 0
	if b, err := os.ReadFile(path); err == nil {
		starts, _ = strconv.Atoi(strings.TrimSpace(string(b)))
	} else if !os.IsNotExist(err) {
		return 0, err
	}
	starts++
	return starts, os.WriteFile(path, []byte(strconv.Itoa(starts)), 0o644)
}

func main() {
	listen := flag.String("listen", ":8080", "address to serve on")
	stateDir := flag.String("state-dir", os.Getenv("STATE_DIR"), "directory that keeps the start count across restarts (an emptyDir)")
	exitAfter := flag.Duration("exit-after", 0, "exit with status 1 after running this long, to keep the kubelet restarting the container (0: never)")
	grpcListen := flag.String("grpc-listen", "", "address to serve the gRPC health service on (empty: none)")
	flag.Parse()

	id := make([]byte, 8)
	if _, err := rand.Read(id); err != nil {
		log.Fatal(err)
	}
	starts, err := countStart(*stateDir)
	if err != nil {
		log.Fatalf("counting starts: %v", err)
	}
	s := &server{
		startedAt: time.Now(),
		modes:     map[string]mode{},
		state: State{
			Instance: hex.EncodeToString(id),
			PID:      os.Getpid(),
			Starts:   starts,
			Modes:    map[string]string{},
			Hits:     map[string]int{},
			Arrivals: map[string][]time.Time{},
		},
	}
	s.state.StartedAt = s.startedAt
	mux := http.NewServeMux()
	for _, name := range endpoints {
		initial := os.Getenv(strings.ToUpper(name))
		if initial == "" {
			initial = "ok"
		}
		m, err := parseMode(initial)
		if err != nil {
			log.Fatalf("%s: %v", strings.ToUpper(name), err)
		}
		s.modes[name] = m
		s.state.Modes[name] = initial
		mux.HandleFunc("/"+name, s.health(name))
	}
	mux.HandleFunc("/mode", s.setModes)
	mux.HandleFunc("/memory", s.setMemory)
	mux.HandleFunc("/state", func(w http.ResponseWriter, _ *http.Request) { s.report(w) })
	mux.HandleFunc("/exit", func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			http.Error(w, "use POST", http.StatusMethodNotAllowed)
			return
		}
		code, err := strconv.Atoi(r.URL.Query().Get("code"))
		if err != nil {
			http.Error(w, "code: "+err.Error(), http.StatusBadRequest)
			return
		}
		log.Printf("exiting with %d on request", code)
		os.Exit(code)
	})
	log.Printf("probe-target %s (start %d) serving on %s", s.state.Instance, starts, *listen)
	go func() { log.Fatal(http.ListenAndServe(*listen, mux)) }()
	if *grpcListen != "" {
		l, err := net.Listen("tcp", *grpcListen)
		if err != nil {
			log.Fatal(err)
		}
		g := grpc.NewServer()
		healthpb.RegisterHealthServer(g, health.NewServer())
		log.Printf("serving the gRPC health service on %s", *grpcListen)
		go func() { log.Fatal(g.Serve(l)) }()
	}
	if *exitAfter > 0 {
		time.AfterFunc(*exitAfter, func() {
			log.Printf("exiting with 1 after %v", *exitAfter)
			os.Exit(1)
		})
	}

	// As PID 1 the process gets no default SIGTERM handling from the kernel,
	// and Go's would exit with status 2; stop cleanly instead.
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGINT, syscall.SIGTERM)
	log.Printf("stopping on %v", <-sig)
}
