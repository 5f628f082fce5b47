//go:build !linux

package recallrun

import "syscall"

// childProcAttr puts the child in its own process group, so a Ctrl-C in the
// terminal reaches only the evaluation, which stops the child itself.
func childProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}
