// Integration checks of `zkpipe serve` from a grpc-go client: Curio, the
// daemon's main client, is written in Go, so grpc-go's HTTP/2 stack is the
// one the daemon has to get along with. tests/daemon.sh builds this program
// in GOPATH mode against Debian's grpc-go, with the cuzkpb and zkpipepb
// packages generated from proto/ at test time, and runs it against a live
// daemon.
//
//	-mode=all       every check below, against an idle daemon
//	-mode=tls       GetStatus over TLS with a client certificate and a token,
//	                and without each, against -addr (tls.go)
//	-mode=drain     N Prove calls in flight while the script sends SIGTERM
//	-mode=stall     a 50 MB request sent a trickle at a time, in flight at SIGTERM
//	-mode=freeport  print a free TCP port on 127.0.0.1 (for metrics.http)
//	-mode=uploads   GetStatus latency while -uploads requests of -upload-mb MB upload
//	-mode=rss       the daemon's (-pid) RSS after a 2000-witness request is cancelled
//
// Each check prints one PASS or FAIL line with its reason; the exit status
// is 1 when any failed.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/ioutil"
	"math"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"zkpipe/cuzkpb"
	"zkpipe/zkpipepb"
)

var (
	flagMode     = flag.String("mode", "all", "all, drain, stall, uploads, rss, porep or freeport")
	flagSock     = flag.String("sock", "", "the daemon's unix socket")
	flagFixtures = flag.String("fixtures", "", "tests/fixtures")
	flagOut      = flag.String("out", "", "directory for the proofs (mode all)")
	flagHTTP     = flag.String("http", "", "host:port of the daemon's metrics.http, if any")
	flagN        = flag.Int("n", 4, "Prove calls in flight (mode drain)")
	flagReady    = flag.String("ready", "", "file created once the drain calls are in flight")
	flagStatusMs = flag.Float64("status-max-ms", 100, "bound on GetStatus latency under load")
	flagUploads  = flag.Int("uploads", 10, "concurrent uploads (mode uploads)")
	flagUploadMB = flag.Int("upload-mb", 50, "size of each upload in MB (mode uploads)")
	flagRounds   = flag.Int("rounds", 1, "rounds of uploads, one after another (mode uploads)")
	flagPid      = flag.Int("pid", 0, "the daemon's process id (mode rss)")
	flagRSSParts = flag.Int("witnesses", 2000, "witnesses of the large request (mode rss)")
	flagRSSCheck = flag.Bool("rss-check", true, "fail when RSS does not return (mode rss; off under sanitizers)")
)

// The two committed circuits, registered under these names.
type curve struct {
	key      string
	fixture  string
	proofLen int // A || B || C, uncompressed
}

var curves = []curve{
	{"bn", "poseidon_small_bn128", 64 + 128 + 64},
	{"bls", "poseidon_small_bls12381", 96 + 192 + 96},
}

var witness = map[string][]byte{}

// Many partitions keep a job live for 10 s or more (a partition takes about
// 50 ms in a release build on two cores), long enough to act on it while it
// runs; the checks cancel such jobs rather than wait for them.
const manyParts = 256

// How long one bn partition takes on this machine and build, as
// checkMultiPartition measures it: jobs that must outlast some step are
// sized from it, so they are long enough on a fast machine and no longer
// than needed under a sanitizer.
var perPart = 50 * time.Millisecond

// Partitions for a bn job of about d.
func partsFor(d time.Duration) int {
	n := int(d/perPart) + 1
	if n < 4 {
		n = 4
	}
	if n > manyParts {
		n = manyParts
	}
	return n
}

// Generous: the suite also runs against ASan and TSan builds.
const proveTimeout = 5 * time.Minute

var failures int

func report(name string, err error, detail string) {
	if err != nil {
		failures++
		fmt.Printf("FAIL %s: %v\n", name, err)
		return
	}
	if detail != "" {
		fmt.Printf("PASS %s (%s)\n", name, detail)
	} else {
		fmt.Printf("PASS %s\n", name)
	}
}

func main() {
	flag.Parse()
	if *flagMode == "freeport" {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		fmt.Println(l.Addr().(*net.TCPAddr).Port)
		l.Close()
		return
	}
	if *flagMode == "tls" {
		runTLS()
		if failures > 0 {
			os.Exit(1)
		}
		return
	}
	if *flagSock == "" || *flagFixtures == "" {
		fmt.Fprintln(os.Stderr, "usage: interop -sock PATH -fixtures DIR [-mode all|drain] ...")
		os.Exit(2)
	}
	for _, c := range curves {
		w, err := ioutil.ReadFile(filepath.Join(*flagFixtures, c.fixture, "witness.wtns"))
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		witness[c.key] = w
	}
	switch *flagMode {
	case "all":
		runAll()
	case "drain":
		runDrain()
	case "stall":
		runStall()
	case "uploads":
		runUploads()
	case "rss":
		runRSS()
	case "porep":
		runPorep()
	default:
		fmt.Fprintf(os.Stderr, "unknown mode %q\n", *flagMode)
		os.Exit(2)
	}
	if failures > 0 {
		fmt.Printf("%d check(s) failed\n", failures)
		os.Exit(1)
	}
}

func runAll() {
	if *flagOut == "" {
		fmt.Fprintln(os.Stderr, "-mode all needs -out")
		os.Exit(2)
	}
	conn, err := dial()
	if err != nil {
		report("connect", err, "")
		return
	}
	defer conn.Close()
	zk := zkpipepb.NewProverClient(conn)
	cz := cuzkpb.NewProvingEngineClient(conn)

	detail, err := checkRegisterKeys(zk)
	report("register keys of both curves", err, detail)
	if err != nil {
		return // nothing below can prove without them
	}
	checks := []struct {
		name string
		fn   func() (string, error)
	}{
		{"concurrent proofs, 6 clients, both curves", checkConcurrentProofs},
		{"multi-partition Prove", func() (string, error) { return checkMultiPartition(zk) }},
		{"malformed requests and unknown methods", func() (string, error) { return checkMalformed(conn, cz) }},
		{"cuzk semantics: NOT_FOUND, failures counted", func() (string, error) { return checkCuzkSemantics(cz) }},
		{"50 MB request accepted, 300 MB refused", func() (string, error) { return checkLargeRequests(conn, cz) }},
		{"Prove cancelled mid-proof: job cancelled, memory freed", func() (string, error) { return checkDisconnect(zk, "cancel") }},
		{"connection closed mid-proof: job cancelled, memory freed", func() (string, error) { return checkDisconnect(zk, "close") }},
		{"duplicate request_id on Submit attaches", func() (string, error) { return checkDuplicateSubmit(zk) }},
		{"duplicate request_id on Prove shares one job", func() (string, error) { return checkDuplicateProve(zk) }},
		{"shared Prove job outlives one of its callers", func() (string, error) { return checkProveOwnership(zk) }},
		{"GetStatus latency and queues under load", func() (string, error) { return checkStatusLatency(zk, cz) }},
		{"GetMetrics and Status parse", func() (string, error) { return checkMetrics(cz, zk) }},
		{"HTTP /metrics and /status", checkHTTP},
		{"daemon idle", func() (string, error) { return checkIdle(zk) }},
		// Last: error paths are where a daemon bug is likeliest to take the
		// process down, and everything above should be seen first.
		{"unknown key is NOT_FOUND and named", func() (string, error) { return checkUnknownKey(zk) }},
	}
	for i, c := range checks {
		if c.name == "HTTP /metrics and /status" && *flagHTTP == "" {
			continue
		}
		t0 := time.Now()
		detail, err := c.fn()
		report(fmt.Sprintf("%s [%.1fs]", c.name, time.Since(t0).Seconds()), err, detail)
		if err := alive(cz); err != nil {
			report("daemon still answers after: "+c.name, err, "")
			for _, rest := range checks[i+1:] {
				fmt.Printf("SKIP %s: the daemon is gone\n", rest.name)
			}
			return
		}
	}
}

// A daemon that died takes every later check down with it; better one
// clear failure than a row of timeouts.
func alive(cz cuzkpb.ProvingEngineClient) error {
	ctx, cancel := ctxFor(10 * time.Second)
	defer cancel()
	_, err := cz.GetStatus(ctx, &cuzkpb.GetStatusRequest{})
	return err
}

// ---------------------------------------------------------------------------
// Connections

// grpc-go 1.33 has no unix: resolver, so the socket is dialled by hand.
func dial() (*grpc.ClientConn, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	sock := *flagSock
	return grpc.DialContext(ctx, "passthrough:///zkpipe",
		grpc.WithInsecure(), grpc.WithBlock(),
		grpc.WithContextDialer(func(ctx context.Context, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, "unix", sock)
		}),
		// The 300 MB request must leave the client to be refused by the
		// daemon, not by grpc-go.
		grpc.WithDefaultCallOptions(grpc.MaxCallSendMsgSize(1<<30), grpc.MaxCallRecvMsgSize(1<<30)))
}

func ctxFor(d time.Duration) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), d)
}

func copies(w []byte, n int) [][]byte {
	ws := make([][]byte, n)
	for i := range ws {
		ws[i] = w
	}
	return ws
}

func expectCode(err error, want codes.Code) error {
	if err == nil {
		return fmt.Errorf("succeeded, expected %v", want)
	}
	if s, _ := status.FromError(err); s.Code() != want {
		return fmt.Errorf("got %v (%s), expected %v", s.Code(), s.Message(), want)
	}
	return nil
}

// A nonce keeps request ids apart across runs against one daemon.
var nonce = strconv.FormatInt(time.Now().UnixNano(), 36)

func rid(name string) string { return name + "-" + nonce }

// ---------------------------------------------------------------------------
// Status and job table

