package service_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/pkg/envconfig"
	"github.com/recallhq/recall/pkg/service"
)

type sub struct {
	URL    string `env:"DATABASE_URL" envDefault:"postgres://u:secret@h/db"`
	APIKey string `env:"API_KEYS" envDefault:"t:0123456789abcdef"`
}

type cfg struct {
	service.Base
	DB    sub
	Plain string `env:"PLAIN" envDefault:"x"`
}

func TestLoadConfigAndMask(t *testing.T) {
	t.Setenv("PLAIN", "y")
	t.Setenv("DATABASE_URL", "postgres://u:secret@h/db")
	c, err := envconfig.Load[cfg]()
	require.NoError(t, err)
	require.Equal(t, "y", c.Plain)
	require.Equal(t, 25*time.Second, c.ShutdownTimeout)
	m := service.Masked(c)
	require.Equal(t, "postgres://u:***@h/db", m["DATABASE_URL"])
	require.Equal(t, "***", m["API_KEYS"])
	require.Equal(t, "y", m["PLAIN"])

	// A list of URLs (DATABASE_READ_URL) has every password masked, and a
	// password with an @ in it is masked whole.
	require.Equal(t, "postgres://a:***@r1:5432/db,postgres://b@r2/db,postgres://c:***@r3/db?sslmode=disable",
		service.MaskURL("postgres://a:pw1@r1:5432/db,postgres://b@r2/db,postgres://c:p@ss@r3/db?sslmode=disable"))
	require.Contains(t, envconfig.EnvVars[cfg](), "SHUTDOWN_TIMEOUT")
	require.Contains(t, envconfig.EnvVars[cfg](), "DATABASE_URL")

	t.Setenv("SHUTDOWN_TIMEOUT", "soon")
	_, err = envconfig.Load[cfg]()
	require.ErrorContains(t, err, "SHUTDOWN_TIMEOUT")
}

type tagged struct {
	Hidden  string `env:"PLAIN_HIDDEN" secret:"true"`
	KeyPath string `env:"TLS_KEY_FILE" secret:"false"`
	Bus     string `env:"BUS_URL" secret:"url"`
	Untaged string `env:"SIGNING_KEY"`
}

// The secret tag decides over the variable's name: a value hidden whatever
// its name, a key file's path shown, a URL's whole user info hidden (a
// token alone is one).
func TestMaskedSecretTag(t *testing.T) {
	t.Parallel()
	m := service.Masked(tagged{Hidden: "h", KeyPath: "/run/tls/key.pem", Bus: "nats://t0ken@a:4222,nats://u:p@b:4222,nats://c:4222", Untaged: "k"})
	require.Equal(t, map[string]any{"PLAIN_HIDDEN": "***", "TLS_KEY_FILE": "/run/tls/key.pem", "BUS_URL": "nats://***@a:4222,nats://***@b:4222,nats://c:4222", "SIGNING_KEY": "***"}, m)
	require.Equal(t, "nats://t0ken@a:4222", service.MaskURL("nats://t0ken@a:4222"), "MaskURL keeps a user without a password")
}

func TestOpsHandler(t *testing.T) {
	t.Parallel()
	var failing error
	h := service.OpsHandler(service.NewRegistry(), service.Check{Name: "db", Fn: func(context.Context) error { return failing }})
	get := func(path string) (int, string) {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
		return rec.Code, rec.Body.String()
	}
	code, _ := get("/healthz")
	require.Equal(t, http.StatusOK, code)
	code, _ = get("/readyz")
	require.Equal(t, http.StatusOK, code)
	failing = errors.New("down")
	code, body := get("/readyz")
	require.Equal(t, http.StatusServiceUnavailable, code)
	require.Contains(t, body, "db: down")
	code, body = get("/metrics")
	require.Equal(t, http.StatusOK, code)
	require.True(t, strings.Contains(body, "go_goroutines"))
	code, _ = get("/debug/pprof/")
	require.Equal(t, http.StatusNotFound, code, "no profiles unless asked for")
}

// OPS_PROFILING's routes serve Go's profiles.
func TestRegisterProfiling(t *testing.T) {
	t.Parallel()
	mux := http.NewServeMux()
	service.RegisterProfiling(mux)
	for _, path := range []string{"/debug/pprof/", "/debug/pprof/heap?debug=1", "/debug/pprof/goroutine?debug=1", "/debug/pprof/cmdline"} {
		rec := httptest.NewRecorder()
		mux.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
		require.Equal(t, http.StatusOK, rec.Code, path)
		require.NotEmpty(t, rec.Body.String(), path)
	}
}

func TestRunAllStopsOthersOnFailure(t *testing.T) {
	t.Parallel()
	stopped := make(chan struct{})
	err := service.RunAll(context.Background(),
		func(ctx context.Context) error { <-ctx.Done(); close(stopped); return nil },
		func(context.Context) error { return errors.New("boom") })
	require.EqualError(t, err, "boom")
	<-stopped
}

func TestServerDrainsOnCancel(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	addr := make(chan string, 1)
	done := make(chan error, 1)
	srv := service.Server{Name: "t", Addr: "127.0.0.1:0", Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("hi")) })}
	go func() { done <- srv.Serve(ctx, slogDiscard(), 5*time.Second, func(a string) { addr <- a }) }()
	resp, err := http.Get("http://" + <-addr)
	require.NoError(t, err)
	resp.Body.Close()
	cancel()
	require.NoError(t, <-done)
}

