package storage

// RealmDomain is an allowed email domain of an organization: when the
// organization restricts new users' addresses (EmailsRestrictedToDomains),
// an address must be at one of these domains, or at a subdomain of one that
// allows subdomains.
type RealmDomain struct {
	ID      int64  `json:"-"`
	RealmID int64  `json:"-"`
	Domain  string `json:"domain"`
	// AllowSubdomains admits addresses at any subdomain of Domain too.
	AllowSubdomains bool `json:"allow_subdomains"`
}

// RealmDomainTx stores allowed email domains.
type RealmDomainTx interface {
	// CreateRealmDomain stores d under a new ID and sets d.ID. It returns
	// ErrExists when d's realm already has the domain (compared exactly).
	CreateRealmDomain(d *RealmDomain) error
	// RealmDomains returns the realm's domains ordered by ID.
	RealmDomains(realmID int64) ([]RealmDomain, error)
	// UpdateRealmDomain replaces the AllowSubdomains of the entry with d.ID
	// in d.RealmID, or returns ErrNotFound.
	UpdateRealmDomain(d RealmDomain) error
	// DeleteRealmDomain removes the entry with the ID from the realm, or
	// returns ErrNotFound.
	DeleteRealmDomain(realmID, id int64) error
}
