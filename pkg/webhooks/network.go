package webhooks

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"strings"
	"syscall"
	"time"
)

// Network is which addresses webhook endpoints may reach. The API checks
// an endpoint's URL at registration and the webhooks worker checks every
// address it connects to, after resolution (so a name that resolves to a
// refused address later, DNS rebinding, is still refused). Both read this
// one setting.
type Network struct {
	// AllowPrivate lets webhook endpoints be on loopback (127.0.0.0/8,
	// ::1), link-local (169.254.0.0/16, fe80::/10), unspecified (0.0.0.0,
	// ::), private (10.0.0.0/8, 172.16.0.0/12, 192.168.0.0/16, fc00::/7) and
	// multicast addresses, which are refused otherwise so that a tenant's
	// endpoint cannot reach Recall's own network (its database, NATS, a
	// cloud's metadata service). Turn it on where receivers are meant to be
	// there (a receiver beside Recall, tests).
	AllowPrivate bool `env:"WEBHOOK_ALLOW_PRIVATE" envDefault:"false"`
}

// Refused says why addr may not be reached without AllowPrivate, "" when
// it may.
func Refused(addr netip.Addr) string {
	addr = addr.Unmap()
	switch {
	case !addr.IsValid():
		return "not an IP address"
	case addr.IsLoopback():
		return "a loopback address"
	case addr.IsLinkLocalUnicast(), addr.IsLinkLocalMulticast():
		return "a link-local address"
	case addr.IsUnspecified():
		return "the unspecified address"
	case addr.IsPrivate():
		return "a private address"
	case addr.IsMulticast(), addr.IsInterfaceLocalMulticast():
		return "a multicast address"
	}
	return ""
}

// RefusedError is an endpoint address the network setting refuses.
type RefusedError struct {
	Host string
	Addr netip.Addr
	Why  string
}

func (e *RefusedError) Error() string {
	if e.Host != "" && e.Host != e.Addr.String() {
		return fmt.Sprintf("%s resolves to %s, %s: refused (WEBHOOK_ALLOW_PRIVATE)", e.Host, e.Addr, e.Why)
	}
	return fmt.Sprintf("%s is %s: refused (WEBHOOK_ALLOW_PRIVATE)", e.Addr, e.Why)
}

// CheckURL says what is wrong with an endpoint's URL, nil when nothing:
// http or https, a host, no fragment, at most 2048 bytes, and, unless
// AllowPrivate, a host whose every address (it is resolved now) may be
// reached. A name that does not resolve now is let through: the dialer
// checks every address it connects to.
func (n Network) CheckURL(ctx context.Context, raw string) error {
	if len(raw) > 2048 {
		return fmt.Errorf("at most 2048 bytes")
	}
	u, err := url.Parse(raw)
	if err != nil {
		return fmt.Errorf("not a URL: %v", err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return fmt.Errorf("want an http or https URL")
	}
	host := u.Hostname()
	if host == "" {
		return fmt.Errorf("no host")
	}
	if u.Fragment != "" || strings.Contains(raw, "#") {
		return fmt.Errorf("no fragment (#...)")
	}
	if n.AllowPrivate {
		return nil
	}
	if a, err := netip.ParseAddr(host); err == nil {
		if why := Refused(a); why != "" {
			return &RefusedError{Addr: a.Unmap(), Why: why}
		}
		return nil
	}
	rctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	addrs, err := net.DefaultResolver.LookupNetIP(rctx, "ip", host)
	if err != nil {
		// Not (yet) in the DNS, or the DNS is down: nothing to refuse now,
		// and every connection is checked anyway.
		return nil
	}
	for _, a := range addrs {
		if why := Refused(a); why != "" {
			return &RefusedError{Host: host, Addr: a.Unmap(), Why: why}
		}
	}
	return nil
}

// Dialer is the dialer deliveries connect with: with AllowPrivate off, its
// Control refuses a connection to an address Refused names, checked on the
// address about to be connected to, after resolution.
func (n Network) Dialer(timeout time.Duration) *net.Dialer {
	d := &net.Dialer{Timeout: timeout, KeepAlive: 30 * time.Second}
	if !n.AllowPrivate {
		d.Control = checkDial
	}
	return d
}

// checkDial is a Dialer's Control: address is the IP and port being
// connected to.
func checkDial(_, address string, _ syscall.RawConn) error {
	host, _, err := net.SplitHostPort(address)
	if err != nil {
		return err
	}
	a, err := netip.ParseAddr(host)
	if err != nil {
		return fmt.Errorf("webhook address %q: %w", address, err)
	}
	if why := Refused(a); why != "" {
		return &RefusedError{Addr: a.Unmap(), Why: why}
	}
	return nil
}
