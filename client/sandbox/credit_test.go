package sandbox

import (
	"path/filepath"
	"strings"
	"testing"
)

func TestAccountCredit(t *testing.T) {
	five := int64(5)
	e := setup(t, Options{Senders: []string{"3000505"}, Credit: &five})
	d := e.do("GET", "/account/credit", nil).data(t, 200)
	if num(t, d, "sms_count") != 5 || num(t, d, "rial") != 5*RialPerPart {
		t.Fatalf("credit = %v", d)
	}
	// 3 parts (one 2-part Persian message and one 1-part Latin) go; the credit drops to 2.
	long := strings.Repeat("ب", 100)
	e.do("POST", "/sms/send-pair", sendBody("3000505", item("09121234567", long), item("09131234567", "hi"))).data(t, 200)
	if e.srv.Credit() != 2 {
		t.Fatalf("credit after 3 parts = %d, want 2", e.srv.Credit())
	}
	// A request that needs 3 parts is refused whole: 402, nothing sent, nothing charged.
	before := len(e.srv.Sent())
	r := e.do("POST", "/sms/send-pair", sendBody("3000505", item("09121234567", "a"), item("09131234567", "b"), item("09141234567", "c")))
	if r.status != 402 || r.body["error_code"] != "insufficient_credit" || !strings.Contains(r.body["message"].(string), "needs 3 SMS parts, the account has 2") {
		t.Fatalf("over credit: %d %v", r.status, r.body)
	}
	if len(e.srv.Sent()) != before || e.srv.Credit() != 2 {
		t.Fatalf("a refused request sent %d, credit %d", len(e.srv.Sent())-before, e.srv.Credit())
	}
	// Rejected items cost nothing.
	e.do("POST", "/sms/send-pair", sendBody("3000505", item("12345", "a"), item("09141234567", "c"))).data(t, 200)
	if e.srv.Credit() != 1 {
		t.Fatalf("credit = %d, want 1", e.srv.Credit())
	}
	e.srv.SetCredit(100)
	if d := e.do("GET", "/account/credit", nil).data(t, 200); num(t, d, "sms_count") != 100 {
		t.Fatalf("after a top-up: %v", d)
	}
	if got := e.srv.RequestsTo("POST", "/sms/send-pair"); got != 3 {
		t.Errorf("RequestsTo(send-pair) = %d, want 3", got)
	}
	if got := e.srv.RequestsTo("GET", "/account/credit"); got != 2 {
		t.Errorf("RequestsTo(credit) = %d, want 2", got)
	}
	if r := e.do("POST", "/account/credit", nil); r.status != 405 {
		t.Errorf("POST /account/credit: %d", r.status)
	}
}

func TestAccountCreditDefaults(t *testing.T) {
	e := setup(t, Options{})
	if d := e.do("GET", "/account/credit", nil).data(t, 200); num(t, d, "sms_count") != DefaultCredit {
		t.Fatalf("default credit = %v", d)
	}
	off := setup(t, Options{NoCreditEndpoint: true})
	if r := off.do("GET", "/account/credit", nil); r.status != 404 {
		t.Fatalf("NoCreditEndpoint: %d", r.status)
	}
	if r := off.doKey("sk_test_wrong", "GET", "/account/credit", nil, nil); r.status != 401 {
		t.Fatalf("wrong key: %d", r.status)
	}
}

func TestAccountCreditPersists(t *testing.T) {
	file := filepath.Join(t.TempDir(), "data.json")
	ten := int64(10)
	s, err := New(Options{DataFile: file, Credit: &ten})
	if err != nil {
		t.Fatal(err)
	}
	s.SetCredit(7)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s2, err := New(Options{DataFile: file})
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	if s2.Credit() != 7 {
		t.Fatalf("credit after a restart = %d, want 7", s2.Credit())
	}
	twenty := int64(20)
	s3, err := New(Options{DataFile: filepath.Join(t.TempDir(), "x.json"), Credit: &twenty})
	if err != nil {
		t.Fatal(err)
	}
	defer s3.Close()
	if s3.Credit() != 20 {
		t.Fatalf("--credit = %d", s3.Credit())
	}
}
