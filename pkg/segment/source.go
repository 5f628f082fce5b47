package segment

import (
	// for go:linkname
	_ "unsafe"

	_ "github.com/go-ego/gse"
)

// simplified and traditional are gse's Chinese dictionaries (s_1.txt and
// t_1.txt), which its package embeds as unexported strings (dict_embed.go in
// v0.80.3): read in place, so that their text is neither copied to the heap
// nor vendored here. A gse version that renames them, or a build with its
// "ne" tag, leaves them empty, which load refuses.
//
//go:linkname simplified github.com/go-ego/gse.zhS
var simplified string

//go:linkname traditional github.com/go-ego/gse.zhT
var traditional string