type prefixed struct {
	Inner struct {
		Size int `env:"BATCH_SIZE" envDefault:"5"`
	} `envPrefix:"INGEST_"`
}

func TestPrefixedVariables(t *testing.T) {
	t.Setenv("INGEST_BATCH_SIZE", "many")
	_, err := envconfig.Load[prefixed]()
	require.ErrorContains(t, err, "INGEST_BATCH_SIZE")
	t.Setenv("INGEST_BATCH_SIZE", "7")
	c, err := envconfig.Load[prefixed]()
	require.NoError(t, err)
	require.Equal(t, "7", service.Masked(c)["INGEST_BATCH_SIZE"])
}

// A client that sends its headers and part of a body, then stalls, is cut
// off after the read timeout instead of holding the connection forever.
func TestServerCutsOffAStalledBody(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	addr := make(chan string, 1)
	done := make(chan error, 1)
	srv := service.Server{Name: "t", Addr: "127.0.0.1:0", ReadTimeout: 200 * time.Millisecond,
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if _, err := io.ReadAll(r.Body); err != nil {
				http.Error(w, err.Error(), http.StatusRequestTimeout)
				return
			}
			_, _ = w.Write([]byte("read"))
		})}
	go func() { done <- srv.Serve(ctx, slogDiscard(), 5*time.Second, func(a string) { addr <- a }) }()
	conn, err := net.Dial("tcp", <-addr)
	require.NoError(t, err)
	defer conn.Close()
	_, err = conn.Write([]byte("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\nonly part of it"))
	require.NoError(t, err)
	require.NoError(t, conn.SetReadDeadline(time.Now().Add(5*time.Second)))
	start := time.Now()
	_, err = io.ReadAll(conn) // the server answers (or not) and closes
	require.NoError(t, err, "the server closed the connection before the client's own deadline")
	require.Less(t, time.Since(start), 3*time.Second)
	cancel()
	require.NoError(t, <-done)
}

type renamedSub struct {
	File    string `env:"NEW_FILE"`
	OldFile string `env:"OLD_FILE" deprecated:"NEW_FILE"`
}

type renamedCfg struct {
	A renamedSub
	B renamedSub `envPrefix:"B_"`
}

// A variable set under its deprecated name is logged once at start, as a
// warning naming it and the variable that replaces it, whatever the number
// of configs that read it; ignored when the new one is set too; and nothing
// is said of one left unset.
func TestLogConfigWarnsOfRenamedVariables(t *testing.T) {
	t.Parallel()
	logged := func(environ map[string]string) []map[string]any {
		var c renamedCfg
		require.NoError(t, envconfig.LoadInto(&c, environ))
		var buf bytes.Buffer
		service.LogConfig(slog.New(slog.NewJSONHandler(&buf, nil)), c, c.A)
		var out []map[string]any
		for line := range strings.Lines(buf.String()) {
			var m map[string]any
			require.NoError(t, json.Unmarshal([]byte(line), &m))
			if m["level"] == "WARN" {
				out = append(out, m)
			}
		}
		return out
	}
	require.Empty(t, logged(map[string]string{"NEW_FILE": "a", "B_NEW_FILE": "b"}))

	warned := logged(map[string]string{"OLD_FILE": "a", "B_OLD_FILE": "b", "B_NEW_FILE": "c"})
	require.Len(t, warned, 2, "one line a variable, though two configs read OLD_FILE")
	require.Equal(t, "B_OLD_FILE", warned[0]["variable"])
	require.Equal(t, "B_NEW_FILE", warned[0]["replaced_by"])
	require.Equal(t, "B_OLD_FILE is deprecated and ignored, as B_NEW_FILE is set: remove it; the old name goes in the next minor release", warned[0]["msg"])
	require.Equal(t, "OLD_FILE", warned[1]["variable"])
	require.Equal(t, "NEW_FILE", warned[1]["replaced_by"])
	require.Equal(t, "OLD_FILE is deprecated and read in place of NEW_FILE, which is unset: rename it NEW_FILE; the old name goes in the next minor release", warned[1]["msg"])
}

type formerCfg struct {
	Chars int `env:"SERVICE_TEST_NEW_CHARS" envOld:"SERVICE_TEST_OLD_CHARS" envDefault:"800"`
}

// A variable set under a former name (envOld) is read and warned of at
// start, as a deprecated field's is.
func TestLogConfigWarnsOfFormerNames(t *testing.T) {
	t.Setenv("SERVICE_TEST_OLD_CHARS", "300")
	c, err := envconfig.Load[formerCfg]()
	require.NoError(t, err)
	require.Equal(t, 300, c.Chars)
	var buf bytes.Buffer
	service.LogConfig(slog.New(slog.NewJSONHandler(&buf, nil)), c)
	require.Contains(t, buf.String(), `"msg":"SERVICE_TEST_OLD_CHARS is deprecated and read in place of SERVICE_TEST_NEW_CHARS, which is unset: rename it SERVICE_TEST_NEW_CHARS; the old name goes in the next minor release"`)
}
