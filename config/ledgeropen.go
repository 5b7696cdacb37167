package config

// Which ledger a process uses, and the rule that keeps it honest: config.toml
// records the id of the ledger it was used with, so that a ledger that has
// gone is refused, never silently made anew (an empty ledger forgets the
// opt-out list, the once-only ids and what was sent), and another ledger in
// its place is refused too.

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"

	"github.com/smsdesk/smsdesk/config/ledger"
)

// Errors of the ledger's place.
var (
	// ErrLedgerGone: config.toml records a ledger, and none is where it was.
	ErrLedgerGone = errors.New("the ledger has gone")
	// ErrOtherLedger: the ledger where it should be is not the one
	// config.toml records.
	ErrOtherLedger = errors.New("another ledger than config.toml records")
	// ErrNoLedgerYet: no ledger yet and none recorded (a first run);
	// OpenLedger makes one, ReadLedger does not.
	ErrNoLedgerYet = errors.New("no ledger yet")
	// ErrLedgerLocation: a ledger location that is neither a file's path
	// nor a postgres:// URL without a password (CheckLedgerLocation).
	ErrLedgerLocation = errors.New("not a ledger location")
	// ErrPasswordInURL: a ledger URL that holds a password (errors.Is
	// ErrLedgerLocation too).
	ErrPasswordInURL error = passwordError{}
)

type passwordError struct{}

func (passwordError) Error() string        { return "the ledger URL holds a password" }
func (passwordError) Is(target error) bool { return target == ErrLedgerLocation }

// LedgerPlace is the ledger in force for a process, where that was decided,
// and the id config.toml records for it.
type LedgerPlace struct {
	// Location is a SQLite file's absolute path or a postgres:// URL.
	Location string
	// Source says where Location comes from: "SMSDESK_LEDGER", "config
	// file PATH" or "default".
	Source string
	// RecordedID is config.toml's ledger_id ("" when none is recorded).
	RecordedID string
}

// Where is the location fit to print: a URL without a password.
func (pl LedgerPlace) Where() string { return ledger.Redact(pl.Location) }

// Backend is the kind of store Location names.
func (pl LedgerPlace) Backend() ledger.Backend {
	if ledger.IsPostgres(pl.Location) {
		return ledger.Postgres
	}
	return ledger.SQLite
}

// LedgerPlaceOf is the ledger in force: $SMSDESK_LEDGER (as the paths were
// made with), else config.toml's ledger, else <state dir>/smsdesk.db (as
// Paths.LedgerLocation).
func LedgerPlaceOf(p Paths, c *Config) LedgerPlace {
	pl := LedgerPlace{RecordedID: c.LedgerID}
	switch {
	case p.ledger != nil && p.ledger.env != "":
		pl.Location, pl.Source = p.ledger.env, EnvLedger
	case c.Ledger != "":
		pl.Location, pl.Source = c.Ledger, "config file "+p.ConfigFile
	default:
		pl.Location, pl.Source = filepath.Join(p.StateDir, ledger.FileName), sourceDefault
	}
	if !ledger.IsPostgres(pl.Location) {
		if abs, err := filepath.Abs(pl.Location); err == nil {
			pl.Location = abs
		}
	}
	return pl
}

// checkedPlace is the ledger in force for p (ReadLedgerPlace), refused
// when its location is no ledger's (check).
func checkedPlace(p Paths) (LedgerPlace, error) {
	pl, err := ReadLedgerPlace(p)
	if err != nil {
		return LedgerPlace{}, err
	}
	return pl, pl.check()
}

// ReadLedgerPlace is the ledger in force for p, from config.toml as it is.
func ReadLedgerPlace(p Paths) (LedgerPlace, error) {
	c, err := Load(p)
	if err != nil {
		return LedgerPlace{}, err
	}
	return LedgerPlaceOf(p, c), nil
}

