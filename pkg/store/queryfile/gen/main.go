// Command gen rewrites the store's typed query names (queries_gen.go) from its
// SQL files (queries/*.sql). go generate runs it in pkg/store's directory
// (`make generate`, or go generate ./pkg/store); it reads and writes there.
package main

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/recallhq/recall/pkg/store/queryfile"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "queryfile:", err)
		os.Exit(1)
	}
}

func run() error {
	pkg := os.Getenv("GOPACKAGE")
	if pkg == "" {
		return errors.New("GOPACKAGE is not set: run it through go generate")
	}
	queries, err := queryfile.Parse(os.DirFS("."))
	if err != nil {
		return err
	}
	next, err := queryfile.Generate(pkg, queries)
	if err != nil {
		return err
	}
	prev, err := os.ReadFile(queryfile.GenFile)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if bytes.Equal(prev, next) {
		return nil
	}
	if err := os.WriteFile(queryfile.GenFile, next, 0o644); err != nil {
		return err
	}
	fmt.Println("wrote", queryfile.GenFile)
	return nil
}
