// Command gendomains generates pkg/domain's lexicon: the life domains of
// English words from WordNet 3.0, and of Chinese words from CC-CEDICT through
// their English glosses (`make domains`; pkg/domain/SOURCES.md).
//
// Usage, from the repository root (`make domains` brings the sources first,
// scripts/ensure-domain-sources.sh):
//
//	go run ./tools/gendomains [-wordnet /usr/share/wordnet] [-cedict FILE]
//	    [-out pkg/domain] [-show WORD]... [-seeds]
//
// The sources are pinned by their checksums: a different WordNet or
// CC-CEDICT is refused, so that the committed lexicon is what these sources
// give. -show prints what the generator makes of a word (its senses, their
// domains and why, and the word's weights) and writes nothing; -seeds prints
// every seed synset with its gloss and the size of its tree.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

func main() {
	var o options
	flag.StringVar(&o.wordnet, "wordnet", "/usr/share/wordnet", "WordNet 3.0 database directory (Debian's wordnet-base)")
	flag.StringVar(&o.cedict, "cedict", defaultCEDICT(), "CC-CEDICT file (cedict_ts.u8) where scripts/ensure-domain-sources.sh puts it; see pkg/domain/SOURCES.md")
	flag.StringVar(&o.out, "out", "pkg/domain", "directory the lexicon files are written to")
	seedsList := flag.Bool("seeds", false, "print every seed and topic synset with its gloss, write nothing")
	var shows multiFlag
	flag.Var(&shows, "show", "print what the generator makes of a word, write nothing (repeatable)")
	flag.Parse()
	o.show = shows
	o.seeds = *seedsList
	if err := run(o); err != nil {
		fmt.Fprintln(os.Stderr, "gendomains:", err)
		os.Exit(1)
	}
}

type options struct {
	wordnet, cedict, out string
	show                 []string
	seeds                bool
}

type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, ",") }
func (m *multiFlag) Set(s string) error { *m = append(*m, s); return nil }

func run(o options) error {
	if o.seeds {
		return listSeeds(o.wordnet)
	}
	files, err := build(o.wordnet, o.cedict, len(o.show) > 0)
	if err != nil {
		return err
	}
	if len(o.show) > 0 {
		for _, w := range o.show {
			files.show(os.Stdout, w)
		}
		return nil
	}
	return files.write(o.out)
}

// defaultCEDICT is where scripts/ensure-domain-sources.sh puts CC-CEDICT:
// the user's cache directory ($XDG_CACHE_HOME or ~/.cache).
func defaultCEDICT() string {
	dir, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(dir, "recall", "cc-cedict", "cedict_ts.u8")
}
