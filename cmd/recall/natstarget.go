package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/recallhq/recall/pkg/deps"
	"github.com/recallhq/recall/pkg/envconfig"
	"github.com/recallhq/recall/pkg/queue"
	"github.com/recallhq/recall/pkg/service"
)

// runRecord is what `recall run` records of its embedded NATS server, in
// DATA_DIR/nats.json: enough for a tool on the same machine to find it, to
// tell it from another server that has since taken its address, and to log
// in to it. The file is its owner's only (0600), as the seed it names is.
type runRecord struct {
	URL      string `json:"url"`
	ServerID string `json:"server_id"`
	PID      int    `json:"pid"`
	// NKeyFile is the seed of the server's user, relative to the record's
	// directory (nats.nk); empty in the record of a server that asked for no
	// credentials.
	NKeyFile string `json:"nkey_file,omitempty"`
}

// writeRunRecord records the embedded server under data's directory
// (atomically: a tool never reads half a file) and returns the function
// that removes it.
func writeRunRecord(data deps.Data, rec runRecord) (func(), error) {
	path := data.NATSRecordFile()
	raw, err := json.Marshal(rec)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(data.Dir, 0o755); err != nil {
		return nil, fmt.Errorf("record embedded NATS: %w", err)
	}
	tmp := path + ".tmp"
	_ = os.Remove(tmp) // WriteFile keeps the mode of a file already there
	if err := os.WriteFile(tmp, append(raw, '\n'), 0o600); err != nil {
		return nil, fmt.Errorf("record embedded NATS: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return nil, fmt.Errorf("record embedded NATS: %w", err)
	}
	return func() { _ = os.Remove(path) }, nil
}

// natsTarget is the NATS server a tool uses, how it logs in, and why.
type natsTarget struct {
	NATS queue.NATSConfig
	// From says where the URL came from, for the line the tool prints.
	From string
}

// probeTimeout bounds the check that a recorded server is still the one
// `recall run` started.
const probeTimeout = 2 * time.Second

// findNATS picks the NATS server a tool works on: NATS_URL when it is set,
// with the credentials the environment gives (c); otherwise the server
// `recall run` recorded under data's directory, checked to be up and to be
// that very server, logged in to as its user. Without either it is an
// error: a tool never falls back to a default address, where some other
// server may listen and would be read, or changed, in Recall's name.
func findNATS(c queue.NATSConfig, data deps.Data) (natsTarget, error) {
	if c.URL != "" {
		return natsTarget{NATS: c, From: "NATS_URL"}, nil
	}
	path := data.NATSRecordFile()
	raw, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return natsTarget{}, fmt.Errorf("no NATS server to use: NATS_URL is unset and no `recall run` is running with DATA_DIR=%s (it records its embedded server in %s); start `make run`, or set NATS_URL (and DATA_DIR if `recall run` uses another)", data.Dir, path)
	}
	if err != nil {
		return natsTarget{}, fmt.Errorf("read %s: %w", path, err)
	}
	var rec runRecord
	if err := json.Unmarshal(raw, &rec); err != nil || rec.URL == "" {
		return natsTarget{}, fmt.Errorf("%s: not a record of `recall run`'s NATS server; remove it, or set NATS_URL", path)
	}
	// Only the record's server and user: none of the credentials the
	// environment may hold for another server.
	t := natsTarget{NATS: queue.NATSConfig{URL: rec.URL}, From: fmt.Sprintf("the embedded server of `recall run` (pid %d), recorded in %s", rec.PID, path)}
	if rec.NKeyFile != "" {
		t.NATS.NKeyFile = filepath.Join(filepath.Dir(path), rec.NKeyFile)
		t.From += ", as the user whose seed is " + t.NATS.NKeyFile
	}
	login, err := t.NATS.Options()
	if err != nil {
		return natsTarget{}, fmt.Errorf("the NATS server `recall run` recorded in %s: %w", path, err)
	}
	nc, err := nats.Connect(rec.URL, append(login, nats.Name("recall-tool-probe"), nats.Timeout(probeTimeout), nats.NoReconnect())...)
	if errors.Is(err, nats.ErrAuthorization) {
		return natsTarget{}, fmt.Errorf("the NATS server `recall run` recorded in %s (%s) refused the login (%s): another server has taken its address, or the seed was replaced since `recall run` started; is `make run` still running? (%w)", path, rec.URL, t.NATS.Login(), err)
	}
	if err != nil {
		return natsTarget{}, fmt.Errorf("the NATS server `recall run` recorded in %s (%s) does not answer: is `make run` still running? (%w)", path, rec.URL, err)
	}
	id := nc.ConnectedServerId()
	nc.Close()
	if rec.ServerID != "" && id != rec.ServerID {
		return natsTarget{}, fmt.Errorf("the NATS server at %s is not the one `recall run` recorded in %s (another server has taken its address); is `make run` still running?", rec.URL, path)
	}
	return t, nil
}

// useNATS finds the server a tool uses, sets NATS_URL and the credential
// variables to it for the command's config, and says which it is on w.
func useNATS(w io.Writer) error {
	type toolConfig struct {
		NATS queue.NATSConfig
		Data deps.Data
	}
	cfg, err := envconfig.Load[toolConfig]()
	if err != nil {
		return err
	}
	cfg.NATS.URL = os.Getenv("NATS_URL") // no default address
	t, err := findNATS(cfg.NATS, cfg.Data)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "recall: NATS at %s (%s)\n", service.MaskURLUserinfo(t.NATS.URL), t.From)
	set := map[string]string{}
	for _, f := range envconfig.Fields(reflect.TypeFor[queue.NATSConfig]()) {
		set[f.Key] = fmt.Sprint(reflect.ValueOf(t.NATS).FieldByIndex(f.Index).Interface())
	}
	for k, v := range set {
		if err := os.Setenv(k, v); err != nil {
			return err
		}
	}
	return nil
}
