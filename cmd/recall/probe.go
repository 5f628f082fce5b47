package main

import (
	"fmt"
	"net/http"
	"time"
)

// probeCmd GETs a URL and fails unless it answers 2xx: the health check inside
// images that have no shell, curl or wget.
func probeCmd(args []string) error {
	if len(args) != 1 {
		return fmt.Errorf("usage: recall probe URL")
	}
	c := http.Client{Timeout: 3 * time.Second}
	resp, err := c.Get(args[0])
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("%s: %s", args[0], resp.Status)
	}
	return nil
}
