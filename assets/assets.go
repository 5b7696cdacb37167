// Package assets holds smsdesk's files: the sandbox's seed data, embedded in
// the binary, and the sample CSV files the README uses (read from the
// checkout, not embedded):
//
//	seed.json             groups, contacts and sender lines for the sandbox (see Seed)
//	samples/pairs.csv     ten recipient,message rows in Persian and English
//	samples/contacts.csv  mobile,name rows in the spellings operators paste
package assets

import (
	"embed"
	"fmt"
)

//go:embed seed.json
var files embed.FS

// Seed returns the sandbox's seed data (seed.json), a fresh copy on every call.
//
// Shape:
//
//	{"senders": ["3000505", …],
//	 "groups": [{"name": "…", "description": "…",
//	             "contacts": [{"name": "…", "mobile": "09…"}, …],
//	             "generate": 300}, …]}
//
// "contacts" lists stored contacts; "generate", when set, asks the sandbox to make
// that many synthetic contacts in code (so large groups need not be stored here).
func Seed() []byte {
	b, err := files.ReadFile("seed.json")
	if err != nil {
		// seed.json is embedded at build time; missing means a broken build.
		panic(fmt.Sprintf("assets: embedded seed.json missing: %v", err))
	}
	return b
}

// SeedData is the shape of seed.json (see Seed).
type SeedData struct {
	Senders []string    `json:"senders"`
	Groups  []SeedGroup `json:"groups"`
}

// SeedGroup is one group of seed.json.
type SeedGroup struct {
	Name        string        `json:"name"`
	Description string        `json:"description"`
	Contacts    []SeedContact `json:"contacts"`
	Generate    int           `json:"generate"` // synthetic contacts to make in code
}

// SeedContact is one stored contact of seed.json.
type SeedContact struct {
	Name   string `json:"name"`
	Mobile string `json:"mobile"`
}
