package queue_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"log/slog"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/jwt/v2"
	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nkeys"
	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/pkg/queue"
	"github.com/recallhq/recall/pkg/service"
)

// authServer starts a JetStream server configured by o to ask for
// credentials, and returns its client URL.
func authServer(t *testing.T, o *server.Options) string {
	t.Helper()
	o.Host, o.Port, o.NoLog, o.NoSigs = "127.0.0.1", -1, true, true
	o.JetStream, o.StoreDir = true, t.TempDir()
	srv, err := server.NewServer(o)
	require.NoError(t, err)
	go srv.Start()
	require.True(t, srv.ReadyForConnections(10*time.Second))
	t.Cleanup(func() { srv.Shutdown(); srv.WaitForShutdown() })
	return srv.ClientURL()
}

// connects checks that c logs in and JetStream answers, as a binary's
// readiness check asks it.
func connects(t *testing.T, c queue.NATSConfig) {
	t.Helper()
	nc, js, err := queue.Connect(context.Background(), c, "test", slog.New(slog.DiscardHandler))
	require.NoError(t, err, c.Login())
	defer nc.Close()
	_, err = js.AccountInfo(context.Background())
	require.NoError(t, err, c.Login())
}

// refused checks that c is refused with an error naming the server, how c
// logged in and the cause, and none of its secrets.
func refused(t *testing.T, c queue.NATSConfig, cause string) {
	t.Helper()
	nc, _, err := queue.Connect(context.Background(), c, "test", slog.New(slog.DiscardHandler))
	if err == nil {
		nc.Close()
		t.Fatalf("with %s: connected", c.Login())
	}
	msg := err.Error()
	require.Contains(t, msg, service.MaskURLUserinfo(c.URL), msg)
	require.Contains(t, msg, c.Login(), msg)
	require.Contains(t, strings.ToLower(msg), cause, msg)
	for _, secret := range []string{c.Password, c.Token} {
		if secret != "" {
			require.NotContains(t, msg, secret, "the error names no secret")
		}
	}
}

func writeFile(t *testing.T, name string, data []byte) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	require.NoError(t, os.WriteFile(path, data, 0o600))
	return path
}

func TestConnectWithUserAndPassword(t *testing.T) {
	t.Parallel()
	url := authServer(t, &server.Options{Users: []*server.User{{Username: "recall-ingest", Password: "right-password-1"}}})
	connects(t, queue.NATSConfig{URL: url, User: "recall-ingest", Password: "right-password-1"})
	refused(t, queue.NATSConfig{URL: url, User: "recall-ingest", Password: "wrong-password-2"}, "authorization violation")
	refused(t, queue.NATSConfig{URL: url, User: "recall-api", Password: "right-password-1"}, "authorization violation")
	refused(t, queue.NATSConfig{URL: url}, "authorization violation")
	// In the URL, as nats.go takes it too; the error masks it.
	u := strings.Replace(url, "nats://", "nats://recall-ingest:wrong-password-3@", 1)
	refused(t, queue.NATSConfig{URL: u}, "authorization violation")
}

func TestConnectWithToken(t *testing.T) {
	t.Parallel()
	url := authServer(t, &server.Options{Authorization: "right-token-1"})
	connects(t, queue.NATSConfig{URL: url, Token: "right-token-1"})
	refused(t, queue.NATSConfig{URL: url, Token: "wrong-token-2"}, "authorization violation")
	refused(t, queue.NATSConfig{URL: url}, "authorization violation")
}

func TestConnectWithNKey(t *testing.T) {
	t.Parallel()
	user, err := nkeys.CreateUser()
	require.NoError(t, err)
	pub, err := user.PublicKey()
	require.NoError(t, err)
	seed, err := user.Seed()
	require.NoError(t, err)
	other, err := nkeys.CreateUser()
	require.NoError(t, err)
	otherSeed, err := other.Seed()
	require.NoError(t, err)
	url := authServer(t, &server.Options{Nkeys: []*server.NkeyUser{{Nkey: pub}}})

	right := writeFile(t, "ingest.nk", seed)
	connects(t, queue.NATSConfig{URL: url, NKeyFile: right})
	refused(t, queue.NATSConfig{URL: url, NKeyFile: writeFile(t, "other.nk", otherSeed)}, "authorization violation")
	refused(t, queue.NATSConfig{URL: url, User: "recall-ingest", Password: "x"}, "authorization violation")
	missing := filepath.Join(t.TempDir(), "missing.nk")
	_, _, err = queue.Connect(context.Background(), queue.NATSConfig{URL: url, NKeyFile: missing}, "test", slog.New(slog.DiscardHandler))
	require.ErrorContains(t, err, "NATS_NKEY_FILE "+missing)
}

