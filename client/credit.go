package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"strings"

	"github.com/smsdesk/smsdesk/model"
)

// ErrNoCreditEndpoint: the service answered GET /account/credit with 404 or
// 405, so it does not report credit. Callers turn the feature off quietly.
var ErrNoCreditEndpoint = errors.New("the service does not report credit")

// creditJSON is the documented answer's data: {"rial":…,"sms_count":…}.
type creditJSON struct {
	Rial     *creditNumber `json:"rial"`
	SMSCount *creditNumber `json:"sms_count"`
}

// creditEnvelope is the documented envelope around it.
type creditEnvelope struct {
	Success *bool           `json:"success"`
	Data    json.RawMessage `json:"data"`
}

// creditNumber is a whole amount given as a JSON number or a string of digits
// ("1200", "1,200"); fractions are dropped.
type creditNumber int64

// UnmarshalJSON reads a number or a numeric string.
func (n *creditNumber) UnmarshalJSON(b []byte) error {
	s := strings.TrimSpace(string(b))
	if strings.HasPrefix(s, `"`) {
		var str string
		if err := json.Unmarshal(b, &str); err != nil {
			return err
		}
		s = strings.ReplaceAll(strings.TrimSpace(str), ",", "")
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) || math.Abs(f) > 1<<62 {
		return fmt.Errorf("not an amount: %.20q", s)
	}
	*n = creditNumber(math.Floor(f))
	return nil
}

// Credit returns the account's credit: rial and SMS parts left (either may be
// missing). A 404 or 405 returns an error matching ErrNoCreditEndpoint; an
// answer with neither figure is an error, never a zero credit.
// GET /account/credit
func (c *Client) Credit(ctx context.Context) (model.Credit, error) {
	// One attempt: the credit is information for the confirmation; a service
	// that does not answer it now is named by the send itself, and waiting
	// out the retry budget here would only delay that.
	r := &request{method: http.MethodGet, u: c.resolve("account/credit"), policy: retryNever}
	res, err := c.do(ctx, r)
	if err != nil {
		var ae *APIError
		if errors.As(err, &ae) && (ae.Status == http.StatusNotFound || ae.Status == http.StatusMethodNotAllowed) {
			return model.Credit{}, fmt.Errorf("%w (%w)", ErrNoCreditEndpoint, err)
		}
		return model.Credit{}, err
	}
	path := c.shortPath(r.u)
	body := bytes.TrimSpace(res.body)
	if looksHTML(res.header, body) {
		return model.Credit{}, errorf(r.method, path, "the answer (status %d) is an HTML page, not JSON: is the base URL the API's?", res.status)
	}
	cr, refused, why := decodeCredit(body)
	if refused {
		return model.Credit{}, c.apiError(r.method, path, res.status, res.header, res.body, c.now())
	}
	if why != "" {
		return model.Credit{}, errorf(r.method, path, "unreadable credit answer: %s; it starts %q", why, c.clean(string(body), 80))
	}
	return cr, nil
}

// decodeCredit reads the documented envelope around {"rial","sms_count"}, or
// a bare object. refused is an envelope with "success":false; why names what
// made the answer unreadable.
func decodeCredit(body []byte) (cr model.Credit, refused bool, why string) {
	data := body
	var env creditEnvelope
	if err := json.Unmarshal(body, &env); err != nil {
		return cr, false, err.Error()
	}
	if env.Success != nil && !*env.Success {
		return cr, true, ""
	}
	if len(env.Data) > 0 && !bytes.Equal(env.Data, []byte("null")) {
		data = env.Data
	}
	var cj creditJSON
	if err := json.Unmarshal(data, &cj); err != nil {
		return cr, false, err.Error()
	}
	if cj.Rial != nil {
		cr.Rial, cr.HasRial = int64(*cj.Rial), true
	}
	if cj.SMSCount != nil {
		cr.Parts, cr.HasParts = int64(*cj.SMSCount), true
	}
	if !cr.HasRial && !cr.HasParts {
		return cr, false, "neither rial nor sms_count"
	}
	return cr, false, ""
}
