package natsserver

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/nats-io/nkeys"
)

// LocalUser returns the public key of the embedded server's local user: the
// one user `recall run` and the operator's tools on the same machine connect
// as. Its seed (the private key) is kept in the file at path, in the
// standard NKey seed format that NATS_NKEY_FILE and `nats --nkey` read. The
// file is made once, readable by its owner only (0600), and read again at
// every start, so that a client that holds the seed (a tool, `recall worker`,
// a chat backend on the machine) still gets in after `recall run` restarts
// with the same DATA_DIR; delete it to have a new key made at the next start.
// A file others may read is refused rather than used: a key that may have
// leaked is no key.
func LocalUser(path string) (pub string, created bool, err error) {
	pub, err = readSeed(path)
	if err == nil {
		return pub, false, nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return "", false, err
	}
	kp, err := nkeys.CreateUser()
	if err != nil {
		return "", false, fmt.Errorf("make the NATS user key: %w", err)
	}
	defer kp.Wipe()
	seed, err := kp.Seed()
	if err != nil {
		return "", false, err
	}
	if pub, err = kp.PublicKey(); err != nil {
		return "", false, err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return "", false, fmt.Errorf("NATS user key: %w", err)
	}
	// O_EXCL: of two processes starting at once, one writes the key and the
	// other reads it.
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		pub, err := readSeed(path)
		return pub, false, err
	}
	if err != nil {
		return "", false, fmt.Errorf("NATS user key: %w", err)
	}
	_, err = f.Write(append(seed, '\n'))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		_ = os.Remove(path)
		return "", false, fmt.Errorf("NATS user key %s: %w", path, err)
	}
	return pub, true, nil
}

// readSeed reads the user seed in the file at path, which only its owner
// may read, and returns its public key.
func readSeed(path string) (string, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return "", err
	}
	if !fi.Mode().IsRegular() {
		return "", fmt.Errorf("NATS user key %s is not a regular file", path)
	}
	if perm := fi.Mode().Perm(); perm&0o077 != 0 {
		return "", fmt.Errorf("NATS user key %s may be read by others (mode %04o): remove it to have a new one made, or chmod 600 it if it never left this machine", path, perm)
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	kp, err := nkeys.FromSeed(bytes.TrimSpace(raw))
	if err != nil {
		return "", fmt.Errorf("NATS user key %s: %w", path, err)
	}
	defer kp.Wipe()
	pub, err := kp.PublicKey()
	if err != nil || !nkeys.IsValidPublicUserKey(pub) {
		return "", fmt.Errorf("NATS user key %s: not the seed of a user key", path)
	}
	return pub, nil
}

// validUserKey reports whether k is an NKey user's public key.
func validUserKey(k string) bool { return nkeys.IsValidPublicUserKey(k) }