type statusDoc struct {
	Draining    bool    `json:"draining"`
	RPCInFlight *uint64 `json:"rpc_in_flight"`
	Jobs        struct {
		Live         *uint64 `json:"live"`
		EngineLive   *uint64 `json:"engine_live"`
		PayloadBytes *uint64 `json:"payload_bytes"`
	} `json:"jobs"`
	Queues map[string]uint64 `json:"queues"`
	Memory struct {
		BudgetBytes    *uint64 `json:"budget_bytes"`
		BudgetReserved *uint64 `json:"budget_reserved_bytes"`
	} `json:"memory"`
	Keys []struct {
		Name          string  `json:"name"`
		Tier          string  `json:"tier"`
		ResidentBytes *uint64 `json:"resident_bytes"`
		Running       *uint64 `json:"running"`
	} `json:"keys"`
}

func parseStatus(text string) (*statusDoc, error) {
	if !json.Valid([]byte(text)) {
		return nil, fmt.Errorf("status is not valid JSON: %.200q", text)
	}
	var d statusDoc
	if err := json.Unmarshal([]byte(text), &d); err != nil {
		return nil, fmt.Errorf("status JSON: %v", err)
	}
	if d.Memory.BudgetReserved == nil || d.Memory.BudgetBytes == nil || d.Jobs.Live == nil ||
		d.Jobs.EngineLive == nil || d.RPCInFlight == nil {
		return nil, fmt.Errorf("status JSON lacks memory.budget_reserved_bytes, memory.budget_bytes, " +
			"jobs.live, jobs.engine_live or rpc_in_flight")
	}
	for _, k := range d.Keys {
		if k.ResidentBytes == nil || k.Running == nil {
			return nil, fmt.Errorf("status JSON: key %q lacks resident_bytes or running", k.Name)
		}
	}
	return &d, nil
}

func getStatus(zk zkpipepb.ProverClient) (*statusDoc, error) {
	ctx, cancel := ctxFor(30 * time.Second)
	defer cancel()
	r, err := zk.Status(ctx, &zkpipepb.StatusRequest{})
	if err != nil {
		return nil, fmt.Errorf("Status: %v", err)
	}
	return parseStatus(r.StatusJson)
}

// What the budget holds with no job in flight: the hot keys, nothing else.
func (d *statusDoc) idleReserved() uint64 {
	var n uint64
	for _, k := range d.Keys {
		if k.Tier == "hot" {
			n += *k.ResidentBytes
		}
	}
	return n
}

func findJob(zk zkpipepb.ProverClient, requestID string) ([]*zkpipepb.JobInfo, error) {
	ctx, cancel := ctxFor(30 * time.Second)
	defer cancel()
	r, err := zk.ListJobs(ctx, &zkpipepb.ListJobsRequest{})
	if err != nil {
		return nil, fmt.Errorf("ListJobs: %v", err)
	}
	var out []*zkpipepb.JobInfo
	for _, j := range r.Jobs {
		if j.RequestId == requestID {
			out = append(out, j)
		}
	}
	return out, nil
}

// Polls every step until cond holds or limit passes; cond's error is final.
func waitFor(limit, step time.Duration, cond func() (bool, error)) (time.Duration, error) {
	t0 := time.Now()
	for {
		ok, err := cond()
		if err != nil {
			return time.Since(t0), err
		}
		if ok {
			return time.Since(t0), nil
		}
		if time.Since(t0) > limit {
			return time.Since(t0), errTimeout
		}
		time.Sleep(step)
	}
}

var errTimeout = errors.New("timed out")

func waitJobState(zk zkpipepb.ProverClient, requestID string, want zkpipepb.JobState,
	limit time.Duration) (*zkpipepb.JobInfo, time.Duration, error) {
	var last *zkpipepb.JobInfo
	took, err := waitFor(limit, 10*time.Millisecond, func() (bool, error) {
		js, err := findJob(zk, requestID)
		if err != nil {
			return false, err
		}
		if len(js) > 1 {
			return false, fmt.Errorf("%d jobs carry request id %s", len(js), requestID)
		}
		if len(js) == 1 {
			last = js[0]
			return last.State == want, nil
		}
		return false, nil
	})
	if err == errTimeout {
		state := "absent"
		if last != nil {
			state = last.State.String()
		}
		err = fmt.Errorf("job %s not %v within %v (state %s)", requestID, want, limit, state)
	}
	return last, took, err
}

// ---------------------------------------------------------------------------
// Checks

func checkRegisterKeys(zk zkpipepb.ProverClient) (string, error) {
	ctx, cancel := ctxFor(60 * time.Second)
	defer cancel()
	for _, c := range curves {
		path := filepath.Join(*flagFixtures, c.fixture, "circuit.zkey")
		fi, err := os.Stat(path)
		if err != nil {
			return "", err
		}
		r, err := zk.RegisterKey(ctx, &zkpipepb.RegisterKeyRequest{Name: c.key, Path: path})
		if err != nil {
			return "", fmt.Errorf("RegisterKey %s: %v", c.key, err)
		}
		if r.Name != c.key || r.FileBytes != uint64(fi.Size()) {
			return "", fmt.Errorf("RegisterKey %s: name %q, file_bytes %d (file has %d)", c.key, r.Name,
				r.FileBytes, fi.Size())
		}
		// The same name and path again is idempotent.
		r, err = zk.RegisterKey(ctx, &zkpipepb.RegisterKeyRequest{Name: c.key, Path: path})
		if err != nil || !r.AlreadyRegistered {
			return "", fmt.Errorf("RegisterKey %s again: %v, already_registered=%v", c.key, err,
				r.GetAlreadyRegistered())
		}
	}
	other := filepath.Join(*flagFixtures, curves[1].fixture, "circuit.zkey")
	_, err := zk.RegisterKey(ctx, &zkpipepb.RegisterKeyRequest{Name: curves[0].key, Path: other})
	if e := expectCode(err, codes.AlreadyExists); e != nil {
		return "", fmt.Errorf("a taken name with another path: %v", e)
	}
	_, err = zk.RegisterKey(ctx, &zkpipepb.RegisterKeyRequest{Name: "missing",
		Path: filepath.Join(*flagFixtures, "no-such.zkey")})
	if e := expectCode(err, codes.InvalidArgument); e != nil {
		return "", fmt.Errorf("a missing file: %v", e)
	}
	// Only files under server.key_dirs (the fixtures directory here), by
	// their resolved path: no way out through "..", and a relative path is
	// refused.
	for _, p := range []string{"/etc/passwd", filepath.Join(*flagFixtures, "..", "daemon.sh"),
		filepath.Join(*flagFixtures, "..", "..", "README.md")} {
		_, err = zk.RegisterKey(ctx, &zkpipepb.RegisterKeyRequest{Name: "outside", Path: p})
		if e := expectCode(err, codes.PermissionDenied); e != nil {
			return "", fmt.Errorf("a path outside server.key_dirs (%s): %v", p, e)
		}
	}
	_, err = zk.RegisterKey(ctx, &zkpipepb.RegisterKeyRequest{Name: "relative",
		Path: filepath.Join(curves[0].fixture, "circuit.zkey")})
	if e := expectCode(err, codes.InvalidArgument); e != nil {
		return "", fmt.Errorf("a relative path: %v", e)
	}
	return "bn128 and bls12-381; re-registering is idempotent; conflicts refused; nothing outside server.key_dirs", nil
}

func checkUnknownKey(zk zkpipepb.ProverClient) (string, error) {
	ctx, cancel := ctxFor(30 * time.Second)
	defer cancel()
	const name = "no-such-key"
	_, err := zk.Submit(ctx, &zkpipepb.SubmitRequest{Key: name, Witnesses: [][]byte{witness["bn"]}})
	if e := expectCode(err, codes.NotFound); e != nil {
		return "", fmt.Errorf("Submit: %v", e)
	}
	if msg := status.Convert(err).Message(); !strings.Contains(msg, name) {
		return "", fmt.Errorf("Submit: the NOT_FOUND message does not name the key: %q", msg)
	}
	_, err = zk.Prove(ctx, &zkpipepb.ProveRequest{Submit: &zkpipepb.SubmitRequest{Key: name,
		Witnesses: [][]byte{witness["bn"]}}})
	if e := expectCode(err, codes.NotFound); e != nil {
		return "", fmt.Errorf("Prove: %v", e)
	}
	if msg := status.Convert(err).Message(); !strings.Contains(msg, name) {
		return "", fmt.Errorf("Prove: the NOT_FOUND message does not name the key: %q", msg)
	}
	return "", nil
}

func sameJSON(a, b []byte) bool {
	var x, y interface{}
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	xs, _ := json.Marshal(x)
	ys, _ := json.Marshal(y)
	return bytes.Equal(xs, ys)
}

// One COMPLETED single-partition result, checked against its fixture.
func checkProof(c curve, r *zkpipepb.AwaitResponse) error {
	if r.State != zkpipepb.JobState_COMPLETED {
		return fmt.Errorf("state %v (%s)", r.State, r.ErrorMessage)
	}
	if len(r.Proofs) != 1 {
		return fmt.Errorf("%d proofs for one witness", len(r.Proofs))
	}
	p := r.Proofs[0]
	if !p.Verified {
		return errors.New("the proof is not marked verified")
	}
	if len(p.Proof) != c.proofLen {
		return fmt.Errorf("binary proof of %d bytes, expected %d", len(p.Proof), c.proofLen)
	}
	if !json.Valid([]byte(p.ProofJson)) {
		return errors.New("proof_json is not JSON")
	}
	want, err := ioutil.ReadFile(filepath.Join(*flagFixtures, c.fixture, "public.json"))
	if err != nil {
		return err
	}
	if !sameJSON([]byte(p.PublicJson), want) {
		return fmt.Errorf("public_json %q differs from the fixture's %q", p.PublicJson, want)
	}
	return nil
}