// A credentials file (a user JWT and its seed) on a server in operator
// mode, which trusts the operator that signed the account that signed the
// user.
func TestConnectWithCredsFile(t *testing.T) {
	t.Parallel()
	operator, err := nkeys.CreateOperator()
	require.NoError(t, err)
	operatorPub, err := operator.PublicKey()
	require.NoError(t, err)
	oc := jwt.NewOperatorClaims(operatorPub)
	oc.Name = "recall-test"
	operatorJWT, err := oc.Encode(operator)
	require.NoError(t, err)
	operatorClaims, err := jwt.DecodeOperatorClaims(operatorJWT)
	require.NoError(t, err)

	account, err := nkeys.CreateAccount()
	require.NoError(t, err)
	accountPub, err := account.PublicKey()
	require.NoError(t, err)
	ac := jwt.NewAccountClaims(accountPub)
	ac.Name = "RECALL"
	ac.Limits.JetStreamLimits = jwt.JetStreamLimits{MemoryStorage: -1, DiskStorage: -1, Streams: -1, Consumer: -1}
	accountJWT, err := ac.Encode(operator)
	require.NoError(t, err)
	resolver := &server.MemAccResolver{}
	require.NoError(t, resolver.Store(accountPub, accountJWT))
	// Operator mode wants a system account.
	system, err := nkeys.CreateAccount()
	require.NoError(t, err)
	systemPub, err := system.PublicKey()
	require.NoError(t, err)
	systemJWT, err := jwt.NewAccountClaims(systemPub).Encode(operator)
	require.NoError(t, err)
	require.NoError(t, resolver.Store(systemPub, systemJWT))

	creds := func(signer nkeys.KeyPair) string {
		user, err := nkeys.CreateUser()
		require.NoError(t, err)
		userPub, err := user.PublicKey()
		require.NoError(t, err)
		uc := jwt.NewUserClaims(userPub)
		uc.IssuerAccount = accountPub
		userJWT, err := uc.Encode(signer)
		require.NoError(t, err)
		seed, err := user.Seed()
		require.NoError(t, err)
		file, err := jwt.FormatUserConfig(userJWT, seed)
		require.NoError(t, err)
		return writeFile(t, "user.creds", file)
	}
	url := authServer(t, &server.Options{TrustedOperators: []*jwt.OperatorClaims{operatorClaims}, AccountResolver: resolver, SystemAccount: systemPub})
	connects(t, queue.NATSConfig{URL: url, CredsFile: creds(account)})
	stranger, err := nkeys.CreateAccount()
	require.NoError(t, err)
	refused(t, queue.NATSConfig{URL: url, CredsFile: creds(stranger)}, "authorization violation")
}

// tlsFiles are a CA's certificate and a certificate and key it signed, as
// PEM files.
type tlsFiles struct{ CA, Cert, Key string }

// newCA makes a self-signed CA and a certificate it signs for 127.0.0.1,
// usable by a server or by a client.
func newCA(t *testing.T, name string, usage x509.ExtKeyUsage) (tlsFiles, *x509.CertPool, tls.Certificate) {
	t.Helper()
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	caTmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: name + " CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	require.NoError(t, err)
	ca, err := x509.ParseCertificate(caDER)
	require.NoError(t, err)

	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: name},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{usage},
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
	require.NoError(t, err)
	keyDER, err := x509.MarshalECPrivateKey(key)
	require.NoError(t, err)
	certPEM := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
	keyPEM := pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER})
	pair, err := tls.X509KeyPair(certPEM, keyPEM)
	require.NoError(t, err)
	pool := x509.NewCertPool()
	pool.AddCert(ca)
	return tlsFiles{
		CA:   writeFile(t, name+"-ca.pem", pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER})),
		Cert: writeFile(t, name+".pem", certPEM),
		Key:  writeFile(t, name+"-key.pem", keyPEM),
	}, pool, pair
}