// CheckLedgerLocation reads a ledger's location as `config set ledger` is
// given it: a postgres:// URL without a password (ErrPasswordInURL: it
// would be kept in config.toml and printed; PGPASSWORD or ~/.pgpass give
// it), or a SQLite file's path (made absolute). Nothing here connects.
func CheckLedgerLocation(location string) (string, error) {
	location = strings.TrimSpace(location)
	switch {
	case location == "":
		return "", fmt.Errorf("%w: give a SQLite file's path or a postgres:// URL (`smsdesk config unset ledger` goes back to the default)", ErrLedgerLocation)
	case ledger.IsPostgres(location):
		u, err := url.Parse(location)
		if err != nil {
			return "", fmt.Errorf("%s: %w: it does not read as a URL", ledger.Redact(location), ErrLedgerLocation)
		}
		if _, ok := u.User.Password(); ok || u.Query().Has("password") {
			return "", fmt.Errorf("%s: %w; smsdesk keeps the URL in config.toml and prints it: write it without the password and give the password in PGPASSWORD or ~/.pgpass", ledger.Redact(location), ErrPasswordInURL)
		}
		return location, nil
	case strings.Contains(location, "://"):
		return "", fmt.Errorf("%s: %w: smsdesk keeps its ledger in a SQLite file (a path) or in PostgreSQL (postgres://…)", ledger.Redact(location), ErrLedgerLocation)
	}
	abs, err := filepath.Abs(location)
	if err != nil {
		return "", fmt.Errorf("%s: %w: %w", location, ErrLedgerLocation, err)
	}
	return abs, nil
}

// LedgerGoneError is a ledger config.toml records that is not where it was.
type LedgerGoneError struct {
	Place LedgerPlace
}

// Error says so, how to restore it, and how to start over.
func (e *LedgerGoneError) Error() string {
	restore := "with no smsdesk running, copy the latest `smsdesk ledger backup` file to " + e.Place.Where() + " and delete any " + filepath.Base(e.Place.Where()) + "-wal and -shm left beside it"
	if e.Place.Backend() == ledger.Postgres {
		restore = "pg_restore the latest pg_dump into that database"
	}
	return fmt.Sprintf("the ledger %s has gone (config.toml records ledger %s); nothing was sent. Restore it from a backup (%s), or start over with `smsdesk ledger init --new` (an empty ledger: no opt-out list, no once-only ids, no history)",
		e.Place.Where(), e.Place.RecordedID, restore)
}

// Unwrap gives ErrLedgerGone and ledger.ErrMissing.
func (e *LedgerGoneError) Unwrap() []error { return []error{ErrLedgerGone, ledger.ErrMissing} }

// OtherLedgerError is a ledger whose id is not the one config.toml records.
type OtherLedgerError struct {
	Place LedgerPlace
	ID    string // the id of the ledger found there
}

// Error says which two ledgers differ and how to go on.
func (e *OtherLedgerError) Error() string {
	return fmt.Sprintf("the ledger %s is ledger %s, but config.toml records ledger %s; nothing was sent. Its opt-out list and sends are not the ones this machine kept (another database, or a backup of another ledger). Point smsdesk back at its own ledger, or, to use this one from now on, `smsdesk config set ledger %s`",
		e.Place.Where(), e.ID, e.Place.RecordedID, e.Place.Where())
}

// Unwrap gives ErrOtherLedger.
func (e *OtherLedgerError) Unwrap() error { return ErrOtherLedger }

// openLedger opens the process's ledger (LedgerPlaceOf; Paths.Ledger keeps
// it) and checks it is the one config.toml records. None there but one recorded is a
// *LedgerGoneError; another ledger is an *OtherLedgerError. None there and
// none recorded (a first run) makes the default one, in the state
// directory, and records its id; a ledger SMSDESK_LEDGER or config.toml
// names is only opened (ErrNoLedgerYet: `smsdesk ledger init` makes it,
// so that a team's hosts do not each make one). A ledger that opens while
// none is recorded (one made before ids were recorded, or a team's
// PostgreSQL ledger this host joins) has its id recorded. A state directory
// of the file store was imported before (Paths.Ledger, config/legacy).
func openLedger(ctx context.Context, p Paths) (*ledger.Ledger, error) {
	pl, err := checkedPlace(p)
	if err != nil {
		return nil, err
	}
	l, err := ledger.Open(ctx, pl.Location)
	switch {
	case errors.Is(err, ledger.ErrMissing) && pl.RecordedID != "":
		return nil, &LedgerGoneError{Place: pl}
	case errors.Is(err, ledger.ErrMissing) && pl.Source != sourceDefault:
		return nil, pl.noneYet()
	case errors.Is(err, ledger.ErrMissing):
		l, err = createOrOpen(ctx, pl.Location)
	}
	if err != nil {
		return nil, err
	}
	if err := recordLedger(p, pl, l.ID(), false); err != nil {
		_ = l.Close() // the error above is the one to report
		return nil, err
	}
	return l, nil
}

