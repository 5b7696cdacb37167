package model

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"
)

// Template is a message text with variables: {name}, {mobile} and any column of
// a contacts file, such as {city}. Write {{ and }} for literal braces. Variable
// names are matched case-insensitively and trimmed.
type Template struct {
	text  string
	parts []tmplPart
	vars  []string
}

// tmplPart is a literal run of text, or a variable when isVar.
type tmplPart struct {
	s     string
	isVar bool
}

// ErrMissingVariable is matched by errors.Is when a template variable has no
// value.
var ErrMissingVariable = errors.New("missing variable")

// ParseTemplate reads a message template. A { without its closing }, a lone },
// an empty {} and a variable spanning lines are errors that name the character
// position.
func ParseTemplate(text string) (*Template, error) {
	t := &Template{text: text}
	var lit strings.Builder
	seen := map[string]bool{}
	pos := func(i int) int { return utf8.RuneCountInString(text[:i]) + 1 }
	for i := 0; i < len(text); {
		c := text[i]
		switch {
		case c == '{' && i+1 < len(text) && text[i+1] == '{':
			lit.WriteByte('{')
			i += 2
		case c == '}' && i+1 < len(text) && text[i+1] == '}':
			lit.WriteByte('}')
			i += 2
		case c == '}':
			return nil, fmt.Errorf("template: a lone } at character %d; write }} for a literal brace", pos(i))
		case c == '{':
			end := strings.IndexAny(text[i+1:], "{}\n")
			if end < 0 || text[i+1+end] != '}' {
				return nil, fmt.Errorf("template: the { at character %d is not closed; close it with } or write {{ for a literal brace", pos(i))
			}
			name := strings.ToLower(strings.TrimSpace(text[i+1 : i+1+end]))
			if name == "" {
				return nil, fmt.Errorf("template: empty {} at character %d; put a column name inside, such as {name}", pos(i))
			}
			if lit.Len() > 0 {
				t.parts = append(t.parts, tmplPart{s: lit.String()})
				lit.Reset()
			}
			t.parts = append(t.parts, tmplPart{s: name, isVar: true})
			if !seen[name] {
				seen[name] = true
				t.vars = append(t.vars, name)
			}
			i += end + 2
		default:
			lit.WriteByte(c)
			i++
		}
	}
	if lit.Len() > 0 {
		t.parts = append(t.parts, tmplPart{s: lit.String()})
	}
	return t, nil
}

// String returns the template's text as written.
func (t *Template) String() string { return t.text }

// Vars returns the variable names the template uses, lower-cased, in order of
// first use.
func (t *Template) Vars() []string { return append([]string(nil), t.vars...) }

// Render fills the template from vars (keys as Vars returns them). A variable
// without a value is an error naming it, matching ErrMissingVariable.
func (t *Template) Render(vars map[string]string) (string, error) {
	n := 0
	for _, p := range t.parts {
		if !p.isVar {
			n += len(p.s)
			continue
		}
		v, ok := vars[p.s]
		if !ok {
			return "", fmt.Errorf("%w {%s}", ErrMissingVariable, p.s)
		}
		n += len(v)
	}
	var b strings.Builder
	b.Grow(n)
	for _, p := range t.parts {
		if p.isVar {
			b.WriteString(vars[p.s])
		} else {
			b.WriteString(p.s)
		}
	}
	return b.String(), nil
}

// PairsFromTemplate renders t for every contact, using the contact's Fields
// plus name and mobile (always available). The recipient is the contact's
// mobile as given. An error names the contact's line, the missing variable and
// the columns the file has.
func PairsFromTemplate(t *Template, contacts []ContactRow) ([]PairRow, error) {
	pairs := make([]PairRow, 0, len(contacts))
	vars := make(map[string]string, 8)
	for _, c := range contacts {
		clear(vars)
		for k, v := range c.Fields {
			vars[k] = v
		}
		vars["name"] = c.Name
		vars["mobile"] = c.Mobile
		msg, err := t.Render(vars)
		if err != nil {
			return nil, &CSVError{Line: c.Line, Err: fmt.Errorf("%w; the file has %s", err, columnList(c.Fields))}
		}
		pairs = append(pairs, PairRow{Line: c.Line, Recipient: c.Mobile, Message: msg})
	}
	return pairs, nil
}

// columnList names the variables a contact row offers, for error messages.
func columnList(fields map[string]string) string {
	keys := []string{"mobile", "name"}
	for k := range fields {
		if k != "mobile" && k != "name" {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys[2:])
	return "{" + strings.Join(keys, "}, {") + "}"
}
