package main

// Mode porep: a PoRep C2 through cuzk.v1 as Curio asks for one. The
// vanilla proof is Curio's envelope of a C1 (tests/filecoin_c2.sh makes it
// from a sector sealed there), the registered proof its number; the
// partition proofs come back concatenated, and tests/filecoin_c2.sh checks
// them with `zkpipe filecoin verify`.

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"sync"
	"time"

	"zkpipe/cuzkpb"
)

var (
	flagEnvelope   = flag.String("envelope", "", "Curio's envelope of a C1 (mode porep)")
	flagRegistered = flag.Uint64("registered-proof", 0, "the numeric RegisteredSealProof (mode porep)")
	flagSectorSize = flag.Uint64("sector-size", 0, "the sector's size in bytes (mode porep)")
	flagProofOut   = flag.String("proof-out", "", "where the concatenated proofs go (mode porep)")
)

func runPorep() {
	conn, err := dial()
	if err != nil {
		report("porep: connect", err, "")
		return
	}
	defer conn.Close()
	cz := cuzkpb.NewProvingEngineClient(conn)
	envelope, err := os.ReadFile(*flagEnvelope)
	if err != nil {
		report("porep: read the envelope", err, "")
		return
	}
	ctx, cancel := ctxFor(proveTimeout)
	defer cancel()
	t0 := time.Now()
	sr, err := cz.SubmitProof(ctx, &cuzkpb.SubmitProofRequest{
		RequestId: rid("porep"), ProofKind: cuzkpb.ProofKind_POREP_SEAL_COMMIT,
		SectorSize: *flagSectorSize, RegisteredProof: *flagRegistered, SectorNumber: 11,
		MinerId: 1000, VanillaProof: envelope})
	if err != nil {
		report("porep: SubmitProof", err, "")
		return
	}
	// GetStatus while the job runs: its partitions show under
	// porep_seal_commit, pending or in progress, until it is done.
	var mu sync.Mutex
	seen, polls := uint32(0), 0
	done := make(chan struct{})
	go func() {
		for {
			select {
			case <-done:
				return
			case <-time.After(50 * time.Millisecond):
			}
			st, err := cz.GetStatus(ctx, &cuzkpb.GetStatusRequest{})
			if err != nil {
				continue
			}
			for _, q := range st.Queues {
				if q.ProofKind == "porep_seal_commit" {
					mu.Lock()
					polls++
					if n := q.Pending + q.InProgress; n > seen {
						seen = n
					}
					mu.Unlock()
				}
			}
		}
	}()
	ar, err := cz.AwaitProof(ctx, &cuzkpb.AwaitProofRequest{JobId: sr.JobId})
	close(done)
	if err != nil {
		report("porep: AwaitProof", err, "")
		return
	}
	if ar.Status != cuzkpb.AwaitProofResponse_COMPLETED {
		report("porep: the job completes", fmt.Errorf("status %v: %s", ar.Status, ar.ErrorMessage), "")
		return
	}
	if len(ar.Proof) == 0 || len(ar.Proof)%192 != 0 {
		report("porep: the proof", fmt.Errorf("%d bytes, not 192 per partition", len(ar.Proof)), "")
		return
	}
	if err := os.WriteFile(*flagProofOut, ar.Proof, 0o644); err != nil {
		report("porep: write the proof", err, "")
		return
	}
	report("porep: SubmitProof and AwaitProof with Curio's envelope", nil,
		fmt.Sprintf("%d partition(s), %d bytes, in %v; synthesis %d ms, proving %d ms",
			len(ar.Proof)/192, len(ar.Proof), time.Since(t0).Round(time.Millisecond),
			ar.SynthesisMs, ar.GpuComputeMs))
	mu.Lock()
	defer mu.Unlock()
	var perr error
	if seen == 0 {
		perr = errors.New("no GetStatus showed the job's partitions under porep_seal_commit")
	}
	report("porep: GetStatus shows the partitions while they run", perr,
		fmt.Sprintf("up to %d in %d polls", seen, polls))
}
