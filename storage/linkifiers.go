package storage

// Linkifier turns text that matches Pattern in messages and topics into a
// link: the URL is URLTemplate, an RFC 6570 template whose variables are
// the pattern's named groups.
type Linkifier struct {
	ID int64 `json:"id"`
	// Pattern is a regular expression in the RE2 dialect, with named
	// groups written (?P<name>...).
	Pattern     string `json:"pattern"`
	URLTemplate string `json:"url_template"`
	// ExampleInput is a text that Pattern matches; needed with
	// ReverseTemplate.
	ExampleInput *string `json:"example_input"`
	// ReverseTemplate rebuilds the linked text from the named groups:
	// {name} is a group, {{ and }} are literal braces.
	ReverseTemplate *string `json:"reverse_template"`
	// AlternativeURLTemplates are further RFC 6570 templates whose URLs
	// clients turn back into the linked text (reverse linkification).
	AlternativeURLTemplates []string `json:"alternative_url_templates"`
}

// LinkifierRecord is a linkifier as stored.
type LinkifierRecord struct {
	Linkifier
	RealmID int64
	// Order is the linkifier's place in the processing order, ascending.
	Order int64
}

// LinkifierTx stores linkifiers.
type LinkifierTx interface {
	// CreateLinkifier stores l under a new ID and sets l.ID. It returns
	// ErrExists when l's realm already has a linkifier with the same
	// Pattern.
	CreateLinkifier(l *LinkifierRecord) error
	// Linkifiers returns the realm's linkifiers by Order, then ID.
	Linkifiers(realmID int64) ([]LinkifierRecord, error)
	// UpdateLinkifier replaces the linkifier with l.ID in l.RealmID, or
	// returns ErrNotFound. ErrExists as for CreateLinkifier.
	UpdateLinkifier(l LinkifierRecord) error
	// DeleteLinkifier removes the realm's linkifier with the ID, or
	// returns ErrNotFound.
	DeleteLinkifier(realmID, id int64) error
}
