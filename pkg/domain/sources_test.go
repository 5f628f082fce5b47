package domain

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"strings"
	"testing"
)

// TestDataSources requires every source line of the embedded data's header
// ("# source wordnet/data.noun <sha256>") to name a checksum SOURCES.md
// gives, so that the data and the page that states its licence and version
// cannot drift apart.
func TestDataSources(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile("SOURCES.md")
	if err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string][]byte{"en.tsv.gz": enData, "zh.tsv.gz": zhData} {
		zr, err := gzip.NewReader(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		text, err := io.ReadAll(zr)
		if err != nil {
			t.Fatal(err)
		}
		sources := 0
		for line := range strings.Lines(string(text)) {
			if !strings.HasPrefix(line, "#") {
				break
			}
			f := strings.Fields(line)
			if len(f) == 4 && f[1] == "source" {
				sources++
				if !bytes.Contains(doc, []byte(f[3])) {
					t.Errorf("%s: source %s %s is not in SOURCES.md", name, f[2], f[3])
				}
			}
		}
		if sources == 0 {
			t.Errorf("%s names no source", name)
		}
	}
}
