package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/recallhq/recall/pkg/deps"
	"github.com/recallhq/recall/pkg/service"
)

// runRecordName is the file under DATA_DIR where `recall run` records the
// embedded NATS server it started, and removes it when it stops.
const runRecordName = "nats.json"

// runRecord is what `recall run` records of its embedded NATS server: enough
// for a tool on the same machine to find it and to tell it from another
// server that has since taken its address.
type runRecord struct {
	URL      string `json:"url"`
	ServerID string `json:"server_id"`
	PID      int    `json:"pid"`
}

// writeRunRecord records the embedded server under dataDir (atomically: a
// tool never reads half a file) and returns the function that removes it.
func writeRunRecord(dataDir string, rec runRecord) (func(), error) {
	path := filepath.Join(dataDir, runRecordName)
	data, err := json.Marshal(rec)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dataDir, 0o755); err != nil {
		return nil, fmt.Errorf("record embedded NATS: %w", err)
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, append(data, '\n'), 0o644); err != nil {
		return nil, fmt.Errorf("record embedded NATS: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return nil, fmt.Errorf("record embedded NATS: %w", err)
	}
	return func() { _ = os.Remove(path) }, nil
}

// natsTarget is the NATS server a tool uses and why.
type natsTarget struct {
	URL string
	// From says where the URL came from, for the line the tool prints.
	From string
}

// probeTimeout bounds the check that a recorded server is still the one
// `recall run` started.
const probeTimeout = 2 * time.Second

// findNATS picks the NATS server a tool works on: NATS_URL when it is set;
// otherwise the server `recall run` recorded under dataDir, checked to be
// up and to be that very server. Without either it is an error: a tool never
// falls back to a default address, where some other server may listen and
// would be read, or changed, in Recall's name.
func findNATS(natsURL, dataDir string) (natsTarget, error) {
	if natsURL != "" {
		return natsTarget{URL: natsURL, From: "NATS_URL"}, nil
	}
	path := filepath.Join(dataDir, runRecordName)
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return natsTarget{}, fmt.Errorf("no NATS server to use: NATS_URL is unset and no `recall run` is running with DATA_DIR=%s (it records its embedded server in %s); start `make run`, or set NATS_URL (and DATA_DIR if `recall run` uses another)", dataDir, path)
	}
	if err != nil {
		return natsTarget{}, fmt.Errorf("read %s: %w", path, err)
	}
	var rec runRecord
	if err := json.Unmarshal(data, &rec); err != nil || rec.URL == "" {
		return natsTarget{}, fmt.Errorf("%s: not a record of `recall run`'s NATS server; remove it, or set NATS_URL", path)
	}
	nc, err := nats.Connect(rec.URL, nats.Name("recall-tool-probe"), nats.Timeout(probeTimeout), nats.NoReconnect())
	if err != nil {
		return natsTarget{}, fmt.Errorf("the NATS server `recall run` recorded in %s (%s) does not answer: is `make run` still running? (%w)", path, rec.URL, err)
	}
	id := nc.ConnectedServerId()
	nc.Close()
	if rec.ServerID != "" && id != rec.ServerID {
		return natsTarget{}, fmt.Errorf("the NATS server at %s is not the one `recall run` recorded in %s (another server has taken its address); is `make run` still running?", rec.URL, path)
	}
	return natsTarget{URL: rec.URL, From: fmt.Sprintf("the embedded server of `recall run` (pid %d), recorded in %s", rec.PID, path)}, nil
}

// useNATS finds the server a tool uses, sets NATS_URL to it for the
// command's config, and says which it is on w.
func useNATS(w io.Writer) error {
	cfg, err := service.LoadConfig[deps.Data]()
	if err != nil {
		return err
	}
	t, err := findNATS(os.Getenv("NATS_URL"), cfg.Dir)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "recall: NATS at %s (%s)\n", t.URL, t.From)
	return os.Setenv("NATS_URL", t.URL)
}