func checkConcurrentProofs() (string, error) {
	const clients = 6
	type result struct {
		jobs []string
		err  error
	}
	results := make([]result, clients)
	var wg sync.WaitGroup
	t0 := time.Now()
	for i := 0; i < clients; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			res := &results[i]
			conn, err := dial()
			if err != nil {
				res.err = err
				return
			}
			defer conn.Close()
			zk := zkpipepb.NewProverClient(conn)
			// Clients start on alternate curves so both keys prove at once.
			for k := 0; k < len(curves); k++ {
				c := curves[(i+k)%len(curves)]
				ctx, cancel := ctxFor(proveTimeout)
				r, err := zk.Prove(ctx, &zkpipepb.ProveRequest{Submit: &zkpipepb.SubmitRequest{
					Key: c.key, Witnesses: [][]byte{witness[c.key]}}})
				cancel()
				if err != nil {
					res.err = fmt.Errorf("client %d, %s: Prove: %v", i, c.key, err)
					return
				}
				if err := checkProof(c, r.Result); err != nil {
					res.err = fmt.Errorf("client %d, %s: %v", i, c.key, err)
					return
				}
				dir := filepath.Join(*flagOut, c.fixture, fmt.Sprintf("client%d", i))
				if err := os.MkdirAll(dir, 0o755); err != nil {
					res.err = err
					return
				}
				p := r.Result.Proofs[0]
				if err := ioutil.WriteFile(filepath.Join(dir, "proof.json"), []byte(p.ProofJson), 0o644); err != nil {
					res.err = err
					return
				}
				if err := ioutil.WriteFile(filepath.Join(dir, "public.json"), []byte(p.PublicJson), 0o644); err != nil {
					res.err = err
					return
				}
				res.jobs = append(res.jobs, r.Result.JobId)
			}
		}(i)
	}
	wg.Wait()
	seen := map[string]bool{}
	for _, r := range results {
		if r.err != nil {
			return "", r.err
		}
		for _, j := range r.jobs {
			if j == "" || seen[j] {
				return "", fmt.Errorf("job id %q empty or given twice", j)
			}
			seen[j] = true
		}
	}
	return fmt.Sprintf("%d proofs in %v, written under %s", len(seen),
		time.Since(t0).Round(time.Millisecond), *flagOut), nil
}

func checkMultiPartition(zk zkpipepb.ProverClient) (string, error) {
	const parts = 8
	ctx, cancel := ctxFor(proveTimeout)
	defer cancel()
	t0 := time.Now()
	r, err := zk.Prove(ctx, &zkpipepb.ProveRequest{Submit: &zkpipepb.SubmitRequest{
		Key: "bn", Witnesses: copies(witness["bn"], parts)}})
	wall := time.Since(t0)
	if err != nil {
		return "", fmt.Errorf("Prove: %v", err)
	}
	res := r.Result
	if res.State != zkpipepb.JobState_COMPLETED || len(res.Proofs) != parts {
		return "", fmt.Errorf("%v with %d proofs for %d witnesses (%s)", res.State, len(res.Proofs),
			parts, res.ErrorMessage)
	}
	seen := map[string]bool{}
	for i, p := range res.Proofs {
		one := &zkpipepb.AwaitResponse{State: res.State, Proofs: []*zkpipepb.PartitionProof{p}}
		if err := checkProof(curves[0], one); err != nil {
			return "", fmt.Errorf("partition %d: %v", i, err)
		}
		if seen[p.ProofJson] {
			return "", fmt.Errorf("partition %d repeats an earlier proof", i)
		}
		seen[p.ProofJson] = true
	}
	if res.Times == nil || res.Times.TotalMs == 0 {
		return "", errors.New("no stage times")
	}
	// Partitions overlap: a stage summed over them could run past the
	// job's wall clock; none may.
	tm := res.Times
	for name, v := range map[string]uint64{"queue_wait": tm.QueueWaitMs, "key_load": tm.KeyLoadMs,
		"synthesis": tm.SynthesisMs, "device": tm.DeviceMs, "finalize": tm.FinalizeMs, "verify": tm.VerifyMs} {
		if v > tm.TotalMs {
			return "", fmt.Errorf("stage %s took %d ms of a job of %d ms", name, v, tm.TotalMs)
		}
	}
	perPart = wall / parts
	return fmt.Sprintf("%d verified, distinct proofs in %v, %v a partition", parts,
		wall.Round(time.Millisecond), perPart.Round(time.Millisecond)), nil
}

// Sends bytes as they are, and takes the answer's bytes as they are.
type rawCodec struct{}

func (rawCodec) Marshal(v interface{}) ([]byte, error) { return *(v.(*[]byte)), nil }
func (rawCodec) Unmarshal(data []byte, v interface{}) error {
	*(v.(*[]byte)) = append([]byte(nil), data...)
	return nil
}
func (rawCodec) Name() string { return "proto" }

func rawCall(conn *grpc.ClientConn, method string, body []byte) error {
	ctx, cancel := ctxFor(30 * time.Second)
	defer cancel()
	var out []byte
	return conn.Invoke(ctx, method, &body, &out, grpc.ForceCodec(rawCodec{}))
}

var methods = []string{
	"/cuzk.v1.ProvingEngine/SubmitProof", "/cuzk.v1.ProvingEngine/AwaitProof",
	"/cuzk.v1.ProvingEngine/Prove", "/cuzk.v1.ProvingEngine/CancelProof",
	"/cuzk.v1.ProvingEngine/GetStatus", "/cuzk.v1.ProvingEngine/GetMetrics",
	"/cuzk.v1.ProvingEngine/PreloadSRS", "/cuzk.v1.ProvingEngine/EvictSRS",
	"/zkpipe.v1.Prover/RegisterKey", "/zkpipe.v1.Prover/Prove", "/zkpipe.v1.Prover/Submit",
	"/zkpipe.v1.Prover/Await", "/zkpipe.v1.Prover/Cancel", "/zkpipe.v1.Prover/ListJobs",
	"/zkpipe.v1.Prover/Status",
}

func checkMalformed(conn *grpc.ClientConn, cz cuzkpb.ProvingEngineClient) (string, error) {
	garbage := [][]byte{
		{0xff, 0xff, 0xff}, // a varint that never ends
		{0x0a, 0x10, 'x'},  // field 1, 16 bytes long, 1 byte present
		{0x0b},             // a start-group tag with no end
	}
	for _, m := range methods {
		for _, g := range garbage {
			if err := expectCode(rawCall(conn, m, g), codes.InvalidArgument); err != nil {
				return "", fmt.Errorf("%s with % x: %v", m, g, err)
			}
		}
	}
	for _, m := range []string{"/zkpipe.v1.Prover/NoSuchMethod", "/cuzk.v1.ProvingEngine/Nope",
		"/no.such.Service/Method"} {
		if err := expectCode(rawCall(conn, m, []byte{}), codes.Unimplemented); err != nil {
			return "", fmt.Errorf("%s: %v", m, err)
		}
	}
	ctx, cancel := ctxFor(30 * time.Second)
	defer cancel()
	_, err := cz.SubmitProof(ctx, &cuzkpb.SubmitProofRequest{ProofKind: cuzkpb.ProofKind_PROOF_KIND_UNSPECIFIED})
	if e := expectCode(err, codes.InvalidArgument); e != nil {
		return "", fmt.Errorf("SubmitProof with PROOF_KIND_UNSPECIFIED: %v", e)
	}
	if _, err := cz.GetStatus(ctx, &cuzkpb.GetStatusRequest{}); err != nil {
		return "", fmt.Errorf("GetStatus after the malformed calls: %v", err)
	}
	return fmt.Sprintf("%d methods x %d garbage bodies: INVALID_ARGUMENT; unknown: UNIMPLEMENTED; then GetStatus OK",
		len(methods), len(garbage)), nil
}

