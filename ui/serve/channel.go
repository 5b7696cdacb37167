package serve

import (
	"charm.land/ssh"
	gossh "golang.org/x/crypto/ssh"
)

// Session requests the server answers no before its session handler sees
// them: agent forwarding (the library would say yes) and X11.
var refusedRequests = map[string]bool{"auth-agent-req@openssh.com": true, "x11-req": true}

// sessionOnly is the "session" channel handler with agent and X11
// forwarding requests refused.
func sessionOnly(srv *ssh.Server, conn *gossh.ServerConn, newChan gossh.NewChannel, ctx ssh.Context) {
	ssh.DefaultSessionHandler(srv, conn, filteredChannel{newChan}, ctx)
}

type filteredChannel struct{ gossh.NewChannel }

// Accept accepts the channel and passes on its requests but the refused ones.
func (c filteredChannel) Accept() (gossh.Channel, <-chan *gossh.Request, error) {
	ch, reqs, err := c.NewChannel.Accept()
	if err != nil {
		return ch, reqs, err
	}
	out := make(chan *gossh.Request)
	go func() { // ends when the channel's requests end
		defer close(out)
		for r := range reqs {
			if refusedRequests[r.Type] {
				if r.WantReply {
					_ = r.Reply(false, nil)
				}
				continue
			}
			out <- r
		}
	}()
	return ch, out, nil
}
