package memory

import (
	"slices"

	"github.com/teamchat/chat/storage"
)

// realmAdminState holds linkifiers and allowed email domains.
type realmAdminState struct {
	lastLinkifierID int64
	// linkifiers lists each realm's linkifiers by Order, then ID.
	linkifiers map[int64][]storage.LinkifierRecord

	lastDomainID int64
	// domains lists each realm's allowed domains by ID.
	domains map[int64][]storage.RealmDomain
}

func newRealmAdminState() realmAdminState {
	return realmAdminState{
		linkifiers: map[int64][]storage.LinkifierRecord{},
		domains:    map[int64][]storage.RealmDomain{},
	}
}

// setLinkifiers replaces a realm's list and logs the undo. Lists are never
// changed in place, so the old one stays valid for the undo and for
// copies handed out earlier.
func (t *tx) setLinkifiers(realmID int64, list []storage.LinkifierRecord) {
	setKey(t, t.s.admin.linkifiers, realmID, list)
}

func cloneLinkifier(l storage.LinkifierRecord) storage.LinkifierRecord {
	if l.ExampleInput != nil {
		v := *l.ExampleInput
		l.ExampleInput = &v
	}
	if l.ReverseTemplate != nil {
		v := *l.ReverseTemplate
		l.ReverseTemplate = &v
	}
	l.AlternativeURLTemplates = slices.Clone(l.AlternativeURLTemplates)
	if l.AlternativeURLTemplates == nil {
		l.AlternativeURLTemplates = []string{}
	}
	return l
}

func sortLinkifiers(list []storage.LinkifierRecord) {
	slices.SortStableFunc(list, func(a, b storage.LinkifierRecord) int {
		if a.Order != b.Order {
			if a.Order < b.Order {
				return -1
			}
			return 1
		}
		if a.ID < b.ID {
			return -1
		} else if a.ID > b.ID {
			return 1
		}
		return 0
	})
}

func (t *tx) CreateLinkifier(l *storage.LinkifierRecord) error {
	if err := t.writable(); err != nil {
		return err
	}
	if _, ok := t.s.realms[l.RealmID]; !ok {
		return storage.ErrNotFound
	}
	list := t.s.admin.linkifiers[l.RealmID]
	for _, o := range list {
		if o.Pattern == l.Pattern {
			return storage.ErrExists
		}
	}
	l.ID = nextID(t, &t.s.admin.lastLinkifierID)
	next := append(slices.Clone(list), cloneLinkifier(*l))
	sortLinkifiers(next)
	t.setLinkifiers(l.RealmID, next)
	return nil
}

func (t *tx) Linkifiers(realmID int64) ([]storage.LinkifierRecord, error) {
	list := t.s.admin.linkifiers[realmID]
	out := make([]storage.LinkifierRecord, len(list))
	for i, l := range list {
		out[i] = cloneLinkifier(l)
	}
	return out, nil
}

func (t *tx) UpdateLinkifier(l storage.LinkifierRecord) error {
	if err := t.writable(); err != nil {
		return err
	}
	list := t.s.admin.linkifiers[l.RealmID]
	i := slices.IndexFunc(list, func(o storage.LinkifierRecord) bool { return o.ID == l.ID })
	if i < 0 {
		return storage.ErrNotFound
	}
	for _, o := range list {
		if o.ID != l.ID && o.Pattern == l.Pattern {
			return storage.ErrExists
		}
	}
	next := slices.Clone(list)
	next[i] = cloneLinkifier(l)
	sortLinkifiers(next)
	t.setLinkifiers(l.RealmID, next)
	return nil
}

func (t *tx) DeleteLinkifier(realmID, id int64) error {
	if err := t.writable(); err != nil {
		return err
	}
	list := t.s.admin.linkifiers[realmID]
	i := slices.IndexFunc(list, func(o storage.LinkifierRecord) bool { return o.ID == id })
	if i < 0 {
		return storage.ErrNotFound
	}
	t.setLinkifiers(realmID, slices.Delete(slices.Clone(list), i, i+1))
	return nil
}

// setDomains replaces a realm's domain list and logs the undo; lists are
// never changed in place.
func (t *tx) setDomains(realmID int64, list []storage.RealmDomain) {
	setKey(t, t.s.admin.domains, realmID, list)
}

func (t *tx) CreateRealmDomain(d *storage.RealmDomain) error {
	if err := t.writable(); err != nil {
		return err
	}
	if _, ok := t.s.realms[d.RealmID]; !ok {
		return storage.ErrNotFound
	}
	list := t.s.admin.domains[d.RealmID]
	for _, o := range list {
		if o.Domain == d.Domain {
			return storage.ErrExists
		}
	}
	d.ID = nextID(t, &t.s.admin.lastDomainID)
	t.setDomains(d.RealmID, append(slices.Clone(list), *d))
	return nil
}

func (t *tx) RealmDomains(realmID int64) ([]storage.RealmDomain, error) {
	out := slices.Clone(t.s.admin.domains[realmID])
	if out == nil {
		out = []storage.RealmDomain{}
	}
	return out, nil
}

func (t *tx) RealmDomain(realmID int64, domain string) (storage.RealmDomain, error) {
	for _, d := range t.s.admin.domains[realmID] {
		if d.Domain == domain {
			return d, nil
		}
	}
	return storage.RealmDomain{}, storage.ErrNotFound
}

func (t *tx) UpdateRealmDomain(d storage.RealmDomain) error {
	if err := t.writable(); err != nil {
		return err
	}
	list := t.s.admin.domains[d.RealmID]
	i := slices.IndexFunc(list, func(o storage.RealmDomain) bool { return o.ID == d.ID })
	if i < 0 {
		return storage.ErrNotFound
	}
	next := slices.Clone(list)
	next[i].AllowSubdomains = d.AllowSubdomains
	t.setDomains(d.RealmID, next)
	return nil
}

func (t *tx) DeleteRealmDomain(realmID, id int64) error {
	if err := t.writable(); err != nil {
		return err
	}
	list := t.s.admin.domains[realmID]
	i := slices.IndexFunc(list, func(o storage.RealmDomain) bool { return o.ID == id })
	if i < 0 {
		return storage.ErrNotFound
	}
	t.setDomains(realmID, slices.Delete(slices.Clone(list), i, i+1))
	return nil
}