func checkLargeRequests(conn *grpc.ClientConn, cz cuzkpb.ProvingEngineClient) (string, error) {
	big := make([]byte, 50<<20)
	for i := range big {
		big[i] = byte(i * 7)
	}
	ctx, cancel := ctxFor(2 * time.Minute)
	defer cancel()
	t0 := time.Now()
	sr, err := cz.SubmitProof(ctx, &cuzkpb.SubmitProofRequest{RequestId: rid("big50"),
		ProofKind: cuzkpb.ProofKind_SNAP_DEALS_UPDATE, SectorSize: 32 << 30, VanillaProof: big})
	if err != nil {
		return "", fmt.Errorf("SubmitProof of 50 MiB: %v", err)
	}
	took50 := time.Since(t0)
	if err := checkJobID(sr.JobId); err != nil {
		return "", fmt.Errorf("SubmitProof of 50 MiB: %v", err)
	}
	// The job failed at once and nothing reads the request any more: its
	// 50 MiB are gone before anyone collects the result.
	if st, err := getStatus(zkpipepb.NewProverClient(conn)); err != nil {
		return "", err
	} else if st.Jobs.PayloadBytes == nil || *st.Jobs.PayloadBytes != 0 {
		return "", fmt.Errorf("status jobs.payload_bytes %v after the 50 MiB job failed, expected 0",
			st.Jobs.PayloadBytes)
	}
	ar, err := cz.AwaitProof(ctx, &cuzkpb.AwaitProofRequest{JobId: sr.JobId, TimeoutMs: 60000})
	if err != nil {
		return "", fmt.Errorf("AwaitProof: %v", err)
	}
	if ar.Status != cuzkpb.AwaitProofResponse_FAILED || ar.ErrorMessage == "" || ar.JobId != sr.JobId {
		return "", fmt.Errorf("AwaitProof: job %q status %v, message %q; expected FAILED with a message",
			ar.JobId, ar.Status, ar.ErrorMessage)
	}
	big = nil

	huge := make([]byte, 300<<20)
	t0 = time.Now()
	_, err = cz.SubmitProof(ctx, &cuzkpb.SubmitProofRequest{RequestId: rid("big300"),
		ProofKind: cuzkpb.ProofKind_POREP_SEAL_COMMIT, VanillaProof: huge})
	took300 := time.Since(t0)
	huge = nil
	if e := expectCode(err, codes.ResourceExhausted); e != nil {
		return "", fmt.Errorf("SubmitProof of 300 MiB: %v", e)
	}
	msg300 := status.Convert(err).Message()
	// The daemon lives on, on this connection and on a new one.
	if _, err := cz.GetStatus(ctx, &cuzkpb.GetStatusRequest{}); err != nil {
		return "", fmt.Errorf("GetStatus on the same connection after 300 MiB: %v", err)
	}
	c2, err := dial()
	if err != nil {
		return "", fmt.Errorf("a new connection after 300 MiB: %v", err)
	}
	defer c2.Close()
	if _, err := cuzkpb.NewProvingEngineClient(c2).GetStatus(ctx, &cuzkpb.GetStatusRequest{}); err != nil {
		return "", fmt.Errorf("GetStatus on a new connection after 300 MiB: %v", err)
	}
	return fmt.Sprintf("50 MiB submitted in %v, FAILED: %q; 300 MiB refused in %v: %q",
		took50.Round(time.Millisecond), ar.ErrorMessage, took300.Round(time.Millisecond), msg300), nil
}

// how: "cancel" (the call's context: RST_STREAM) or "close" (the
// connection, as when the client process dies).
// A wire job id: the daemon start's 16 hex digits, '-', a decimal number.
var jobIDPattern = regexp.MustCompile(`^[0-9a-f]{16}-[1-9][0-9]*$`)

func checkJobID(id string) error {
	if !jobIDPattern.MatchString(id) {
		return fmt.Errorf("job id %q is not <16 hex digits>-<number>", id)
	}
	return nil
}

// What a cuzk client relies on: an unknown id is NOT_FOUND, failures are
// counted in GetStatus.
func checkCuzkSemantics(cz cuzkpb.ProvingEngineClient) (string, error) {
	ctx, cancel := ctxFor(time.Minute)
	defer cancel()
	for _, id := range []string{"0000000000000000-1", "17", "no-such-job"} {
		_, err := cz.AwaitProof(ctx, &cuzkpb.AwaitProofRequest{JobId: id, TimeoutMs: 1000})
		if e := expectCode(err, codes.NotFound); e != nil {
			return "", fmt.Errorf("AwaitProof of unknown id %q: %v", id, e)
		}
	}
	before, err := cz.GetStatus(ctx, &cuzkpb.GetStatusRequest{})
	if err != nil {
		return "", fmt.Errorf("GetStatus: %v", err)
	}
	const n = 3
	for i := 0; i < n; i++ {
		sr, err := cz.SubmitProof(ctx, &cuzkpb.SubmitProofRequest{RequestId: rid(fmt.Sprintf("fail%d", i)),
			ProofKind: cuzkpb.ProofKind_WINNING_POST, VanillaProof: []byte{1, 2, 3}})
		if err != nil {
			return "", fmt.Errorf("SubmitProof: %v", err)
		}
		if err := checkJobID(sr.JobId); err != nil {
			return "", err
		}
		ar, err := cz.AwaitProof(ctx, &cuzkpb.AwaitProofRequest{JobId: sr.JobId, TimeoutMs: 10000})
		if err != nil || ar.Status != cuzkpb.AwaitProofResponse_FAILED {
			return "", fmt.Errorf("AwaitProof of a WINNING_POST job: %v %v", err, ar.GetStatus())
		}
		if ar.TotalMs < ar.SynthesisMs || ar.TotalMs < ar.GpuComputeMs {
			return "", fmt.Errorf("AwaitProof times: total %d ms, synthesis %d, gpu %d", ar.TotalMs,
				ar.SynthesisMs, ar.GpuComputeMs)
		}
	}
	after, err := cz.GetStatus(ctx, &cuzkpb.GetStatusRequest{})
	if err != nil {
		return "", fmt.Errorf("GetStatus: %v", err)
	}
	if after.TotalProofsFailed < before.TotalProofsFailed+n {
		return "", fmt.Errorf("total_proofs_failed %d -> %d after %d failed jobs", before.TotalProofsFailed,
			after.TotalProofsFailed, n)
	}
	return fmt.Sprintf("unknown ids NOT_FOUND; total_proofs_failed %d -> %d", before.TotalProofsFailed,
		after.TotalProofsFailed), nil
}

func checkDisconnect(zk zkpipepb.ProverClient, how string) (string, error) {
	conn, err := dial()
	if err != nil {
		return "", err
	}
	defer conn.Close()
	id := rid("disconnect-" + how)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	errc := make(chan error, 1)
	go func() {
		_, err := zkpipepb.NewProverClient(conn).Prove(ctx, &zkpipepb.ProveRequest{
			Submit: &zkpipepb.SubmitRequest{Key: "bn", Witnesses: copies(witness["bn"], manyParts), RequestId: id}})
		errc <- err
	}()
	if _, _, err := waitJobState(zk, id, zkpipepb.JobState_LIVE, time.Minute); err != nil {
		return "", err
	}
	time.Sleep(300 * time.Millisecond)
	busy, err := getStatus(zk)
	if err != nil {
		return "", err
	}
	tGone := time.Now()
	if how == "close" {
		conn.Close()
	} else {
		cancel()
	}
	// The client's own verdict on a call it dropped: CANCELLED, or
	// UNAVAILABLE ("transport is closing") when grpc-go closed the
	// connection under it.
	err = <-errc
	if c := status.Code(err); c != codes.Canceled && !(how == "close" && c == codes.Unavailable) {
		return "", fmt.Errorf("the abandoned Prove: %v", err)
	}
	j, _, err := waitJobState(zk, id, zkpipepb.JobState_CANCELLED, 10*time.Second)
	if err != nil {
		return "", err
	}
	tookCancel := time.Since(tGone)
	if j.Partitions != manyParts || j.Key != "bn" || j.Kind != "circom" {
		return "", fmt.Errorf("ListJobs: key %q kind %q partitions %d", j.Key, j.Kind, j.Partitions)
	}
	var st *statusDoc
	_, err = waitFor(10*time.Second, 20*time.Millisecond, func() (bool, error) {
		var err error
		st, err = getStatus(zk)
		return err == nil && *st.Memory.BudgetReserved == st.idleReserved() && *st.Jobs.EngineLive == 0, err
	})
	if err == errTimeout {
		err = fmt.Errorf("budget_reserved_bytes %d, the keys hold %d, engine_live %d, 10 s after the job was cancelled",
			*st.Memory.BudgetReserved, st.idleReserved(), *st.Jobs.EngineLive)
	}
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("%d bytes reserved while proving; CANCELLED %v and the budget back to %d (the keys) %v after the %s",
		*busy.Memory.BudgetReserved, tookCancel.Round(time.Millisecond), *st.Memory.BudgetReserved,
		time.Since(tGone).Round(time.Millisecond), how), nil
}

func cancelAndCollect(zk zkpipepb.ProverClient, jobID string) (*zkpipepb.AwaitResponse, error) {
	ctx, cancel := ctxFor(proveTimeout)
	defer cancel()
	if _, err := zk.Cancel(ctx, &zkpipepb.CancelRequest{JobId: jobID}); err != nil {
		return nil, fmt.Errorf("Cancel %s: %v", jobID, err)
	}
	r, err := zk.Await(ctx, &zkpipepb.AwaitRequest{JobId: jobID})
	if err != nil {
		return nil, fmt.Errorf("Await %s: %v", jobID, err)
	}
	return r, nil
}

func checkDuplicateSubmit(zk zkpipepb.ProverClient) (string, error) {
	ctx, cancel := ctxFor(2 * time.Minute)
	defer cancel()
	id := rid("dup-submit")
	req := &zkpipepb.SubmitRequest{Key: "bn", Witnesses: copies(witness["bn"], manyParts), RequestId: id}
	a, err := zk.Submit(ctx, req)
	if err != nil {
		return "", fmt.Errorf("first Submit: %v", err)
	}
	b, err := zk.Submit(ctx, req)
	if err != nil {
		return "", fmt.Errorf("second Submit: %v", err)
	}
	js, err := findJob(zk, id)
	if err != nil {
		return "", err
	}
	if a.JobId != b.JobId {
		return "", fmt.Errorf("the retry got job %s, the first %s", b.JobId, a.JobId)
	}
	if len(js) != 1 || js[0].State != zkpipepb.JobState_LIVE {
		return "", fmt.Errorf("ListJobs shows %d jobs for the request id (want 1, LIVE)", len(js))
	}
	// The same id for another key is someone else's request.
	_, err = zk.Submit(ctx, &zkpipepb.SubmitRequest{Key: "bls", Witnesses: [][]byte{witness["bls"]}, RequestId: id})
	if e := expectCode(err, codes.AlreadyExists); e != nil {
		return "", fmt.Errorf("the id with another key: %v", e)
	}
	r, err := cancelAndCollect(zk, a.JobId)
	if err != nil {
		return "", err
	}
	if r.State != zkpipepb.JobState_CANCELLED {
		return "", fmt.Errorf("Await after Cancel: %v", r.State)
	}
	// Collected, the id is free for a new job.
	c, err := zk.Submit(ctx, &zkpipepb.SubmitRequest{Key: "bn", Witnesses: [][]byte{witness["bn"]}, RequestId: id})
	if err != nil {
		return "", fmt.Errorf("Submit after collection: %v", err)
	}
	if c.JobId == a.JobId {
		return "", fmt.Errorf("Submit after collection attached to the collected job %s", a.JobId)
	}
	rc, err := zk.Await(ctx, &zkpipepb.AwaitRequest{JobId: c.JobId})
	if err != nil || rc.State != zkpipepb.JobState_COMPLETED {
		return "", fmt.Errorf("Await %s: %v %v", c.JobId, err, rc.GetState())
	}
	return fmt.Sprintf("job %s twice; another key ALREADY_EXISTS; after collection a new job %s",
		a.JobId, c.JobId), nil
}

