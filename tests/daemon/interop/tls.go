// The daemon's TCP listener with TLS, a client certificate and a bearer
// token, from grpc-go (Curio's stack): -mode=tls.
package main

import (
	"crypto/tls"
	"crypto/x509"
	"flag"
	"fmt"
	"io/ioutil"
	"strings"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"zkpipe/cuzkpb"
)

var (
	flagAddr    = flag.String("addr", "", "host:port of a TLS listener (mode tls)")
	flagCA      = flag.String("ca", "", "PEM CA the daemon's certificate chains to (mode tls)")
	flagOtherCA = flag.String("other-ca", "", "PEM CA that did not issue it (mode tls)")
	flagCert    = flag.String("cert", "", "PEM client certificate (mode tls)")
	flagKey     = flag.String("key", "", "PEM key of -cert (mode tls)")
	flagToken   = flag.String("token", "", "file holding the bearer token (mode tls)")
)

// tlsStatus calls GetStatus on -addr over TLS checked against caFile, with
// the client certificate when withCert and the token when token != "".
func tlsStatus(caFile string, withCert bool, token string) error {
	pem, err := ioutil.ReadFile(caFile)
	if err != nil {
		return err
	}
	roots := x509.NewCertPool()
	if !roots.AppendCertsFromPEM(pem) {
		return fmt.Errorf("%s: no certificate", caFile)
	}
	cfg := &tls.Config{RootCAs: roots}
	if withCert {
		pair, err := tls.LoadX509KeyPair(*flagCert, *flagKey)
		if err != nil {
			return err
		}
		cfg.Certificates = []tls.Certificate{pair}
	}
	ctx, cancel := ctxFor(30 * time.Second)
	defer cancel()
	conn, err := grpc.DialContext(ctx, *flagAddr, grpc.WithTransportCredentials(credentials.NewTLS(cfg)))
	if err != nil {
		return err
	}
	defer conn.Close()
	if token != "" {
		ctx = metadata.AppendToOutgoingContext(ctx, "authorization", "Bearer "+token)
	}
	_, err = cuzkpb.NewProvingEngineClient(conn).GetStatus(ctx, &cuzkpb.GetStatusRequest{})
	return err
}

// wantCode: nil when err carries the gRPC status code want.
func wantCode(err error, want codes.Code) error {
	if err == nil {
		return fmt.Errorf("the call succeeded, expected %v", want)
	}
	if status.Code(err) != want {
		return fmt.Errorf("got %v, expected %v", err, want)
	}
	return nil
}

func runTLS() {
	raw, err := ioutil.ReadFile(*flagToken)
	if err != nil {
		report("read the token", err, "")
		return
	}
	token := strings.TrimRight(string(raw), " \t\r\n")
	report("grpc-go: GetStatus over TLS with a client certificate and the token",
		tlsStatus(*flagCA, true, token), "")
	report("grpc-go: without the token the call is UNAUTHENTICATED",
		wantCode(tlsStatus(*flagCA, true, ""), codes.Unauthenticated), "")
	report("grpc-go: a wrong token is UNAUTHENTICATED",
		wantCode(tlsStatus(*flagCA, true, token+"x"), codes.Unauthenticated), "")
	report("grpc-go: without a client certificate the call fails",
		wantCode(tlsStatus(*flagCA, false, token), codes.Unavailable), "")
	report("grpc-go: the daemon checked against another CA fails",
		wantCode(tlsStatus(*flagOtherCA, true, token), codes.Unavailable), "")
}
