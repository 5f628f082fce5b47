package recallrun

import "syscall"

// childProcAttr puts the child in its own process group (Ctrl-C reaches only
// the evaluation, which stops the child itself) and has the kernel send it
// SIGTERM should the evaluation die without stopping it, e.g. killed by a
// test timeout, so no `recall run` is left behind.
func childProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
}