// createOrOpen makes a ledger at location, or opens the one another
// process made there first.
func createOrOpen(ctx context.Context, location string) (*ledger.Ledger, error) {
	l, err := ledger.Create(ctx, location)
	if err == nil {
		return l, nil
	}
	if l2, err2 := ledger.Open(ctx, location); err2 == nil {
		return l2, nil
	}
	return nil, err
}

// check refuses a location that is no ledger's (CheckLedgerLocation),
// naming where it came from.
func (pl LedgerPlace) check() error {
	if _, err := CheckLedgerLocation(pl.Location); err != nil {
		return fmt.Errorf("the ledger named by %s: %w", pl.Source, err)
	}
	return nil
}

// sourceDefault is LedgerPlace.Source for <state dir>/smsdesk.db.
const sourceDefault = "default"

// noneYet is ErrNoLedgerYet for pl, with who makes it.
func (pl LedgerPlace) noneYet() error {
	if pl.Source == sourceDefault {
		return fmt.Errorf("%s: %w (the first command that needs it makes one; `smsdesk ledger init` makes it now)", pl.Where(), ErrNoLedgerYet)
	}
	return fmt.Errorf("%s: %w (named by %s): `smsdesk ledger init` makes it", pl.Where(), ErrNoLedgerYet, pl.Source)
}

// ReadLedger opens the process's ledger as OpenLedger does, to look at it
// (ledger status, doctor, backup): it never makes one (none there and none
// recorded is ErrNoLedgerYet) and writes nothing to config.toml.
func ReadLedger(ctx context.Context, p Paths) (LedgerPlace, *ledger.Ledger, error) {
	pl, err := checkedPlace(p)
	if err != nil {
		return pl, nil, err
	}
	l, err := ledger.Open(ctx, pl.Location)
	switch {
	case errors.Is(err, ledger.ErrMissing) && pl.RecordedID != "":
		return pl, nil, &LedgerGoneError{Place: pl}
	case errors.Is(err, ledger.ErrMissing):
		return pl, nil, pl.noneYet()
	case err != nil:
		return pl, nil, err
	}
	if pl.RecordedID != "" && pl.RecordedID != l.ID() {
		id := l.ID()
		_ = l.Close() // the error above is the one to report
		return pl, nil, &OtherLedgerError{Place: pl, ID: id}
	}
	return pl, l, nil
}

// LedgerThereError is `ledger init` finding a ledger that opens where it
// would make one.
type LedgerThereError struct {
	Place LedgerPlace
	ID    string
}

func (e *LedgerThereError) Error() string {
	return fmt.Sprintf("a ledger is at %s already (ledger %s): smsdesk never replaces one; to start over, back it up (smsdesk ledger backup FILE) and move it aside first", e.Place.Where(), e.ID)
}

// Unwrap gives ledger.ErrExists.
func (e *LedgerThereError) Unwrap() error { return ledger.ErrExists }

// CreateLedger makes a new, empty ledger where the process's ledger is to be
// (`smsdesk ledger init`) and records its id in config.toml. A ledger there
// is never replaced: one that opens is a *LedgerThereError, a damaged one
// its *ledger.DamagedError. Where config.toml records a ledger that has
// gone, only startOver (--new) makes one (else a *LedgerGoneError).
func CreateLedger(ctx context.Context, p Paths, startOver bool) (*ledger.Ledger, error) {
	pl, err := checkedPlace(p)
	if err != nil {
		return nil, err
	}
	l, err := ledger.Open(ctx, pl.Location)
	if err == nil {
		id := l.ID()
		_ = l.Close() // opened only to read its id: nothing written to lose
		return nil, &LedgerThereError{Place: pl, ID: id}
	}
	if !errors.Is(err, ledger.ErrMissing) {
		return nil, err
	}
	if pl.RecordedID != "" && !startOver {
		return nil, &LedgerGoneError{Place: pl}
	}
	l, err = ledger.Create(ctx, pl.Location)
	if err != nil {
		return nil, err
	}
	if err := recordLedger(p, pl, l.ID(), true); err != nil {
		_ = l.Close() // the error above is the one to report
		return nil, err
	}
	return l, nil
}

