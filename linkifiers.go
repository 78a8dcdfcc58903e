package chat

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/teamchat/chat/internal/uritemplate"
	"github.com/teamchat/chat/storage"
)

// LinkifierRequest is what POST /realm/filters and PATCH
// /realm/filters/{id} send. Pattern and URLTemplate are trimmed of
// surrounding white space; an empty ExampleInput or ReverseTemplate is
// stored as none.
type LinkifierRequest struct {
	Pattern                 string
	URLTemplate             string
	ExampleInput            *string
	ReverseTemplate         *string
	AlternativeURLTemplates []string
}

// ErrLinkifierNotFound answers a linkifier ID that the organization does not
// have.
var ErrLinkifierNotFound = &Error{Code: CodeBadRequest, Msg: "Linkifier not found."}

// Linkifier validation texts.
const (
	msgFieldBlank         = "This field cannot be blank."
	msgInvalidURLTemplate = "Invalid URL template."
	msgExampleNoMatch     = "Example input does not match the linkifier pattern."
	msgReverseMismatch    = "Example text does not match auto-conversion field."
	msgReverseNeedExample = "Example text is required with an auto-conversion field."
	msgDuplicatePattern   = "Realm filter with this Realm and Pattern already exists."
	// allField is the key of errors that concern several fields.
	allField = "__all__"
)

// validationErrors collects linkifier validation failures by field, as the
// reference server reports them: the first becomes msg and all are in the
// "errors" envelope field.
type validationErrors struct {
	first  string
	fields map[string][]string
}

func (v *validationErrors) add(field, msg string) {
	if v.fields == nil {
		v.fields = map[string][]string{}
		v.first = msg
	}
	v.fields[field] = append(v.fields[field], msg)
}

func (v *validationErrors) err() error {
	if v.fields == nil {
		return nil
	}
	return &Error{Code: CodeBadRequest, Msg: v.first, Data: map[string]any{"errors": v.fields}}
}

// Names of the groups that wrapPattern adds.
const (
	groupBefore = "linkifier_before_match"
	groupActual = "linkifier_actual_match"
	groupAfter  = "linkifier_after_match"
)

// wrapPattern makes a pattern match only after the start of the text, white
// space or an opening delimiter, and only when no letter or digit follows,
// as the reference server does, so that "#12" in "abc#12" or "#12a" is not
// linked.
func wrapPattern(pattern string) string {
	return `(?P<` + groupBefore + `>^|\s|['"\(,:<])(?P<` + groupActual + `>` + pattern + `)(?P<` + groupAfter + `>$|[^\pL\pN])`
}

// regexpMessages are RE2's texts for the errors Go's parser reports.
var regexpMessages = map[syntax.ErrorCode]string{
	syntax.ErrInvalidCharClass:      "invalid character class",
	syntax.ErrInvalidCharRange:      "invalid character class range",
	syntax.ErrInvalidEscape:         "invalid escape sequence",
	syntax.ErrInvalidNamedCapture:   "invalid named capture group",
	syntax.ErrInvalidPerlOp:         "invalid perl operator",
	syntax.ErrInvalidRepeatOp:       "bad repetition operator",
	syntax.ErrInvalidRepeatSize:     "invalid repetition size",
	syntax.ErrInvalidUTF8:           "invalid UTF-8",
	syntax.ErrMissingBracket:        "missing ]",
	syntax.ErrMissingParen:          "missing )",
	syntax.ErrMissingRepeatArgument: "no argument for repetition operator",
	syntax.ErrTrailingBackslash:     "trailing \\",
	syntax.ErrUnexpectedParen:       "unexpected )",
	syntax.ErrNestingDepth:          "pattern too large - compile failed",
	syntax.ErrLarge:                 "pattern too large - compile failed",
}

// compilePattern compiles a linkifier pattern, wrapped, in RE2 syntax. A
// failure is "Bad regular expression: {what}: {where}" in RE2's words.
func compilePattern(pattern string) (*regexp.Regexp, string) {
	// Parse the pattern alone first, so that the reported fragment is the
	// user's text and not the wrapping.
	if _, err := syntax.Parse(pattern, syntax.Perl); err != nil {
		var se *syntax.Error
		if errors.As(err, &se) {
			text, ok := regexpMessages[se.Code]
			if !ok {
				text = string(se.Code)
			}
			return nil, "Bad regular expression: " + text + ": " + se.Expr
		}
		return nil, "Bad regular expression: " + err.Error()
	}
	re, err := regexp.Compile(wrapPattern(pattern))
	if err != nil {
		return nil, "Bad regular expression: " + err.Error()
	}
	return re, ""
}

