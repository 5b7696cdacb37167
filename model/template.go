package model

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"
)

// Template is a message text with variables: {name}, {mobile} and any column of
// a contacts file, such as {city}. A variable may give a fallback after a bar,
// used when the row's value is empty: {name|friend}. Write {{ and }} for literal
// braces. Variable names are matched case-insensitively and trimmed; a
// fallback is trimmed.
type Template struct {
	text  string
	parts []tmplPart
	vars  []string
}

// tmplPart is a literal run of text, or a variable when isVar (with its
// fallback when hasFallback).
type tmplPart struct {
	s           string
	isVar       bool
	fallback    string
	hasFallback bool
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
			return nil, fmt.Errorf("template: a lone } at character %d; write }} for a literal brace", charAt(text, i))
		case c == '{':
			part, n, err := parseVar(text, i)
			if err != nil {
				return nil, err
			}
			if lit.Len() > 0 {
				t.parts = append(t.parts, tmplPart{s: lit.String()})
				lit.Reset()
			}
			t.parts = append(t.parts, part)
			if !seen[part.s] {
				seen[part.s] = true
				t.vars = append(t.vars, part.s)
			}
			i += n
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

// parseVar reads the variable whose { is at text[i]: {name} or
// {name|fallback}, the name lower-cased; n is its length with the braces.
func parseVar(text string, i int) (part tmplPart, n int, err error) {
	end := strings.IndexAny(text[i+1:], "{}\n")
	if end < 0 || text[i+1+end] != '}' {
		return tmplPart{}, 0, fmt.Errorf("template: the { at character %d is not closed; close it with } or write {{ for a literal brace", charAt(text, i))
	}
	name, fallback, hasFallback := strings.Cut(text[i+1:i+1+end], "|")
	name = strings.ToLower(strings.TrimSpace(name))
	if name == "" {
		return tmplPart{}, 0, fmt.Errorf("template: empty {} at character %d; put a column name inside, such as {name} or {name|friend}", charAt(text, i))
	}
	return tmplPart{s: name, isVar: true, fallback: strings.TrimSpace(fallback), hasFallback: hasFallback}, end + 2, nil
}

// charAt is the position of text[i] in characters, from 1.
func charAt(text string, i int) int { return utf8.RuneCountInString(text[:i]) + 1 }

// String returns the template's text as written.
func (t *Template) String() string { return t.text }

// Vars returns the variable names the template uses, lower-cased, in order of
// first use.
func (t *Template) Vars() []string { return append([]string(nil), t.vars...) }

// Render fills the template from vars (keys as Vars returns them); an empty
// value (blank after trimming) takes the variable's fallback when it has one,
// else stays empty (see Fill, which reports it). A variable without a value is
// an error naming it, matching ErrMissingVariable.
func (t *Template) Render(vars map[string]string) (string, error) {
	s, _, err := t.Fill(vars)
	return s, err
}

// Fill is Render that also lists, in order of first use, the variables that
// were empty and had no fallback: a message with a silent blank ("Hi , …")
// that must not be sent as is.
func (t *Template) Fill(vars map[string]string) (msg string, empty []string, err error) {
	n := 0
	for _, p := range t.parts {
		if !p.isVar {
			n += len(p.s)
			continue
		}
		v, ok := vars[p.s]
		if !ok {
			return "", nil, fmt.Errorf("%w {%s}", ErrMissingVariable, p.s)
		}
		n += len(v) + len(p.fallback)
	}
	var b strings.Builder
	b.Grow(n)
	for _, p := range t.parts {
		if !p.isVar {
			b.WriteString(p.s)
			continue
		}
		v := vars[p.s]
		if strings.TrimSpace(v) == "" {
			if p.hasFallback {
				v = p.fallback
			} else if !slices.Contains(empty, p.s) {
				empty = append(empty, p.s)
			}
		}
		b.WriteString(v)
	}
	return b.String(), empty, nil
}

// PairsFromTemplate renders t for every contact, using the contact's Fields
// plus name and mobile (always available). The recipient is the contact's
// mobile as given. A variable that is empty for a contact, with no fallback,
// becomes a problem of that row (BuildPlan copies it into the plan): "empty
// {name}; give a fallback such as {name|friend}". A variable that is not a
// column at all is an error naming the contact's line and the columns the file
// has.
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
		msg, empty, err := t.Fill(vars)
		if err != nil {
			return nil, &CSVError{Line: c.Line, Err: fmt.Errorf("%w; the file has %s", err, columnList(c.Fields))}
		}
		row := PairRow{Line: c.Line, Recipient: c.Mobile, Message: msg}
		if c.Problem != "" {
			row.Problems = append(row.Problems, c.Problem)
		}
		for _, v := range empty {
			row.Problems = append(row.Problems, EmptyVariableProblem(v))
		}
		pairs = append(pairs, row)
	}
	return pairs, nil
}

// EmptyVariableProblem is the plan problem of a row whose template variable v
// is empty.
func EmptyVariableProblem(v string) string {
	return fmt.Sprintf("empty {%s}; fill it in, or give a fallback such as {%s|friend}", v, v)
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
