//go:build unix

package segment

import (
	"syscall"
	"unsafe"
)

// newTable returns a zeroed table of n slots for the dictionary a load ends
// with, in memory mapped for it alone rather than on the Go heap: the
// table is most of what the dictionary holds (some 20 MB), it holds no
// pointer and lives as long as the process, so on the heap it would only
// count towards the collector's goal (a process whose target is ten times
// what is live would let its heap grow by ten times the table before
// collecting: under load the API with Chinese loaded ran at more than three
// times its resident memory without; docs/benchmarks.md, History). It is
// mapped private and anonymous: its pages are the process's own, counted in
// its resident memory as any other. When the mapping fails the table is made
// on the heap.
func newTable(n int) (slots []slot, offHeap bool) {
	size := n * int(unsafe.Sizeof(slot{}))
	if size == 0 {
		return nil, false
	}
	mem, err := syscall.Mmap(-1, 0, size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		return make([]slot, n), false
	}
	return unsafe.Slice((*slot)(unsafe.Pointer(unsafe.SliceData(mem))), n), true
}
