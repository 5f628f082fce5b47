package api

import (
	"runtime/debug"
	"testing"
)

// Not parallel: it changes the process's GC target.
func TestApplyGC(t *testing.T) {
	t.Setenv("GOGC", "")
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	if !(Config{GCPercent: 400}).ApplyGC() {
		t.Fatal("GCPercent not applied")
	}
	if got := debug.SetGCPercent(100); got != 400 {
		t.Fatalf("GC target %d, want 400", got)
	}
	if (Config{GCPercent: 0}).ApplyGC() {
		t.Fatal("0 must leave the runtime default")
	}
	t.Setenv("GOGC", "150")
	if (Config{GCPercent: 400}).ApplyGC() {
		t.Fatal("GOGC set by the operator must win")
	}
}