// namedGroups returns the distinct names of the pattern's named groups.
func namedGroups(re *regexp.Regexp) []string {
	var out []string
	for _, n := range re.SubexpNames() {
		if n != "" && n != groupBefore && n != groupActual && n != groupAfter && !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}

// MaxURLTemplateLength bounds a linkifier's URL templates, in characters.
// The reference sets none, but every match in a message or topic expands
// the whole template: a long one made a topic's links megabytes, sent with
// every message of it. URLs longer than this are not used in practice.
const MaxURLTemplateLength = 2048

// tooLongTemplate returns the error of a template longer than
// MaxURLTemplateLength, in the reference's form of a length error, or "".
func tooLongTemplate(t string) string {
	if n := utf8.RuneCountInString(t); n > MaxURLTemplateLength {
		return fmt.Sprintf("Ensure this value has at most %d characters (it has %d).", MaxURLTemplateLength, n)
	}
	return ""
}

// parseURLTemplate parses an RFC 6570 template.
func parseURLTemplate(s string) (*uritemplate.Template, bool) {
	t, err := uritemplate.Parse(s)
	return t, err == nil
}

// validateLinkifier checks req in the reference server's order: the fields
// one by one, then how they fit together, then uniqueness.
func validateLinkifier(req *LinkifierRequest, others []storage.LinkifierRecord) (compiledLinkifier, error) {
	var v validationErrors
	var c compiledLinkifier
	if req.Pattern == "" {
		v.add("pattern", msgFieldBlank)
	} else if re, msg := compilePattern(req.Pattern); msg != "" {
		v.add("pattern", msg)
	} else {
		c.re = re
	}
	if req.URLTemplate == "" {
		v.add("url_template", msgFieldBlank)
	} else if msg := tooLongTemplate(req.URLTemplate); msg != "" {
		v.add("url_template", msg)
	} else if t, ok := parseURLTemplate(req.URLTemplate); !ok {
		v.add("url_template", msgInvalidURLTemplate)
	} else {
		c.template = t
	}
	var alternatives []*uritemplate.Template
	for _, a := range req.AlternativeURLTemplates {
		if msg := tooLongTemplate(a); msg != "" {
			v.add("alternative_url_templates", msg)
			break
		}
		t, ok := parseURLTemplate(a)
		if !ok {
			v.add("alternative_url_templates", msgInvalidURLTemplate)
			break
		}
		alternatives = append(alternatives, t)
	}
	if c.re != nil && c.template != nil {
		if msg := checkGroups(c.re, c.template, alternatives, req); msg != "" {
			v.add(allField, msg)
		}
	}
	if c.re != nil && v.fields == nil {
		for _, o := range others {
			if o.Pattern == req.Pattern {
				v.add(allField, msgDuplicatePattern)
				break
			}
		}
	}
	if err := v.err(); err != nil {
		return compiledLinkifier{}, err
	}
	c.actual = c.re.SubexpIndex(groupActual)
	c.groups = c.re.SubexpNames()
	return c, nil
}

// checkGroups checks that the templates use exactly the pattern's named
// groups (the alternatives: only groups of the pattern), and the example
// and reverse template.
func checkGroups(re *regexp.Regexp, t *uritemplate.Template, alternatives []*uritemplate.Template, req *LinkifierRequest) string {
	groups := namedGroups(re)
	vars := t.Varnames()
	if missing := minMissing(vars, groups); missing != "" {
		return "Group '" + missing + "' in URL template is not present in linkifier pattern."
	}
	if missing := minMissing(groups, vars); missing != "" {
		return "Group '" + missing + "' in linkifier pattern is not present in URL template."
	}
	for _, a := range alternatives {
		if missing := minMissing(a.Varnames(), groups); missing != "" {
			return "Group '" + missing + "' in URL template is not present in linkifier pattern."
		}
	}
	if req.ReverseTemplate != nil && req.ExampleInput == nil {
		return msgReverseNeedExample
	}
	if req.ExampleInput == nil {
		return ""
	}
	// The example is searched with the user's pattern alone, anywhere.
	plain := regexp.MustCompile(req.Pattern)
	m := plain.FindStringSubmatchIndex(*req.ExampleInput)
	if m == nil {
		return msgExampleNoMatch
	}
	if req.ReverseTemplate == nil {
		return ""
	}
	values := map[string]string{}
	for i, name := range plain.SubexpNames() {
		if name != "" && m[2*i] >= 0 {
			values[name] = (*req.ExampleInput)[m[2*i]:m[2*i+1]]
		}
	}
	fields, msg := parseReverseTemplate(*req.ReverseTemplate)
	if msg != "" {
		return msg
	}
	var b strings.Builder
	for _, f := range fields {
		if !f.group {
			b.WriteString(f.text)
			continue
		}
		if !slices.Contains(groups, f.text) {
			return "Group '" + f.text + "' in auto-conversion field is not present in linkifier pattern."
		}
		b.WriteString(values[f.text])
	}
	if b.String() != *req.ExampleInput {
		return msgReverseMismatch
	}
	return ""
}

// minMissing returns the alphabetically smallest name of names that is not
// in have, or "".
func minMissing(names, have []string) string {
	out := ""
	for _, n := range names {
		if !slices.Contains(have, n) && (out == "" || n < out) {
			out = n
		}
	}
	return out
}

// reverseField is a piece of a reverse template: literal text or a group.
type reverseField struct {
	text  string
	group bool
}

// parseReverseTemplate splits a reverse template into literal text and
// {group} fields; {{ and }} are literal braces.
func parseReverseTemplate(s string) ([]reverseField, string) {
	var out []reverseField
	var lit strings.Builder
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '{' && i+1 < len(s) && s[i+1] == '{':
			lit.WriteByte('{')
			i++
		case c == '}' && i+1 < len(s) && s[i+1] == '}':
			lit.WriteByte('}')
			i++
		case c == '}':
			return nil, "Invalid auto-conversion field: single '}' encountered."
		case c == '{':
			end := strings.IndexByte(s[i+1:], '}')
			if end < 0 {
				return nil, "Invalid auto-conversion field: missing '}' character."
			}
			name := s[i+1 : i+1+end]
			if name == "" {
				return nil, "Invalid auto-conversion field: empty field name."
			}
			if lit.Len() > 0 {
				out = append(out, reverseField{text: lit.String()})
				lit.Reset()
			}
			out = append(out, reverseField{text: name, group: true})
			i += end + 1
		default:
			lit.WriteByte(c)
		}
	}
	if lit.Len() > 0 {
		out = append(out, reverseField{text: lit.String()})
	}
	return out, ""
}

