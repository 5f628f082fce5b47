package main

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/nats-io/nats.go"

	"github.com/recallhq/recall/pkg/workers"
)

// harnessUser is the run's own NATS user: it publishes turns as a chat
// backend does, reads every consumer's state and the streams for its checks,
// and watches the max-deliveries advisories, so it may do anything in the
// account.
const harnessUser = "recall-chaos"

// opsUser is the user the operator's tools run by the harness (forget, dlq
// redrive, replay) log in as.
const opsUser = "recall-ops"

// natsAuth is the run's NATS users: the production layout
// (workers.NATSUsers, in its account), every process logging in as its own
// user with that user's allow lists, and the harness's own user. A kill, a
// restart and a failover then also show that each process logs in again and
// still has every subject it needs. Passwords are made for the run.
type natsAuth struct {
	// Conf is the server config file holding the account and its users,
	// which every server of the run is started with (-c).
	Conf      string
	passwords map[string]string
}

// newNATSAuth makes a password for every user and writes the server config
// into dir, readable by its owner only.
func newNATSAuth(dir string) (*natsAuth, error) {
	type permissions struct {
		Publish   []string `json:"publish"`
		Subscribe []string `json:"subscribe"`
	}
	type user struct {
		User        string       `json:"user"`
		Password    string       `json:"password"`
		Permissions *permissions `json:"permissions,omitempty"`
	}
	a := &natsAuth{Conf: filepath.Join(dir, "nats-auth.conf"), passwords: map[string]string{}}
	var users []user
	for _, u := range workers.NATSUsers() {
		pw, err := password()
		if err != nil {
			return nil, err
		}
		a.passwords[u.Name] = pw
		users = append(users, user{User: u.Name, Password: pw, Permissions: &permissions{Publish: u.Permissions.Publish, Subscribe: u.Permissions.Subscribe}})
	}
	pw, err := password()
	if err != nil {
		return nil, err
	}
	a.passwords[harnessUser] = pw
	users = append(users, user{User: harnessUser, Password: pw})
	// The config's syntax takes JSON: the account as an object, its
	// subjects as quoted strings (a quoted $JS... is no variable). No
	// escaping of > and &, which the config's parser does not read.
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(map[string]any{workers.NATSAccount: map[string]any{"jetstream": "enabled", "users": users}}); err != nil {
		return nil, err
	}
	conf := "# Written by the chaos run: Recall's account and users (workers.NATSUsers) and the harness's.\naccounts: " + b.String()
	if err := os.WriteFile(a.Conf, []byte(conf), 0o600); err != nil {
		return nil, fmt.Errorf("nats auth config: %w", err)
	}
	return a, nil
}

func password() (string, error) {
	b := make([]byte, 24)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return hex.EncodeToString(b), nil
}

// Env is what a Recall process logging in as user is given.
func (a *natsAuth) Env(user string) []string {
	return []string{"NATS_USER=" + user, "NATS_PASSWORD=" + a.passwords[user]}
}

// Harness logs the harness's own connections in.
func (a *natsAuth) Harness() nats.Option { return nats.UserInfo(harnessUser, a.passwords[harnessUser]) }