// recordLedger records id as config.toml's ledger_id under the file's
// lock: where none is recorded; over pl.RecordedID when replace is set (a
// new ledger asked for). An id recorded meanwhile by another process that
// differs is an *OtherLedgerError.
func recordLedger(p Paths, pl LedgerPlace, id string, replace bool) error {
	if pl.RecordedID == id {
		return nil
	}
	if pl.RecordedID != "" && !replace {
		return &OtherLedgerError{Place: pl, ID: id}
	}
	_, err := Update(p, func(c *Config) error {
		switch c.LedgerID {
		case id:
		case "", pl.RecordedID:
			c.LedgerID = id
		default:
			return &OtherLedgerError{Place: LedgerPlace{Location: pl.Location, Source: pl.Source, RecordedID: c.LedgerID}, ID: id}
		}
		return nil
	})
	var oe *OtherLedgerError
	if err != nil && !errors.As(err, &oe) {
		return fmt.Errorf("recording ledger %s in %s: %w", id, p.ConfigFile, err)
	}
	return err
}

// LedgerChange is what SetLedger did.
type LedgerChange struct {
	Place LedgerPlace // the ledger in force now (RecordedID: its id, "" when none is there yet)
	// Before is the ledger config.toml recorded before, when it is another.
	Before LedgerPlace
	Status ledger.Status // the ledger found there (ID "" when none is there yet)
}

// SetLedger makes location (CheckLedgerLocation; "" for the default, as
// `config unset ledger`) the ledger of every profile: it opens the ledger
// there, records it and its id in config.toml, or, when none is there yet,
// records the location with no id (`smsdesk ledger init` makes one; the
// default one, the first command that needs it). A ledger that does not open (damaged, unreachable, newer) is
// refused and nothing is changed, and so is the recorded ledger's own
// location when it has gone (LedgerGoneError). Setting it is how an operator says that
// the ledger found there is theirs from now on (the way on from an
// *OtherLedgerError).
func SetLedger(ctx context.Context, p Paths, location string) (LedgerChange, error) {
	if location != "" {
		var err error
		if location, err = CheckLedgerLocation(location); err != nil {
			return LedgerChange{}, err
		}
	}
	c, err := Load(p)
	if err != nil {
		return LedgerChange{}, err
	}
	before := LedgerPlaceOf(p, c)
	c.Ledger = location
	pl := LedgerPlaceOf(Paths{ConfigFile: p.ConfigFile, StateDir: p.StateDir}, c)
	ch := LedgerChange{Place: pl}
	if before.RecordedID != "" && before.Location != pl.Location {
		ch.Before = before
	}
	l, err := ledger.Open(ctx, pl.Location)
	switch {
	case errors.Is(err, ledger.ErrMissing) && before.RecordedID != "" && before.Location == pl.Location:
		// The recorded ledger itself, gone: pointing at it again must not
		// forget that it was there.
		return LedgerChange{}, &LedgerGoneError{Place: before}
	case errors.Is(err, ledger.ErrMissing):
		ch.Place.RecordedID = ""
	case err != nil:
		return LedgerChange{}, fmt.Errorf("%w; nothing was changed", err)
	default:
		ch.Status, err = l.Status(ctx)
		_ = l.Close() // opened only to read its status: nothing written to lose
		if err != nil {
			return LedgerChange{}, fmt.Errorf("%w; nothing was changed", err)
		}
		ch.Place.RecordedID = ch.Status.ID
	}
	_, err = Update(p, func(c *Config) error {
		c.Ledger, c.LedgerID = location, ch.Place.RecordedID
		return nil
	})
	return ch, err
}
