//go:build !unix

package segment

// newTable returns a zeroed table of n slots, on the heap where memory
// cannot be mapped for it (see the unix version).
func newTable(n int) (slots []slot, offHeap bool) { return make([]slot, n), false }
