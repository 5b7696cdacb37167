package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/smsdesk/smsdesk/client"
	"github.com/smsdesk/smsdesk/config"
	"github.com/smsdesk/smsdesk/model"
)

// sourceArgs names pairs given with --to and --message.
const sourceArgs = "--to/--message"

// creditTimeout bounds the credit look-up before a send; a slow answer only
// leaves the credit unknown.
const creditTimeout = 10 * time.Second

// planRows reads the rows to send and names their source for messages: a
// pairs file, a file rendered through --template, or a group's contacts
// rendered through --template.
func (a *app) planRows(ctx context.Context, s *session, f sendPairFlags) ([]model.PairRow, string, error) {
	if len(f.to) > 0 {
		rows := make([]model.PairRow, len(f.to))
		for i := range f.to {
			rows[i] = model.PairRow{Line: i + 1, Recipient: strings.TrimSpace(f.to[i]), Message: strings.TrimSpace(f.message[i])}
		}
		return rows, sourceArgs, nil
	}
	var tmpl *model.Template
	if f.template != "" {
		t, err := model.ParseTemplate(f.template)
		if err != nil {
			return nil, "", usageError("--template: %w", err)
		}
		tmpl = t
	}
	if f.file == "" {
		groupID, err := groupIDArg(s.Paths, s.ProfileName, f.group)
		if err != nil {
			return nil, "", err
		}
		contacts, err := s.Client.ListContacts(ctx, groupID, nil)
		if err != nil {
			return nil, "", fmt.Errorf("listing group %s: %w; nothing was sent", model.SanitizeLine(f.group), err)
		}
		crs := make([]model.ContactRow, len(contacts))
		for i, c := range contacts {
			// the client keeps names exact; a message gets them sanitised, as it always has
			crs[i] = model.ContactRow{Line: i + 1, Mobile: c.Mobile, Name: model.SanitizeLine(c.Name)}
		}
		rows, err := model.PairsFromTemplate(tmpl, crs)
		if err != nil {
			return nil, "", usageError("group %s contact %w; nothing was sent", model.SanitizeLine(f.group), err)
		}
		return rows, "group " + model.SanitizeLine(f.group), nil
	}
	name := filepath.Base(f.file)
	var fh io.Reader
	if f.file == "-" {
		// The pairs come on stdin, so the question cannot be asked there.
		if !f.yes && !f.dryRun {
			return nil, "", usageError("--file - reads the rows from stdin, where smsdesk would ask before sending: pass --yes (or --dry-run)")
		}
		name, fh = "stdin", a.env.Stdin
	} else {
		file, err := os.Open(f.file)
		if err != nil {
			return nil, "", usageError("opening %s: %w", f.file, err)
		}
		defer file.Close()
		fh = file
	}
	var err error
	var rows []model.PairRow
	if tmpl != nil {
		var crs []model.ContactRow
		err = model.ReadContacts(fh, func(r model.ContactRow) error { crs = append(crs, r); return nil })
		if err == nil {
			rows, err = model.PairsFromTemplate(tmpl, crs)
		}
		if err != nil {
			return nil, "", usageError("%w; nothing was sent", model.NameCSVError(err, name))
		}
		return rows, name, nil
	}
	err = model.ReadPairsWith(fh, model.PairsOptions{MessageColumn: f.messageColumn}, func(r model.PairRow) error { rows = append(rows, r); return nil })
	switch {
	case errors.Is(err, model.ErrNoMessageColumn) && f.messageColumn == "":
		return nil, "", usageError("%w; nothing was sent\n  → to write one message for every row, use --template, e.g. --template \"Hi {name|friend}\" (any column works: {city}, {code}); if a column holds each row's message, name it with --message-column COLUMN",
			model.NameCSVError(err, name))
	case err != nil:
		return nil, "", usageError("%w; nothing was sent", model.NameCSVError(err, name))
	}
	return rows, name, nil
}

// sendFacts gathers what the send rules weigh besides the plan: the
// profile's lines, prices and pace, this profile's recent sends, and the
// account's credit when the service tells it (online only).
func (a *app) sendFacts(ctx context.Context, s *session) (model.SendFacts, error) {
	p := s.Profile
	facts := model.SendFacts{
		Profile: s.ProfileName, Lines: model.KnownLines(p.Senders, p.Sender),
		Prices:        model.Prices{GSM7: p.PriceGSM7, UCS2: p.PriceUCS2},
		RatePerMinute: firstPositive(p.RatePerMinute, config.DefaultRatePerMinute),
		ChunkSize:     firstPositive(p.ChunkSize, config.DefaultChunkSize), Now: time.Now(),
	}
	window, err := p.Window()
	if err != nil {
		return facts, usageError("profile %s: repeat_window: %w", s.ProfileName, err)
	}
	if window > 0 {
		facts.Since = facts.Now.Add(-window)
		hist, err := config.RecentPairs(s.Paths, s.ProfileName, facts.Since)
		if err != nil {
			return facts, fmt.Errorf("checking earlier sends for repeats: %w; nothing was sent", err)
		}
		facts.History = hist
	}
	if s.Client != nil {
		facts.Credit = a.credit(ctx, s.Client)
	}
	return facts, nil
}

// credit asks the service for the account's credit: nil when it does not
// tell (404/405, quietly) or cannot now (a note on stderr; the send is not
// held up by it).
func (a *app) credit(ctx context.Context, c *client.Client) *model.Credit {
	cctx, cancel := context.WithTimeout(ctx, creditTimeout)
	defer cancel()
	cr, err := c.Credit(cctx)
	switch {
	case errors.Is(err, client.ErrNoCreditEndpoint):
		return nil
	case err != nil:
		fmt.Fprintf(a.env.Stderr, "note: the account's credit is unknown (%s)\n", cleanError(err))
		return nil
	}
	return &cr
}