// normalise trims the request's strings and drops empty optional ones.
func (req *LinkifierRequest) normalise() {
	req.Pattern = strings.TrimSpace(req.Pattern)
	req.URLTemplate = strings.TrimSpace(req.URLTemplate)
	if req.ExampleInput != nil && *req.ExampleInput == "" {
		req.ExampleInput = nil
	}
	if req.ReverseTemplate != nil && *req.ReverseTemplate == "" {
		req.ReverseTemplate = nil
	}
	if req.AlternativeURLTemplates == nil {
		req.AlternativeURLTemplates = []string{}
	}
}

// MaxLinkifiers bounds an organization's linkifiers: every message and
// topic is matched against each of them. The reference sets no limit; this
// one is far above what organizations use.
const MaxLinkifiers = 100

// ErrTooManyLinkifiers answers a linkifier past MaxLinkifiers.
var ErrTooManyLinkifiers = errorf("This organization has too many linkifiers (limit: %d).", MaxLinkifiers)

// AddLinkifier adds a linkifier after the organization's others and returns
// its ID. Administrators may call it; every active user gets a
// realm_linkifiers event with the new list.
//
// Errors: ErrMustBeAdmin; ErrTooManyLinkifiers; BAD_REQUEST with the
// first validation message and every message by field in the "errors" data
// field ("This field cannot be blank.", "Bad regular expression: ...",
// "Invalid URL template.", a template past MaxURLTemplateLength, the group
// and example checks, "Realm filter with this Realm and Pattern already
// exists.").
func (s *Service) AddLinkifier(ctx context.Context, actor Actor, req LinkifierRequest) (int64, error) {
	req.normalise()
	var id int64
	err := s.updateWithEvents(ctx, actor, func(tx storage.Tx, emit func(Event)) error {
		_, realm, err := s.admit(tx, actor, OpAddLinkifier)
		if err != nil {
			return err
		}
		existing, err := tx.Linkifiers(realm.ID)
		if err != nil {
			return err
		}
		if len(existing) >= MaxLinkifiers {
			return ErrTooManyLinkifiers
		}
		if _, err := validateLinkifier(&req, existing); err != nil {
			return err
		}
		order := int64(0)
		if n := len(existing); n > 0 {
			order = existing[n-1].Order + 1
		}
		l := storage.LinkifierRecord{Linkifier: req.linkifier(0), RealmID: realm.ID, Order: order}
		if err := tx.CreateLinkifier(&l); errors.Is(err, storage.ErrExists) {
			return duplicatePattern()
		} else if err != nil {
			return err
		}
		id = l.ID
		return emitLinkifiers(tx, emit, realm.ID)
	})
	return id, err
}

