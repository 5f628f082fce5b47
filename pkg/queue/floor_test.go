package queue

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// A consumer is done with a message once its ack floor has passed it, or
// once it has been handed the message and has nothing left to settle.
func TestFloorDone(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		floor Floor
		seq   uint64
		done  bool
	}{
		{"below the floor", Floor{AckFloor: 10, Delivered: 12, AckPending: 2}, 7, true},
		{"at the floor", Floor{AckFloor: 10, Delivered: 12, AckPending: 2}, 10, true},
		{"handed out, not settled", Floor{AckFloor: 10, Delivered: 12, AckPending: 2}, 11, false},
		{"not handed out yet", Floor{AckFloor: 12, Delivered: 12}, 13, false},
		{"handed out and nothing pending", Floor{AckFloor: 9, Delivered: 12}, 12, true},
		{"nothing pending, not handed out", Floor{AckFloor: 9, Delivered: 12}, 13, false},
		{"no sequence", Floor{AckFloor: 12, Delivered: 12}, 0, false},
	} {
		require.Equal(t, tc.done, tc.floor.Done(tc.seq), tc.name)
	}
}