// refuse prints why the plan may not be sent and returns the exit-2 error;
// nil when it may go. Repeats refuse unless allowRepeat. With --json the
// problems are also one object on stdout, for a script to read row by row.
func (a *app) refuse(plan *model.SendPlan, v *model.Verdict, facts model.SendFacts, source string, allowRepeat, asJSON bool) error {
	w := a.env.Stderr
	if asJSON && (v.Blocked() || len(v.Repeats) > 0 && !allowRepeat) {
		if err := printJSON(a.env.Stdout, planProblemsJSON(plan, v, facts, source)); err != nil {
			return err
		}
	}
	where := "line"
	switch {
	case strings.HasPrefix(source, "group "):
		where = "contact"
	case source == sourceArgs:
		where = "pair"
	}
	for _, it := range v.Bad {
		fmt.Fprintf(w, "%s %s %d (%s): %s\n", source, where, it.Line, model.SanitizeLine(it.Input),
			model.SanitizeLine(strings.Join(it.Problems, "; ")))
	}
	for _, p := range v.Problems {
		fmt.Fprintf(w, "%s\n", model.SanitizeLine(p))
	}
	switch {
	case len(v.Bad) > 0:
		return usageError("%d of %d rows in %s cannot be sent; nothing was sent (fix them and run again)", len(v.Bad), len(plan.Items), source)
	case len(v.Problems) == 1:
		return usageError("%s; nothing was sent%s", model.SanitizeLine(v.Problems[0]), problemHint(v.Problems[0], facts.Profile))
	case len(v.Problems) > 1:
		return usageError("%d problems above; nothing was sent", len(v.Problems))
	}
	if len(v.Repeats) == 0 {
		return nil
	}
	for _, r := range v.Repeats {
		fmt.Fprintf(w, "repeat: %s\n", r.Problem(facts.Now))
	}
	if allowRepeat {
		fmt.Fprintf(w, "--allow-repeat: %d pair(s) go again\n", v.RepeatedPairs())
		return nil
	}
	return usageError("%d of %d pairs were already accepted within the repeat window; nothing was sent (pass --allow-repeat to send them again, or set repeat_window)",
		v.RepeatedPairs(), len(plan.Items))
}

// problemHint says what to do about a plan-wide problem.
func problemHint(problem, profile string) string {
	switch {
	case strings.HasPrefix(problem, "sender "):
		return fmt.Sprintf("\n  → pass --sender with one of them, or record the account's lines: smsdesk --profile %s config set senders LINE1,LINE2", profile)
	case strings.HasPrefix(problem, "not enough credit"):
		return "\n  → top up the account, then run the same command again"
	}
	return ""
}

// printSendSummary writes what is about to go: who sends from where, the
// parts by encoding, cost and credit where known, the duration, and the
// first messages in full.
func printSendSummary(w io.Writer, s *session, v *model.Verdict, source string) {
	sum := v.Summary
	kind := config.KeyKind(s.key)
	if kind == "" {
		kind = "unknown kind of"
	}
	fmt.Fprintf(w, "Profile %s on %s, %s key · sender %s · %s\n", s.ProfileName, hostOf(s.BaseURL), kind,
		model.SanitizeLine(sum.Sender), model.SanitizeLine(source))
	line := fmt.Sprintf("%s recipients · %s", model.Thousands(int64(sum.Recipients)), sum.PartsText())
	if c := sum.CostText(); c != "" {
		line += " · cost " + c
	}
	fmt.Fprintln(w, line)
	if c := sum.CreditText(); c != "" {
		fmt.Fprintf(w, "Credit: %s\n", c)
	}
	fmt.Fprintf(w, "Time: %s\n", sum.DurationText(firstPositive(s.Profile.RatePerMinute, config.DefaultRatePerMinute)))
	printSamples(w, sum)
}

// printSamples writes the first messages exactly as they will be sent (each
// line of a message indented; controls shown escaped).
func printSamples(w io.Writer, sum model.PlanSummary) {
	if len(sum.Samples) == 0 {
		return
	}
	fmt.Fprintf(w, "First %d of %d messages, as they will be sent:\n", len(sum.Samples), sum.Recipients)
	for _, it := range sum.Samples {
		text := strings.ReplaceAll(model.Sanitize(it.Message), "\n", "\n      ")
		fmt.Fprintf(w, "  → %s (%d %s, %d part(s)):\n      %s\n", model.SanitizeLine(it.Recipient), it.Parts.Chars, it.Parts.Encoding, it.Parts.Parts, text)
	}
}

// planProblemJSON is one row that cannot be sent, under --json.
type planProblemJSON struct {
	Source   string   `json:"source"`
	Line     int      `json:"line"`
	Input    string   `json:"input"`
	Problems []string `json:"problems"`
}

// planProblemsJSON is what a refused plan prints on stdout under --json:
// {"sent": 0, "rows": [...], "problems": [...], "repeats": [...]}.
func planProblemsJSON(plan *model.SendPlan, v *model.Verdict, facts model.SendFacts, source string) map[string]any {
	rows := make([]planProblemJSON, len(v.Bad))
	for i, it := range v.Bad {
		rows[i] = planProblemJSON{Source: source, Line: it.Line, Input: it.Input, Problems: it.Problems}
	}
	repeats := make([]string, len(v.Repeats))
	for i, r := range v.Repeats {
		repeats[i] = r.Problem(facts.Now)
	}
	return map[string]any{"sent": 0, "recipients": len(plan.Items), "rows": rows,
		"problems": append([]string{}, v.Problems...), "repeats": repeats}
}