func proveAsync(ctx context.Context, id string, parts int) (chan *zkpipepb.ProveResponse, chan error, func(), error) {
	conn, err := dial()
	if err != nil {
		return nil, nil, nil, err
	}
	rc := make(chan *zkpipepb.ProveResponse, 1)
	ec := make(chan error, 1)
	go func() {
		r, err := zkpipepb.NewProverClient(conn).Prove(ctx, &zkpipepb.ProveRequest{
			Submit: &zkpipepb.SubmitRequest{Key: "bn", Witnesses: copies(witness["bn"], parts), RequestId: id}})
		rc <- r
		ec <- err
	}()
	return rc, ec, func() { conn.Close() }, nil
}

func checkDuplicateProve(zk zkpipepb.ProverClient) (string, error) {
	parts := partsFor(800 * time.Millisecond)
	id := rid("dup-prove")
	ctx, cancel := ctxFor(proveTimeout)
	defer cancel()
	r1, e1, close1, err := proveAsync(ctx, id, parts)
	if err != nil {
		return "", err
	}
	defer close1()
	// The second call goes once the first one's job is in the table, so it
	// cannot find the id free.
	if _, _, err := waitJobState(zk, id, zkpipepb.JobState_LIVE, time.Minute); err != nil {
		return "", err
	}
	r2, e2, close2, err := proveAsync(ctx, id, parts)
	if err != nil {
		return "", err
	}
	defer close2()
	a, b := <-r1, <-r2
	if err := <-e1; err != nil {
		return "", fmt.Errorf("first Prove: %v", err)
	}
	if err := <-e2; err != nil {
		return "", fmt.Errorf("second Prove: %v", err)
	}
	for i, r := range []*zkpipepb.ProveResponse{a, b} {
		if r.Result.State != zkpipepb.JobState_COMPLETED || len(r.Result.Proofs) != parts {
			return "", fmt.Errorf("Prove %d: %v with %d proofs (%s)", i+1, r.Result.State,
				len(r.Result.Proofs), r.Result.ErrorMessage)
		}
	}
	if a.Result.JobId != b.Result.JobId {
		return "", fmt.Errorf("two jobs: %s and %s", a.Result.JobId, b.Result.JobId)
	}
	// Groth16 proofs are randomised: equal proofs come from one run.
	for i := range a.Result.Proofs {
		if a.Result.Proofs[i].ProofJson != b.Result.Proofs[i].ProofJson {
			return "", fmt.Errorf("partition %d: the two calls got different proofs", i)
		}
	}
	if a.Result.Proofs[0].ProofJson == a.Result.Proofs[1].ProofJson {
		return "", errors.New("two partitions share one proof: proofs are not randomised")
	}
	return fmt.Sprintf("both COMPLETED as job %s, %d identical proofs", a.Result.JobId, parts), nil
}

func checkProveOwnership(zk zkpipepb.ProverClient) (string, error) {
	// Outlasts the 300 ms below with room to spare.
	parts := partsFor(1500 * time.Millisecond)
	id := rid("shared-prove")
	ctx1, cancel1 := context.WithCancel(context.Background())
	defer cancel1()
	ctx2, cancel2 := ctxFor(proveTimeout)
	defer cancel2()
	_, e1, close1, err := proveAsync(ctx1, id, parts)
	if err != nil {
		return "", err
	}
	defer close1()
	if _, _, err := waitJobState(zk, id, zkpipepb.JobState_LIVE, time.Minute); err != nil {
		return "", err
	}
	r2, e2, close2, err := proveAsync(ctx2, id, parts)
	if err != nil {
		return "", err
	}
	defer close2()
	// Time for the second call to attach before the first goes; nothing on
	// the wire tells a client it has.
	time.Sleep(300 * time.Millisecond)
	if js, err := findJob(zk, id); err != nil || len(js) != 1 || js[0].State != zkpipepb.JobState_LIVE {
		return "", fmt.Errorf("the job ended before the first caller left (%v); the check needs a longer job", err)
	}
	cancel1()
	if err := expectCode(<-e1, codes.Canceled); err != nil {
		return "", fmt.Errorf("the first caller: %v", err)
	}
	b := <-r2
	if err := <-e2; err != nil {
		return "", fmt.Errorf("the second caller: %v", err)
	}
	if b.Result.State != zkpipepb.JobState_COMPLETED || len(b.Result.Proofs) != parts {
		return "", fmt.Errorf("the second caller got %v with %d proofs (%s); the job must live while a caller waits",
			b.Result.State, len(b.Result.Proofs), b.Result.ErrorMessage)
	}
	return fmt.Sprintf("first caller left, second got job %s COMPLETED", b.Result.JobId), nil
}

func percentile(ds []time.Duration, p float64) time.Duration {
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	i := int(math.Ceil(p*float64(len(s)))) - 1
	if i < 0 {
		i = 0
	}
	return s[i]
}

func checkStatusLatency(zk zkpipepb.ProverClient, cz cuzkpb.ProvingEngineClient) (string, error) {
	ctx, cancel := ctxFor(proveTimeout)
	defer cancel()
	var jobs []string
	defer func() {
		for _, j := range jobs {
			cancelAndCollect(zk, j)
		}
	}()
	for i := 0; i < 3; i++ {
		c := curves[i%len(curves)]
		r, err := zk.Submit(ctx, &zkpipepb.SubmitRequest{Key: c.key, Witnesses: copies(witness[c.key], manyParts)})
		if err != nil {
			return "", fmt.Errorf("Submit: %v", err)
		}
		jobs = append(jobs, r.JobId)
	}
	circom := func(r *cuzkpb.GetStatusResponse) (uint32, uint32, error) {
		kinds := map[string]bool{}
		var p, q uint32
		for _, qs := range r.Queues {
			kinds[qs.ProofKind] = true
			if qs.ProofKind == "circom" {
				p, q = qs.Pending, qs.InProgress
			}
		}
		for _, k := range []string{"circom", "porep_seal_commit", "snap_deals_update",
			"window_post_partition", "winning_post"} {
			if !kinds[k] {
				return 0, 0, fmt.Errorf("GetStatus lists no queue %q", k)
			}
		}
		return p, q, nil
	}
	// Every worker busy first.
	var first *cuzkpb.GetStatusResponse
	if _, err := waitFor(time.Minute, 10*time.Millisecond, func() (bool, error) {
		var err error
		first, err = cz.GetStatus(ctx, &cuzkpb.GetStatusRequest{})
		if err != nil {
			return false, err
		}
		_, q, err := circom(first)
		return q > 0, err
	}); err != nil {
		return "", fmt.Errorf("no partition in progress with 3 jobs submitted: %v", err)
	}
	var lat []time.Duration
	loaded := 0
	for i := 0; i < 50; i++ {
		t0 := time.Now()
		r, err := cz.GetStatus(ctx, &cuzkpb.GetStatusRequest{})
		lat = append(lat, time.Since(t0))
		if err != nil {
			return "", fmt.Errorf("GetStatus %d: %v", i, err)
		}
		p, q, err := circom(r)
		if err != nil {
			return "", err
		}
		if p+q > 0 {
			loaded++
		}
		time.Sleep(10 * time.Millisecond)
	}
	st, err := getStatus(zk)
	if err != nil {
		return "", err
	}
	if *st.Jobs.EngineLive == 0 {
		return "", errors.New("the load ended before the 50 calls did; the check needs longer jobs")
	}
	p50, pmax := percentile(lat, 0.5), percentile(lat, 1)
	bound := time.Duration(*flagStatusMs * float64(time.Millisecond))
	p, q, _ := circom(first)
	detail := fmt.Sprintf("p50 %v, max %v (bound %v); circom pending %d, in progress %d; %d/50 calls saw work queued",
		p50.Round(10*time.Microsecond), pmax.Round(10*time.Microsecond), bound, p, q, loaded)
	if pmax >= bound {
		return "", fmt.Errorf("GetStatus too slow under load: %s", detail)
	}
	if loaded < 50 {
		return "", fmt.Errorf("circom pending+in_progress was 0 under load: %s", detail)
	}
	return detail, nil
}

