package client

import (
	"fmt"
	"net"
	"net/url"
	"strings"
)

// normalizeBaseURL turns a base URL as operators paste it into the API root,
// ending in "/": a path ending in /v1 already holds the version, one ending in
// /api gets /v1, anything else gets /api/v1.
func normalizeBaseURL(raw string, allowInsecure bool) (*url.URL, error) {
	s := strings.TrimSpace(raw)
	if s == "" {
		return nil, fmt.Errorf("base URL is empty: set it with --base-url or SMSDESK_BASE_URL (for example https://sms.example.com/v1)")
	}
	if !strings.Contains(s, "://") {
		return nil, fmt.Errorf("base URL %q has no scheme: write it as https://%s", sanitizeForError(s), sanitizeForError(s))
	}
	u, err := url.Parse(s)
	if err != nil {
		// url.Error quotes the URL, which may hold a password; say less.
		return nil, fmt.Errorf("base URL is not a valid URL: write it as https://host or https://host/v1")
	}
	if err := checkBaseURL(u, s, allowInsecure); err != nil {
		return nil, err
	}
	p := endpointRoot(strings.TrimRight(u.Path, "/"))
	low := strings.ToLower(p)
	switch {
	case strings.HasSuffix(low, "/v1"):
	case strings.HasSuffix(low, "/api"):
		p += "/v1"
	default:
		p += "/api/v1"
	}
	return &url.URL{
		Scheme: strings.ToLower(u.Scheme),
		Host:   strings.ToLower(u.Host),
		Path:   p + "/",
	}, nil
}

// endpointRoot cuts an endpoint's URL pasted from the docs
// (https://host/api/v1/sms/send-pair) back to its API root: the path up to a
// "v1" segment that one of the API's resources follows.
func endpointRoot(p string) string {
	segs := strings.Split(p, "/")
	for i := len(segs) - 2; i >= 0; i-- {
		if strings.EqualFold(segs[i], "v1") {
			switch strings.ToLower(segs[i+1]) {
			case "contact-groups", "contacts", "sms", "account":
				return strings.Join(segs[:i+1], "/")
			}
		}
	}
	return p
}

// checkBaseURL refuses a parsed base URL (s as given) that holds a user,
// query or fragment, has no host or another scheme, or is plain http to a
// host that is not loopback without allowInsecure.
func checkBaseURL(u *url.URL, s string, allowInsecure bool) error {
	if u.User != nil {
		return fmt.Errorf("base URL for %s holds a user name or password: remove it; the API key is given separately (smsdesk login or SMSDESK_API_KEY)", sanitizeForError(u.Host))
	}
	scheme := strings.ToLower(u.Scheme)
	if scheme != "https" && scheme != "http" {
		return fmt.Errorf("base URL scheme %q is not supported: use https://", sanitizeForError(u.Scheme))
	}
	if u.Host == "" || u.Hostname() == "" {
		return fmt.Errorf("base URL %q has no host: write it as https://host/v1", sanitizeForError(s))
	}
	if u.RawQuery != "" || u.ForceQuery {
		return fmt.Errorf("base URL %q has a query (?…): remove it; the base URL is only scheme, host and path", sanitizeForError(s))
	}
	if u.Fragment != "" || strings.Contains(s, "#") {
		return fmt.Errorf("base URL %q has a fragment (#…): remove it", sanitizeForError(s))
	}
	if u.Opaque != "" {
		return fmt.Errorf("base URL %q is not a valid URL: write it as https://host/v1", sanitizeForError(s))
	}
	if scheme == "http" && !allowInsecure && !isLoopback(u.Hostname()) {
		return fmt.Errorf("base URL uses plain http to %s, which would send the API key unencrypted: use https, or set allow_insecure_http = true in the profile if you really mean it", sanitizeForError(u.Hostname()))
	}
	return nil
}

// isLoopback reports whether host is localhost or a loopback address
// (127.0.0.0/8, ::1).
func isLoopback(host string) bool {
	h := strings.TrimSuffix(strings.ToLower(host), ".")
	if h == "localhost" || strings.HasSuffix(h, ".localhost") {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

// sameOrigin reports whether u is on the base URL's scheme, host and port.
func sameOrigin(u, base *url.URL) bool {
	return strings.EqualFold(u.Scheme, base.Scheme) && hostPort(u) == hostPort(base)
}

// hostPort is the lower-case host with the scheme's default port made explicit.
func hostPort(u *url.URL) string {
	port := u.Port()
	if port == "" {
		switch strings.ToLower(u.Scheme) {
		case "https":
			port = "443"
		case "http":
			port = "80"
		}
	}
	return net.JoinHostPort(strings.ToLower(u.Hostname()), port)
}

// resolve turns a path relative to the API root ("contacts/12", with ids
// escaped by url.PathEscape) into a URL under the base.
func (c *Client) resolve(rel string) *url.URL {
	r, err := url.Parse(rel)
	if err != nil {
		r = &url.URL{Path: rel}
	}
	return c.base.ResolveReference(r)
}

// shortPath is u's path relative to the API root, with a leading "/", for
// errors and logs ("/contacts/12"); a path outside the root is given whole.
func (c *Client) shortPath(u *url.URL) string {
	p := u.EscapedPath()
	root := strings.TrimSuffix(c.base.EscapedPath(), "/")
	if strings.HasPrefix(p, root+"/") {
		p = p[len(root):]
	}
	if u.RawQuery != "" {
		p += "?" + u.RawQuery
	}
	return sanitizeForError(p)
}
