package app

import (
	"fmt"

	"github.com/smsdesk/smsdesk/model"
)

// SendStoppedError is a send a runner had started that a failed write to
// its journal stopped (Runner.Pass's and Loop's error): every request it
// made was recorded before it left, and its chunk in flight when the write
// failed may have gone (unknown). Any other error of a pass started no
// send.
type SendStoppedError struct {
	ID  string
	Err error
}

func (e *SendStoppedError) Error() string {
	return fmt.Sprintf("send %s stopped: %v", model.SanitizeLine(e.ID), e.Err)
}

// Unwrap gives the write's error.
func (e *SendStoppedError) Unwrap() error { return e.Err }
