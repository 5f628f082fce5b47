//go:build !linux

package main

import "syscall"

// childProcAttr puts a child in its own process group, so a Ctrl-C in the
// terminal reaches only the harness, which then stops the children itself.
func childProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}