func duplicatePattern() error {
	var v validationErrors
	v.add(allField, msgDuplicatePattern)
	return v.err()
}

func (req *LinkifierRequest) linkifier(id int64) Linkifier {
	return Linkifier{
		ID: id, Pattern: req.Pattern, URLTemplate: req.URLTemplate, ExampleInput: req.ExampleInput,
		ReverseTemplate: req.ReverseTemplate, AlternativeURLTemplates: slices.Clone(req.AlternativeURLTemplates),
	}
}

// UpdateLinkifier replaces every field of a linkifier, keeping its place in
// the order. Administrators may call it; every active user gets a
// realm_linkifiers event.
//
// Errors: ErrMustBeAdmin; ErrLinkifierNotFound; those of AddLinkifier.
func (s *Service) UpdateLinkifier(ctx context.Context, actor Actor, id int64, req LinkifierRequest) error {
	req.normalise()
	return s.updateWithEvents(ctx, actor, func(tx storage.Tx, emit func(Event)) error {
		_, realm, err := s.admit(tx, actor, OpUpdateLinkifier)
		if err != nil {
			return err
		}
		existing, err := tx.Linkifiers(realm.ID)
		if err != nil {
			return err
		}
		i := slices.IndexFunc(existing, func(l storage.LinkifierRecord) bool { return l.ID == id })
		if i < 0 {
			return ErrLinkifierNotFound
		}
		l := existing[i]
		others := slices.Delete(existing, i, i+1)
		if _, err := validateLinkifier(&req, others); err != nil {
			return err
		}
		l.Linkifier = req.linkifier(l.ID)
		if err := tx.UpdateLinkifier(l); errors.Is(err, storage.ErrExists) {
			return duplicatePattern()
		} else if err != nil {
			return err
		}
		return emitLinkifiers(tx, emit, realm.ID)
	})
}

// DeleteLinkifier removes a linkifier. Administrators may call it; every
// active user gets a realm_linkifiers event.
//
// Errors: ErrMustBeAdmin; ErrLinkifierNotFound.
func (s *Service) DeleteLinkifier(ctx context.Context, actor Actor, id int64) error {
	return s.updateWithEvents(ctx, actor, func(tx storage.Tx, emit func(Event)) error {
		_, realm, err := s.admit(tx, actor, OpDeleteLinkifier)
		if err != nil {
			return err
		}
		if err := tx.DeleteLinkifier(realm.ID, id); errors.Is(err, storage.ErrNotFound) {
			return ErrLinkifierNotFound
		} else if err != nil {
			return err
		}
		return emitLinkifiers(tx, emit, realm.ID)
	})
}

// Linkifiers returns the organization's linkifiers in processing order.
// Any active user may call it.
func (s *Service) Linkifiers(ctx context.Context, actor Actor) ([]Linkifier, error) {
	var out []Linkifier
	err := s.view(ctx, actor, func(tx storage.Tx) error {
		_, realm, err := s.actor(tx, actor)
		if err != nil {
			return err
		}
		out, err = realmLinkifiers(tx, realm.ID)
		return err
	})
	return out, err
}

// realmLinkifiers returns the realm's linkifiers in order, never nil.
func realmLinkifiers(tx storage.Tx, realmID int64) ([]Linkifier, error) {
	records, err := tx.Linkifiers(realmID)
	if err != nil {
		return nil, err
	}
	out := make([]Linkifier, len(records))
	for i, r := range records {
		out[i] = r.Linkifier
	}
	return out, nil
}

// emitLinkifiers sends the realm's linkifier list to its active users.
func emitLinkifiers(tx storage.Tx, emit func(Event), realmID int64) error {
	list, err := realmLinkifiers(tx, realmID)
	if err != nil {
		return err
	}
	return emitToActive(tx, emit, realmID, map[string]any{"type": "realm_linkifiers", "realm_linkifiers": list})
}
