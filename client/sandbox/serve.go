package sandbox

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/netip"
	"net/url"
	"os"
	"strings"
	"time"
)

// DefaultServeAddr is where Serve listens when addr is "".
const DefaultServeAddr = "127.0.0.1:8080"

// Serve runs a sandbox for `smsdesk sandbox`: it listens on addr (default
// DefaultServeAddr), prints the base URL, key and an example command to w, and
// blocks until ctx is done, then shuts down gracefully and flushes DataFile.
// An addr whose host is empty (":8080") is refused, because it would listen on
// every interface; name a host — 0.0.0.0 or a LAN address — to do that on purpose.
func Serve(ctx context.Context, opts Options, addr string, w io.Writer) error {
	if addr == "" {
		addr = DefaultServeAddr
	}
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("sandbox: address %q: %w (want host:port, e.g. %s)", addr, err, DefaultServeAddr)
	}
	if host == "" {
		return fmt.Errorf("sandbox: address %q would listen on every interface; use 127.0.0.1%s, or 0.0.0.0%s to expose it on purpose",
			addr, addr, addr)
	}
	// The address first: a sandbox that cannot listen (the port is busy)
	// must not create or rewrite the data file.
	ln, err := listen(addr)
	if err != nil {
		return err
	}
	s, err := New(opts)
	if err != nil {
		_ = ln.Close() // the error above is the one to report
		return err
	}
	base, err := s.serveOn(ln)
	if err != nil {
		_ = s.Close() // the error above is the one to report
		return err
	}
	base, others := usableURL(base)
	fmt.Fprintf(w, "smsdesk sandbox serving %s\n", base)
	if others != "" {
		fmt.Fprintf(w, "listening on every interface: from another machine use %s\n", others)
	}
	fmt.Fprintf(w, "API key: %s\n", s.Key())
	if !isLoopback(host) {
		fmt.Fprintf(w, "warning: %s is not a loopback address; anyone who can reach it and knows the key can use this sandbox\n", host)
	}
	if opts.RatePerMinute > 0 {
		fmt.Fprintf(w, "rate limit: %d requests per %s (%s; %s headers)\n", opts.RatePerMinute, windowText(s.opts.RateWindow), windowKindText(s.opts.RateWindowStart), s.opts.RateHeaders)
	}
	if opts.DataFile != "" {
		fmt.Fprintf(w, "data file: %s\n", opts.DataFile)
	}
	if !opts.NoCreditEndpoint {
		fmt.Fprintf(w, "credit: %d SMS parts\n", s.Credit())
	}
	if opts.WebhookURL != "" {
		fmt.Fprintf(w, "webhooks: posting to %s, signed (%.0f%% delivered, %.0f%% posted twice, %.0f%% out of order)\n",
			opts.WebhookURL, 100*(1-float64(s.opts.failPercent())/100), 100*opts.DuplicateShare, 100*opts.ReorderShare)
		reply := "smsdesk sandbox reply FROM LINE TEXT"
		if base != "http://"+DefaultServeAddr+"/api/v1" { // the reply's default: say where this one is
			reply += " --sandbox " + base
		}
		fmt.Fprintln(w, "replies: "+reply)
	}
	fmt.Fprintf(w, "try: SMSDESK_BASE_URL=%s SMSDESK_API_KEY=%s smsdesk contacts list 1\n", base, s.Key())
	fmt.Fprintln(w, "stop with ctrl+c")

	<-ctx.Done()
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := s.shutdown(sctx, true); err != nil {
		return err
	}
	fmt.Fprintln(w, "smsdesk sandbox stopped")
	return nil
}

// usableURL turns the base URL of a wildcard listener ("http://[::]:8080/…",
// what 0.0.0.0 reports) into one that works from this machine, through
// loopback, and says how other machines reach it (this host's name in place
// of the wildcard). Other URLs are returned as they are.
func usableURL(base string) (local, others string) {
	u, err := url.Parse(base)
	if err != nil {
		return base, ""
	}
	ip, err := netip.ParseAddr(strings.Trim(u.Hostname(), "[]"))
	if err != nil || !ip.IsUnspecified() {
		return base, ""
	}
	port := u.Port()
	if h, err := os.Hostname(); err == nil && h != "" {
		o := *u
		o.Host = net.JoinHostPort(h, port)
		others = o.String()
	}
	u.Host = net.JoinHostPort("127.0.0.1", port)
	return u.String(), others
}

// isLoopback reports whether host names this machine only.
func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip, err := netip.ParseAddr(strings.Trim(host, "[]"))
	return err == nil && ip.IsLoopback()
}
