// Package assets holds the files smsdesk embeds in its binary: the sandbox's seed
// data and the sample CSV files used by the README and demos.
//
// Layout of the embedded tree (see FS):
//
//	seed.json             groups, contacts and sender lines for the sandbox (see Seed)
//	samples/pairs.csv     ten recipient,message rows in Persian and English
//	samples/contacts.csv  mobile,name rows in the spellings operators paste
package assets

import (
	"embed"
	"fmt"
	"io/fs"
)

//go:embed seed.json samples
var files embed.FS

// FS returns the embedded tree, read-only.
func FS() fs.FS { return files }

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

// Sample returns one file from samples/ by name, e.g. "pairs.csv".
func Sample(name string) ([]byte, error) {
	b, err := files.ReadFile("samples/" + name)
	if err != nil {
		return nil, fmt.Errorf("assets: sample %q: %w (samples are pairs.csv and contacts.csv)", name, err)
	}
	return b, nil
}