// TLS both ways: the client checks the server's certificate against its
// CA, and the server asks for a client certificate its CA signed.
func TestConnectWithTLSClientCertificate(t *testing.T) {
	t.Parallel()
	srvFiles, _, srvPair := newCA(t, "server", x509.ExtKeyUsageServerAuth)
	cliFiles, cliPool, _ := newCA(t, "client", x509.ExtKeyUsageClientAuth)
	strangerFiles, _, _ := newCA(t, "stranger", x509.ExtKeyUsageClientAuth)
	url := authServer(t, &server.Options{
		TLS: true, TLSVerify: true, TLSTimeout: 5,
		TLSConfig: &tls.Config{Certificates: []tls.Certificate{srvPair}, ClientCAs: cliPool, ClientAuth: tls.RequireAndVerifyClientCert, MinVersion: tls.VersionTLS12},
	})

	connects(t, queue.NATSConfig{URL: url, TLSCAFile: srvFiles.CA, TLSCertFile: cliFiles.Cert, TLSKeyFile: cliFiles.Key})
	// A client certificate the server's CA did not sign, or none.
	refused(t, queue.NATSConfig{URL: url, TLSCAFile: srvFiles.CA, TLSCertFile: strangerFiles.Cert, TLSKeyFile: strangerFiles.Key}, "tls")
	refused(t, queue.NATSConfig{URL: url, TLSCAFile: srvFiles.CA}, "tls")
	// A server certificate the client's CA did not sign.
	refused(t, queue.NATSConfig{URL: url, TLSCAFile: cliFiles.CA, TLSCertFile: cliFiles.Cert, TLSKeyFile: cliFiles.Key}, "certificate signed by unknown authority")
	// No TLS at all, to a server that asks for it.
	refused(t, queue.NATSConfig{URL: url}, "tls")
}

// A config that says two ways to log in, or half of one, is refused
// before any connection, naming the variables.
func TestNATSConfigOptionsRefuseAmbiguousLogins(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		c    queue.NATSConfig
		says string
	}{
		{queue.NATSConfig{User: "u", Password: "p", Token: "t"}, "set one way to log in, not NATS_USER and NATS_TOKEN"},
		{queue.NATSConfig{NKeyFile: "a", CredsFile: "b"}, "set one way to log in, not NATS_NKEY_FILE and NATS_CREDS_FILE"},
		{queue.NATSConfig{Password: "p"}, "NATS_PASSWORD is set without NATS_USER"},
		{queue.NATSConfig{TLSCertFile: "c"}, "NATS_TLS_CERT_FILE and NATS_TLS_KEY_FILE go together"},
		{queue.NATSConfig{CredsFile: "/nonexistent/user.creds"}, "NATS_CREDS_FILE"},
	} {
		_, err := tc.c.Options()
		require.ErrorContains(t, err, tc.says)
	}
}

// The config is logged with its secrets masked, the files' paths shown.
func TestNATSConfigMasked(t *testing.T) {
	t.Parallel()
	m := service.Masked(queue.NATSConfig{
		URL: "nats://t0ken-in-url@n1:4222,nats://u:pw-in-url@n2:4222", User: "recall-api", Password: "pw-1", Token: "tok-2",
		NKeyFile: "/run/nats/api.nk", CredsFile: "/run/nats/api.creds", TLSCAFile: "/run/tls/ca.pem", TLSCertFile: "/run/tls/api.pem", TLSKeyFile: "/run/tls/api-key.pem",
	})
	require.Equal(t, map[string]any{
		"NATS_URL": "nats://***@n1:4222,nats://***@n2:4222", "NATS_USER": "recall-api", "NATS_PASSWORD": "***", "NATS_TOKEN": "***",
		"NATS_NKEY_FILE": "/run/nats/api.nk", "NATS_CREDS_FILE": "/run/nats/api.creds",
		"NATS_TLS_CA_FILE": "/run/tls/ca.pem", "NATS_TLS_CERT_FILE": "/run/tls/api.pem", "NATS_TLS_KEY_FILE": "/run/tls/api-key.pem",
	}, m)
}