func checkMetrics(cz cuzkpb.ProvingEngineClient, zk zkpipepb.ProverClient) (string, error) {
	ctx, cancel := ctxFor(30 * time.Second)
	defer cancel()
	r, err := cz.GetMetrics(ctx, &cuzkpb.GetMetricsRequest{})
	if err != nil {
		return "", fmt.Errorf("GetMetrics: %v", err)
	}
	fams, err := parseProm(r.PrometheusText)
	if err != nil {
		return "", fmt.Errorf("GetMetrics text: %v", err)
	}
	// What the checks before did shows in the counters.
	want := []struct {
		family string
		labels map[string]string
		min    float64
	}{
		{"zkpipe_jobs_total", map[string]string{"key": "bn", "kind": "circom", "outcome": "completed"}, 6},
		{"zkpipe_jobs_total", map[string]string{"key": "bls", "kind": "circom", "outcome": "completed"}, 6},
		{"zkpipe_jobs_total", map[string]string{"kind": "circom", "outcome": "cancelled"}, 1},
		{"zkpipe_jobs_total", map[string]string{"kind": "snap_deals_update", "outcome": "failed"}, 1},
		{"zkpipe_rpc_total", map[string]string{"method": "/cuzk.v1.ProvingEngine/SubmitProof", "code": "3"}, 1},
		{"zkpipe_rpc_total", map[string]string{"method": "/zkpipe.v1.Prover/Prove", "code": "0"}, 12},
		{"zkpipe_stage_seconds_count", map[string]string{"stage": "total"}, 12},
		{"zkpipe_budget_bytes", nil, 1},
	}
	for _, w := range want {
		v, err := sumSamples(fams, w.family, w.labels)
		if err != nil {
			return "", err
		}
		if v < w.min {
			return "", fmt.Errorf("%s%v = %v, expected at least %v", w.family, w.labels, v, w.min)
		}
	}
	st, err := zk.Status(ctx, &zkpipepb.StatusRequest{})
	if err != nil {
		return "", fmt.Errorf("Status: %v", err)
	}
	if _, err := parseStatus(st.StatusJson); err != nil {
		return "", err
	}
	return fmt.Sprintf("%d families, %d bytes; Status JSON valid", len(fams), len(r.PrometheusText)), nil
}

func checkHTTP() (string, error) {
	client := &http.Client{Timeout: 30 * time.Second}
	get := func(method, path string) (*http.Response, []byte, error) {
		req, err := http.NewRequest(method, "http://"+*flagHTTP+path, nil)
		if err != nil {
			return nil, nil, err
		}
		resp, err := client.Do(req)
		if err != nil {
			return nil, nil, err
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		return resp, b, err
	}
	resp, body, err := get("GET", "/metrics")
	if err != nil {
		return "", fmt.Errorf("GET /metrics: %v", err)
	}
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/plain") ||
		!strings.Contains(resp.Header.Get("Content-Type"), "version=0.0.4") {
		return "", fmt.Errorf("GET /metrics: %s, Content-Type %q", resp.Status, resp.Header.Get("Content-Type"))
	}
	fams, err := parseProm(string(body))
	if err != nil {
		return "", fmt.Errorf("GET /metrics: %v", err)
	}
	resp, body, err = get("GET", "/status")
	if err != nil {
		return "", fmt.Errorf("GET /status: %v", err)
	}
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") {
		return "", fmt.Errorf("GET /status: %s, Content-Type %q", resp.Status, resp.Header.Get("Content-Type"))
	}
	if _, err := parseStatus(string(body)); err != nil {
		return "", fmt.Errorf("GET /status: %v", err)
	}
	if resp, _, err = get("GET", "/nope"); err != nil || resp.StatusCode != 404 {
		return "", fmt.Errorf("GET /nope: %v %v, expected 404", err, resp)
	}
	if resp, _, err = get("POST", "/metrics"); err != nil || resp.StatusCode != 405 {
		return "", fmt.Errorf("POST /metrics: %v %v, expected 405", err, resp)
	}
	return fmt.Sprintf("/metrics: %d families; /status JSON; 404 and 405 where due", len(fams)), nil
}

func checkIdle(zk zkpipepb.ProverClient) (string, error) {
	var st *statusDoc
	_, err := waitFor(30*time.Second, 20*time.Millisecond, func() (bool, error) {
		var err error
		st, err = getStatus(zk)
		return err == nil && *st.Jobs.Live == 0 && *st.Jobs.EngineLive == 0 &&
			*st.Memory.BudgetReserved == st.idleReserved(), err
	})
	if err == errTimeout {
		err = fmt.Errorf("live %d, engine_live %d, reserved %d (keys %d)", *st.Jobs.Live,
			*st.Jobs.EngineLive, *st.Memory.BudgetReserved, st.idleReserved())
	}
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("no live job, %d bytes reserved (the keys)", *st.Memory.BudgetReserved), nil
}

// ---------------------------------------------------------------------------
// Drain

// A connection whose writes trickle out: 64 KiB, then a pause.
type slowConn struct {
	net.Conn
	sent  int64
	ready func()
}

