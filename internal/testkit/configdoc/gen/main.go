// Command gen rewrites the generated reference of docs/configuration.md from
// the config structs (`make docs`, or go generate ./internal/testkit/configdoc).
package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/recallhq/recall/internal/testkit/configdoc"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "configdoc:", err)
		os.Exit(1)
	}
}

func run() error {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}").Output()
	if err != nil {
		return fmt.Errorf("find the module's root: %w", err)
	}
	root := strings.TrimSpace(string(out))
	path := filepath.Join(root, filepath.FromSlash(configdoc.Doc))
	doc, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	next, err := configdoc.Generate(root, doc)
	if err != nil {
		return err
	}
	if bytes.Equal(doc, next) {
		return nil
	}
	if err := os.WriteFile(path, next, 0o644); err != nil {
		return err
	}
	fmt.Println("wrote", configdoc.Doc)
	return nil
}
