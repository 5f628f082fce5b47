package main

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// TestCommittedLexicon regenerates the lexicon from the pinned sources and
// requires pkg/domain's committed files to hold the same text: a change to
// the generator is committed with the data it makes (`make domains`). The
// sources are not part of the repository; the test is skipped where they
// have not been brought (scripts/ensure-domain-sources.sh).
func TestCommittedLexicon(t *testing.T) {
	const wordnetDir = "/usr/share/wordnet"
	cedict := defaultCEDICT()
	for _, p := range []string{filepath.Join(wordnetDir, "data.noun"), cedict} {
		if _, err := os.Stat(p); err != nil {
			t.Skipf("source %s is not here (scripts/ensure-domain-sources.sh brings it): %v", p, err)
		}
	}
	r, err := build(wordnetDir, cedict, false)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []struct {
		name string
		make func() ([]byte, error)
	}{
		{enFile, func() ([]byte, error) { return r.encode("English", r.en, r.enPOS, "wordnet/") }},
		{zhFile, func() ([]byte, error) { return r.encode("Chinese", r.zh, nil, "") }},
	} {
		gen, err := f.make()
		if err != nil {
			t.Fatal(err)
		}
		committed, err := os.ReadFile(filepath.Join("..", "..", "pkg", "domain", f.name))
		if err != nil {
			t.Fatal(err)
		}
		// The text is compared, not the gzip stream, which another Go
		// release may compress differently.
		if !bytes.Equal(gunzip(t, gen), gunzip(t, committed)) {
			t.Errorf("pkg/domain/%s is not what the generator makes from the pinned sources; run make domains", f.name)
		}
	}
}

func gunzip(t *testing.T, b []byte) []byte {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	out, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestCleanGloss(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ in, want string }{
		{"to fly", "fly"},
		{"dish (type of food)", "dish  type of food"},
		{"CL:個|个[ge4]", ""},
		{"variant of 個|个[ge4]", ""},
		{"(literary) a mountain", ""},
		{"a mountain (literary)", "a mountain"},
		{"lit. to draw a snake and add feet", ""},
		{"bar (serving drinks)", "bar  serving drinks"},
		{"hotel (Tw)", "hotel"},
	} {
		if got := cleanGloss(c.in); got != c.want {
			t.Errorf("cleanGloss(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