func (c *slowConn) Write(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		k := len(p) - n
		if k > 64<<10 {
			k = 64 << 10
		}
		w, err := c.Conn.Write(p[n : n+k])
		n += w
		c.sent += int64(w)
		if err != nil {
			return n, err
		}
		if c.sent > 1<<20 && c.ready != nil {
			c.ready()
			c.ready = nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	return n, nil
}

// One SubmitProof of 50 MB that takes minutes to upload: a call the
// daemon has accepted and is still receiving when it is told to stop.
// Creates -ready once a megabyte is out; ends when the daemon goes.
func runStall() {
	ready := func() {
		if *flagReady != "" {
			_ = ioutil.WriteFile(*flagReady, nil, 0o644)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	conn, err := grpc.DialContext(ctx, "passthrough:///zkpipe", grpc.WithInsecure(), grpc.WithBlock(),
		grpc.WithContextDialer(func(ctx context.Context, _ string) (net.Conn, error) {
			var d net.Dialer
			c, err := d.DialContext(ctx, "unix", *flagSock)
			if err != nil {
				return nil, err
			}
			return &slowConn{Conn: c, ready: ready}, nil
		}),
		grpc.WithDefaultCallOptions(grpc.MaxCallSendMsgSize(1<<30)))
	if err != nil {
		report("stall: connect", err, "")
		return
	}
	defer conn.Close()
	_, err = cuzkpb.NewProvingEngineClient(conn).SubmitProof(ctx, &cuzkpb.SubmitProofRequest{
		RequestId: rid("stall"), ProofKind: cuzkpb.ProofKind_SNAP_DEALS_UPDATE,
		VanillaProof: make([]byte, 50<<20)})
	fmt.Printf("stalled upload ended: %v\n", status.Code(err))
}

func runDrain() {
	conn, err := dial()
	if err != nil {
		report("connect", err, "")
		return
	}
	defer conn.Close()
	zk := zkpipepb.NewProverClient(conn)
	if _, err := checkRegisterKeys(zk); err != nil {
		report("register keys", err, "")
		return
	}
	// Long enough (about 50 ms a partition in a release build on two
	// cores) that the daemon is still draining when the refused Submit
	// goes out.
	const parts = 12
	n := *flagN
	type out struct {
		r   *zkpipepb.ProveResponse
		err error
	}
	outs := make([]chan out, n)
	for i := 0; i < n; i++ {
		outs[i] = make(chan out, 1)
		c, err := dial()
		if err != nil {
			report("connect", err, "")
			return
		}
		defer c.Close()
		go func(i int, c *grpc.ClientConn) {
			ctx, cancel := ctxFor(proveTimeout)
			defer cancel()
			r, err := zkpipepb.NewProverClient(c).Prove(ctx, &zkpipepb.ProveRequest{
				Submit: &zkpipepb.SubmitRequest{Key: "bn", Witnesses: copies(witness["bn"], parts),
					RequestId: rid(fmt.Sprintf("drain%d", i))}})
			outs[i] <- out{r, err}
		}(i, c)
	}
	for i := 0; i < n; i++ {
		if _, _, err := waitJobState(zk, rid(fmt.Sprintf("drain%d", i)), zkpipepb.JobState_LIVE, time.Minute); err != nil {
			report("drain calls in flight", err, "")
			return
		}
	}
	if err := ioutil.WriteFile(*flagReady, []byte("ready\n"), 0o644); err != nil {
		report("ready file", err, "")
		return
	}
	// The script sends SIGTERM now.
	var st *statusDoc
	took, err := waitFor(time.Minute, 5*time.Millisecond, func() (bool, error) {
		var err error
		st, err = getStatus(zk)
		return err == nil && st.Draining, err
	})
	if err != nil {
		report("daemon draining after SIGTERM", err, "")
	} else {
		report("daemon draining after SIGTERM", nil, fmt.Sprintf("seen %v after ready, %d jobs live",
			took.Round(time.Millisecond), *st.Jobs.Live))
		ctx, cancel := ctxFor(30 * time.Second)
		_, err := zk.Submit(ctx, &zkpipepb.SubmitRequest{Key: "bn", Witnesses: [][]byte{witness["bn"]}})
		e1 := expectCode(err, codes.Unavailable)
		msg := status.Convert(err).Message()
		_, err = cuzkpb.NewProvingEngineClient(conn).SubmitProof(ctx, &cuzkpb.SubmitProofRequest{
			ProofKind: cuzkpb.ProofKind_WINNING_POST})
		e2 := expectCode(err, codes.Unavailable)
		// The refusals came from the daemon if it still answers after them.
		st2, e3 := getStatus(zk)
		cancel()
		switch {
		case e1 != nil:
			report("Submit during the drain is UNAVAILABLE", fmt.Errorf("zkpipe Submit: %v", e1), "")
		case e2 != nil:
			report("Submit during the drain is UNAVAILABLE", fmt.Errorf("cuzk SubmitProof: %v", e2), "")
		case e3 != nil:
			report("Submit during the drain is UNAVAILABLE", fmt.Errorf("Status after: %v", e3), "")
		case *st2.Jobs.Live == 0:
			report("Submit during the drain is UNAVAILABLE",
				errors.New("the jobs ended before the refused Submit; the check needs longer jobs"), "")
		default:
			report("Submit during the drain is UNAVAILABLE", nil, fmt.Sprintf("%q", msg))
		}
	}
	completed := 0
	var errs []string
	for i := 0; i < n; i++ {
		o := <-outs[i]
		switch {
		case o.err != nil:
			errs = append(errs, fmt.Sprintf("call %d: %v", i, o.err))
		case o.r.Result.State != zkpipepb.JobState_COMPLETED || len(o.r.Result.Proofs) != parts:
			errs = append(errs, fmt.Sprintf("call %d: %v with %d proofs (%s)", i, o.r.Result.State,
				len(o.r.Result.Proofs), o.r.Result.ErrorMessage))
		default:
			completed++
		}
	}
	var derr error
	if len(errs) > 0 {
		derr = errors.New(strings.Join(errs, "; "))
	}
	report(fmt.Sprintf("all %d Prove calls in flight at SIGTERM COMPLETED", n), derr,
		fmt.Sprintf("%d x %d partitions", completed, parts))
}

// ---------------------------------------------------------------------------
// Prometheus text format 0.0.4, strictly

type promSample struct {
	name   string
	labels map[string]string
	value  float64
}

type promFamily struct {
	name, typ string
	help      bool
	samples   []promSample
}

var (
	reMetricName = regexp.MustCompile(`^[a-zA-Z_:][a-zA-Z0-9_:]*$`)
	reLabelName  = regexp.MustCompile(`^[a-zA-Z_][a-zA-Z0-9_]*$`)
	reFloat      = regexp.MustCompile(`^[-+]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?$`)
	reTimestamp  = regexp.MustCompile(`^-?[0-9]+$`)
)

func parseValue(s string) (float64, error) {
	switch s {
	case "+Inf":
		return math.Inf(1), nil
	case "-Inf":
		return math.Inf(-1), nil
	case "NaN":
		return math.NaN(), nil
	}
	if !reFloat.MatchString(s) {
		return 0, fmt.Errorf("value %q is not a float", s)
	}
	return strconv.ParseFloat(s, 64)
}

// name{a="x",b="y"} value [timestamp]
func parseSampleLine(line string) (promSample, error) {
	s := promSample{labels: map[string]string{}}
	i := strings.IndexAny(line, "{ ")
	if i <= 0 {
		return s, fmt.Errorf("no value")
	}
	s.name = line[:i]
	if !reMetricName.MatchString(s.name) {
		return s, fmt.Errorf("metric name %q", s.name)
	}
	rest := line[i:]
	if rest[0] == '{' {
		rest = rest[1:]
		for {
			if strings.HasPrefix(rest, "}") {
				rest = rest[1:]
				break
			}
			eq := strings.IndexByte(rest, '=')
			if eq <= 0 {
				return s, fmt.Errorf("label without '='")
			}
			ln := rest[:eq]
			if !reLabelName.MatchString(ln) || strings.HasPrefix(ln, "__") {
				return s, fmt.Errorf("label name %q", ln)
			}
			if _, dup := s.labels[ln]; dup {
				return s, fmt.Errorf("label %q twice", ln)
			}
			rest = rest[eq+1:]
			if !strings.HasPrefix(rest, `"`) {
				return s, fmt.Errorf("label %s: value not quoted", ln)
			}
			rest = rest[1:]
			var v strings.Builder
			closed := false
			for j := 0; j < len(rest); j++ {
				c := rest[j]
				if c == '\\' {
					if j+1 >= len(rest) {
						return s, fmt.Errorf("label %s: dangling backslash", ln)
					}
					switch rest[j+1] {
					case '\\':
						v.WriteByte('\\')
					case '"':
						v.WriteByte('"')
					case 'n':
						v.WriteByte('\n')
					default:
						return s, fmt.Errorf("label %s: escape \\%c", ln, rest[j+1])
					}
					j++
					continue
				}
				if c == '"' {
					rest = rest[j+1:]
					closed = true
					break
				}
				v.WriteByte(c)
			}
			if !closed {
				return s, fmt.Errorf("label %s: unterminated value", ln)
			}
			s.labels[ln] = v.String()
			if strings.HasPrefix(rest, ",") {
				rest = rest[1:]
			} else if !strings.HasPrefix(rest, "}") {
				return s, fmt.Errorf("after label %s: %q", ln, rest)
			}
		}
	}
	if !strings.HasPrefix(rest, " ") {
		return s, fmt.Errorf("no space before the value")
	}
	fields := strings.Split(rest[1:], " ")
	if len(fields) < 1 || len(fields) > 2 || fields[0] == "" {
		return s, fmt.Errorf("want one value and at most a timestamp after the name, got %q", rest)
	}
	v, err := parseValue(fields[0])
	if err != nil {
		return s, err
	}
	s.value = v
	if len(fields) == 2 && !reTimestamp.MatchString(fields[1]) {
		return s, fmt.Errorf("timestamp %q", fields[1])
	}
	return s, nil
}

func labelKey(name string, labels map[string]string, skip string) string {
	keys := make([]string, 0, len(labels))
	for k := range labels {
		if k != skip {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	var b strings.Builder
	b.WriteString(name)
	for _, k := range keys {
		fmt.Fprintf(&b, "\x00%s=%s", k, labels[k])
	}
	return b.String()
}

func parseProm(text string) (map[string]*promFamily, error) {
	if text == "" || !strings.HasSuffix(text, "\n") {
		return nil, errors.New("empty, or the last line has no newline")
	}
	fams := map[string]*promFamily{}
	var cur *promFamily
	done := map[string]bool{} // families closed by another one starting
	series := map[string]bool{}
	enter := func(f *promFamily, ln int) error {
		if cur == f {
			return nil
		}
		if done[f.name] {
			return fmt.Errorf("line %d: family %s resumes after another family", ln, f.name)
		}
		if cur != nil {
			done[cur.name] = true
		}
		cur = f
		return nil
	}
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	for n, line := range lines {
		ln := n + 1
		if strings.ContainsAny(line, "\r\t") {
			return nil, fmt.Errorf("line %d: carriage return or tab", ln)
		}
		if line == "" {
			continue
		}
		if strings.HasPrefix(line, "#") {
			tok := strings.SplitN(line, " ", 4)
			if len(tok) < 2 || tok[0] != "#" || (tok[1] != "HELP" && tok[1] != "TYPE") {
				continue // a plain comment
			}
			if len(tok) < 3 || !reMetricName.MatchString(tok[2]) {
				return nil, fmt.Errorf("line %d: %s without a valid metric name", ln, tok[1])
			}
			name := tok[2]
			f := fams[name]
			if f == nil {
				f = &promFamily{name: name}
				fams[name] = f
			}
			if err := enter(f, ln); err != nil {
				return nil, err
			}
			if len(f.samples) > 0 {
				return nil, fmt.Errorf("line %d: %s %s after its samples", ln, tok[1], name)
			}
			if tok[1] == "HELP" {
				if f.help {
					return nil, fmt.Errorf("line %d: second HELP for %s", ln, name)
				}
				if len(tok) < 4 || tok[3] == "" {
					return nil, fmt.Errorf("line %d: HELP %s has no text", ln, name)
				}
				for j := 0; j < len(tok[3]); j++ {
					if tok[3][j] == '\\' {
						if j+1 >= len(tok[3]) || (tok[3][j+1] != '\\' && tok[3][j+1] != 'n') {
							return nil, fmt.Errorf("line %d: HELP %s: bad escape", ln, name)
						}
						j++
					}
				}
				f.help = true
			} else {
				if f.typ != "" {
					return nil, fmt.Errorf("line %d: second TYPE for %s", ln, name)
				}
				if len(tok) != 4 {
					return nil, fmt.Errorf("line %d: TYPE %s: want one type", ln, name)
				}
				switch tok[3] {
				case "counter", "gauge", "histogram", "summary", "untyped":
					f.typ = tok[3]
				default:
					return nil, fmt.Errorf("line %d: TYPE %s: unknown type %q", ln, name, tok[3])
				}
			}
			continue
		}
		s, err := parseSampleLine(line)
		if err != nil {
			return nil, fmt.Errorf("line %d: %v: %q", ln, err, line)
		}
		f := fams[s.name]
		if f == nil || f.typ == "histogram" || f.typ == "summary" {
			f = nil
			for _, suf := range []string{"_bucket", "_sum", "_count"} {
				base := strings.TrimSuffix(s.name, suf)
				if base != s.name && fams[base] != nil &&
					(fams[base].typ == "histogram" || (fams[base].typ == "summary" && suf != "_bucket")) {
					f = fams[base]
				}
			}
			if f == nil && fams[s.name] != nil && fams[s.name].typ == "summary" {
				f = fams[s.name] // a quantile
			}
		}
		if f == nil {
			return nil, fmt.Errorf("line %d: sample %s has no HELP/TYPE before it", ln, s.name)
		}
		if f.typ == "" || !f.help {
			return nil, fmt.Errorf("line %d: family %s lacks its TYPE or HELP", ln, f.name)
		}
		if err := enter(f, ln); err != nil {
			return nil, err
		}
		key := labelKey(s.name, s.labels, "")
		if series[key] {
			return nil, fmt.Errorf("line %d: series repeated: %q", ln, line)
		}
		series[key] = true
		if f.typ == "counter" && !(s.value >= 0) {
			return nil, fmt.Errorf("line %d: counter %s is %v", ln, s.name, s.value)
		}
		f.samples = append(f.samples, s)
	}
	for _, f := range fams {
		if f.typ == "" || !f.help {
			return nil, fmt.Errorf("family %s lacks its TYPE or HELP", f.name)
		}
		if f.typ == "histogram" {
			if err := checkHistogram(f); err != nil {
				return nil, err
			}
		}
	}
	return fams, nil
}

// Buckets ascend in le and count, end at +Inf, and _count equals it.
func checkHistogram(f *promFamily) error {
	type hist struct {
		les, counts    []float64
		sum, count     float64
		hasSum, hasCnt bool
	}
	hs := map[string]*hist{}
	var order []string
	for _, s := range f.samples {
		k := labelKey("", s.labels, "le")
		h := hs[k]
		if h == nil {
			h = &hist{}
			hs[k] = h
			order = append(order, k)
		}
		switch s.name {
		case f.name + "_bucket":
			le, ok := s.labels["le"]
			if !ok {
				return fmt.Errorf("%s: a bucket without le", f.name)
			}
			v, err := parseValue(le)
			if err != nil {
				return fmt.Errorf("%s: le %q", f.name, le)
			}
			if s.value != math.Trunc(s.value) || s.value < 0 {
				return fmt.Errorf("%s: bucket count %v", f.name, s.value)
			}
			h.les = append(h.les, v)
			h.counts = append(h.counts, s.value)
		case f.name + "_sum":
			h.sum, h.hasSum = s.value, true
		case f.name + "_count":
			h.count, h.hasCnt = s.value, true
		default:
			return fmt.Errorf("%s: sample %s in a histogram", f.name, s.name)
		}
		if _, ok := s.labels["le"]; ok && s.name != f.name+"_bucket" {
			return fmt.Errorf("%s: le on %s", f.name, s.name)
		}
	}
	for _, k := range order {
		h := hs[k]
		if len(h.les) == 0 || !h.hasSum || !h.hasCnt {
			return fmt.Errorf("%s%q: buckets, _sum or _count missing", f.name, k)
		}
		for i := 1; i < len(h.les); i++ {
			if !(h.les[i] > h.les[i-1]) || h.counts[i] < h.counts[i-1] {
				return fmt.Errorf("%s%q: buckets not ascending at le=%v", f.name, k, h.les[i])
			}
		}
		if !math.IsInf(h.les[len(h.les)-1], 1) || h.counts[len(h.counts)-1] != h.count {
			return fmt.Errorf("%s%q: the last bucket is not +Inf or differs from _count", f.name, k)
		}
	}
	return nil
}

// The sum of a family's samples named name whose labels include want.
func sumSamples(fams map[string]*promFamily, name string, want map[string]string) (float64, error) {
	found := false
	var v float64
	for _, f := range fams {
		for _, s := range f.samples {
			if s.name != name {
				continue
			}
			match := true
			for k, x := range want {
				if s.labels[k] != x {
					match = false
				}
			}
			if match {
				found = true
				v += s.value
			}
		}
	}
	if !found {
		return 0, fmt.Errorf("no sample %s%v", name, want)
	}
	return v, nil
}

// ---------------------------------------------------------------------------
// Large requests beside small calls

// GetStatus on a connection of its own, every 5 ms, while -uploads
// SubmitProof calls of -upload-mb MB each upload on connections of their
// own (a Filecoin kind: accepted, then failed at once, so the load is the
// upload itself), -rounds times in a row. The bound applies to the 99th
// percentile; rounds give a scaled-down load enough calls (100 and more)
// that the 99th percentile is not simply the slowest one.
func runUploads() {
	statusConn, err := dial()
	if err != nil {
		report("uploads: connect", err, "")
		return
	}
	defer statusConn.Close()
	cz := cuzkpb.NewProvingEngineClient(statusConn)
	ctx, cancel := ctxFor(5 * time.Minute)
	defer cancel()
	for i := 0; i < 5; i++ { // warm: the connection and the daemon's first answers
		if _, err := cz.GetStatus(ctx, &cuzkpb.GetStatusRequest{}); err != nil {
			report("uploads: GetStatus before the load", err, "")
			return
		}
	}
	n, size := *flagUploads, *flagUploadMB<<20
	payload := make([]byte, size)
	for i := range payload {
		payload[i] = byte(i * 13)
	}
	conns := make([]*grpc.ClientConn, n)
	for i := range conns {
		if conns[i], err = dial(); err != nil {
			report("uploads: connect", err, "")
			return
		}
		defer conns[i].Close()
	}
	var mu sync.Mutex
	codesSeen := map[codes.Code]int{}
	t0 := time.Now()
	finished := make(chan struct{})
	go func() {
		for r := 0; r < *flagRounds; r++ {
			var wg sync.WaitGroup
			for i := 0; i < n; i++ {
				wg.Add(1)
				go func(i int) {
					defer wg.Done()
					_, err := cuzkpb.NewProvingEngineClient(conns[i]).SubmitProof(ctx,
						&cuzkpb.SubmitProofRequest{RequestId: rid(fmt.Sprintf("upload%d-%d", r, i)),
							ProofKind: cuzkpb.ProofKind_SNAP_DEALS_UPDATE, VanillaProof: payload})
					mu.Lock()
					codesSeen[status.Code(err)]++
					mu.Unlock()
				}(i)
			}
			wg.Wait()
		}
		close(finished)
	}()
	var lat []time.Duration
	for loop := true; loop; {
		select {
		case <-finished:
			loop = false
		default:
			t := time.Now()
			_, err := cz.GetStatus(ctx, &cuzkpb.GetStatusRequest{})
			lat = append(lat, time.Since(t))
			if err != nil {
				report("uploads: GetStatus under load", err, "")
				return
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	took := time.Since(t0)
	name := fmt.Sprintf("GetStatus while %d requests of %d MB upload (%d rounds)", n, *flagUploadMB, *flagRounds)
	if len(lat) < 10 {
		report(name, fmt.Errorf("only %d GetStatus calls in %v: the load ended too soon to measure", len(lat), took), "")
		return
	}
	p50, p99, pmax := percentile(lat, 0.5), percentile(lat, 0.99), percentile(lat, 1)
	bound := time.Duration(*flagStatusMs * float64(time.Millisecond))
	detail := fmt.Sprintf("%d calls in %v: p50 %v, p99 %v, max %v (p99 bound %v); upload statuses %v",
		len(lat), took.Round(time.Millisecond), p50.Round(10*time.Microsecond), p99.Round(10*time.Microsecond),
		pmax.Round(10*time.Microsecond), bound, codesSeen)
	var e error
	if codesSeen[codes.OK] != n*(*flagRounds) {
		e = fmt.Errorf("not every upload was accepted: %s", detail)
	} else if p99 >= bound {
		e = fmt.Errorf("GetStatus too slow: %s", detail)
	}
	report(name, e, detail)
}

// ---------------------------------------------------------------------------
// Memory after one very large request

func readRSS(pid int) (uint64, error) {
	b, err := ioutil.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "VmRSS:") {
			f := strings.Fields(line)
			if len(f) < 2 {
				break
			}
			kb, err := strconv.ParseUint(f[1], 10, 64)
			return kb << 10, err
		}
	}
	return 0, errors.New("no VmRSS line")
}

// A Submit of -witnesses witnesses (2000: about 62 MB with the bn
// fixture's 31 KB witness), cancelled at once: once the job has ended, the daemon's RSS
// must come back to within 5 % of what it was before the request. The key
// is registered and one small job run first, so the baseline includes
// what any job leaves (the hot key, gRPC's connection state).
func runRSS() {
	conn, err := dial()
	if err != nil {
		report("rss: connect", err, "")
		return
	}
	defer conn.Close()
	zk := zkpipepb.NewProverClient(conn)
	ctx, cancel := ctxFor(5 * time.Minute)
	defer cancel()
	zkey := filepath.Join(*flagFixtures, curves[0].fixture, "circuit.zkey")
	if _, err := zk.RegisterKey(ctx, &zkpipepb.RegisterKeyRequest{Name: curves[0].key, Path: zkey}); err != nil {
		report("rss: RegisterKey", err, "")
		return
	}
	if _, err := zk.Prove(ctx, &zkpipepb.ProveRequest{Submit: &zkpipepb.SubmitRequest{Key: curves[0].key,
		Witnesses: copies(witness[curves[0].key], 2)}}); err != nil {
		report("rss: a small Prove first", err, "")
		return
	}
	time.Sleep(time.Second)
	base, err := readRSS(*flagPid)
	if err != nil {
		report("rss: read the daemon's RSS", err, "")
		return
	}
	ws := copies(witness[curves[0].key], *flagRSSParts)
	reqBytes := 0
	for _, w := range ws {
		reqBytes += len(w)
	}
	r, err := zk.Submit(ctx, &zkpipepb.SubmitRequest{Key: curves[0].key, Witnesses: ws, Priority: zkpipepb.Priority_LOW})
	if err != nil {
		report("rss: Submit of 2000 witnesses", err, "")
		return
	}
	peak, _ := readRSS(*flagPid)
	ar, err := cancelAndCollect(zk, r.JobId)
	if err != nil {
		report("rss: cancel and collect", err, "")
		return
	}
	// Within 5 %, given ten seconds for the collector to drop the request
	// and for the pages to leave.
	limit := base + base/20
	var after uint64
	waited, _ := waitFor(10*time.Second, 100*time.Millisecond, func() (bool, error) {
		var err error
		after, err = readRSS(*flagPid)
		return err == nil && after <= limit, err
	})
	name := fmt.Sprintf("RSS back to its baseline after a %.1f MB request is cancelled", float64(reqBytes)/1e6)
	detail := fmt.Sprintf("baseline %.1f MB, %.1f MB after the submit, %.1f MB %v after the job ended (%v; limit %.1f MB)",
		float64(base)/1e6, float64(peak)/1e6, float64(after)/1e6, waited.Round(10*time.Millisecond), ar.State,
		float64(limit)/1e6)
	var e error
	if after > limit {
		if *flagRSSCheck {
			e = fmt.Errorf("RSS stays up: %s", detail)
		} else {
			detail += " (not checked under a sanitizer)"
		}
	}
	report(name, e, detail)
}
