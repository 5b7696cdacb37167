package app

// A key proved against the service (login, status, doctor, the console's
// setup screen): one flow for every face, which words its own hints.

import (
	"context"
	"errors"

	"github.com/smsdesk/smsdesk/client"
	"github.com/smsdesk/smsdesk/config"
	"github.com/smsdesk/smsdesk/model"
)

// KeyProof is what ProveKey found.
type KeyProof struct {
	client.Proof
	// Answering is another documented form of the base URL (…/v1,
	// …/api/v1, the host's own) that answers as the API, when the one
	// given has none behind it; Tried are the forms tried (none answering).
	Answering string
	Tried     []string
}

// ProveKey asks the service whether it takes key (c is a client for the
// base URL and key), proving it with a 2xx answer for one of the profile's
// known groups too (paths' groups of prof). When the base URL has no API
// behind it (a web page, or every probe answered 404: client.ErrNotAPI,
// client.ErrNotProved), the other documented forms of it are tried with a
// client made as o says, and the one that answers is Answering; err is
// still the base URL's own.
func ProveKey(ctx context.Context, c *client.Client, paths config.Paths, prof *config.Profile, baseURL, key string, o ClientOptions) (KeyProof, error) {
	known := knownGroupIDs(paths, prof)
	proof, err := c.Prove(ctx, known...)
	kp := KeyProof{Proof: proof}
	if !errors.Is(err, client.ErrNotAPI) && !errors.Is(err, client.ErrNotProved) {
		return kp, err
	}
	for _, alt := range client.SiblingBaseURLs(baseURL) {
		kp.Tried = append(kp.Tried, alt)
		ac, aerr := NewClient(config.Paths{}, alt, key, prof, o)
		if aerr == nil && ac.Verify(ctx, known...) == nil {
			kp.Answering = alt
			break
		}
	}
	return kp, err
}

// knownGroupIDs are the groups the profile tracks, for proving a key with
// a 2xx answer (nil when there are none or they do not read).
func knownGroupIDs(paths config.Paths, prof *config.Profile) []model.ID {
	if prof == nil || prof.Name == "" {
		return nil
	}
	groups, err := config.LoadGroups(paths, prof.Name)
	if err != nil {
		return nil
	}
	ids := make([]model.ID, 0, len(groups))
	for _, g := range groups {
		ids = append(ids, g.ID)
	}
	return ids
}

// AccountCredit asks the service for the account's credit (status's line):
// client.ErrNoCreditEndpoint where the service has none.
func AccountCredit(ctx context.Context, c *client.Client) (model.Credit, error) {
	return c.Credit(ctx)
}
