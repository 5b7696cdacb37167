package app

import (
	"context"
	"regexp"
	"time"

	"github.com/smsdesk/smsdesk/config"
	"github.com/smsdesk/smsdesk/model"
)

// SendReport is a send's delivery report: the send as history reads it,
// its accepted messages counted by delivery state (with parts and cost),
// and one row per recipient, made as they are walked (EachRow), never
// held all at once.
type SendReport struct {
	Entry    HistoryEntry
	Delivery model.DeliveryReport

	s       *Session
	names   map[string]string // contacts' names by number
	replies map[string]string // first replies by number
	suffix  string            // the suffix the messages went with
}

// Len is how many rows the report has: one per recipient of the plan.
func (r *SendReport) Len() int { return len(r.Entry.State.Items) }

// ReportRow is one recipient of a send in its report.
type ReportRow struct {
	Index     int    // the item's index in the plan
	Line      string // the sender line it went from
	Recipient string
	// Name is the contact's name where smsdesk knows it (a send to a
	// group whose contacts this machine has listed), else "".
	Name    string
	Message string
	Parts   int
	Status  model.ItemState
	// Delivery is its delivery state ("" when the service did not accept
	// it); When is when that state arrived (the outcome's time for an item
	// with none).
	Delivery model.DeliveryState
	When     time.Time
	// Reply is the first message the recipient wrote back to the line
	// after the send (the inbox's first linked to it; "" for none).
	Reply string
}

// DeliveryReport reads send id's delivery report: its journal, the
// profile's prices, and its deliveries once to count them (a page at a
// time: a report of 100,000 messages peaked at 283–318 MB holding them all
// and every row, issue 42 costs). Its rows are made as EachRow walks them.
func (s *Session) DeliveryReport(ctx context.Context, id string) (*SendReport, error) {
	e, err := s.ReadSend(ctx, id)
	if err != nil {
		return nil, err
	}
	replies, err := config.SendReplies(ctx, s.Paths, id)
	if err != nil {
		return nil, err
	}
	r := &SendReport{Entry: e, s: s, names: s.contactNames(e.State.Plan), replies: replies}
	if !e.State.Plan.NoSuffix {
		r.suffix = e.State.Plan.Suffix
	}
	var messages []model.DeliveredMessage
	err = r.walk(ctx, func(it *model.SentItem, d *config.Delivery) error {
		if d != nil {
			pc := sentParts(it.Message, r.suffix)
			if it.Parts > 0 {
				pc.Parts = it.Parts
			}
			messages = append(messages, model.DeliveredMessage{State: d.State, Parts: pc})
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	r.Delivery = model.NewDeliveryReport(messages, s.Profile.Prices)
	return r, nil
}

// EachRow calls fn with each recipient's row, in plan order, reading the
// deliveries a page at a time; an error of fn's ends the walk and is
// returned.
func (r *SendReport) EachRow(ctx context.Context, fn func(ReportRow) error) error {
	st := r.Entry.State
	return r.walk(ctx, func(it *model.SentItem, d *config.Delivery) error {
		row := ReportRow{Index: it.Index, Line: st.Plan.Sender, Recipient: it.Recipient, Message: it.Message, Parts: it.Parts,
			Status: it.State, When: it.At}
		if k, err := model.OptOutKey(it.Recipient); err == nil {
			row.Name, row.Reply = r.names[k], r.replies[k]
		}
		if d != nil {
			row.Delivery, row.When = d.State, d.At(d.State)
		}
		return fn(row)
	})
}

// Rows are all of the report's rows at once, for a face that lays them
// out together (a table's widths, JSON); CSV and a workbook use EachRow.
func (r *SendReport) Rows(ctx context.Context) ([]ReportRow, error) {
	out := make([]ReportRow, 0, r.Len())
	err := r.EachRow(ctx, func(row ReportRow) error { out = append(out, row); return nil })
	return out, err
}

// walk calls fn with each item of the send and its deliveries row (nil
// for none), in plan order, the rows read a page at a time.
func (r *SendReport) walk(ctx context.Context, fn func(*model.SentItem, *config.Delivery) error) error {
	pages := &deliveryPages{ctx: ctx, paths: r.s.Paths, id: r.Entry.ID, after: -1}
	items := r.Entry.State.Items
	for i := range items {
		d, ok, err := pages.at(items[i].Index)
		if err != nil {
			return err
		}
		var dp *config.Delivery
		if ok {
			dp = &d
		}
		if err := fn(&items[i], dp); err != nil {
			return err
		}
	}
	return nil
}

// deliveryPage is how many deliveries rows a report reads at a time (a
// variable: a test walks pages of two).
var deliveryPage = 1000

// deliveryPages walks a send's deliveries rows in index order, a page at
// a time (config.SendDeliveryPage), for a walk of its items in the same
// order.
type deliveryPages struct {
	ctx   context.Context
	paths config.Paths
	id    string
	page  []config.Delivery
	after int  // the last index read
	done  bool // the last page has been read
}

// at is the deliveries row of item index, if it has one; items are asked
// for in increasing index order.
func (p *deliveryPages) at(index int) (config.Delivery, bool, error) {
	for {
		for len(p.page) > 0 && p.page[0].Index < index {
			p.page = p.page[1:]
		}
		if len(p.page) > 0 || p.done {
			break
		}
		page, err := config.SendDeliveryPage(p.ctx, p.paths, p.id, p.after, deliveryPage)
		if err != nil {
			return config.Delivery{}, false, err
		}
		p.page, p.done = page, len(page) < deliveryPage
		if len(page) > 0 {
			p.after = page[len(page)-1].Index
		}
	}
	if len(p.page) > 0 && p.page[0].Index == index {
		return p.page[0], true, nil
	}
	return config.Delivery{}, false, nil
}

// sentParts is a message's parts as sent: with the suffix on its own
// line when it carried one (a Persian suffix makes Latin text UCS-2).
func sentParts(message, suffix string) model.PartCount {
	if suffix == "" {
		return model.Parts(message)
	}
	return model.Parts(message + "\n" + suffix)
}

// groupSource reads a group's id from a send's source ("group 12", "group
// Newsletter (12)").
var groupSource = regexp.MustCompile(`^group (?:.* \(([^()]+)\)|([^ ()]+))$`)

// groupOf is the group a send's source names (GroupSource), if it names
// one.
func groupOf(source string) (model.ID, bool) {
	m := groupSource.FindStringSubmatch(source)
	if m == nil {
		return "", false
	}
	return model.ID(m[1] + m[2]), true
}

// contactNames are the names of a group send's contacts as this machine
// last listed them (its contact cache), by number (model.OptOutKey);
// none for another source or a group not listed here.
func (s *Session) contactNames(p model.JournalPlan) map[string]string {
	id, ok := groupOf(p.Source)
	if !ok {
		return nil
	}
	cached, ok := config.LoadCachedContacts(s.Paths, p.Profile, p.BaseURL, id)
	if !ok {
		return nil
	}
	names := make(map[string]string, len(cached.Contacts))
	for _, c := range cached.Contacts {
		if k, err := model.OptOutKey(c.Mobile); err == nil && c.Name != "" {
			names[k] = c.Name
		}
	}
	return names
}

// DeliveryCounts counts each of sends ids' accepted messages by delivery
// state, for a page of the history (a send with none accepted is not in
// the map).
func (s *Session) DeliveryCounts(ctx context.Context, ids []string) (map[string]model.DeliveryCounts, error) {
	return config.DeliveryCounts(ctx, s.Paths, ids)
}
