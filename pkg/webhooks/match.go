package webhooks

import (
	"fmt"
	"strings"
)

// MaxTypes bounds the types one endpoint names.
const MaxTypes = 32

// Matches reports whether a change of type typ is wanted by an endpoint of
// the patterns: one equal to it, "*", or a prefix "p.*" that typ starts
// with ("attribute.*" matches "attribute.asserted", not "attributes.x").
func Matches(patterns []string, typ string) bool {
	for _, p := range patterns {
		if p == "*" || p == typ {
			return true
		}
		if prefix, ok := strings.CutSuffix(p, "*"); ok && strings.HasSuffix(prefix, ".") && strings.HasPrefix(typ, prefix) {
			return true
		}
	}
	return false
}

// CheckPattern says what is wrong with a type pattern, nil when nothing:
// "*", or dot-separated words of lower-case letters, digits and "_", the
// last of which may be "*".
func CheckPattern(p string) error {
	if p == "*" {
		return nil
	}
	if p == "" || len(p) > 100 {
		return fmt.Errorf("want a change type, a prefix such as attribute.* or *, of at most 100 characters")
	}
	words := strings.Split(p, ".")
	for i, w := range words {
		if w == "*" && i == len(words)-1 && i > 0 {
			continue
		}
		if w == "" {
			return fmt.Errorf("%q: an empty word between dots", p)
		}
		for _, r := range w {
			if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_') {
				return fmt.Errorf("%q: want lower-case letters, digits and _ between dots, and * only as the last word", p)
			}
		}
	}
	return nil
}
