package bench

import (
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// The CPU a process spent is read past its command, whatever the command
// holds, in USER_HZ.
func TestStatCPU(t *testing.T) {
	d, ok := statCPU([]byte("4242 (post gres: a) (b)) S 1 4242 4242 0 -1 4194560 320 0 0 0 250 75 0 0 20 0 1 0 98 2e+08 2000 18446744073709551615\n"))
	require.True(t, ok)
	require.Equal(t, 3250*time.Millisecond, d)
	_, ok = statCPU([]byte("4242 (cut short) S 1 2"))
	require.False(t, ok)
	_, ok = statCPU([]byte("no command at all"))
	require.False(t, ok)
}

// This process's own CPU grows as it works.
func TestCPUTimeOfThisProcess(t *testing.T) {
	before, ok := cpuTime(os.Getpid())
	require.True(t, ok)
	deadline := time.Now().Add(300 * time.Millisecond)
	x := 0
	for time.Now().Before(deadline) {
		x++
	}
	after, ok := cpuTime(os.Getpid())
	require.True(t, ok)
	require.Greater(t, after, before, "spun %d times", x)
	_, ok = cpuTime(-1)
	require.False(t, ok)
}
