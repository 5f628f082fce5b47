package recallrun

import (
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// AddFlags registers on fs the flags that say how to start the system
// (-recall-bin, -admin-url, -keep, -stop-timeout, -env, -v), so that every tool
// that starts one takes the same flags with the same defaults.
func (o *Options) AddFlags(fs *flag.FlagSet) {
	fs.StringVar(&o.RecallBin, "recall-bin", "", "prebuilt recall binary (default: go build ./cmd/recall into a temp dir)")
	fs.StringVar(&o.AdminURL, "admin-url", DefaultAdminURL, "PostgreSQL server the run's database is created on")
	fs.BoolVar(&o.Keep, "keep", false, "keep the run's database afterwards")
	fs.DurationVar(&o.StopTimeout, "stop-timeout", 30*time.Second, "how long recall run may take to drain after SIGTERM before it is killed")
	fs.Func("env", "a KEY=VALUE setting for recall run (repeatable), e.g. -env CONTEXT_RECALL_NEIGHBORS=0", func(v string) error {
		if !strings.Contains(v, "=") {
			return fmt.Errorf("want KEY=VALUE, got %q", v)
		}
		o.Env = append(o.Env, v)
		return nil
	})
	fs.BoolFunc("v", "also copy recall run's log to stderr", func(v string) error {
		on, err := strconv.ParseBool(v)
		if err != nil {
			return err
		}
		o.ChildLog = nil
		if on {
			o.ChildLog = os.Stderr
		}
		return nil
	})
}

// AddFlags registers on fs the flags that bound the wait for the pipeline
// (-wait-timeout, -settle), and sets the tools' poll interval (250 ms), so
// that every tool waits the same way.
func (o *SettleOptions) AddFlags(fs *flag.FlagSet) {
	fs.DurationVar(&o.Timeout, "wait-timeout", 10*time.Minute, "how long the pipeline may take to catch up")
	fs.DurationVar(&o.Quiet, "settle", 5*time.Second, "how long every consumer must stay caught up before the pipeline counts as settled")
	o.Poll = 250 * time.Millisecond
}
