package segment

import "unsafe"

// Sources are gse's dictionary files as the segmenter reads them, for the
// tests that segment every word of them.
func Sources() []string { return []string{simplified, traditional} }

// TableBytes is the size of s's hash table, and OffHeap whether it is
// mapped outside the Go heap (newTable).
func TableBytes(s *Segmenter) int64 { return int64(cap(s.slots)) * int64(unsafe.Sizeof(slot{})) }
func OffHeap(s *Segmenter) bool     { return s.offHeap }
