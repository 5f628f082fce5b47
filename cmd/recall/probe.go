package main

import (
	"fmt"
	"net/http"
	"time"
)

// probeCmd GETs a URL and fails unless it answers 2xx: the health check inside
// images that have no shell, curl or wget.
func probeCmd(args []string) error {
	fs := newFlags("probe")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: recall probe URL\n\nGETs URL and exits non-zero unless it answers 2xx within 3s (container health checks).")
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return fmt.Errorf("usage: recall probe URL")
	}
	url := fs.Arg(0)
	c := http.Client{Timeout: 3 * time.Second}
	resp, err := c.Get(url)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("%s: %s", url, resp.Status)
	}
	return nil
}
